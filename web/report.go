package web

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/quarryhq/quarry/report"
)

// ReportView is a published report as the run page and the share page
// show it.
type ReportView struct {
	RunID    string
	Title    string // the report's own title, else the question
	Question string
	Depth    string
	Engine   string // the engine (and model) of the server that wrote it
	Date     time.Time
	Version  int
	// BodyHTML is the sanitized report body: its sections, citations
	// linked to their evidence (#ev-N), without the Sources list.
	BodyHTML string
	Sources  []SourceView
	Prior    []PriorView
	// Evidence has one entry per citation link of the body, in order.
	Evidence []EvidenceView
	Scores   Scores
	// Unsupported are the cited sentences verification could not support.
	Unsupported []ClaimView
	Warning     string
	// Note says why the run stopped early (a budget limit, a failed
	// repair), when it did.
	Note string
	// Share is the share link state; the share page leaves it empty.
	Share ShareView
	// Exports are the download URLs.
	Exports ExportLinks
	// Shared is true on /r/{token}: read-only, no follow-up, no share
	// management.
	Shared bool
	// ParentID and ParentQuestion name the report this one follows up.
	ParentID       string
	ParentQuestion string
	// FollowUp is the follow-up question form (nil on the share page).
	FollowUp *AskForm
	// Criteria are the success criteria, each answered (with its
	// citations), undetermined or missing.
	Criteria []report.CriterionResult
}

// SourceView is one fetched source.
type SourceView struct {
	ID        string // S1
	URL       string
	Title     string
	Host      string
	FetchedAt time.Time
	Cited     int    // how many citation links name it
	FirstEv   string // id of the first evidence entry citing it ("ev-3"), if any
}

// Label is the source's title, or its host when the page had none.
func (s SourceView) Label() string {
	if s.Title != "" {
		return s.Title
	}
	return s.Host
}

// PriorView is a section of the parent report a follow-up cites as [P#].
type PriorView struct {
	ID      string // P1
	Heading string
	Text    string
}

// EvidenceView is what one citation link opens: the cited source and the
// passage supporting the sentence, highlighted within its context.
type EvidenceView struct {
	ID    string // ev-1, also the fragment the citation links to
	Link  string // id of the citation link (cite-1), for the way back
	Cite  string // S1 or P1
	Claim string // the report sentence, without markers
	// Source fields; for a prior section, Title is its heading.
	Title     string
	URL       string
	Host      string
	FetchedAt time.Time
	Prior     bool
	// The passage and the text around it, as fetched.
	Before, Passage, After string
	Score                  float64
	HasScore               bool // the passage was scored by verification
	Supported              bool // verification found the sentence supported
	Checked                bool // verification looked at this sentence
	Note                   string
}

// ClaimView is a report sentence named in the verification summary.
type ClaimView struct {
	Text     string
	Evidence string // ev-N of its first citation, "" when none
	Why      string
}

// Scores are a verification pass's results.
type Scores struct {
	Known            bool // a verification ran
	Validity         float64
	Coverage         float64
	Support          float64
	Grounding        float64
	CriteriaCoverage float64
	Passed           bool
	Warning          string
	Sentences        int // factual sentences
	Cited            int // of which carry a citation
	Supported        int // of the cited, supported by their source
}

// ShareView is the state of a report's share link.
type ShareView struct {
	URL     string    // the live link, "" when sharing is off
	Expires time.Time // when the link stops working; zero = until revoked
	Manage  bool      // the viewer may revoke or regenerate it
	// NeedsConfirm: the run read private documents, so a link works only
	// once the owner confirms it (the share form asks).
	NeedsConfirm bool
}

// ExportLinks are the report's download URLs.
type ExportLinks struct {
	Markdown, JSON, PDF string
}

// Percent renders a 0..1 score as a whole percentage.
func Percent(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.Itoa(int(math.Round(v*100))) + "%"
}

// scoreClass grades a score for colour: good, fair or poor.
func scoreClass(v float64) string {
	switch {
	case v >= 0.9:
		return "good"
	case v >= 0.7:
		return "fair"
	}
	return "poor"
}

// DateTime renders an absolute time for a report's metadata.
func DateTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2 Jan 2006, 15:04 UTC")
}

// isoTime is t for a <time datetime> attribute.
func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// countNoun renders "1 source", "3 sources".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
