// Command harvest shows what Quarry's generic harvester finds on a results
// page, the way a research run sees it: the page rendered by Chromium,
// then search.Harvest with the url:<template> engine.
//
//	go run ./bench/docsqa/harvest 'http://127.0.0.1:PORT/cgi-bin/omega?P={query}' 'vacuum freeze' …
package main

import (
	"context"
	"fmt"
	"log"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/egress"
	"github.com/quarryhq/quarry/search"
)

func main() {
	if len(os.Args) < 3 {
		log.Fatal("usage: harvest TEMPLATE QUERY…")
	}
	tmpl := os.Args[1]
	u, err := url.Parse(strings.ReplaceAll(tmpl, "{query}", "x"))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	pool, err := browser.NewPool(ctx, browser.PoolOptions{
		ChromiumPath: os.Getenv("QUARRY_CHROMIUM"), Size: 1,
		Guard: egress.NewGuard([]string{u.Host}),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	for _, q := range os.Args[2:] {
		page := strings.ReplaceAll(tmpl, "{query}", url.QueryEscape(q))
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		r, err := pool.Render(cctx, page)
		cancel()
		if err != nil {
			fmt.Printf("%q: render: %v\n", q, err)
			continue
		}
		res, err := search.Harvest("url:"+tmpl, r.FinalURL, r.HTML)
		fmt.Printf("%q: %d results (err %v)\n", q, len(res), err)
		for _, x := range res {
			fmt.Printf("  %s  %q\n", x.URL, x.Title)
		}
	}
}
