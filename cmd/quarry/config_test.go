package main

import (
	"strings"
	"testing"
	"time"

	"github.com/quarryhq/quarry/engine/llm"
	"github.com/quarryhq/quarry/pipeline"
	"github.com/quarryhq/quarry/research"
)

// TestTuningConfig: depth presets, verification thresholds, model prices,
// the spend cap and the review threshold come from the environment.
func TestTuningConfig(t *testing.T) {
	env := map[string]string{
		"QUARRY_LLM":                 "openai",
		"OPENAI_BASE_URL":            "http://127.0.0.1:11434/v1",
		"QUARRY_DEPTH_QUICK":         "actions=6, batches=2,time=45s",
		"QUARRY_DEPTH_DEEP":          "repairs=3,context=128000,usd=2.5",
		"QUARRY_VERIFY_MIN_SUPPORT":  "0.75",
		"QUARRY_VERIFY_MIN_CRITERIA": "0",
		"QUARRY_LLM_PRICES":          "my-local-model=0/0, gpt-4o=2/8",
		"QUARRY_CLARIFY_BELOW":       "0.45",
	}
	c, err := LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	quick, deep, std := c.Presets[research.DepthQuick], c.Presets[research.DepthDeep], c.Presets[research.DepthStandard]
	if quick.MaxActions != 6 || quick.MaxBatches != 2 || time.Duration(quick.MaxTime) != 45*time.Second || quick.PagesPerSearch != 3 {
		t.Errorf("quick = %+v", quick)
	}
	if deep.RepairPasses != 3 || deep.ContextTokens != 128000 || deep.MaxUSD != 2.5 || deep.MaxActions != 25 {
		t.Errorf("deep = %+v", deep)
	}
	if std != research.Presets()[research.DepthStandard] {
		t.Errorf("standard = %+v, want the default", std)
	}
	if c.Verify.MinSupport != 0.75 || c.Verify.MinCriteria >= 0 || c.Verify.MinValidity != 1 {
		t.Errorf("verify = %+v, want support 0.75, criteria off, validity default", c.Verify)
	}
	if c.Prices["my-local-model"] != (llm.Price{}) || c.Prices["gpt-4o"] != (llm.Price{Input: 2, Output: 8}) || len(c.Prices) != 2 {
		t.Errorf("prices = %+v", c.Prices)
	}
	if c.ClarifyBelow != 0.45 {
		t.Errorf("clarify below = %v", c.ClarifyBelow)
	}
	if c.RunBudgetUSD != DefaultRunBudgetUSD {
		t.Errorf("a hosted model's default spend cap = %v, want %v", c.RunBudgetUSD, DefaultRunBudgetUSD)
	}

	c, err = LoadConfig(func(k string) string {
		if k == "QUARRY_CLARIFY_BELOW" {
			return "0"
		}
		return ""
	})
	if err != nil || c.ClarifyBelow >= 0 {
		t.Fatalf("QUARRY_CLARIFY_BELOW=0: %v, %v; want never (negative)", c.ClarifyBelow, err)
	}
	c, err = LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.RunBudgetUSD != 0 || c.ClarifyBelow != pipeline.DefaultClarifyBelow || c.Verify.MinSupport != 0.9 {
		t.Errorf("defaults: cap %v, clarify %v, verify %+v", c.RunBudgetUSD, c.ClarifyBelow, c.Verify)
	}
}

// TestTuningConfigErrors: a bad value stops start-up with the variable
// (and, for a preset, the key) named.
func TestTuningConfigErrors(t *testing.T) {
	tests := []struct{ env, value, mention string }{
		{"QUARRY_DEPTH_QUICK", "actions=0", "actions"},
		{"QUARRY_DEPTH_STANDARD", "speed=fast", "speed"},
		{"QUARRY_DEPTH_DEEP", "time=forever", "time"},
		{"QUARRY_DEPTH_QUICK", "batches=9", "batches"},
		{"QUARRY_DEPTH_DEEP", "actions", "key=value"},
		{"QUARRY_VERIFY_MIN_SUPPORT", "1.5", "0 to 1"},
		{"QUARRY_VERIFY_SUPPORT_THRESHOLD", "high", "0 to 1"},
		{"QUARRY_LLM_PRICES", "gpt-4o=cheap", "model=input/output"},
		{"QUARRY_LLM_PRICES", "gpt-4o=1/-2", "dollars"},
		{"QUARRY_CLARIFY_BELOW", "-0.1", "0 to 1"},
		{"QUARRY_RUN_BUDGET_USD", "lots", "dollars"},
	}
	for _, tt := range tests {
		_, err := LoadConfig(func(k string) string {
			if k == tt.env {
				return tt.value
			}
			return ""
		})
		if err == nil || !strings.HasPrefix(err.Error(), tt.env+": ") || !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("%s=%q: err %v, want it named and mentioning %q", tt.env, tt.value, err, tt.mention)
		}
	}
}
