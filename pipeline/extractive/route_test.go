package extractive

import (
	"reflect"
	"testing"

	"github.com/quarryhq/quarry/pipeline"
)

func TestRoute(t *testing.T) {
	tests := []struct {
		msg   string
		route string
		urls  []string
	}{
		{"What is the default port of PostgreSQL?", pipeline.RouteResearch, nil},
		{"postgres vs mysql for analytics", pipeline.RouteResearch, nil},
		{"Kubernetes", pipeline.RouteResearch, nil},
		{"hi", pipeline.RouteChat, nil},
		{"Hello there!", pipeline.RouteChat, nil},
		{"thanks!", pipeline.RouteChat, nil},
		{"thank you so much", pipeline.RouteChat, nil},
		{"ok", pipeline.RouteChat, nil},
		{"yes please", pipeline.RouteChat, nil},
		{"Who are you?", pipeline.RouteChat, nil},
		{"what can you do", pipeline.RouteChat, nil},
		{"write me a poem about the sea", pipeline.RouteChat, nil},
		{"   ", pipeline.RouteChat, nil},
		{"Hi! What is the capital of Australia?", pipeline.RouteResearch, nil},
		{"Testing frameworks for Go", pipeline.RouteResearch, nil},
		{"Summarize https://go.dev/doc/effective_go.", pipeline.RouteBrowse, []string{"https://go.dev/doc/effective_go"}},
		{"compare https://a.example.com/x and https://b.example.org/y", pipeline.RouteBrowse, []string{"https://a.example.com/x", "https://b.example.org/y"}},
		{"what does www.example.com/about say about pricing?", pipeline.RouteBrowse, []string{"https://www.example.com/about"}},
		{"read go.dev/blog/go1.22", pipeline.RouteBrowse, []string{"https://go.dev/blog/go1.22"}},
		{"summarize the article at example.org/news/1", pipeline.RouteBrowse, []string{"https://example.org/news/1"}},
		{"read about Node.js streams", pipeline.RouteResearch, nil},
		{"How does main.go get compiled?", pipeline.RouteResearch, nil},
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
