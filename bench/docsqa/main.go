// Command docsqa is the loopback documentation site for the docs-QA
// benchmark (bench/docsqa/run.sh): it serves a directory of HTML pages
// under /docs/ and a search engine over them at /search?q=…, whose results
// page looks like an ordinary engine's (ten `div.result` blocks with a
// title link and a snippet), ranked by BM25 over page titles and text.
//
//	go run ./bench/docsqa -dir /usr/share/doc/postgresql-doc-15/html -addr 127.0.0.1:8765
//
// The ranking is deliberately independent of Quarry's own text package:
// its own tokenizer, a plain English stop list and no stemming beyond a
// plural "s", so that the benchmark measures Quarry against a search
// engine it does not share code with.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"html"
	"io/fs"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	xhtml "golang.org/x/net/html"
)

// Ranking parameters.
const (
	bm25K1      = 1.2
	bm25B       = 0.75
	titleRepeat = 3 // title tokens count this many times
	resultsPage = 10
	snippetLen  = 30 // words
)

type page struct {
	path  string // under /docs/
	title string
	words []string // the page text as written, for snippets
	tf    map[string]int
	n     int // tokens, title repeats included
}

type index struct {
	pages []page
	df    map[string]int
	avg   float64
}

func main() {
	dir := flag.String("dir", "/usr/share/doc/postgresql-doc-15/html", "directory of HTML pages")
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	addrFile := flag.String("addr-file", "", "write the bound host:port here once listening")
	engine := flag.String("engine", "bm25", "search program in front of the pages: bm25 (our own page), omega, htdig, namazu, pagefind, swishe, swishpp or recoll")
	cache := flag.String("cache", "", "directory for the search program's index, built once and reused (default .data/docsqa/ENGINE-DIRNAME)")
	templateFile := flag.String("template-file", "", "write the results-page URL template (url:… engine) here once listening")
	indexOnly := flag.Bool("index-only", false, "build the search program's index and exit")
	flag.Parse()

	if real, err := filepath.EvalSymlinks(*dir); err == nil {
		*dir = real // Debian links the docs directory to the versioned one
	}
	if abs, err := filepath.Abs(*dir); err == nil {
		*dir = abs // the programs index from their cache directory
	}
	if *cache == "" {
		*cache = filepath.Join(".data", "docsqa", *engine+"-"+filepath.Base(filepath.Dir(*dir))+"-"+filepath.Base(*dir))
	}
	if abs, err := filepath.Abs(*cache); err == nil {
		*cache = abs
	}
	mux := http.NewServeMux()
	mux.Handle("/docs/", http.StripPrefix("/docs/", http.FileServer(http.Dir(*dir))))
	var prog program
	if *engine == "bm25" {
		idx, err := build(*dir)
		if err != nil {
			log.Fatal(err)
		}
		log.Printf("docsqa: %d pages", len(idx.pages))
		mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query().Get("q")
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, idx.render(q))
		})
	} else {
		var ok bool
		if prog, ok = programs[*engine]; !ok {
			log.Fatalf("docsqa: unknown -engine %q", *engine)
		}
		if err := prog.prepare(*engine, *dir, *cache); err != nil {
			log.Fatal(err)
		}
	}
	if *indexOnly {
		return
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	template := "http://" + ln.Addr().String() + "/search?q={query}"
	if prog.mount != nil {
		if template, err = prog.mount(mux, *dir, *cache, ln.Addr().String()); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("docsqa: %s over %s, results at %s", *engine, *dir, template)
	if *templateFile != "" {
		if err := os.WriteFile(*templateFile, []byte(template), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(ln.Addr().String()), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	log.Fatal(http.Serve(ln, logQueries(mux)))
}

// build reads every *.html page under dir into the index, but for the
// generated index pages a site search leaves out (genindex, search, _*).
func build(dir string) (*index, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != dir && strings.HasPrefix(name, "_") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".html") && !strings.HasPrefix(name, "genindex") &&
			name != "search.html" && name != "py-modindex.html" {
			files = append(files, path)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no *.html under %q", dir)
	}
	sort.Strings(files)
	idx := &index{df: map[string]int{}}
	total := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		title, body := pageText(raw)
		rel, _ := filepath.Rel(dir, f)
		p := page{path: filepath.ToSlash(rel), title: title, words: strings.Fields(body), tf: map[string]int{}}
		for range titleRepeat {
			for _, t := range tokens(title) {
				p.tf[t]++
				p.n++
			}
		}
		for _, t := range tokens(body) {
			p.tf[t]++
			p.n++
		}
		for t := range p.tf {
			idx.df[t]++
		}
		total += p.n
		idx.pages = append(idx.pages, p)
	}
	idx.avg = float64(total) / float64(len(idx.pages))
	return idx, nil
}

// pageText returns the title and visible text of an HTML page, without
// its navigation header and footer.
func pageText(raw []byte) (title, body string) {
	doc, err := xhtml.Parse(bytes.NewReader(raw))
	if err != nil {
		return "", ""
	}
	var b strings.Builder
	var walk func(n *xhtml.Node, skip bool)
	walk = func(n *xhtml.Node, skip bool) {
		if n.Type == xhtml.ElementNode {
			switch n.Data {
			case "script", "style", "head":
				if n.Data == "head" {
					for c := n.FirstChild; c != nil; c = c.NextSibling {
						if c.Type == xhtml.ElementNode && c.Data == "title" && c.FirstChild != nil {
							title = strings.TrimSpace(c.FirstChild.Data)
						}
					}
				}
				return
			}
			for _, a := range n.Attr {
				if a.Key == "class" && (a.Val == "navheader" || a.Val == "navfooter") {
					skip = true
				}
			}
		}
		if n.Type == xhtml.TextNode && !skip {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, skip)
		}
	}
	walk(doc, false)
	return title, b.String()
}

var stop = stopSet(`a an the and or but of to in on at by for with from as is are was were be been being
		it its this that these those what which who whom how why when where do does did can could should would will
		i you we they he she my your our their me us them there here than then so if not no into about over under
		has have had also any all some such more most other only own same very just`)

func stopSet(words string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(words) {
		out[w] = true
	}
	return out
}

// tokens lower-cases s, splits it on anything but letters, digits and
// underscores, drops stop words and a plural "s".
func tokens(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if stop[f] || len(f) < 2 && !unicode.IsDigit(rune(f[0])) {
			continue
		}
		if len(f) > 3 && strings.HasSuffix(f, "s") && !strings.HasSuffix(f, "ss") {
			f = f[:len(f)-1]
		}
		out = append(out, f)
	}
	return out
}

type hit struct {
	page  int
	score float64
}

// search returns the best pages for q by BM25.
func (idx *index) search(q string) []hit {
	terms := map[string]bool{}
	for _, t := range tokens(q) {
		terms[t] = true
	}
	n := float64(len(idx.pages))
	var hits []hit
	for i, p := range idx.pages {
		score := 0.0
		for t := range terms {
			tf := float64(p.tf[t])
			if tf == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(idx.df[t])+0.5)/(float64(idx.df[t])+0.5))
			score += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(p.n)/idx.avg))
		}
		if score > 0 {
			hits = append(hits, hit{i, score})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score > hits[b].score })
	if len(hits) > resultsPage {
		hits = hits[:resultsPage]
	}
	return hits
}

// snippet is the window of the page's text holding the most query terms.
func (p *page) snippet(q string) string {
	terms := map[string]bool{}
	for _, t := range tokens(q) {
		terms[t] = true
	}
	best, bestAt := -1, 0
	for i := 0; i < len(p.words); i += 5 {
		n := 0
		for _, w := range p.words[i:min(len(p.words), i+snippetLen)] {
			for _, t := range tokens(w) {
				if terms[t] {
					n++
				}
			}
		}
		if n > best {
			best, bestAt = n, i
		}
	}
	return strings.Join(p.words[bestAt:min(len(p.words), bestAt+snippetLen)], " ") + " …"
}

// render is the results page for q.
func (idx *index) render(q string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html><head><title>%s - DocSearch</title></head><body>", html.EscapeString(q))
	fmt.Fprintf(&b, `<header><form action="/search"><input name="q" value="%s"></form></header><main id="results">`, html.EscapeString(q))
	for _, h := range idx.search(q) {
		p := &idx.pages[h.page]
		fmt.Fprintf(&b, `<div class="result"><h3><a href="/docs/%s">%s</a></h3><p>%s</p></div>`,
			html.EscapeString(p.path), html.EscapeString(p.title), html.EscapeString(p.snippet(q)))
	}
	b.WriteString("</main><footer><a href=\"/about\">About</a></footer></body></html>")
	return b.String()
}

// logQueries logs every search a run sends (not the pages it reads), so
// that a benchmark run shows what was asked of the search program.
func logQueries(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/docs/") {
			if q := r.URL.Query().Get("q"); q != "" {
				log.Printf("query %s %q", r.URL.Path, q)
			}
		}
		h.ServeHTTP(w, r)
	})
}
