package fetch

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestNeedsBrowser(t *testing.T) {
	prose := strings.Join([]string{
		"The survey of regional rainfall found that October and November were the wettest months, well above the mean recorded since 1950.",
		"Gauges in the northern valleys measured twice the rain of the coastal plain, a gap the authors trace to the prevailing westerly winds.",
		"Soil moisture lagged the rain by about three weeks, so the driest soils of the year were measured in early autumn rather than in summer.",
		"The authors recommend that reservoir releases follow the soil record rather than the calendar, which would have saved water in four of the last ten years.",
		"Farmers interviewed for the study said the forecasts they rely on still assume the old seasonal pattern, which no longer holds in most districts.",
		"A second phase will add stations on the high plateau, where winter snow rather than autumn rain sets the water available in spring.",
		"Funding for the network runs until 2027, after which the regional water board has agreed to take over the maintenance of the gauges.",
		"Data from every station are published each month under an open licence, together with the corrections applied to faulty readings.",
	}, " ")
	tests := []struct {
		name, html, main, want string
	}{
		{"no scripts, no text", `<html><body><div id="root"></div></body></html>`, "", ""},
		{"shell", `<html><body><div id="root"></div><script src="/app.js"></script></body></html>`, "", ReasonShell},
		{"no main text beside a long page", `<html><body><nav>` + prose + `</nav><script>x()</script></body></html>`, "Loading", ReasonNoText},
		{"noscript holds the content", `<html><body><noscript><p>` + prose + `</p></noscript><div id="app"></div><script>x()</script></body></html>`, "", ReasonNoscript},
		{"notice", `<html><body><p>Please enable JavaScript to read this story.</p><main><p>` + prose[:300] + `</p></main><script>x()</script></body></html>`, prose[:300], ReasonJSNotice},
		{"short beside a long page", `<html><body><aside>` + prose + prose + `</aside><p>` + prose[:220] + `</p><script>x()</script></body></html>`, prose[:220], ReasonShort},
		{"prose hidden in state", `<html><body><p>` + prose[:300] + `</p><script type="application/json">{"body":"` + prose + `"}</script><script>x()</script></body></html>`, prose[:300], ReasonScripted},
		{"state the page shows", `<html><body><p>` + prose + `</p><script type="application/json">{"body":"` + prose + `"}</script><script>x()</script></body></html>`, prose, ""},
		{"JSON-LD is metadata", `<html><body><p>` + prose[:300] + `</p><script type="application/ld+json">{"articleBody":"` + prose + `"}</script><script>x()</script></body></html>`, prose[:300], ""},
		{"article with analytics", `<html><body><article><p>` + prose + `</p></article><script>ga()</script></body></html>`, prose, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := needsBrowser([]byte(tt.html), tt.main); got != tt.want {
				t.Errorf("needsBrowser = %q, want %q (shape %+v)", got, tt.want, measure([]byte(tt.html)))
			}
		})
	}
}

func TestMemoryHostsBounded(t *testing.T) {
	h := NewMemoryHosts(3)
	ctx := context.Background()
	now := time.Now()
	h.SetFetchMode(ctx, "a", ModeHTTP, now.Add(-time.Second)) // expired
	h.SetFetchMode(ctx, "b", ModeRender, now.Add(time.Hour))
	h.SetFetchMode(ctx, "c", ModeRender, now.Add(time.Hour))
	h.SetFetchMode(ctx, "d", ModeHTTP, now.Add(time.Hour)) // evicts the expired one
	if h.Len() != 3 {
		t.Errorf("len %d, want 3", h.Len())
	}
	if m, _ := h.FetchMode(ctx, "a"); m != "" {
		t.Errorf("expired host reads %q", m)
	}
	if m, _ := h.FetchMode(ctx, "b"); m != ModeRender {
		t.Errorf("b = %q", m)
	}
	for i := range 10 {
		h.SetFetchMode(ctx, string(rune('e'+i)), ModeHTTP, now.Add(time.Hour))
	}
	if h.Len() > 3 {
		t.Errorf("len %d past the bound", h.Len())
	}
}

func TestHostLimiterForgetsIdleHosts(t *testing.T) {
	l := newHostLimiter(1)
	ctx := context.Background()
	rel, err := l.acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := l.acquire(cctx, "a"); err == nil {
		t.Fatal("a second slot of a host with one was granted")
	}
	rel()
	if n := l.size(); n != 0 {
		t.Errorf("%d hosts held after release, want 0", n)
	}
}
