package research

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestReviewModeJSON: booleans keep their old meaning, names are read,
// anything else is refused naming the field.
func TestReviewModeJSON(t *testing.T) {
	for in, want := range map[string]ReviewMode{`true`: ReviewAlways, `false`: ReviewNever, `null`: ReviewNever,
		`"auto"`: ReviewAuto, `"always"`: ReviewAlways, `"never"`: ReviewNever, `"AUTO"`: ReviewAuto, `""`: ReviewNever} {
		var m ReviewMode
		if err := json.Unmarshal([]byte(in), &m); err != nil || m != want {
			t.Errorf("%s → %q, %v; want %q", in, m, err, want)
		}
	}
	for _, in := range []string{`"sometimes"`, `1`, `{}`} {
		var m ReviewMode
		if err := json.Unmarshal([]byte(in), &m); err == nil || !strings.Contains(err.Error(), `"review"`) {
			t.Errorf("%s: err %v, want one naming review", in, err)
		}
	}
	if !ReviewAuto.Pauses(0.3, 0.6, true) || ReviewAuto.Pauses(0.3, 0.6, false) || ReviewAuto.Pauses(0.7, 0.6, true) ||
		!ReviewAlways.Pauses(1, 0.6, false) || ReviewNever.Pauses(0, 0.6, true) {
		t.Error("Pauses: auto pauses only an unclear plan with questions, always always, never never")
	}
}

// TestParseBudget: overrides apply key by key; a bad key or value is
// named.
func TestParseBudget(t *testing.T) {
	base := Presets()[DepthStandard]
	b, err := ParseBudget(base, " actions=12 , time=90s,usd=0.5")
	if err != nil || b.MaxActions != 12 || time.Duration(b.MaxTime) != 90*time.Second || b.MaxUSD != 0.5 || b.MaxBatches != base.MaxBatches {
		t.Errorf("override = %+v, %v", b, err)
	}
	if b, err := ParseBudget(base, ""); err != nil || b != base {
		t.Errorf("empty override = %+v, %v", b, err)
	}
	for in, key := range map[string]string{"actions=0": "actions", "pages=x": "pages", "time=1ms": "time", "depth=3": "depth",
		"repairs": "key=value", "actions=2,batches=3": "batches", "context=100": "context"} {
		if _, err := ParseBudget(base, in); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: err %v, want it to name %q", in, err, key)
		}
	}
}
