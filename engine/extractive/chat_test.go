package extractive

import (
	"context"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/report"
	"github.com/quarryhq/quarry/research"
)

func TestChatWithoutSourcesOffersResearch(t *testing.T) {
	tests := []struct {
		msg  string
		want string
	}{
		{"hi", "Ask a question"},
		{"write a haiku about databases", "research this instead"},
	}
	for _, tt := range tests {
		var streamed string
		out, usage, err := New().Chat(context.Background(), engine.ChatRequest{Message: tt.msg}, func(d string) { streamed += d })
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "cannot hold a conversation") || !strings.Contains(out, tt.want) {
			t.Errorf("Chat(%q) = %q", tt.msg, out)
		}
		if streamed != out || usage != (engine.Usage{}) {
			t.Errorf("streamed %q usage %+v", streamed, usage)
		}
	}
}

func TestChatAnswersFromNamedPages(t *testing.T) {
	all := loadSources(t)
	page := sourceByURL(t, all, "https://docs.emberdb.dev/configuration/")
	page.ID = "S1"
	sources := []research.Source{page}
	tests := []struct {
		msg     string
		heading string
		want    string
	}{
		{"What does https://docs.emberdb.dev/configuration/ say about the default port?", "## Answer", "The default port is 7420. [S1]"},
		{"Summarize https://docs.emberdb.dev/configuration/", "## Summary", "[S1]"},
	}
	for _, tt := range tests {
		out, _, err := New().Chat(context.Background(), engine.ChatRequest{Message: tt.msg, Sources: sources}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, tt.heading) || !strings.Contains(out, tt.want) {
			t.Errorf("Chat(%q) =\n%s", tt.msg, out)
		}
		v := report.Verify(out, sources, nil, nil, report.DefaultVerifyOptions())
		if !v.Passed {
			t.Errorf("Chat(%q) fails verification: %s %v", tt.msg, v.Warning, v.Failures)
		}
	}
}
