package extract

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

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
		{
			"admonition captions that only name their box",
			`<h2>Checksums</h2><div class="note"><table border="0" summary="Note"><tr><td rowspan="2"><img alt="[Note]" src="note.png"></td><th align="left">Note</th></tr><tr><td><p>Offloading hands packets over before the sums exist.</p></td></tr></table></div><div class="admonition warning"><p class="admonition-title">Warning</p><p>Never edit the file by hand.</p></div><table><tr><td><img src="i.png"></td><td>An icon beside its text.</td></tr></table><dl class="py class"><dt><em class="property"><span class="pre">class</span></em> Foo</dt><dd>A class.</dd></dl>`,
			[]string{"Checksums", "Offloading hands packets over before the sums exist.", "Never edit the file by hand.", "An icon beside its text.", "class Foo: A class."},
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
