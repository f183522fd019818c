// Command serve is the loopback web site for `quarry bench fetch` and the
// Crawlee comparison: it serves the pages of a benchmark directory
// (html/*.html.gz) under distinct URLs, adds a fixed latency to every
// request (documents and subresources alike), and writes the URL list.
//
//	go run ./bench/serve -dir ../shared/benchmarks/article-extraction -n 200 -latency 100ms -urls /tmp/urls.txt
package main

import (
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"time"
)

func main() {
	dir := flag.String("dir", "", "benchmark directory holding html/*.html.gz")
	n := flag.Int("n", 200, "number of distinct page URLs (pages repeat when there are fewer files)")
	latency := flag.Duration("latency", 100*time.Millisecond, "delay added to every request")
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	urls := flag.String("urls", "urls.txt", "where to write the URL list")
	flag.Parse()

	files, err := filepath.Glob(filepath.Join(*dir, "html", "*.html.gz"))
	if err != nil || len(files) == 0 {
		log.Fatalf("no html/*.html.gz under %q", *dir)
	}
	sort.Strings(files)
	pages := make([][]byte, len(files))
	for i, f := range files {
		if pages[i], err = readGzip(f); err != nil {
			log.Fatal(err)
		}
	}

	var requests, documents atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/p/{i}", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("i"))
		if err != nil || i < 0 {
			http.NotFound(w, r)
			return
		}
		documents.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.Write(pages[i%len(pages)])
	})
	mux.HandleFunc("/stats", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"requests":%d,"documents":%d}`+"\n", requests.Load(), documents.Load())
	})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/stats" {
			requests.Add(1)
			time.Sleep(*latency)
		}
		mux.ServeHTTP(w, r)
	})

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	f, err := os.Create(*urls)
	if err != nil {
		log.Fatal(err)
	}
	for i := range *n {
		fmt.Fprintf(f, "%s/p/%d\n", base, i)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	log.Printf("serving %d pages (%d files) at %s with %v latency; URLs in %s", *n, len(files), base, *latency, *urls)
	log.Fatal(http.Serve(ln, handler))
}

func readGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return io.ReadAll(zr)
}
