package pipeline

import (
	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
)

// Stages a run's model spend is counted under.
const (
	SpendPlan       = "plan"
	SpendHeartbeat  = "heartbeat"
	SpendSynthesize = "synthesize"
	SpendRepair     = "repair"
	SpendChat       = "chat"
	SpendReview     = "review" // reading a reply to a paused plan
	SpendAgent      = "agent"  // the site agent's model planner, in site: searches
	// SpendOther is spend added to the total without a stage.
	SpendOther = "other"
)

// spendOrder is the order stages are listed in.
var spendOrder = []string{SpendPlan, SpendReview, SpendAgent, SpendHeartbeat, SpendSynthesize, SpendRepair, SpendChat}

// Spend is a run's model spend: the total (its fields at the top level,
// as runs.spend always had them) and per stage.
type Spend struct {
	engine.Usage
	Stages []research.StageSpend `json:"stages,omitempty"`
}

// addUsage counts an engine call's usage in the total and under stage.
func (s *State) addUsage(stage string, u engine.Usage) {
	s.Usage = s.Usage.Add(u)
	if u == (engine.Usage{}) {
		return
	}
	if s.StageUsage == nil {
		s.StageUsage = map[string]engine.Usage{}
	}
	s.StageUsage[stage] = s.StageUsage[stage].Add(u)
}

// Spend returns the run's spend, in total and per stage; what the total
// holds beyond the stages' sum is listed as "other".
func (s *State) Spend() Spend {
	out := Spend{Usage: s.Usage}
	var sum engine.Usage
	for _, stage := range append(spendOrder, SpendOther) {
		u, ok := s.StageUsage[stage]
		if !ok {
			continue
		}
		sum = sum.Add(u)
		out.Stages = append(out.Stages, stageSpend(stage, u))
	}
	if rest := (engine.Usage{Calls: s.Usage.Calls - sum.Calls, InputTokens: s.Usage.InputTokens - sum.InputTokens,
		OutputTokens: s.Usage.OutputTokens - sum.OutputTokens, USD: s.Usage.USD - sum.USD}); rest.Calls > 0 || rest.USD > 1e-12 {
		out.Stages = append(out.Stages, stageSpend(SpendOther, rest))
	}
	return out
}

func stageSpend(stage string, u engine.Usage) research.StageSpend {
	return research.StageSpend{Stage: stage, Calls: u.Calls, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, USD: u.USD}
}
