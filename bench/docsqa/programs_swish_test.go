package main

import (
	"os"
	"strings"
	"testing"
)

// The fixtures are what search++ and recollq printed for one query over
// the Postfix and Zsh manuals.

func TestParseSwishppReadsRankedPathsAndTitles(t *testing.T) {
	out, err := os.ReadFile("testdata/searchpp.out")
	if err != nil {
		t.Fatal(err)
	}
	hits := parseSwishpp(out)
	if len(hits) != 3 {
		t.Fatalf("got %d hits, want 3: %+v", len(hits), hits)
	}
	if hits[0].path != "/docs/qmqpd.8.html" || hits[0].title != "Postfix manual - qmqpd(8)" {
		t.Errorf("first hit = %+v", hits[0])
	}
	if hits[1].title != "Postfix Before-Queue Content Filter" {
		t.Errorf("a title with spaces is kept whole: %+v", hits[1])
	}
}

func TestParseRecollDecodesFieldsAndKeepsTheTreesPages(t *testing.T) {
	out, err := os.ReadFile("testdata/recollq.out")
	if err != nil {
		t.Fatal(err)
	}
	hits := parseRecoll(out, "file:///usr/share/doc/zsh-common/html/")
	if len(hits) != 3 {
		t.Fatalf("got %d hits, want 3 (header lines skipped): %+v", len(hits), hits)
	}
	if hits[1].path != "/docs/Zsh-Line-Editor.html" || hits[1].title != "18 Zsh Line Editor (zsh)" {
		t.Errorf("second hit = %+v", hits[1])
	}
	if got := parseRecoll(out, "file:///elsewhere/"); len(got) != 0 {
		t.Errorf("pages outside the served tree are dropped, got %+v", got)
	}
}

func TestRenderHitsEscapesAndLinks(t *testing.T) {
	page := renderHits("Recoll", `a<b "c"`, "/recoll", []programHit{{path: "/docs/x.html", title: "X & Y", snippet: "s<t"}})
	for _, want := range []string{`<a href="/docs/x.html">X &amp; Y</a>`, `value="a&lt;b &#34;c&#34;"`, "s&lt;t", "<p>1 results</p>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}
