package main

// The real search programs docsqa can put in front of a manual instead of
// its own BM25 page. Each one indexes the doc tree once into a cache
// directory (reused while its "ready" marker exists), and is then served
// by the same loopback server that serves the tree under /docs/, so the
// result links the program prints resolve. Each program's results page is
// its own, with its default templates: the point is markup Quarry was not
// written against.

import (
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// program is one search program over the doc tree.
type program struct {
	// index builds the program's index of dir into cache.
	index func(dir, cache string) error
	// mount adds the program's handlers to mux once the server's address
	// is known, and returns the results-page URL template ({query} is
	// replaced by the query).
	mount func(mux *http.ServeMux, dir, cache, addr string) (string, error)
	// needs names the executables the program runs, with their Debian
	// package.
	needs map[string]string
}

var programs = map[string]program{
	"omega":    {index: omegaIndex, mount: omegaMount, needs: map[string]string{"omindex": "xapian-omega", omegaCGI: "xapian-omega"}},
	"htdig":    {index: htdigIndex, mount: htdigMount, needs: map[string]string{"htdig": "htdig", htsearchCGI: "htdig"}},
	"namazu":   {index: namazuIndex, mount: namazuMount, needs: map[string]string{"mknmz": "namazu2-index-tools", namazuCGI: "namazu2"}},
	"pagefind": {index: pagefindIndex, mount: pagefindMount, needs: map[string]string{"npx": "npm"}},
	"swishe":   {index: swisheIndex, mount: swisheMount, needs: map[string]string{"swish-e": "swish-e", swishCGI: "swish-e"}},
	"swishpp":  {index: swishppIndex, mount: swishppMount, needs: map[string]string{"index++": "swish++", "search++": "swish++"}},
	"recoll":   {index: recollIndex, mount: recollMount, needs: map[string]string{"recollindex": "recollcmd", "recollq": "recollcmd"}},
}

const (
	omegaCGI    = "/usr/lib/cgi-bin/omega/omega"
	htsearchCGI = "/usr/lib/cgi-bin/htsearch"
	namazuCGI   = "/usr/lib/cgi-bin/namazu.cgi"
	swishCGI    = "/usr/lib/swish-e/swish.cgi"
	// htdigSite is the placeholder site ht://Dig indexes the tree under;
	// htsearch's url_part_aliases turn it into the server's real address,
	// so the index outlives the (random) port it was built for.
	htdigSite = "http://docs.invalid/docs/"
)

// prepare checks the program's executables and builds its index unless
// the cache already holds one.
func (p program) prepare(name, dir, cache string) error {
	for bin, pkg := range p.needs {
		if _, err := exec.LookPath(bin); err != nil {
			return fmt.Errorf("%s needs %s: install Debian package %s (as root: apt-get install %s)", name, bin, pkg, pkg)
		}
	}
	ready := filepath.Join(cache, "ready")
	if _, err := os.Stat(ready); err == nil {
		return nil
	}
	if err := os.RemoveAll(cache); err != nil {
		return err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	start := time.Now()
	if err := p.index(dir, cache); err != nil {
		return fmt.Errorf("%s: indexing %s: %w", name, dir, err)
	}
	log.Printf("docsqa: %s indexed %s in %s", name, dir, time.Since(start).Round(time.Second))
	return os.WriteFile(ready, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644)
}

// run runs a command, its output going to the log.
func run(dir string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// htmlFiles lists the tree's pages relative to dir, as buildIndex picks
// them (generated index and search pages left out).
func htmlFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != dir && strings.HasPrefix(d.Name(), "_") {
			return filepath.SkipDir
		}
		if !d.IsDir() && indexable(d.Name()) {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	if err == nil && len(out) == 0 {
		err = errors.New("no *.html pages")
	}
	return out, err
}

func indexable(name string) bool {
	return strings.HasSuffix(name, ".html") && !strings.HasPrefix(name, "genindex") &&
		name != "search.html" && name != "py-modindex.html"
}

// cgiHandler runs a CGI program with the given environment.
func cgiHandler(path, root, dir string, env ...string) http.Handler {
	return &cgi.Handler{Path: path, Root: root, Dir: dir, Env: env, Stderr: os.Stderr}
}

// Xapian Omega: omindex over the tree (URLs /docs/…), the omega CGI with
// its default "query" template at /cgi-bin/omega?P=….

func omegaIndex(dir, cache string) error {
	if err := os.MkdirAll(filepath.Join(cache, "db"), 0o755); err != nil {
		return err
	}
	return run(cache, "omindex", "--db", filepath.Join(cache, "db", "default"), "--url", "/docs/", dir)
}

func omegaMount(mux *http.ServeMux, dir, cache, addr string) (string, error) {
	conf := filepath.Join(cache, "omega.conf")
	logs := filepath.Join(cache, "log")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return "", err
	}
	text := fmt.Sprintf("database_dir %s\ntemplate_dir /usr/share/xapian-omega/templates\nlog_dir %s\ncdb_dir %s\n",
		filepath.Join(cache, "db"), logs, filepath.Join(cache, "cdb"))
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return "", err
	}
	mux.Handle("/cgi-bin/omega", cgiHandler(omegaCGI, "/cgi-bin/omega", cache, "OMEGA_CONFIG_FILE="+conf))
	return "http://" + addr + "/cgi-bin/omega?P={query}", nil
}

// ht://Dig: htdig reads the tree from disk (local_urls) under a
// placeholder site, htpurge finishes the database; htsearch with the
// stock templates of /etc/htdig at /cgi-bin/htsearch?config=docsqa&words=….

func htdigConf(cache, site string, pages []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "include: /etc/htdig/htdig.conf\n")
	fmt.Fprintf(&b, "database_dir: %s\n", filepath.Join(cache, "db"))
	fmt.Fprintf(&b, "limit_urls_to: %s\n", htdigSite)
	fmt.Fprintf(&b, "url_part_aliases: %s *site\n", site)
	fmt.Fprintf(&b, "common_url_parts: .html\n")
	fmt.Fprintf(&b, "max_doc_size: 2000000\n")
	if pages != nil {
		b.WriteString("start_url:")
		for _, p := range pages {
			b.WriteString(" \\\n\t" + htdigSite + p)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func htdigIndex(dir, cache string) error {
	pages, err := htmlFiles(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(cache, "db"), 0o755); err != nil {
		return err
	}
	conf := htdigConf(cache, htdigSite, pages) +
		fmt.Sprintf("local_urls: %s=%s/\nlocal_urls_only: true\n", htdigSite, dir)
	path := filepath.Join(cache, "index.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return err
	}
	if err := run(cache, "htdig", "-i", "-c", path); err != nil {
		return err
	}
	return run(cache, "htpurge", "-c", path)
}

func htdigMount(mux *http.ServeMux, dir, cache, addr string) (string, error) {
	site := "http://" + addr + "/docs/"
	// htsearch reads CONFIG_DIR/<config>.conf; the search side maps the
	// placeholder site to the real one.
	if err := os.WriteFile(filepath.Join(cache, "docsqa.conf"), []byte(htdigConf(cache, site, nil)), 0o644); err != nil {
		return "", err
	}
	mux.Handle("/cgi-bin/htsearch", cgiHandler(htsearchCGI, "/cgi-bin/htsearch", cache, "CONFIG_DIR="+cache))
	return "http://" + addr + "/cgi-bin/htsearch?config=docsqa&words={query}", nil
}

// Namazu: mknmz over the tree with file paths rewritten to /docs/…;
// namazu.cgi with the templates mknmz writes into the index, at
// /cgi-bin/namazu.cgi?query=….

func namazuIndex(dir, cache string) error {
	idx := filepath.Join(cache, "index")
	if err := os.MkdirAll(idx, 0o755); err != nil {
		return err
	}
	// mknmz skips files over 2 MB and cuts text at 600 kB by default; a
	// manual written as one large page (a proxy's configuration
	// reference) would not be searchable at all.
	rc := filepath.Join(cache, "mknmzrc")
	if err := os.WriteFile(rc, []byte("package conf;\n$FILE_SIZE_MAX = 20000000;\n$TEXT_SIZE_MAX = 10000000;\n1;\n"), 0o644); err != nil {
		return err
	}
	return run(cache, "mknmz", "--config="+rc, "--output-dir="+idx, "--allow=.*\\.html",
		"--replace=s#^"+strings.TrimSuffix(dir, "/")+"/#/docs/#", dir)
}

func namazuMount(mux *http.ServeMux, dir, cache, addr string) (string, error) {
	rc := filepath.Join(cache, "namazurc")
	if err := os.WriteFile(rc, []byte("Index "+filepath.Join(cache, "index")+"\n"), 0o644); err != nil {
		return "", err
	}
	mux.Handle("/cgi-bin/namazu.cgi", cgiHandler(namazuCGI, "/cgi-bin/namazu.cgi", cache, "NAMAZURC="+rc))
	return "http://" + addr + "/cgi-bin/namazu.cgi?query={query}", nil
}

// Pagefind: the static index pagefind builds from the tree, served under
// /pagefind/, and a search page with the stock Pagefind UI, which runs
// the query from ?q= and renders the results with JavaScript.

func pagefindIndex(dir, cache string) error {
	return run(cache, "npx", "-y", "pagefind@1", "--site", dir, "--output-path", filepath.Join(cache, "pagefind"))
}

const pagefindPage = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Search</title>
<link href="/pagefind/pagefind-ui.css" rel="stylesheet">
<script src="/pagefind/pagefind-ui.js"></script>
</head><body>
<h1>Search the documentation</h1>
<div id="search"></div>
<script>
window.addEventListener('DOMContentLoaded', () => {
  const ui = new PagefindUI({ element: "#search", baseUrl: "/docs/", showSubResults: true, showImages: false });
  const q = new URLSearchParams(location.search).get("q");
  if (q) ui.triggerSearch(q);
});
</script>
</body></html>
`

func pagefindMount(mux *http.ServeMux, dir, cache, addr string) (string, error) {
	mux.Handle("/pagefind/", http.StripPrefix("/pagefind/", http.FileServer(http.Dir(filepath.Join(cache, "pagefind")))))
	mux.HandleFunc("/pagefind-search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, pagefindPage)
	})
	return "http://" + addr + "/pagefind-search?q={query}", nil
}
