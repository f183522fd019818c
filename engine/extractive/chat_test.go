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
	t.Parallel()
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
	t.Parallel()
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

// TestChatReworksPriorReports: "simplify that" on a follow-up is answered
// from the earlier reports' sentences, each citing its [P#]; other small
// talk is not.
func TestChatReworksPriorReports(t *testing.T) {
	t.Parallel()
	prior := []research.PriorSection{
		{ID: "P1", Heading: "Delivery", Text: "Postgres delivers notifications when the transaction commits [S1]. Listeners receive them in commit order [S2]."},
		{ID: "P2", Heading: "Replicas", Text: "Standby servers do not receive notifications at all [S1]."},
	}
	out, _, err := New().Chat(context.Background(), engine.ChatRequest{Message: "simplify that", Prior: prior}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Postgres delivers notifications when the transaction commits. [P1]") || strings.Contains(out, "[S1]") {
		t.Errorf("answer from the prior reports:\n%s", out)
	}
	out, _, _ = New().Chat(context.Background(), engine.ChatRequest{Message: "thanks!", Prior: prior}, nil)
	if strings.Contains(out, "[P1]") {
		t.Errorf("small talk answered from the prior reports:\n%s", out)
	}
}
