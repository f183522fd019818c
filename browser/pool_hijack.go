package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/quarryhq/quarry/egress"
)

// ErrDownloadRefused is returned when a navigation leads to a file download.
var ErrDownloadRefused = errors.New("download refused")

// PageTooLargeError is returned when a response or the rendered page is
// bigger than PoolOptions.MaxPageBytes allows.
type PageTooLargeError struct {
	URL   string
	Limit int64
}

// Error names the URL and the limit it went over.
func (e *PageTooLargeError) Error() string {
	return fmt.Sprintf("page too large: %s is over the %d-byte limit", e.URL, e.Limit)
}

// blockedTypes are never fetched: they cost bandwidth and time and carry no
// text. (Images are also disabled in Blink; this catches the rest.)
var blockedTypes = map[proto.NetworkResourceType]bool{
	proto.NetworkResourceTypeImage:              true,
	proto.NetworkResourceTypeMedia:              true,
	proto.NetworkResourceTypeFont:               true,
	proto.NetworkResourceTypePing:               true,
	proto.NetworkResourceTypeCSPViolationReport: true,
	proto.NetworkResourceTypePrefetch:           true,
	proto.NetworkResourceTypeManifest:           true,
	proto.NetworkResourceTypeTextTrack:          true,
}

// hopHeaders are not forwarded in either direction: Go's transport manages
// them, and it decompresses bodies itself.
var hopHeaders = map[string]bool{
	"accept-encoding":   true,
	"content-encoding":  true,
	"content-length":    true,
	"transfer-encoding": true,
	"connection":        true,
	"keep-alive":        true,
	"host":              true,
	"upgrade":           true,
	"te":                true,
	"trailer":           true,
	"proxy-connection":  true,
}

// handleRequest answers one intercepted request: blocked types fail at
// once; a session's request policy is asked next; everything else is
// fetched by Go through the guard and handed back to Chromium, so no byte
// reaches the network without passing the guard.
func (inst *instance) handleRequest(e *proto.FetchRequestPaused) {
	ctx, cancel := context.WithTimeout(inst.ctx, inst.pool.opt.NavTimeout+5*time.Second)
	defer cancel()
	tab := inst.tabByTarget(proto.TargetTargetID(e.FrameID))
	mainDoc := tab != nil && e.ResourceType == proto.NetworkResourceTypeDocument
	// Stylesheets cost a round trip each and extraction reads the DOM, not
	// the layout; only printing asks for them.
	noStyles := e.ResourceType == proto.NetworkResourceTypeStylesheet && (tab == nil || !tab.styles.Load())
	if blockedTypes[e.ResourceType] || noStyles {
		inst.failRequest(ctx, e.RequestID, proto.NetworkErrorReasonBlockedByClient)
		return
	}
	if tab != nil {
		gen := tab.netStart()
		defer tab.netDone(gen)
	}
	var res *proto.FetchFulfillRequest
	var err error
	if owner, main := inst.tabOfFrame(e.FrameID); owner != nil {
		// A session's own policy (a site agent's allowed sites) decides
		// before anything is sent.
		doc := e.ResourceType == proto.NetworkResourceTypeDocument
		err = owner.allow(e, doc, doc && main)
	}
	if err == nil {
		res, err = inst.fetch(ctx, e, mainDoc)
	}
	if err != nil {
		inst.pool.log.Debug("request refused or failed", "url", e.Request.URL, "err", err)
		if mainDoc && failReason(err) == proto.NetworkErrorReasonBlockedByClient {
			// A refused top-level document is answered "204 No Content":
			// Chromium then keeps the page it has instead of committing an
			// error page, so a page that script-navigates to a download or
			// a forbidden address keeps its own text. The navigation that
			// asked for it reads the reason from the tab.
			tab.setDocErr(err)
			res := proto.FetchFulfillRequest{RequestID: e.RequestID, ResponseCode: http.StatusNoContent, Body: []byte{}}
			_ = res.Call(inst.browser.Context(ctx))
			return
		}
		if mainDoc {
			tab.setDocErr(err)
		}
		inst.failRequest(ctx, e.RequestID, failReason(err))
		return
	}
	if mainDoc {
		tab.setDoc(res.ResponseCode)
	}
	res.RequestID = e.RequestID
	if err := res.Call(inst.browser.Context(ctx)); err != nil {
		inst.pool.log.Debug("fulfil request", "url", e.Request.URL, "err", err)
	}
}

func (inst *instance) failRequest(ctx context.Context, id proto.FetchRequestID, reason proto.NetworkErrorReason) {
	_ = proto.FetchFailRequest{RequestID: id, ErrorReason: reason}.Call(inst.browser.Context(ctx))
}

func failReason(err error) proto.NetworkErrorReason {
	var tooLarge *PageTooLargeError
	switch {
	case errors.Is(err, egress.ErrRefused), errors.Is(err, ErrDownloadRefused), errors.As(err, &tooLarge):
		return proto.NetworkErrorReasonBlockedByClient
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return proto.NetworkErrorReasonTimedOut
	}
	return proto.NetworkErrorReasonConnectionFailed
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// fetch performs the request in Go. Redirects are returned to Chromium
// unfollowed, so each hop is intercepted and checked again.
func (inst *instance) fetch(ctx context.Context, e *proto.FetchRequestPaused, mainDoc bool) (*proto.FetchFulfillRequest, error) {
	rawURL := e.Request.URL
	if err := schemeAllowed(rawURL); err != nil {
		return nil, err
	}
	var body io.Reader
	if e.Request.HasPostData && e.Request.PostData != "" {
		body = strings.NewReader(e.Request.PostData)
	}
	req, err := http.NewRequestWithContext(ctx, e.Request.Method, rawURL, body)
	if err != nil {
		return nil, fmt.Errorf("build request for %s: %w", rawURL, err)
	}
	for k, v := range e.Request.Headers {
		if hopHeaders[strings.ToLower(k)] {
			continue
		}
		val := v.Str()
		if strings.EqualFold(k, "User-Agent") {
			val = strings.Replace(val, "HeadlessChrome", "Chrome", 1)
		}
		req.Header.Set(k, val)
	}
	resp, err := inst.client.Do(req)
	if err != nil {
		return nil, egress.RequestError(rawURL, err)
	}
	defer resp.Body.Close()

	limit := inst.pool.opt.MaxPageBytes
	if mainDoc {
		if err := checkDocument(rawURL, resp); err != nil {
			return nil, err
		}
	} else if isAttachment(resp.Header.Get("Content-Disposition")) {
		return nil, fmt.Errorf("%w: %s is an attachment", ErrDownloadRefused, rawURL)
	}
	if resp.ContentLength > limit {
		return nil, &PageTooLargeError{URL: rawURL, Limit: limit}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rawURL, err)
	}
	if int64(len(data)) > limit {
		return nil, &PageTooLargeError{URL: rawURL, Limit: limit}
	}
	out := &proto.FetchFulfillRequest{
		ResponseCode:   resp.StatusCode,
		ResponsePhrase: strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode))),
		Body:           data,
	}
	for k, vs := range resp.Header {
		if hopHeaders[strings.ToLower(k)] {
			continue
		}
		for _, v := range vs {
			out.ResponseHeaders = append(out.ResponseHeaders, &proto.FetchHeaderEntry{Name: k, Value: v})
		}
	}
	if out.ResponsePhrase == "" {
		out.ResponsePhrase = http.StatusText(resp.StatusCode)
	}
	return out, nil
}

func schemeAllowed(rawURL string) error {
	if strings.HasPrefix(rawURL, "http://") || strings.HasPrefix(rawURL, "https://") {
		return nil
	}
	scheme, _, _ := strings.Cut(rawURL, ":")
	return &egress.Error{URL: rawURL, Host: rawURL, Reason: fmt.Sprintf("uses the %q scheme (only http and https are allowed)", scheme)}
}

// checkDocument refuses a top-level response that is a download or not a
// document Chromium would render as text.
func checkDocument(rawURL string, resp *http.Response) error {
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return nil
	}
	if isAttachment(resp.Header.Get("Content-Disposition")) {
		return fmt.Errorf("%w: %s is an attachment", ErrDownloadRefused, rawURL)
	}
	ct := resp.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil // let Chromium sniff it
	}
	switch {
	case strings.HasPrefix(mt, "text/"),
		mt == "application/xhtml+xml", mt == "application/xml",
		mt == "application/json", strings.HasSuffix(mt, "+xml"), strings.HasSuffix(mt, "+json"):
		return nil
	}
	return fmt.Errorf("%w: %s has content type %s, not a page", ErrDownloadRefused, rawURL, mt)
}

func isAttachment(disposition string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(disposition)), "attachment")
}
