package extractive

import (
	"reflect"
	"testing"

	"github.com/quarryhq/quarry/research"
)

func TestRoute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg   string
		route string
		urls  []string
	}{
		{"What is the default port of PostgreSQL?", research.RouteResearch, nil},
		{"postgres vs mysql for analytics", research.RouteResearch, nil},
		{"Kubernetes", research.RouteResearch, nil},
		{"hi", research.RouteChat, nil},
		{"Hello there!", research.RouteChat, nil},
		{"thanks!", research.RouteChat, nil},
		{"thank you so much", research.RouteChat, nil},
		{"ok", research.RouteChat, nil},
		{"yes please", research.RouteChat, nil},
		{"Who are you?", research.RouteChat, nil},
		{"what can you do", research.RouteChat, nil},
		{"write me a poem about the sea", research.RouteChat, nil},
		{"   ", research.RouteChat, nil},
		{"Hi! What is the capital of Australia?", research.RouteResearch, nil},
		{"Testing frameworks for Go", research.RouteResearch, nil},
		{"Summarize https://go.dev/doc/effective_go.", research.RouteBrowse, []string{"https://go.dev/doc/effective_go"}},
		{"compare https://a.example.com/x and https://b.example.org/y", research.RouteBrowse, []string{"https://a.example.com/x", "https://b.example.org/y"}},
		{"what does www.example.com/about say about pricing?", research.RouteBrowse, []string{"https://www.example.com/about"}},
		{"read go.dev/blog/go1.22", research.RouteBrowse, []string{"https://go.dev/blog/go1.22"}},
		{"summarize the article at example.org/news/1", research.RouteBrowse, []string{"https://example.org/news/1"}},
		{"read about Node.js streams", research.RouteResearch, nil},
		{"How does main.go get compiled?", research.RouteResearch, nil},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			route, urls := Route(tt.msg)
			if route != tt.route || !reflect.DeepEqual(urls, tt.urls) {
				t.Errorf("Route(%q) = %q %q, want %q %q", tt.msg, route, urls, tt.route, tt.urls)
			}
		})
	}
}

// TestDecideLeavesTheRestUndecided: the rules answer only what they
// recognise; a question is left to the engine.
func TestDecideLeavesTheRestUndecided(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		"hello":                   research.RouteChat,
		"thanks!":                 research.RouteChat,
		"read go.dev/blog/go1.22": research.RouteBrowse,
		"What is the default port of PostgreSQL?": Undecided,
		"Hi! What is the capital of Australia?":   Undecided,
		"simplify that":                           Undecided,
	} {
		if got, _ := Decide(msg); got != want {
			t.Errorf("Decide(%q) = %q, want %q", msg, got, want)
		}
	}
}

// TestRefersBack: a follow-up asking to rework the earlier answer, and
// only such a one, is recognised.
func TestRefersBack(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]bool{
		"simplify that":                    true,
		"Summarize the above":              true,
		"please explain it like I'm five":  true,
		"can you shorten the report?":      true,
		"tl;dr":                            true,
		"thanks!":                          false,
		"What about replication in MySQL?": false,
		"explain how Raft elects a leader when the network partitions and a follower times out": false,
	} {
		if got := RefersBack(msg); got != want {
			t.Errorf("RefersBack(%q) = %v, want %v", msg, got, want)
		}
	}
}
