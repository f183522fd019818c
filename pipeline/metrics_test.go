package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/pipeline"
)

// TestLogHandlerAddsRunID: a line logged with a run's context carries its
// run_id once, however the logger was derived; other lines carry none.
func TestLogHandlerAddsRunID(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(pipeline.NewLogHandler(slog.NewJSONHandler(&buf, nil)))
	ctx := pipeline.WithRunID(context.Background(), "run-1")
	log.InfoContext(ctx, "from the engine", "stage", "plan")
	log.With("component", "browser").WarnContext(ctx, "from the browser")
	log.With("run_id", "run-1").InfoContext(ctx, "already tagged")
	log.InfoContext(ctx, "tagged by hand", "run_id", "run-1")
	log.Info("not about a run")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, line := range lines {
		if n := strings.Count(line, `"run_id"`); (i < 4 && n != 1) || (i == 4 && n != 0) {
			t.Errorf("line %d has run_id %d times: %s", i, n, line)
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("line %d is not JSON: %v", i, err)
		}
	}
}
