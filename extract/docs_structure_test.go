package extract

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestDocRootByStructure checks the signals that make a page without a
// known generator tag documentation, and the ones that must not.
func TestDocRootByStructure(t *testing.T) {
	toc := `<ul><li><a href="#a">A</a></li><li><a href="#b">B</a></li><li><a href="#c">C</a></li></ul>`
	tests := []struct {
		name, html string
		wantID     string // id of the content element; "" for not documentation
	}{
		{"manual link rel", `<html><head><link rel="up" href="index.html"></head><body><div id="c" role="main"><p>Text.</p></div></body></html>`, "c"},
		{"indexed manual without a container", `<html><body id="b"><h1>TOOL</h1>` + toc + `<a name="a"></a><h2>NAME</h2>tool - do things<a name="b"></a><h2>OPTIONS</h2><dl><dt>-a</dt><dd>All.</dd></dl><a name="c"></a><h2>SEE ALSO</h2>other(1)</body></html>`, "b"},
		{"content found from its headings", `<html><body><div id="top"><a href="/">Docs</a></div><div id="page"><div id="c"><h1>Package x</h1>` + toc + `<h2 id="a">A</h2><pre>x := 1</pre><h2 id="b">B</h2><p>b</p><h2 id="c">C</h2><p>c</p></div></div></body></html>`, "c"},
		{"page in a sequence with code", `<html><body><nav><a rel="prev" href="a.html">Previous</a></nav><div id="m" role="main"><h1>Install</h1><h2>From source</h2><pre>make install</pre></div></body></html>`, "m"},
		{"article with a table of contents", `<html><body><article id="a"><h1>Storm hits coast</h1>` + toc + `<h2 id="a">Damage</h2><p>Winds tore roofs.</p><h2 id="b">Response</h2><p>Crews worked.</p><h2 id="c">Outlook</h2><table><tr><td>Mon</td><td>Rain</td></tr></table></article></body></html>`, ""},
		{"blog post in a sequence", `<html><body><main id="m"><h1>My trip</h1><h2>Day one</h2><p>We walked.</p><a rel="next" href="/2">Next post</a></main></body></html>`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader(tt.html))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if root := docRoot(doc); root != nil {
				got = attr(root, "id")
				if got == "" {
					got = "<" + root.Data + ">"
				}
			}
			if got != tt.wantID {
				t.Errorf("content element %q, want %q", got, tt.wantID)
			}
		})
	}
}

// TestDocNavigation checks the navigation found by structure alone.
func TestDocNavigation(t *testing.T) {
	tests := []struct {
		name, html string
		want       []string
	}{
		{
			"prev/next panel",
			`<div class="header"><p>Next: <a rel="next" href="b.html">Basics</a>, Up: <a rel="up" href="index.html">Top</a></p></div><h2>Limits</h2><p>See the <a rel="next" href="b.html">next page</a> for the details of every limit that applies.</p>`,
			[]string{"Limits", "See the next page for the details of every limit that applies."},
		},
		{
			"permalinks and link menus",
			`<h2>Options<a class="x" href="#options">¶</a></h2><p>Text <a href="#fn1">1</a>.</p><p><a href="/">Home</a> <a href="../index.html">Return to Main Contents</a></p><p>Use <a href="a">a</a>, <a href="b">b</a>.</p>`,
			[]string{"Options", "Text 1.", "Use a, b."},
		},
		{
			"in-page index, its empty heading and the colophon",
			`<h1>TOOL</h1><h2 id="n">NAME</h2>tool - do things with many words in a long enough manual line<h2 id="o">OPTIONS</h2>none at all here, as the tool takes no options and reads its input from the standard input only<hr><h2>Index</h2><dl><dt><a href="#n">NAME</a></dt><dt><a href="#o">OPTIONS</a></dt></dl><hr>This document was created by <a href="/cgi-bin/x">x</a>.`,
			[]string{"TOOL", "NAME", "tool - do things with many words in a long enough manual line", "OPTIONS", "none at all here, as the tool takes no options and reads its input from the standard input only"},
		},
		{
			"grid table and folded twin",
			`<div class="t"><div class="table-header">Type</div><div class="table-header">Field</div><div>int</div><div>size</div><div>bool</div><div>ok</div></div><div class="collapsed"><h2>Example ▹</h2></div><div class="expanded"><h2>Example ▾</h2><pre>x()</pre></div><dl><dt>Returns:</dt><dd>the size</dd></dl>`,
			[]string{"Type | Field", "int | size", "bool | ok", "Example ▾", "x()", "Returns: the size"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := html.Parse(strings.NewReader(`<html><body><main>` + tt.html + `</main></body></html>`))
			if err != nil {
				t.Fatal(err)
			}
			got := docParagraphs(findDocContent(findBody(doc)), 0)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
