package extract

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// readTestdata returns a testdata file, gunzipped when it ends in .gz.
func readTestdata(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".gz") {
		return raw
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("gunzip %s: %v", path, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip %s: %v", path, err)
	}
	return out
}

func mustParseURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// shingleScore is the extraction benchmark's measure (see `quarry eval
// extraction`): precision and recall of the word 4-grams of pred against
// those of truth, case-sensitive, a text under four words being one
// shingle. The scorer itself lives with the command; the golden tests only
// need its two figures.
func shingleScore(pred, truth string) (p, r float64) {
	shingles := func(s string) map[string]int {
		toks := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '_' })
		out := map[string]int{}
		if len(toks) > 0 && len(toks) < 4 {
			out[strings.Join(toks, " ")]++
		}
		for i := 0; i+4 <= len(toks); i++ {
			out[strings.Join(toks[i:i+4], " ")]++
		}
		return out
	}
	want, got := shingles(truth), shingles(pred)
	var tp, fp, fn int
	for k, w := range want {
		tp += min(w, got[k])
		fn += max(0, w-got[k])
	}
	for k, g := range got {
		fp += max(0, g-want[k])
	}
	if tp+fp > 0 {
		p = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		r = float64(tp) / float64(tp+fn)
	}
	return p, r
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// TestExtractGolden runs Extract over benchmark pages saved in
// testdata/extract and compares the text with the benchmark's ground truth
// by shingle F1, and the metadata with what the pages declare.
func TestExtractGolden(t *testing.T) {
	tests := []struct {
		name      string
		url       string
		minF1     float64
		title     string // substring of the expected title
		lang      string
		published string
		canonical string
	}{
		{
			name:      "panarmenian-en",
			url:       "http://www.panarmenian.net/eng/news/275221/",
			minF1:     0.95,
			title:     "More than 100 protesters killed in Iran",
			lang:      "en",
			published: "2019-11-20",
			canonical: "http://www.panarmenian.net/eng/news/275221/",
		},
		{
			// The post is short and the page holds a long comment thread,
			// which the fallback extractors used to return instead.
			name:      "givewell-open-thread",
			url:       "https://blog.givewell.org/2018/09/10/september-2018-open-thread/#comment-949890",
			minF1:     0.9,
			title:     "September 2018 open thread",
			lang:      "en",
			published: "2018-09-10",
			canonical: "https://blog.givewell.org/2018/09/10/september-2018-open-thread/",
		},
		{
			// A short news brief: trafilatura keeps too little and the
			// readability fallback takes over.
			name:      "jpost-short",
			url:       "https://www.jpost.com/Breaking-News/Son-of-former-German-president-stabbed-to-death-in-Berlin-608399",
			minF1:     0.9,
			title:     "Son of former German president stabbed",
			lang:      "en",
			published: "2019-11-20",
			canonical: "https://www.jpost.com/Breaking-News/Son-of-former-German-president-stabbed-to-death-in-Berlin-608399",
		},
		{
			name:      "comoeducar-pt",
			url:       "http://comoeducarseusfilhos.com.br/blog/uma-palinha-das-brincadeiras-musicais-do-grupo-serelepe/",
			minF1:     0.95,
			title:     "brincadeiras musicais do grupo Serelepe",
			lang:      "pt",
			published: "2018-09-27",
			canonical: "http://comoeducarseusfilhos.com.br/blog/uma-palinha-das-brincadeiras-musicais-do-grupo-serelepe/",
		},
		{
			name:      "gto-normativy-ru",
			url:       "https://gto-normativy.ru/skajrim-skorost-bega-kak-uvelichit/",
			minF1:     0.95,
			title:     "Скайрим",
			lang:      "ru",
			published: "2018-10-03",
			canonical: "https://gto-normativy.ru/skajrim-skorost-bega-kak-uvelichit/",
		},
		{
			name:      "lhpat-ja",
			url:       "https://www.lhpat-tm.com/blog/decision-info/index-2726.html",
			minF1:     0.95,
			title:     "商標法違反",
			lang:      "ja",
			published: "2016-12-01",
			canonical: "https://www.lhpat-tm.com/blog/decision-info/index-2726.html",
		},
		{
			name:      "entermedia-ko",
			url:       "http://entermedia.co.kr/news/news_view.html?idx=8576&page=1&bc=03&mc=08&find=&sch_date=",
			minF1:     0.95,
			title:     "엔터",
			lang:      "ko",
			canonical: "http://entermedia.co.kr/news/news_view.html?idx=8576&page=1&bc=03&mc=08&find=&sch_date=",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := readTestdata(t, tt.name+".html.gz")
			want := string(readTestdata(t, tt.name+".txt"))

			page, err := Extract(raw, tt.url)
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			p, r := shingleScore(page.Text, want)
			if got := f1(p, r); got < tt.minF1 {
				t.Errorf("shingle F1 = %.3f (P %.3f, R %.3f), want ≥ %.2f\ngot text:\n%s", got, p, r, tt.minF1, page.Text)
			}
			if !strings.Contains(page.Title, tt.title) {
				t.Errorf("Title = %q, want it to contain %q", page.Title, tt.title)
			}
			if page.Lang != tt.lang {
				t.Errorf("Lang = %q, want %q", page.Lang, tt.lang)
			}
			if page.Published != tt.published {
				t.Errorf("Published = %q, want %q", page.Published, tt.published)
			}
			if page.CanonicalURL != tt.canonical {
				t.Errorf("CanonicalURL = %q, want %q", page.CanonicalURL, tt.canonical)
			}
			if page.Host == "" || !strings.Contains(tt.url, page.Host) {
				t.Errorf("Host = %q, want the host of %s", page.Host, tt.url)
			}
			if page.Site == "" {
				t.Error("Site is empty")
			}
			if len(page.Findings) == 0 {
				t.Error("no findings")
			}
			for _, f := range page.Findings {
				if !strings.Contains(strings.Join(strings.Fields(page.Text), " "), f) {
					t.Errorf("finding %q is not in the text", f)
				}
			}
		})
	}
}

// TestExtractDivSoup feeds a page without paragraphs or article markup:
// the text lives in nested <div>s with <br>s next to link-heavy navigation.
// The chain must still return the article and leave the links out.
func TestExtractDivSoup(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Div soup</title></head><body>`)
	b.WriteString(`<div class="x1">`)
	for i := range 30 {
		b.WriteString(`<div class="x2"><a href="/s/` + string(rune('a'+i%26)) + `">Section link number ` + string(rune('A'+i%26)) + `</a></div>`)
	}
	b.WriteString(`</div><div class="x3"><div class="x4">`)
	sentences := []string{
		"The river authority opened the northern floodgates at dawn after three days of heavy rain.",
		"Water levels at the central gauge rose by 1.8 metres overnight, the highest reading since 2011.",
		"Residents of the low-lying districts were told to move vehicles to higher ground before noon.",
		"Emergency crews filled more than 6,000 sandbags at the depot beside the old grain market.",
		"Forecasters expect the rain to ease on Thursday, although the river may keep rising until the weekend.",
	}
	for _, s := range sentences {
		b.WriteString(`<div class="x5">` + s + `<br>` + s + `</div>`)
	}
	b.WriteString(`</div></div></body></html>`)

	page, err := Extract([]byte(b.String()), "https://news.example/flood")
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	for _, s := range sentences {
		if !strings.Contains(page.Text, s) {
			t.Errorf("text lacks %q\ngot:\n%s", s, page.Text)
		}
	}
	if strings.Contains(page.Text, "Section link number") {
		t.Errorf("text contains navigation links:\n%s", page.Text)
	}
}

// TestExtractWhenTrafilaturaFindsNothing uses a page whose only text sits
// in a container trafilatura discards by its class ("sidebar"): the fallback
// chain must still return the text.
func TestExtractWhenTrafilaturaFindsNothing(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><title>Notice</title></head><body><div class="widget-area sidebar">`)
	for i := range 6 {
		fmt.Fprintf(&b, `<div>Notice %d: the northern floodgates open at dawn after three days of heavy rain upstream.</div>`, i+1)
	}
	b.WriteString(`</div></body></html>`)
	raw := []byte(b.String())
	base := mustParseURL(t, "https://river.example/notice")

	doc, err := parseHTML(raw)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := trafilatura.ExtractDocument(doc, trafilaturaOptions(base)); err == nil && wordCount(res.ContentText) >= minArticleWords {
		t.Fatalf("trafilatura found %d words; the test needs a page it fails on", wordCount(res.ContentText))
	}

	page, err := Extract(raw, base.String())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if want := fmt.Sprintf("Notice %d: the northern floodgates", i+1); !strings.Contains(page.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, page.Text)
		}
	}
}

func TestWithFallbacks(t *testing.T) {
	long := []string{strings.Repeat("word ", minArticleWords)}
	short := []string{"only a few words"}
	var calls []string
	stub := func(name string, out []string) fallbackExtractor {
		return func(*html.Node, *url.URL) []string {
			calls = append(calls, name)
			return out
		}
	}
	idx := &pageIndex{blocks: map[string]sourceBlock{}}
	tests := []struct {
		name      string
		primary   []string
		fallbacks []fallbackExtractor
		want      []string
		wantCalls string
	}{
		{"rich primary skips fallbacks", long, []fallbackExtractor{stub("a", short)}, long, ""},
		{"empty primary takes first useful", nil, []fallbackExtractor{stub("a", nil), stub("b", long), stub("c", short)}, long, "a,b"},
		{"shorter fallback is ignored", []string{"five words in this one"}, []fallbackExtractor{stub("a", short)}, []string{"five words in this one"}, "a"},
		{"longer but still poor, then density", short, []fallbackExtractor{stub("a", []string{"six words in this one here"}), stub("b", long)}, long, "a,b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls = nil
			got := withFallbacks(tt.primary, nil, nil, idx, tt.fallbacks...)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if strings.Join(calls, ",") != tt.wantCalls {
				t.Errorf("calls %q, want %q", strings.Join(calls, ","), tt.wantCalls)
			}
		})
	}
}

// TestDensityParagraphs exercises the last-resort extractor on its own: it
// must pick the text-dense container and skip link lists and chrome.
func TestDensityParagraphs(t *testing.T) {
	page := `<html><body>
<nav><div>Home</div><div>World</div><div>Business of the day and more</div></nav>
<div id="links"><div><a href="/1">A linked teaser headline that is fairly long</a></div><div><a href="/2">Another linked teaser headline that is long</a></div></div>
<div id="story">
 <div>First paragraph of the story has enough words to count as prose here.</div>
 <div>Second paragraph of the story also carries enough words to be prose.</div>
 <div>Third paragraph closes the story with a few more words than needed.</div>
</div>
<footer><div>Copyright notice of the site, with a few words in it too.</div></footer>
</body></html>`
	doc, err := parseHTML([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	got := densityParagraphs(doc, nil)
	want := []string{
		"First paragraph of the story has enough words to count as prose here.",
		"Second paragraph of the story also carries enough words to be prose.",
		"Third paragraph closes the story with a few more words than needed.",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("densityParagraphs = %q, want %q", got, want)
	}
	if got := densityParagraphs(&html.Node{Type: html.DocumentNode}, nil); got != nil {
		t.Errorf("densityParagraphs(empty) = %q, want nil", got)
	}
}

func TestExtractErrorsAndBounds(t *testing.T) {
	if _, err := Extract([]byte("<p>x</p>"), "http://[::1"); err == nil {
		t.Error("Extract with a malformed URL: no error")
	}

	// Empty and text-free pages give an empty text, not an error.
	for _, in := range []string{"", "<html><body></body></html>", "<script>alert(1)</script>"} {
		page, err := Extract([]byte(in), "https://example.com/a#frag")
		if err != nil {
			t.Errorf("Extract(%q): %v", in, err)
			continue
		}
		if page.Text != "" {
			t.Errorf("Extract(%q).Text = %q, want empty", in, page.Text)
		}
		if page.CanonicalURL != "https://example.com/a" {
			t.Errorf("CanonicalURL = %q, want the page URL without fragment", page.CanonicalURL)
		}
	}

	// Input past the cap is cut, not refused.
	article := "<html><body><article>" + strings.Repeat("<p>A sentence of the story that repeats itself several times over.</p>", 20)
	big := article + "<!--" + strings.Repeat(" ", MaxExtractInput) + "-->" + "<p>Beyond the cap.</p></article></body></html>"
	page, err := Extract([]byte(big), "https://example.com/big")
	if err != nil {
		t.Fatalf("Extract(big): %v", err)
	}
	if !strings.Contains(page.Text, "A sentence of the story") || strings.Contains(page.Text, "Beyond the cap") {
		t.Errorf("big page text = %q", Excerpt(page.Text, 200))
	}

	// The text handed out is bounded and stays valid UTF-8.
	long := joinParagraphs([]string{strings.Repeat("é", maxTextBytes)})
	if len(long) > maxTextBytes || !utf8.ValidString(long) {
		t.Errorf("joinParagraphs: %d bytes, valid %v; want ≤ %d", len(long), utf8.ValidString(long), maxTextBytes)
	}
}

func TestLimitText(t *testing.T) {
	doc, err := parseHTML([]byte(`<html><head><title>T</title><script>` + strings.Repeat("x", 100) + `</script></head>` +
		`<body><div><p>aaaaaaaaaa</p><p>bbbbbbbbbb</p><p>cccccccccc</p></div><p>dddddddddd</p></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	limitText(doc, 15)
	got := strings.Join(nodeParagraphs(doc, 0), "|")
	if want := "aaaaaaaaaa|bbbbbbbbbb"; got != want {
		t.Errorf("after limitText(15): %q, want %q", got, want)
	}
}

func TestExtractLatin1(t *testing.T) {
	// ISO-8859-1 bytes: "Café" with é as 0xE9.
	body := "<html><head><meta charset=\"iso-8859-1\"><title>Caf\xe9</title></head><body><article>" +
		strings.Repeat("<p>Le caf\xe9 du coin ouvre \xe0 sept heures chaque matin depuis des ann\xe9es, dit le patron.</p>", 12) +
		"</article></body></html>"
	page, err := Extract([]byte(body), "https://example.fr/cafe")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.Text, "Le café du coin ouvre à sept heures") {
		t.Errorf("text not decoded from Latin-1: %q", Excerpt(page.Text, 120))
	}
	if page.Title != "Café" {
		t.Errorf("Title = %q, want Café", page.Title)
	}
}

func TestCanonicalURL(t *testing.T) {
	tests := []struct{ href, page, want string }{
		{"/news/a", "https://ex.com/x?y=1#z", "https://ex.com/news/a"},
		{"https://other.example/p#frag", "https://ex.com/x", "https://other.example/p"},
		{"javascript:alert(1)", "https://ex.com/x#f", "https://ex.com/x"},
		{"", "https://ex.com/x#f", "https://ex.com/x"},
		{"mailto:a@b.c", "https://ex.com/x", "https://ex.com/x"},
	}
	for _, tt := range tests {
		base := mustParseURL(t, tt.page)
		if got := canonicalURL(tt.href, base); got != tt.want {
			t.Errorf("canonicalURL(%q, %q) = %q, want %q", tt.href, tt.page, got, tt.want)
		}
	}
}

func TestStripSiteName(t *testing.T) {
	tests := []struct{ title, site, want string }{
		{"Headline here | The Daily", "The Daily", "Headline here"},
		{"The Daily - Headline here", "The Daily", "Headline here"},
		{"Headline here", "The Daily", "Headline here"},
		{"The Daily", "The Daily", "The Daily"},
		{"A | B", "", "A | B"},
	}
	for _, tt := range tests {
		if got := stripSiteName(tt.title, tt.site); got != tt.want {
			t.Errorf("stripSiteName(%q, %q) = %q, want %q", tt.title, tt.site, got, tt.want)
		}
	}
}

func TestCleanParagraphs(t *testing.T) {
	doc, err := parseHTML([]byte(`<html><head><title>Bridge reopens | Courier</title></head><body>
<h1>Bridge reopens</h1>
<p><a href="/other">Another story you may like</a></p>
<p>Body paragraph with <a href="/x">one link</a> among many ordinary words in the sentence.</p>
</body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	idx := indexPage(doc, "Bridge reopens")
	in := []string{
		"Bridge reopens",
		"By Ada Marsh",
		"5 min read",
		"The bridge reopened on Monday after eleven weeks of repairs, officials said.",
		"Another story you may like",
		"Continue Reading Below",
		"Read more: Ferry timetable changes for the winter",
		"Body paragraph with one link among many ordinary words in the sentence.",
		"Thanks for signing up!",
		"The last real paragraph of the story ends here.",
		"Reporting by Ada Marsh; editing by Tom Reed",
		"Follow us on Twitter and Facebook.",
		"© 2024 Courier. All rights reserved.",
	}
	want := []string{
		"The bridge reopened on Monday after eleven weeks of repairs, officials said.",
		"Body paragraph with one link among many ordinary words in the sentence.",
		"The last real paragraph of the story ends here.",
	}
	got := cleanParagraphs(in, idx)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cleanParagraphs:\ngot  %q\nwant %q", got, want)
	}

	// A "more stories" heading in the second half ends the article.
	in = []string{
		"First paragraph of the article body, long enough to be prose.",
		"Second paragraph of the article body, also long enough to be prose.",
		"Third paragraph of the article body closes the story for readers.",
		"More Great Courier Stories",
		"Why the ferry timetable keeps changing",
		"The best bakeries along the harbour, ranked",
	}
	got = cleanParagraphs(in, idx)
	if strings.Join(got, "\n") != strings.Join(in[:3], "\n") {
		t.Errorf("cleanParagraphs with teasers:\ngot  %q\nwant %q", got, in[:3])
	}
	if got := cleanParagraphs(nil, idx); len(got) != 0 {
		t.Errorf("cleanParagraphs(nil) = %q", got)
	}
}

func TestIsDateline(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"Updated Nov. 19, 2019 8:21 am ET", true},
		{"NOVEMBER 20, 2019 10:43", true},
		{"05/10/2018 - Publicado por: Clarissa Borba", true},
		{"Tempo de leitura: 2 minutos", true},
		{"The council met at 10:30 on Monday and approved the plan.", false},
		{"2018 Jeongdong Theater Tradition Series Performance", false},
	}
	for _, tt := range tests {
		if got := isDateline(tt.in); got != tt.want {
			t.Errorf("isDateline(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestPrecleanDocumentDropsComments(t *testing.T) {
	doc, err := parseHTML([]byte(`<html><body><article><p>Post text.</p></article>
<ol class="comment-list"><li class="comment"><p>A reader comment.</p></li></ol>
<div id="disqus_thread"><p>Another comment.</p></div>
<div class="commentary"><p>Kept: commentary is content.</p></div></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	precleanDocument(doc)
	got := strings.Join(nodeParagraphs(doc, 0), "|")
	if want := "Post text.|Kept: commentary is content."; got != want {
		t.Errorf("after preclean: %q, want %q", got, want)
	}
}

func TestNodeParagraphs(t *testing.T) {
	doc, err := parseHTML([]byte(`<html><body><div>One<span>word</span> <b>bold</b></div>` +
		`<p>Line<br>break&nbsp;here</p><ul><li>a</li><li>b</li></ul><script>var x;</script>` +
		`<custom-el>fused?</custom-el><custom-el>no</custom-el><p>soft&shy;hyphen</p></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	got := nodeParagraphs(doc, 0)
	want := []string{"Oneword bold", "Line\nbreak here", "a", "b", "fused?", "no", "softhyphen"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("nodeParagraphs = %q, want %q", got, want)
	}
}

// TestExtractDocs checks that documentation pages keep what the article
// extractors drop: option names in definition lists, code blocks with their
// lines, headings as their own paragraphs and table rows, under the page's
// own heading as title rather than a popup's.
func TestExtractDocs(t *testing.T) {
	tests := []struct {
		file, url, title string
		want             []string // paragraphs (or lines) the text must contain
		absent           []string // substrings it must not contain
	}{
		{
			file:  "docs/rust-book-ch08-01-vectors.html.gz",
			url:   "https://doc.rust-lang.org/book/ch08-01-vectors.html",
			title: "Storing Lists of Values with Vectors",
			want: []string{
				"Iterating Over the Values in a Vector",
				"Using an Enum to Store Multiple Types",
				"for i in &v {\nprintln!(\"{i}\");\n}",
				"Listing 8-7: Printing each element in a vector by iterating over the elements using a for loop",
			},
			absent: []string{"Keyboard shortcuts", "Press Esc to hide this help"},
		},
		{
			file:  "docs/cargo-build.html.gz",
			url:   "https://doc.rust-lang.org/cargo/commands/cargo-build.html",
			title: "cargo-build(1)",
			want: []string{
				"Manifest Options",
				"--frozen: Equivalent to specifying both --locked and --offline.",
				"-v, --verbose: Use verbose output.",
				"-j N, --jobs N: Number of parallel jobs to run.",
			},
			absent: []string{"Keyboard shortcuts"},
		},
		{
			// A short index page: the old chain took mdBook's help popup
			// for its text and title.
			file:   "docs/cargo-general-commands.html.gz",
			url:    "https://doc.rust-lang.org/cargo/commands/general-commands.html",
			title:  "General Commands",
			want:   []string{"General Commands", "cargo", "cargo help", "cargo version"},
			absent: []string{"Keyboard shortcuts", "Press"},
		},
		{
			file:   "docs/rustdoc-std-vec-index.html.gz",
			url:    "https://doc.rust-lang.org/std/vec/index.html",
			title:  "Module vec",
			want:   []string{"Structs", "Drain: A draining iterator for Vec<T>.", "let mut v = vec![1, 2];\nv.push(3);"},
			absent: []string{"Expand description", "§"},
		},
		{
			file:  "docs/sphinx.html",
			url:   "https://widgetd.example.org/config.html",
			title: "Configuration",
			want: []string{
				"Command-line options",
				"--port <n>: Listen on TCP port n. The default is 7410.",
				"--max-spindles <count>: Never run more than count spindles at once. Zero means one per CPU core.",
				"[server]\nport = 7410\nmax_spindles = 12",
				"spindle_timeout | 90 seconds",
			},
			absent: []string{"¶", "Quick search", "Powered by", "Navigation"},
		},
		{
			file:   "docs/mkdocs.html",
			url:    "https://tessel.example.org/install/",
			title:  "Installing",
			want:   []string{"Requirements", "From source", "git clone https://git.example.org/tessel\ncd tessel && make install", "Building from source requires Go 1.22."},
			absent: []string{"Table of contents", "Edit", "Previous Home", "Made with Material"},
		},
		{
			file:   "docs/docusaurus.html",
			url:    "https://lumen.example.org/docs/cli",
			title:  "CLI reference",
			want:   []string{"lumen build", "Flag | Meaning", "--minify | Strip white space from HTML output", "lumen build --minify\nlumen serve --port 4000"},
			absent: []string{"Skip to main content", "On this page", "Edit this page", "Copyright", "Introduction", "Copy"},
		},
		{
			// DocBook XSL (the PostgreSQL, FreeBSD and GNOME manuals): no
			// <main>, navigation tables above and below the content, a
			// variable list whose terms are code with their type.
			file:  "docs/docbook.html",
			url:   "https://quillstore.example.org/docs/config-resource.html",
			title: "4.2. Resource Usage",
			want: []string{
				"4.2.1. Memory",
				"cache_pages (integer): Sets the number of pages the server keeps in its shared cache. The default is 4096 pages (32MB). Each page holds one B-tree node.",
				"sort_memory (integer): Sets the memory one sort may use before it spills to disk. The default is four megabytes (4MB).",
				"name length | 31 bytes",
			},
			absent: []string{"Prev", "Home", "Next", "Chapter 4. Configuration", "4.2.2. Disk", "4.3. Logging"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			page, err := Extract(readTestdata(t, tt.file), tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if page.Title != tt.title {
				t.Errorf("title %q, want %q", page.Title, tt.title)
			}
			paras := strings.Split(page.Text, "\n\n")
			for _, w := range tt.want {
				found := false
				for _, p := range paras {
					if p == w || strings.HasPrefix(p, w) || (strings.Contains(w, "\n") && strings.Contains(p, w)) {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("no paragraph %q in text:\n%s", w, page.Text)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(page.Text, a) {
					t.Errorf("text contains %q:\n%s", a, page.Text)
				}
			}
		})
	}
}

// TestDocRoot checks which pages are taken for documentation and which
// element holds their content.
func TestDocRoot(t *testing.T) {
	toc := `<ul><li><a href="#a">A</a></li><li><a href="#b">B</a></li><li><a href="#c">C</a></li></ul>`
	tests := []struct {
		name, html string
		wantID     string // id of the content element; "" for not documentation
	}{
		{"generator tag", `<html><head><meta name="generator" content="MkDocs 1.6"></head><body><div id="c" role="main"><p>Text.</p></div></body></html>`, "c"},
		{"texinfo manual uses body", `<html><head><meta name="Generator" content="makeinfo"></head><body id="b"><p>Text.</p></body></html>`, "b"},
		{"mdBook signature", `<html><body><div id="mdbook-help-container"></div><div id="x"><main id="m"><h1>T</h1></main></div></body></html>`, "m"},
		{"rustdoc main content", `<html><head><meta name="generator" content="rustdoc"></head><body><main><section id="main-content"><h1>Struct</h1></section></main></body></html>`, "main-content"},
		{"structured manual without generator", `<html><body><nav>menu</nav><main id="m"><h1>Tool</h1><h2>Options</h2><dl><dt><code>-a</code></dt><dd>All.</dd></dl><h2>Example</h2><pre>tool -a</pre><p>Use <code>-a</code> or <code>-b</code>, not <code>-c</code>.</p></main></body></html>`, "m"},
		{"news article", `<html><body><article id="a"><h1>Storm hits coast</h1><h2>Damage</h2><p>Winds tore roofs.</p><h2>Response</h2><p>Crews worked overnight.</p><p>More rain is due.</p></article></body></html>`, ""},
		{"no content element", `<html><body><h2>A</h2><h2>B</h2><pre>x</pre><pre>y</pre><code>1</code><code>2</code><code>3</code><code>4</code></body></html>`, ""},
		// A reference page of one routine, its arguments marked up as
		// <var>, and no content element: read whole.
		{"no content element, arguments marked up", `<html><body id="b"><h2>Declaration</h2><pre>function Pick(l: Int): Int;</pre><h2>Description</h2><table><tr><td><p>Pick returns a number below <var>l</var>; the only guarantee <var>Pick()</var> offers is that <var>seed</var> repeats it for <var>l</var>.</p></td></tr></table><h2>See also</h2><table><tr><td><a href="seed.html">Seed</a></td><td>Set the seed</td></tr></table><pre>Pick(5)</pre></body></html>`, "b"},
		// Documentation by structure, without a known generator tag.
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
			if root := docRoot(doc, ""); root != nil {
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

// TestDocParagraphs checks the structure kept from a content element.
func TestDocParagraphs(t *testing.T) {
	const page = `<main>
<h2>Options<a class="headerlink" href="#o">¶</a></h2>
<dl><dt>-q</dt><dt>--quiet</dt><dd><p>No output.</p><p>Also quiets warnings.</p></dd><dt>--color</dt></dl>
<pre><code>a = 1
  b = 2
</code></pre>
<table><tr><th>Key</th><th>Value</th></tr><tr><td><p>x</p></td><td>1</td></tr></table>
<div class="sidebar">Menu</div><button>Copy</button><p hidden>secret</p>
</main>`
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	got := docParagraphs(findDocContent(findBody(doc)), 0)
	want := []string{"Options", "-q, --quiet: No output.", "Also quiets warnings.", "--color", "a = 1\nb = 2", "Key | Value", "x | 1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A manual's one-page reference runs past a megabyte of text, one section
// per keyword; the keyword asked about may be the last, and its section
// is kept.
func TestLongReferencePageKeepsItsLastEntry(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><head><title>Configuration Manual</title></head><body><nav><a href=\"/\">Home</a></nav><main><h1>Configuration Manual</h1>")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "<h3><code>tune.option-%d</code> &lt;number&gt;</h3><pre>tune.option-%d 64</pre><p>Sets the number of widgets the proxy keeps for <code>option-%d</code>, which matters to busy sites with many widgets in flight. The default value is %d, which suits most sites; raise it with care.</p>", i, i, i, i)
	}
	b.WriteString("</main></body></html>")
	if b.Len() > MaxExtractInput {
		t.Fatalf("fixture is %d bytes, over MaxExtractInput", b.Len())
	}
	page, err := Extract([]byte(b.String()), "https://docs.example/configuration.html")
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Text) <= 256<<10 || !strings.Contains(page.Text, "The default value is 2999,") {
		t.Errorf("the reference's text is %d bytes and its last entry is %v; want it kept past 256 KiB", len(page.Text), strings.Contains(page.Text, "2999,"))
	}
}

// A paragraph's text written straight after a <pre>, with no element of
// its own (old hand-written pages), is read whole, its code spans in
// place: the words between them are not lost.
func TestLooseTextBetweenBlocksIsAParagraph(t *testing.T) {
	raw := `<html><head><title>Tallyftp and NAT</title></head><body>
<h2>Configuring Tallyftp behind NAT</h2>
<p>First configure your installed tallyftp so that it works correctly from inside the NAT.  Then add the
<code>MasqueradeAddress</code> directive to your configuration file to define the public name or IP address of the NAT.
However, one big problem still exists: the passive connections will use ports from 1024 and up, which means that
you must forward all ports 1024-65535 from the NAT to the server, and you have to allow many dangerous ports.
For a good description of active versus passive data transfers, see:
<pre>
  <a href="http://example.com/ftp.html">http://example.com/ftp.html</a>
</pre>
To resolve this, simply use the <a href="mod_core.html#PassivePorts"><code>PassivePorts</code></a> directive
in your <code>tallyftp.conf</code> to control what ports <code>tallyftp</code>
will use for its passive data transfers:
<pre>
  PassivePorts 60000 65535
</pre>
Note that if the configured range of ports is too small, connecting clients may experience delays or be
completely unable to operate when they request passive data transfers.
</body></html>`
	page, err := Extract([]byte(raw), "https://docs.example/howto/NAT.html")
	if err != nil {
		t.Fatal(err)
	}
	want := "To resolve this, simply use the PassivePorts directive in your tallyftp.conf to control what ports tallyftp will use for its passive data transfers:"
	if !strings.Contains(page.Text, want) {
		t.Errorf("text lacks %q:\n%s", want, page.Text)
	}
}

// An XHTML page served as HTML writes an empty iframe self-closed in its
// navigation bar; an HTML parser (a browser's too) opens it there and
// reads the rest of the page as the iframe's text. The page's content is
// still its content, and a site-wide og:title gives way to the page's
// own <title>.
func TestSelfClosedIframeSwallowsNoContent(t *testing.T) {
	raw := []byte(`<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">
<html lang="en"><head><meta charset="utf-8"/><title>Toolkit - Resources</title>
<meta property="og:title" content="Toolkit Legacy"/><meta property="og:site_name" content="Toolkit Legacy"/></head>
<body><nav class="navbar"><ul class="navbar-nav"><li class="nav-item"><a class="nav-link" href="index.html">Home</a></li>
<li class="nav-item"><iframe src="https://example.org/button" title="Sponsor" height="35" width="107" style="border: 0;"/></li></ul></nav>
<main class="container"><h1>Resources</h1>
<p>The toolkit depends on a number of external resources including configuration files, loadable modules, fonts, and environment variables.</p>
<dl><dt>TOOLKIT_TEMPORARY_PATH</dt><dd>Set path to store temporary files.</dd>
<dt>TOOLKIT_FILE_LIMIT</dt><dd>Set maximum number of open pixel cache files. When this limit is exceeded, any subsequent pixels cached to disk are closed and reopened on demand.</dd></dl>
</main></body></html>`)
	page, err := Extract(raw, "http://127.0.0.1/docs/resources.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"depends on a number of external resources", "TOOLKIT_TEMPORARY_PATH", "Set path to store temporary files."} {
		if !strings.Contains(page.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, page.Text)
		}
	}
	if page.Title != "Toolkit - Resources" && page.Title != "Resources" {
		t.Errorf("title %q, want the page's own", page.Title)
	}
	page, err = Extract([]byte(strings.ReplaceAll(string(raw), `style="border: 0;"/>`, `style="border: 0;"></iframe>`)), "http://127.0.0.1/docs/resources.html")
	if err != nil {
		t.Fatal(err)
	}
	if page.Title != "Toolkit - Resources" && page.Title != "Resources" {
		t.Errorf("title %q, want the page's own", page.Title)
	}
	// An iframe with its own end tag keeps its fallback text out.
	page, err = Extract([]byte(`<html><head><title>Embed</title></head><body><article><p>The article about floodgates opening at dawn after three days of heavy rain upstream goes on for a while.</p>
<iframe src="https://example.org/map">Your browser cannot show the map.</iframe></article></body></html>`), "http://127.0.0.1/embed")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.Text, "cannot show the map") {
		t.Errorf("an iframe's own content became text:\n%s", page.Text)
	}
}

// A hand-written XHTML reference page: an empty [role=main] the template
// leaves before the real <main>, an index that links to each option as
// "options.html#name", and each option's heading opened by a self-closed
// anchor. The page is read as documentation: each option's heading stands
// above its own description.
func TestXHTMLOptionReference(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">
<html lang="en"><head><meta charset="utf-8"/><title>Toolkit - Command-line Options</title></head><body>
<nav class="navbar"><a class="navbar-brand" href="index.html">Toolkit</a></nav>
<div role="main" class="container">
</div>
<main class="container"><h1>Annotated List of Command-line Options</h1><p class="text-center">`)
	opts := []string{"delay", "delete", "density", "depth", "descend", "deskew"}
	for _, o := range opts {
		fmt.Fprintf(&b, `<a href="options.html#%s">-%s</a> • `, o, o)
	}
	b.WriteString("</p>\n<p>Below is the list of command-line options recognized by the command-line tools.</p>\n")
	for _, o := range opts {
		fmt.Fprintf(&b, `<div style="margin: auto;">
  <h3><a class="anchor" id="%s"/>-%s <var>width</var></h3>
</div>
<p class="magick-description">Set the %s of an image for rendering to devices.</p>
<p>This option specifies the %s to store while encoding a raster image. The default %s is 72 dots per inch, which is equivalent to one point per pixel. Use <code>-units</code> to select dots per centimeter.</p>
`, o, o, o, o, o)
	}
	b.WriteString(`<pre>convert -density 300 in.pdf out.png</pre></main></body></html>`)
	page, err := Extract([]byte(b.String()), "http://127.0.0.1/docs/options.html")
	if err != nil {
		t.Fatal(err)
	}
	want := "-density width\n\nSet the density of an image for rendering to devices.\n\nThis option specifies the density to store"
	if !strings.Contains(page.Text, want) {
		t.Errorf("text lacks the option's heading over its description %q:\n%s", want, page.Text)
	}
}
