package research

// EventPreliminary reports the preliminary search: one quick search of
// the question, before a model plans, whose results (titles and
// snippets, never the pages) show the planner the right names and terms.
const EventPreliminary = "preliminary_search"

// PreliminaryPayload is the preliminary search's outcome.
type PreliminaryPayload struct {
	Query     string `json:"query"`
	Engine    string `json:"engine,omitempty"`
	Hits      []Hit  `json:"hits,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Error     string `json:"error,omitempty"`
}
