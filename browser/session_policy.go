package browser

import (
	"fmt"

	"github.com/go-rod/rod/lib/proto"
	"github.com/quarryhq/quarry/egress"
)

// Request is a request a session's page is about to send, as a
// RequestPolicy sees it: nothing of it has left the browser yet.
type Request struct {
	Method string
	URL    string
	// Type is Chromium's resource type: Document, XHR, Fetch, Script,
	// Stylesheet, EventSource, WebSocket, Other…
	Type string
	// Frame is the document of the tab's main frame or of one of its
	// frames (a navigation or a form submission), not a subresource.
	Frame bool
	// Main is a document of the main frame (what the tab shows).
	Main bool
}

// RequestPolicy decides, before a request is sent, whether a session's
// page may send it: an error refuses it (the page sees a network error;
// a refused main-frame document leaves the page as it was).
type RequestPolicy func(Request) error

// Refusal is a request a session's policy stopped, with the reason.
type Refusal struct {
	Request
	Err error
}

// maxRefusals bounds the refusals a tab keeps until they are taken.
const maxRefusals = 64

// SetRequestPolicy makes p decide every later request of the session's
// tab and of its frames, after the egress guard's rules and before
// anything is sent. nil removes it.
func (s *Session) SetRequestPolicy(p RequestPolicy) {
	if p == nil {
		s.tab.policy.Store(nil)
		return
	}
	s.tab.policy.Store(&p)
}

// TakeRefused returns the requests the policy stopped since the last
// call, oldest first, and forgets them.
func (s *Session) TakeRefused() []Refusal {
	s.tab.mu.Lock()
	defer s.tab.mu.Unlock()
	out := s.tab.refused
	s.tab.refused = nil
	return out
}

// allow asks the tab's policy about e; the refusal wraps
// egress.ErrRefused, so it is answered like a guard's refusal.
func (t *tabState) allow(e *proto.FetchRequestPaused, frame, main bool) error {
	p := t.policy.Load()
	if p == nil {
		return nil
	}
	r := Request{Method: e.Request.Method, URL: e.Request.URL, Type: string(e.ResourceType), Frame: frame, Main: main}
	err := (*p)(r)
	if err == nil {
		return nil
	}
	t.mu.Lock()
	if len(t.refused) < maxRefusals {
		t.refused = append(t.refused, Refusal{Request: r, Err: err})
	}
	t.mu.Unlock()
	return fmt.Errorf("%w: %s %s: %w", egress.ErrRefused, r.Method, r.URL, err)
}
