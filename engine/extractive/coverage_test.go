package extractive

import (
	"context"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// Coverage names, per criterion, the sources with evidence and their key
// sentences; a criterion no page answers is left without sources.
func TestCoverageListsEvidencePerCriterion(t *testing.T) {
	t.Parallel()
	sources := loadSources(t)
	spec := research.TaskSpec{
		Goal:     "EmberDB port and replication",
		Criteria: []string{"What is the default port of EmberDB?", "What does EmberDB charge for a hosted plan in Antarctica?"},
	}
	cov := Coverage(spec, sources)
	if len(cov) != 2 {
		t.Fatalf("coverage has %d entries, want 2: %+v", len(cov), cov)
	}
	port := cov[0]
	if !port.Covered() || len(port.Key) == 0 || len(port.Key) > maxKeySentences {
		t.Fatalf("port criterion: %+v, want covered with key sentences", port)
	}
	for i, k := range port.Key {
		if !strings.HasPrefix(k, "["+port.Sources[i]+"] ") {
			t.Errorf("key sentence %q does not lead with its source %s", k, port.Sources[i])
		}
	}
	if !strings.Contains(port.Key[0], "The default port is 7420") {
		t.Errorf("port key sentences %q do not state the port", port.Key)
	}
	if cov[1].Covered() || research.CoveredCount(cov) != 1 {
		t.Errorf("unanswerable criterion: %+v, want missing; %d covered", cov[1], research.CoveredCount(cov))
	}

	// The heartbeat reads the same rule: what Coverage leaves missing is
	// what it searches for.
	e := New()
	dec, _, err := e.Heartbeat(context.Background(), engine.HeartbeatRequest{Spec: spec, Sources: sources, Batch: 1,
		Budget: research.Presets()[research.DepthStandard], MaxNew: 3, Coverage: cov})
	if err != nil || dec.Done || !strings.HasPrefix(dec.Reason, "1 of 2 criteria covered") {
		t.Errorf("heartbeat = %+v, %v; want 1 of 2 covered and more searching", dec, err)
	}
}

// A criterion that asks about a flag is covered only by a sentence that
// names the flag: pages about the command line in general leave it
// missing, so the heartbeat searches again.
func TestFlagCriterionNeedsTheFlag(t *testing.T) {
	t.Parallel()
	general := research.Source{ID: "S1", URL: "http://127.0.0.1/docs/options.html", Title: "Parsing command line options",
		Text: "Command line options\n\nThe quill command line tool accepts options before its arguments. Each command line option of quill changes how the tool runs a script, and options may be combined in one argument."}
	entry := research.Source{ID: "S2", URL: "http://127.0.0.1/docs/cmdline.html", Title: "Command line and environment",
		Text: "Options\n\n-q: Suppress all output of the script except errors. Warnings are dropped as well.\n\n-v: Print each step as it runs."}
	spec := research.TaskSpec{Goal: "What does the -q command line option of quill do?",
		Criteria: []string{"What does the -q command line option of quill do?"}}
	if cov := Coverage(spec, []research.Source{general}); cov[0].Covered() {
		t.Errorf("a page about options in general covers the -q criterion: %+v", cov[0])
	}
	if cov := Coverage(spec, []research.Source{general, entry}); !cov[0].Covered() || cov[0].Sources[0] != "S2" {
		t.Errorf("the -q entry does not cover the criterion: %+v", cov[0])
	}
}

// A value asked of a name written in capitals is covered only by a
// sentence (or its heading or page) naming it: another message's maximum
// is not the answer, so the heartbeat searches again.
func TestValueOfANamedThingNeedsTheName(t *testing.T) {
	t.Parallel()
	other := research.Source{ID: "S1", URL: "http://127.0.0.1/docs/flow.html", Title: "Message flow",
		Text: "Message flow\n\nThe server accepts encrypted packets whose payload is less than 16kB; larger payloads must be split by the client. Typical segments are 8kB of data, well within the 16kB maximum size."}
	named := research.Source{ID: "S2", URL: "http://127.0.0.1/docs/signal.html", Title: "SIGNAL",
		Text: "SIGNAL\n\nThe SIGNAL command sends a message to every listening session. The payload must be shorter than 8000 bytes in the default configuration."}
	spec := research.TaskSpec{Goal: "What is the maximum size of a SIGNAL payload?",
		Criteria: []string{"What is the maximum size of a SIGNAL payload?"}}
	if cov := Coverage(spec, []research.Source{other}); cov[0].Covered() {
		t.Errorf("another message's maximum covers the SIGNAL criterion: %+v", cov[0])
	}
	if cov := Coverage(spec, []research.Source{other, named}); !cov[0].Covered() || cov[0].Sources[0] != "S2" {
		t.Errorf("the SIGNAL page does not cover the criterion: %+v", cov[0])
	}
}

// The setting a question names as its frame ("… set with view.shortLen")
// may be all a sentence says of the subject: it still names it.
func TestSubjectMayBeTheNamedSetting(t *testing.T) {
	t.Parallel()
	q := "What is the minimum length of a shortened record name set with view.shortLen?"
	src := research.Source{ID: "S1", URL: "http://127.0.0.1/docs/quill-show.html", Title: "quill-show(1)",
		Text: "Options\n\n--short[=n]: Same as --verify but shortens the output to a unique prefix. The minimum length is 4, the default is the effective value of the view.shortLen configuration variable."}
	p := newPool([]research.Source{src}, nil, nil)
	p.context = contextWords(q)
	c := newCriterion(q, "", text.Tokens(q), nil)
	found := false
	for i := range p.sents {
		if strings.Contains(p.sents[i].text, "The minimum length is 4") {
			found = true
			if !p.namesSubject(c, i) {
				t.Errorf("%q does not name the subject of %q (context %v)", p.sents[i].text, q, p.context)
			}
		}
	}
	if !found {
		t.Fatal("the sentence is not in the pool")
	}
}
