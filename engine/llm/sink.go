package llm

import (
	"regexp"
	"strings"
)

// textSink forwards the visible part of a streamed answer to the caller as
// it arrives: reasoning stripped, leading blank space dropped and, for a
// report, nothing from a model-written Sources list on (code renders that).
type textSink struct {
	forward     func(string)
	cutSources  bool
	think       thinkStripper
	started     bool // a non-space character has been forwarded
	emitted     bool // anything at all reached forward
	holding     bool // the current line starts with '#' and is held back
	held        strings.Builder
	atLineStart bool
	stopped     bool // a Sources heading was seen
}

func newTextSink(forward func(string), cutSources bool) *textSink {
	return &textSink{forward: forward, cutSources: cutSources, atLineStart: true}
}

// reset prepares the sink for a retried attempt. It is only called while
// nothing has been forwarded yet.
func (s *textSink) reset() {
	*s = textSink{forward: s.forward, cutSources: s.cutSources, atLineStart: true}
}

// write takes a raw delta from the model.
func (s *textSink) write(raw string) {
	if s == nil {
		return
	}
	s.visible(s.think.feed(raw))
}

// close forwards whatever the filters still hold at the end of the stream.
func (s *textSink) close() {
	if s == nil {
		return
	}
	s.visible(s.think.flush())
	if s.holding && !s.stopped {
		line := s.held.String()
		s.holding = false
		if s.cutSources && sourcesHeading.MatchString(line) {
			s.stopped = true
			return
		}
		s.emit(line)
	}
}

func (s *textSink) visible(text string) {
	if !s.started {
		text = strings.TrimLeft(text, " \t\r\n")
		if text == "" {
			return
		}
		s.started = true
	}
	if !s.cutSources {
		s.emit(text)
		return
	}
	s.emit(s.guard(text))
}

// guard passes text through line by line, holding back a line that starts
// with '#' until it is complete, and stops at a Sources heading.
func (s *textSink) guard(text string) string {
	var out strings.Builder
	for text != "" && !s.stopped {
		if s.holding {
			i := strings.IndexByte(text, '\n')
			if i < 0 {
				s.held.WriteString(text)
				if s.held.Len() > 200 { // too long for a heading
					out.WriteString(s.held.String())
					s.held.Reset()
					s.holding, s.atLineStart = false, false
				}
				break
			}
			s.held.WriteString(text[:i+1])
			text = text[i+1:]
			line := s.held.String()
			s.held.Reset()
			s.holding, s.atLineStart = false, true
			if sourcesHeading.MatchString(line) {
				s.stopped = true
				break
			}
			out.WriteString(line)
			continue
		}
		if s.atLineStart && text[0] == '#' {
			s.holding = true
			continue
		}
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			out.WriteString(text)
			s.atLineStart = false
			break
		}
		out.WriteString(text[:i+1])
		text = text[i+1:]
		s.atLineStart = true
	}
	return out.String()
}

func (s *textSink) emit(text string) {
	if text == "" || s.forward == nil {
		return
	}
	s.emitted = true
	s.forward(text)
}

// sourcesHeading matches a heading that opens a model-written source list.
var sourcesHeading = regexp.MustCompile(`(?i)^\s*#{1,6}\s*(sources|references|bibliography|works cited)\s*:?\s*$`)

// cutSourcesList removes a model-written source list (from its heading to
// the end) from a complete report.
func cutSourcesList(md string) string {
	lines := strings.SplitAfter(md, "\n")
	var b strings.Builder
	for _, line := range lines {
		if sourcesHeading.MatchString(strings.TrimRight(line, "\r\n")) {
			break
		}
		b.WriteString(line)
	}
	return b.String()
}
