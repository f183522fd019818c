package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScoreShingles(t *testing.T) {
	tests := []struct {
		name        string
		pred, truth string
		p, r        float64
	}{
		{"identical", "one two three four five", "one two three four five", 1, 1},
		{"punctuation and spacing ignored", "One, two;  three\n\nfour five!", "One two three four five", 1, 1},
		{"case sensitive like the benchmark", "one two three four", "One two three four", 0, 0},
		{"both empty", "", "", 1, 1},
		{"empty prediction", "", "one two three four", 0, 0},
		{"empty truth", "one two three four", "", 0, 0},
		{"short texts are one shingle", "a b", "a b", 1, 1},
		// truth: a b c d e f → 3 shingles; pred: a b c d → 1 shingle, all true.
		{"prefix", "a b c d", "a b c d e f", 1, 1.0 / 3},
		// pred: a b c d x → "a b c d" (tp), "b c d x" (fp).
		{"one extra word", "a b c d x", "a b c d", 0.5, 1},
		{"repeats count", "a b c d a b c d", "a b c d", 0.2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, r := scoreShingles(tt.pred, tt.truth)
			if math.Abs(p-tt.p) > 1e-9 || math.Abs(r-tt.r) > 1e-9 {
				t.Errorf("scoreShingles = (%.4f, %.4f), want (%.4f, %.4f)", p, r, tt.p, tt.r)
			}
		})
	}
}

func TestSummariseSkipsEmptySides(t *testing.T) {
	counts := []shingleCounts{
		countShingles("a b c d", "a b c d"),       // p 1, r 1
		countShingles("", "a b c d"),              // no prediction: recall 0, precision not counted
		countShingles("a b c d x", "a b c d"),     // p 0.5, r 1
		countShingles("w x y z", "a b c d e f g"), // p 0, r 0
	}
	p, r, f := summarise(counts)
	wantP := (1 + 0.5 + 0) / 3
	wantR := (1 + 0 + 1 + 0) / 4.0
	if math.Abs(p-wantP) > 1e-9 || math.Abs(r-wantR) > 1e-9 {
		t.Errorf("summarise = (%.4f, %.4f), want (%.4f, %.4f)", p, r, wantP, wantR)
	}
	if wantF := 2 * wantP * wantR / (wantP + wantR); math.Abs(f-wantF) > 1e-9 {
		t.Errorf("F1 = %.4f, want %.4f", f, wantF)
	}
}

// TestEvalDir scores the two-page benchmark in testdata/evalbench (one page
// gzipped, one plain).
func TestEvalDir(t *testing.T) {
	report, preds, err := evalDir(filepath.Join("testdata", "evalbench"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if report.Pages != 2 || report.Failures != 0 {
		t.Errorf("pages %d, failures %d; want 2, 0", report.Pages, report.Failures)
	}
	if report.F1 < 0.95 || report.Precision < 0.95 || report.Recall < 0.95 {
		t.Errorf("P %.4f R %.4f F1 %.4f, want all ≥ 0.95", report.Precision, report.Recall, report.F1)
	}
	if len(preds) != 2 || !strings.Contains(preds["harbour"], "38 corroded steel cables") ||
		!strings.Contains(preds["orchard"], "12,400 tonnes") {
		t.Errorf("predictions = %q", preds)
	}
	for _, id := range []string{"harbour", "orchard"} {
		for _, junk := range []string{"newsletter", "Tractor show", "Home"} {
			if strings.Contains(preds[id], junk) {
				t.Errorf("prediction %s contains %q", id, junk)
			}
		}
	}
	if len(report.PerPage) != 2 || report.PerPage[0].ID != "harbour" {
		t.Errorf("PerPage = %+v", report.PerPage)
	}
}

func TestEvalDirErrors(t *testing.T) {
	noTruth := t.TempDir()
	noHTML := t.TempDir()
	if err := os.WriteFile(filepath.Join(noHTML, "ground-truth.json"), []byte(`{"a": {"articleBody": "x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	badJSON := t.TempDir()
	if err := os.WriteFile(filepath.Join(badJSON, "ground-truth.json"), []byte(`{"a": `), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, want string
	}{
		{"missing dir", filepath.Join(t.TempDir(), "nope"), "benchmark directory"},
		{"missing ground truth", noTruth, "missing ground-truth.json"},
		{"missing html", noHTML, "missing html/"},
		{"bad json", badJSON, "parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := evalDir(tt.dir, 1)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("evalDir(%s) error = %v, want it to mention %q", tt.name, err, tt.want)
			}
		})
	}
}

func TestEvalDirMissingPageCountsAsFailure(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "html"), 0o755); err != nil {
		t.Fatal(err)
	}
	truth := `{"gone": {"articleBody": "one two three four five", "url": "https://ex.com/a"}}`
	if err := os.WriteFile(filepath.Join(dir, "ground-truth.json"), []byte(truth), 0o644); err != nil {
		t.Fatal(err)
	}
	report, preds, err := evalDir(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if report.Failures != 1 || report.Recall != 0 || preds["gone"] != "" {
		t.Errorf("report %+v, preds %q; want one failure with recall 0", report, preds)
	}
	if report.PerPage[0].Err == "" {
		t.Error("per-page error is empty")
	}
}
