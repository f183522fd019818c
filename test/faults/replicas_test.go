//go:build faults

package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// TestReplicasBehindNginx: two replicas behind nginx under /quarry/, round
// robin. Runs created through the proxy complete; viewers through the
// proxy and on each replica see every event once, in order; every link,
// form, script, stylesheet, event stream and share link of the pages
// works through the proxy; a revoked share link is 404 on both replicas at
// once; and when the replica working on a run is killed with SIGKILL the
// other resumes it and it completes.
func TestReplicasBehindNginx(t *testing.T) {
	dbURL, conn := database(t)
	s := newSite(300 * time.Millisecond)
	defer s.Close()
	proxyAddr := freeAddr(t)
	env := append(baseEnv(dbURL, s), "QUARRY_BASE_URL=http://"+proxyAddr+"/quarry", "QUARRY_TRUSTED_PROXIES=127.0.0.1")
	a := startReplica(t, "replica A", env...)
	b := startReplica(t, "replica B", env...)
	ngx := startNginx(t, proxyAddr, a.addr, b.addr)

	// Two runs through the proxy, each watched through the proxy and on
	// both replicas directly.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var ids []string
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		id := createRun(t, ngx.url(), fmt.Sprintf("How do Postgres advisory locks work with job queues (run %d)?", i+1), "quick")
		ids = append(ids, id)
		for _, base := range []string{ngx.url(), ngx.url(), a.url(), b.url()} {
			ch, err := readStream(ctx, base+"/api/runs/"+id+"/events")
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				var last int
				for ev := range ch {
					if ev.id != fmt.Sprint(last+1) {
						t.Errorf("viewer at %s of run %s: event id %s after %d", base, id, ev.id, last)
						return
					}
					last++
					if ev.event == "run_completed" {
						return
					}
				}
				t.Errorf("viewer at %s of run %s: stream ended after %d events without run_completed", base, id, last)
			}()
		}
	}
	for _, id := range ids {
		r := waitFor(t, conn, id, 90*time.Second, "finished", terminal)
		checkEnded(t, conn, id, r)
	}
	wg.Wait()

	// Every URL on the pages works through the proxy.
	page := ngx.url() + "/runs/" + ids[0]
	links := pageLinks(t, page)
	if len(links) < 5 {
		t.Fatalf("only %d links on the run page: %v", len(links), links)
	}
	t.Logf("%d links on the run page through the proxy", len(links))
	for _, l := range links {
		if !strings.HasPrefix(l, "/quarry/") && !strings.HasPrefix(l, "http://"+proxyAddr+"/quarry/") && !strings.HasPrefix(l, "#") {
			t.Errorf("link %q on %s is not under the base path", l, page)
		}
	}
	for _, l := range links {
		if strings.HasPrefix(l, "#") || strings.Contains(l, "/events") || strings.HasSuffix(l, ".pdf") {
			continue
		}
		target := l
		if strings.HasPrefix(l, "/") {
			target = "http://" + proxyAddr + l
		}
		resp, err := http.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		// Form actions answer GET with 405; everything else must be found.
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("GET %s through the proxy: %d", target, resp.StatusCode)
		}
	}
	var run struct {
		ShareURL string `json:"share_url"`
	}
	getJSON(t, ngx.url()+"/api/runs/"+ids[0], &run)
	if !strings.HasPrefix(run.ShareURL, "http://"+proxyAddr+"/quarry/r/") {
		t.Fatalf("share URL %q is not under the public base URL", run.ShareURL)
	}
	token := run.ShareURL[strings.LastIndex(run.ShareURL, "/")+1:]
	for _, u := range []string{run.ShareURL, a.url() + "/r/" + token, b.url() + "/quarry/r/" + token} {
		if code := status(t, u); code != http.StatusOK {
			t.Errorf("share link %s: %d", u, code)
		}
	}
	// The event stream URL of a page, through the proxy, streams.
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	ch, err := readStream(sctx, ngx.url()+"/runs/"+ids[1]+"/events")
	if err != nil {
		t.Fatal(err)
	}
	if ev, ok := <-ch; !ok || ev.id != "1" {
		t.Errorf("the page's event stream through the proxy: %+v %v", ev, ok)
	}
	scancel()

	// Revoking is seen by both replicas at once.
	resp, err := http.Post(ngx.url()+"/runs/"+ids[0]+"/share/revoke", "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, u := range []string{a.url() + "/r/" + token, b.url() + "/r/" + token, run.ShareURL} {
		if code := status(t, u); code != http.StatusNotFound {
			t.Errorf("revoked share link %s: %d, want 404", u, code)
		}
	}

	// SIGKILL the replica working on a run: the other resumes it.
	id := createRun(t, ngx.url(), "How do Postgres row-level locks interact with SKIP LOCKED job queues?", "quick")
	r := waitFor(t, conn, id, 30*time.Second, "gathering", func(r runRow) bool { return r.Status == "gathering" && r.LeaseOwner != "" })
	victim, survivor := a, b
	if ownerPID(r.LeaseOwner) == b.pid() {
		victim, survivor = b, a
	} else if ownerPID(r.LeaseOwner) != a.pid() {
		t.Fatalf("lease owner %q is neither replica", r.LeaseOwner)
	}
	killedAt := time.Now()
	victim.kill()
	r = waitFor(t, conn, id, 90*time.Second, "finished", terminal)
	checkEnded(t, conn, id, r)
	t.Logf("killed %s mid-gather; %s finished the run %s later (status %s, %d claims)", victim.name, survivor.name, time.Since(killedAt).Round(100*time.Millisecond), r.Status, r.Attempts)
	if r.Attempts < 2 {
		t.Errorf("the run was claimed %d times; the survivor never resumed it", r.Attempts)
	}
	// The proxy keeps serving through the survivor.
	for i := 0; i < 4; i++ {
		if code := status(t, ngx.url()+"/api/runs/"+id); code != http.StatusOK {
			t.Errorf("through the proxy after the kill: %d", code)
		}
	}
}

// pageLinks returns every href, src, action and sse-connect on a page.
func pageLinks(t *testing.T, url string) []string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	doc.Find("[href], [src], [action], [sse-connect], [hx-get], [hx-post]").Each(func(_ int, s *goquery.Selection) {
		for _, attr := range []string{"href", "src", "action", "sse-connect", "hx-get", "hx-post"} {
			if v, ok := s.Attr(attr); ok && !strings.HasPrefix(v, "https://") && !strings.HasPrefix(v, "mailto:") {
				if strings.HasPrefix(v, "http://127.0.0.1") && !strings.Contains(v, "/quarry/") {
					continue // a source's own URL (the loopback site), not Quarry's
				}
				out = append(out, v)
			}
		}
	})
	return out
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
