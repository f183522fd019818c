package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html/charset"

	"github.com/quarryhq/quarry/browser"
	"github.com/quarryhq/quarry/egress"
)

// StatusError is returned when a page answers with an error status.
type StatusError struct {
	URL    string
	Status int
}

// Error reads like "https://example.org/a answered HTTP 404".
func (e *StatusError) Error() string {
	return fmt.Sprintf("%s answered HTTP %d", e.URL, e.Status)
}

// response is one document fetched over HTTP, its body decoded to UTF-8
// when it is text.
type response struct {
	finalURL    string
	status      int
	mediaType   string // e.g. text/html, application/pdf
	body        []byte
	attachment  bool
	connect     time.Duration // DNS, TCP and TLS of a new connection; 0 on a reused one
	firstByte   time.Duration // from sending the request to the first response byte
	bodyTime    time.Duration // reading (and decompressing) the body
	contentType string
}

// chromeUA is the User-Agent of a desktop Chromium, the browser Quarry
// renders with; the version is the one the pool's browser reports when
// known (Options.UserAgent).
const chromeUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// setBrowserHeaders sets the headers Chromium sends on a top-level
// navigation typed into the address bar.
func setBrowserHeaders(h http.Header, ua string) {
	h.Set("User-Agent", ua)
	h.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7")
	h.Set("Accept-Language", "en-US,en;q=0.9")
	h.Set("Accept-Encoding", "gzip, deflate")
	h.Set("Upgrade-Insecure-Requests", "1")
	h.Set("Sec-Fetch-Dest", "document")
	h.Set("Sec-Fetch-Mode", "navigate")
	h.Set("Sec-Fetch-Site", "none")
	h.Set("Sec-Fetch-User", "?1")
	major := "131"
	if i := strings.Index(ua, "Chrome/"); i >= 0 {
		v := ua[i+len("Chrome/"):]
		if j := strings.IndexByte(v, '.'); j > 0 {
			major = v[:j]
		}
	}
	h.Set("Sec-Ch-Ua", fmt.Sprintf(`"Chromium";v="%s", "Not_A Brand";v="24"`, major))
	h.Set("Sec-Ch-Ua-Mobile", "?0")
	h.Set("Sec-Ch-Ua-Platform", `"Linux"`)
}

// get fetches rawURL with the guarded client: every hop of a redirect is
// dialled through the guard, the body is capped at limit bytes after
// decompression and text is decoded to UTF-8.
func (f *Fetcher) get(ctx context.Context, rawURL string, limit int64) (*response, error) {
	out := &response{}
	// The trace's callbacks run on the transport's goroutines, and a dial
	// begun for this request may finish after it took another connection.
	var mu sync.Mutex
	var connStart, tlsStart, wrote time.Time
	var dialTime, firstByte time.Duration
	locked := func(f func()) {
		mu.Lock()
		defer mu.Unlock()
		f()
	}
	trace := &httptrace.ClientTrace{
		ConnectStart: func(string, string) { locked(func() { connStart = time.Now() }) },
		ConnectDone: func(string, string, error) {
			locked(func() {
				if !connStart.IsZero() {
					dialTime += time.Since(connStart)
				}
			})
		},
		TLSHandshakeStart: func() { locked(func() { tlsStart = time.Now() }) },
		TLSHandshakeDone: func(tls.ConnectionState, error) {
			locked(func() {
				if !tlsStart.IsZero() {
					dialTime += time.Since(tlsStart)
				}
			})
		},
		WroteRequest: func(httptrace.WroteRequestInfo) { locked(func() { wrote = time.Now() }) },
		GotFirstResponseByte: func() {
			locked(func() {
				if !wrote.IsZero() {
					firstByte += time.Since(wrote)
				}
			})
		},
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	setBrowserHeaders(req.Header, f.opt.UserAgent)
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, egress.RequestError(rawURL, err)
	}
	defer resp.Body.Close()
	locked(func() { out.connect, out.firstByte = dialTime, firstByte })
	out.finalURL = resp.Request.URL.String()
	out.status = resp.StatusCode
	out.contentType = resp.Header.Get("Content-Type")
	out.attachment = strings.HasPrefix(strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Disposition"))), "attachment")
	if resp.StatusCode >= 400 {
		// The caller decides from the status alone; a little of the body
		// is read so the connection can be reused.
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
		return out, nil
	}
	if resp.ContentLength > limit {
		return nil, &browser.PageTooLargeError{URL: rawURL, Limit: limit}
	}

	start := time.Now()
	var body io.Reader = resp.Body
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("read %s: gzip: %w", rawURL, err)
		}
		defer zr.Close()
		body = zr
	case "deflate":
		zr := flate.NewReader(resp.Body)
		defer zr.Close()
		body = zr
	default:
		return nil, fmt.Errorf("read %s: unsupported content encoding %q", rawURL, resp.Header.Get("Content-Encoding"))
	}
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rawURL, err)
	}
	if int64(len(data)) > limit {
		return nil, &browser.PageTooLargeError{URL: rawURL, Limit: limit}
	}
	out.bodyTime = time.Since(start)

	mt, _, err := mime.ParseMediaType(out.contentType)
	if err != nil || mt == "" || mt == "application/octet-stream" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(data))
	}
	out.mediaType = strings.ToLower(mt)
	if isText(out.mediaType) {
		enc, name, _ := charset.DetermineEncoding(data, out.contentType)
		if name != "utf-8" && enc != nil {
			if dec, err := enc.NewDecoder().Bytes(data); err == nil {
				data = dec
			}
		}
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	}
	out.body = data
	return out, nil
}

func isText(mt string) bool {
	return strings.HasPrefix(mt, "text/") || mt == "application/xhtml+xml" || mt == "application/xml" || strings.HasSuffix(mt, "+xml")
}

func isHTML(mt string) bool {
	return mt == "text/html" || mt == "application/xhtml+xml"
}
