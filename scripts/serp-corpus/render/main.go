// Command render prints the DOM Chromium renders for a loopback URL once a
// marker string appears in it and the page stops changing: the fixture of
// a results page that scripts fill in after load. Used by
// scripts/serp-corpus.sh.
//
//	go run ./scripts/serp-corpus/render URL MARKER
package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/egress"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: render URL MARKER")
		os.Exit(2)
	}
	raw, marker := os.Args[1], os.Args[2]
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		fmt.Fprintln(os.Stderr, "render: not a URL:", raw)
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := browser.NewPool(ctx, browser.PoolOptions{Size: 1, Guard: egress.NewGuard([]string{u.Host})})
	if err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
	defer pool.Close()
	// Ready once the marker is there and the page stayed the same for one
	// reading (results that arrive one by one are all in).
	prev := ""
	r, err := pool.RenderUntil(ctx, raw, 15*time.Second, func(r *browser.Rendered) bool {
		same := r.HTML == prev
		prev = r.HTML
		return same && strings.Contains(r.HTML, marker)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
	if !strings.Contains(r.HTML, marker) {
		fmt.Fprintf(os.Stderr, "render: %q never appeared in %s\n", marker, raw)
		os.Exit(1)
	}
	fmt.Println(r.HTML)
}
