package main

// Three more real search programs, first used by bench/answers: Swish-e
// with its stock swish.cgi results page, swish++ (the indexer dwww uses)
// and Recoll. swish++ and Recoll ship no web front end of their own, so
// their results page is the smallest one that prints what the program
// returned, in its order, with its titles and (for Recoll) its abstracts;
// the ranking is the program's.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"html"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// programResults is how many results the swish++ and Recoll pages show.
const programResults = 10

// Swish-e: swish-e indexes the tree with its HTML2 parser, the stored
// paths rewritten to /docs/…; the stock swish.cgi (Perl) reads its
// settings from .swishcgi.conf in its working directory, found through
// PERL5LIB because Perl no longer searches ".".

func swisheIndex(dir, cache string) error {
	dir = strings.TrimSuffix(dir, "/")
	conf := fmt.Sprintf("IndexDir %s\nIndexOnly .html\nIndexContents HTML2 .html\nReplaceRules replace \"%s/\" \"/docs/\"\nStoreDescription HTML2 <body> 300\n", dir, dir)
	path := filepath.Join(cache, "swish.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return err
	}
	return run(cache, "swish-e", "-c", path, "-f", filepath.Join(cache, "index.swish-e"))
}

func swisheMount(mux *http.ServeMux, dir, cache, addr string) (string, error) {
	conf := fmt.Sprintf("return {\n    title => 'Search',\n    swish_binary => '/usr/bin/swish-e',\n    swish_index => '%s',\n};\n",
		filepath.Join(cache, "index.swish-e"))
	if err := os.WriteFile(filepath.Join(cache, ".swishcgi.conf"), []byte(conf), 0o644); err != nil {
		return "", err
	}
	mux.Handle("/cgi-bin/swish.cgi", cgiHandler(swishCGI, "/cgi-bin/swish.cgi", cache, "PERL5LIB="+cache))
	return "http://" + addr + "/cgi-bin/swish.cgi?query={query}", nil
}

// swish++: index++ over the tree from inside it (paths "./…"); the
// results page runs search++ on the query as typed.

func swishppIndex(dir, cache string) error {
	return run(dir, "index++", "-e", "HTML:*.html", "-i", filepath.Join(cache, "swish++.index"), "-T", cache, ".")
}

func swishppMount(mux *http.ServeMux, dir, cache, addr string) (string, error) {
	index := filepath.Join(cache, "swish++.index")
	mux.HandleFunc("/search++", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		var hits []programHit
		if strings.TrimSpace(q) != "" {
			out, err := programOutput(r.Context(), "search++", "-i", index, "-m", fmt.Sprint(programResults), "--", q)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			hits = parseSwishpp(out)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, renderHits("search++", q, "/search++", hits))
	})
	return "http://" + addr + "/search++?q={query}", nil
}

// parseSwishpp reads search++'s classic format: "# comment" lines, then
// "rank path size title" per result.
func parseSwishpp(out []byte) []programHit {
	var hits []programHit
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 4)
		if len(f) < 4 {
			continue
		}
		hits = append(hits, programHit{path: "/docs/" + strings.TrimPrefix(f[1], "./"), title: f[3]})
	}
	return hits
}

// Recoll: recollindex with a configuration naming the tree as its only
// top directory (English stemming, no spelling helper); the results page
// runs recollq in its query language (words joined by AND) and shows each
// result's title and abstract.

func recollIndex(dir, cache string) error {
	conf := fmt.Sprintf("topdirs = %s\nindexstemminglanguages = english\nnoaspell = 1\nloglevel = 1\n", dir)
	if err := os.WriteFile(filepath.Join(cache, "recoll.conf"), []byte(conf), 0o644); err != nil {
		return err
	}
	return run(cache, "recollindex", "-c", cache)
}

func recollMount(mux *http.ServeMux, dir, cache, addr string) (string, error) {
	prefix := "file://" + strings.TrimSuffix(dir, "/") + "/"
	mux.HandleFunc("/recoll", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		var hits []programHit
		if strings.TrimSpace(q) != "" {
			out, err := programOutput(r.Context(), "recollq", "-c", cache, "-n", fmt.Sprint(programResults), "-F", "url title abstract", q)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			hits = parseRecoll(out, prefix)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, renderHits("Recoll", q, "/recoll", hits))
	})
	return "http://" + addr + "/recoll?q={query}", nil
}

// parseRecoll reads recollq -F output: one line per result, its fields
// base64-encoded and separated by a space, after two header lines.
func parseRecoll(out []byte, prefix string) []programHit {
	var hits []programHit
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Split(strings.TrimSpace(sc.Text()), " ")
		if len(f) < 2 {
			continue
		}
		dec := make([]string, len(f))
		ok := true
		for i, s := range f {
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				ok = false
				break
			}
			dec[i] = string(b)
		}
		if !ok || !strings.HasPrefix(dec[0], prefix) {
			continue
		}
		h := programHit{path: "/docs/" + strings.TrimPrefix(dec[0], prefix), title: dec[1]}
		if len(dec) > 2 {
			h.snippet = dec[2]
		}
		hits = append(hits, h)
	}
	return hits
}

// programHit is one result of swish++ or Recoll.
type programHit struct{ path, title, snippet string }

// programOutput runs a search program with a time limit and returns its
// standard output.
func programOutput(ctx context.Context, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// renderHits is the results page of swish++ and Recoll: a search form and
// an ordered list of the program's results.
func renderHits(name, q, action string, hits []programHit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>%s: %s</title></head><body>", html.EscapeString(name), html.EscapeString(q))
	fmt.Fprintf(&b, `<form action="%s"><input name="q" value="%s"><input type="submit" value="Search"></form>`, action, html.EscapeString(q))
	fmt.Fprintf(&b, "<p>%d results</p><ol>", len(hits))
	for _, h := range hits {
		fmt.Fprintf(&b, `<li><a href="%s">%s</a>`, html.EscapeString(h.path), html.EscapeString(h.title))
		if h.snippet != "" {
			fmt.Fprintf(&b, "<br>%s", html.EscapeString(h.snippet))
		}
		b.WriteString("</li>")
	}
	b.WriteString("</ol></body></html>")
	return b.String()
}
