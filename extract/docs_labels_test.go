package extract

import (
	"fmt"
	"strings"
	"testing"
)

// A manual converted from LaTeX as one long page: no <code> and no
// generator a documentation tool is known by, its section labels written
// as empty anchors in a paragraph of their own just after each heading,
// its cross-references percent-encoding the label's colon. The references
// index the page's own sections, so it is read as documentation and kept
// whole, past the cut for articles.
func TestLaTeXManualLabelsAfterHeadings(t *testing.T) {
	for _, tt := range []struct{ name, href, anchor string }{
		{"encoded colon", "#se%%3A%s", `<a id="se:%s"></a>`},
		{"plain fragment", "#se-%s", `<a id="se-%s"></a>`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString(`<!DOCTYPE html><html><head><title>Tallyc User's Guide</title></head><body><h1>Tallyc User's Guide</h1>`)
			labels := []string{"install", "options", "config", "errors"}
			b.WriteString(`<p>See the sections on`)
			for _, l := range labels {
				fmt.Fprintf(&b, ` <a href="`+tt.href+`">%s</a>`, l, l)
			}
			b.WriteString(`.</p>`)
			filler := strings.Repeat("The compiler reads each unit once and keeps its interface in memory while it compiles the program that uses it. ", 40)
			for k, l := range labels {
				fmt.Fprintf(&b, `<h2 id="sec%d">%d Section %s</h2><p>`+tt.anchor+`</p>`, k, k+1, l, l)
				for n := 0; n < 40; n++ {
					fmt.Fprintf(&b, "<p>%s</p>", filler)
				}
				b.WriteString(`<pre>tallyc -Fu lib main.pas</pre>`)
			}
			b.WriteString(`<h2 id="last">Run-time errors</h2><p>Error 216 is a general protection fault: the program read memory it does not own.</p></body></html>`)
			if b.Len() < 2*maxDocText {
				t.Fatalf("the page is too short to test the cut: %d bytes", b.Len())
			}
			page, err := Extract([]byte(b.String()), "http://127.0.0.1/user.html")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(page.Text, "Error 216 is a general protection fault") {
				t.Errorf("the manual's last section was cut (%d bytes of text kept)", len(page.Text))
			}
		})
	}
}

// A reference page whose sidebar opens with the site's name in an <h1>
// before the type's own <h1>: the page is titled by its type.
func TestSidebarHeadingIsNotThePageTitle(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>Quill::Pool - Tallyc 2.1</title></head><body>`)
	b.WriteString(`<div class="sidebar"><div class="project-summary"><h1 class="project-name"><a href="../index.html">Tallyc</a></h1></div><ul>`)
	for _, n := range []string{"Quill", "Quill::Pool", "Quill::Reader", "Quill::Writer"} {
		fmt.Fprintf(&b, `<li><a href="../%s.html">%s</a></li>`, n, n)
	}
	b.WriteString(`</ul></div><div class="main-content"><h1 class="type-name"><span class="kind">class</span> Quill::Pool</h1>`)
	for _, h := range []string{"overview", "constructors", "methods"} {
		fmt.Fprintf(&b, `<h2><a id="%s" href="#%s">%s</a></h2><p>A pool keeps <code>size</code> open readers and hands one out per <code>take</code>.</p><pre>pool = Quill::Pool.new(size: 4)</pre>`, h, h, h)
	}
	b.WriteString(`</div></body></html>`)
	page, err := Extract([]byte(b.String()), "http://127.0.0.1/Quill/Pool.html")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.Title, "Quill::Pool") {
		t.Errorf("title %q, want the type's heading", page.Title)
	}
}
