package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPageChecksCatchProblems: the page checks are not vacuous — on a
// page built to fail, axe-core reports the missing language, the image
// without text and the faint text, and the width check the wide block.
func TestPageChecksCatchProblems(t *testing.T) {
	t.Parallel() // its own server: see TestPagesFitPhonesAndPassAxe
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html><head><title>bad</title><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Bad page</h1><img src="/x.png"><p style="color:#eee;background:#fff">faint text</p>
<div style="width:600px">a block wider than a phone</div></main></body></html>`))
	}))
	t.Cleanup(srv.Close)
	page := newUIPage(t)
	page.MustNavigate(srv.URL).MustWaitLoad()
	page.phone()
	if over := page.overflow(t, phoneWidth); !strings.Contains(over, "div") {
		t.Errorf("the width check missed a 600 px block at %d px: %q", phoneWidth, over)
	}
	found := strings.Join(page.axe(t), "\n")
	for _, rule := range []string{"html-has-lang", "image-alt", "color-contrast"} {
		if !strings.Contains(found, rule) {
			t.Errorf("axe-core did not report %s; it reported:\n%s", rule, found)
		}
	}
}
