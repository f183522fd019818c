package research

import (
	"strconv"
	"time"
)

// Source is one fetched page as the engines and the report see it,
// labelled S1, S2, … in the order the run found it.
type Source struct {
	ID        string    `json:"id"` // S1, S2, …
	URL       string    `json:"url"`
	Title     string    `json:"title"`
	Host      string    `json:"host"`
	Published string    `json:"published,omitempty"`
	Text      string    `json:"text"`               // full extracted text
	Findings  []string  `json:"findings,omitempty"` // informative sentences
	FetchedAt time.Time `json:"fetched_at"`
	// Via is how the site agent reached the page's results list ("typed
	// "x" into searchbox Search, pressed Enter"), for a site: search.
	Via string `json:"via,omitempty"`
}

// PriorSection is one section of a parent report, offered to a follow-up
// and cited there as P1, P2, ….
type PriorSection struct {
	ID      string `json:"id"` // P1, P2, …
	Heading string `json:"heading"`
	Text    string `json:"text"`
}

// SourceID is the label of the run's n-th source: "S3".
func SourceID(n int) string { return "S" + strconv.Itoa(n) }

// PriorID is the label of a parent report's n-th section: "P2".
func PriorID(n int) string { return "P" + strconv.Itoa(n) }
