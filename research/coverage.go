package research

// CriterionCoverage is what a run's sources hold for one success
// criterion: the sources with evidence for it and a few of the sentences
// that are that evidence, each led by its source's label ("[S2] …").
// No sources means the criterion is still missing.
type CriterionCoverage struct {
	Criterion string   `json:"criterion"`
	Sources   []string `json:"sources,omitempty"`
	Key       []string `json:"key,omitempty"`
}

// Covered reports whether some source has evidence for the criterion.
func (c CriterionCoverage) Covered() bool { return len(c.Sources) > 0 }

// CoveredCount is how many criteria of cov some source covers.
func CoveredCount(cov []CriterionCoverage) int {
	n := 0
	for _, c := range cov {
		if c.Covered() {
			n++
		}
	}
	return n
}

// CheckpointPayload is written after each gather batch: the sources so
// far and, per criterion, the evidence they hold.
type CheckpointPayload struct {
	Stage    string              `json:"stage"`
	Batch    int                 `json:"batch"`
	Sources  int                 `json:"sources"`
	Covered  int                 `json:"covered"`
	Coverage []CriterionCoverage `json:"coverage,omitempty"`
}
