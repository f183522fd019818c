package agent

import (
	"fmt"
	"strings"
)

// Fences around page text in everything a model reads: what is between
// them is data from the page, never an instruction.
const (
	untrustedOpen  = "<<<UNTRUSTED PAGE TEXT"
	untrustedClose = "UNTRUSTED PAGE TEXT>>>"
)

// fence labels page-derived text as untrusted data, with any fence the
// page itself wrote defused.
func fence(s string) string {
	s = strings.ReplaceAll(s, "<<<", "‹‹‹")
	s = strings.ReplaceAll(s, ">>>", "›››")
	return untrustedOpen + "\n" + s + "\n" + untrustedClose
}

// Text renders the snapshot compactly for a model: one line per element,
// `[id] role "name" value=… state…`. Names, values and the summary come
// from the page and sit inside the untrusted fence.
func (s *Snapshot) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n", s.URL)
	fmt.Fprintf(&b, "Scroll: %d of %d (viewport %d)\n", s.ScrollY, s.Height, s.Viewport)
	var page strings.Builder
	fmt.Fprintf(&page, "Title: %s\n", s.Title)
	if len(s.Dialogs) > 0 {
		fmt.Fprintf(&page, "Dialogs open: %s\n", strings.Join(s.Dialogs, "; "))
	}
	for i := range s.Elements {
		page.WriteString(s.Elements[i].line())
		page.WriteByte('\n')
	}
	if s.Omitted > 0 {
		fmt.Fprintf(&page, "(%d more elements not shown)\n", s.Omitted)
	}
	fmt.Fprintf(&page, "Main text: %s", s.Summary)
	b.WriteString(fence(page.String()))
	return b.String()
}

func (e *Element) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d] %s", e.ID, e.Role)
	if e.Level > 0 {
		fmt.Fprintf(&b, "%d", e.Level)
	}
	if e.Name != "" {
		fmt.Fprintf(&b, " %q", e.Name)
	}
	if e.Value != "" {
		fmt.Fprintf(&b, " value=%q", e.Value)
	}
	if e.Tag == "select" && len(e.Options) > 0 {
		fmt.Fprintf(&b, " options=%q", strings.Join(e.Options, "|"))
	}
	for _, st := range e.State {
		b.WriteString(" " + st)
	}
	if len(e.Scroll) == 3 {
		fmt.Fprintf(&b, " scroll=%d/%d", e.Scroll[0], max(e.Scroll[1]-e.Scroll[2], 0))
	}
	if e.Frame > 0 {
		fmt.Fprintf(&b, " frame=%d", e.Frame)
	}
	if !e.InView {
		b.WriteString(" offscreen")
	}
	if e.Covered {
		b.WriteString(" covered")
	}
	return b.String()
}

// Tokens estimates the snapshot's size in model tokens as characters/4,
// the usual rule of thumb for English text and markup.
func (s *Snapshot) Tokens() int { return (len([]rune(s.Text())) + 3) / 4 }
