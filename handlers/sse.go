package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Header that tells nginx (and compatible proxies) not to buffer a stream.
const accelBufferingHeader = "X-Accel-Buffering"

// sseWriteTimeout bounds one write to a stream; a viewer that does not read
// for this long is cut off rather than holding its goroutine forever.
const sseWriteTimeout = 30 * time.Second

// eventStream writes Server-Sent Events to one connection. One subscriber
// per connection needs no fan-out: each frame is written and flushed as it
// is sent, every write bounded by sseWriteTimeout.
type eventStream struct {
	w  http.ResponseWriter
	rc *http.ResponseController

	mu      sync.Mutex // orders abort against the next write and close
	aborted bool
	closed  bool
}

// openEventStream sends a stream's headers. Nothing in the middleware
// chain compresses or times out a response (see routes).
func openEventStream(w http.ResponseWriter) (*eventStream, error) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set(accelBufferingHeader, "no")
	w.WriteHeader(http.StatusOK)
	s := &eventStream{w: w, rc: http.NewResponseController(w)}
	if err := s.rc.Flush(); err != nil {
		return nil, fmt.Errorf("flush stream headers: %w", err)
	}
	return s, nil
}

// Send writes one event: its id, its data a line at a time (a line break
// inside a data field would end it), and its name.
func (s *eventStream) Send(id int64, event string, data []byte) error {
	var b bytes.Buffer
	b.WriteString("id: ")
	b.WriteString(strconv.FormatInt(id, 10))
	b.WriteByte('\n')
	for _, line := range strings.Split(lineBreaks.Replace(string(data)), "\n") {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if event != "" {
		b.WriteString("event: ")
		b.WriteString(event)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return s.write(b.Bytes())
}

// lineBreaks turns every line break an event stream knows (CRLF, CR, LF)
// into LF.
var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// Comment writes a comment, which a client ignores: the heartbeat that
// keeps an idle stream open through proxies.
func (s *eventStream) Comment(text string) error {
	return s.write([]byte(": " + text + "\n\n"))
}

// errViewerGone wraps a failed write: the viewer left or stopped reading.
var errViewerGone = errors.New("viewer gone")

func (s *eventStream) write(b []byte) error {
	s.mu.Lock()
	if s.aborted {
		s.mu.Unlock()
		return fmt.Errorf("%w: the stream was closed", errViewerGone)
	}
	s.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	s.mu.Unlock()
	if _, err := s.w.Write(b); err != nil {
		return fmt.Errorf("%w: %w", errViewerGone, err)
	}
	if err := s.rc.Flush(); err != nil {
		return fmt.Errorf("%w: %w", errViewerGone, err)
	}
	return nil
}

// abort makes a write in progress, and every later one, fail at once. It
// does nothing once the stream is closed (the handler may have returned).
func (s *eventStream) abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.aborted = true
	s.rc.SetWriteDeadline(time.Now())
}

// close lifts the write deadline, so a connection kept alive after the
// stream is not cut by it.
func (s *eventStream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if !s.aborted {
		s.rc.SetWriteDeadline(time.Time{})
	}
}
