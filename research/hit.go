package research

// Hit is a search result a run saw but did not read: its link, title and
// snippet as the results page gave them. A heartbeat may send the run to
// read one (a navigate action) when its title or snippet names what is
// still missing, before searching again.
type Hit struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Snippet string `json:"snippet,omitempty"`
}

// MaxUnread bounds the unread hits a run keeps for its heartbeats.
const MaxUnread = 60
