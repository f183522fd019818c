package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// Contradiction is two sentences of a report that give different values
// for the same thing (text.Disagree) without the report saying that its
// sources disagree.
type Contradiction struct {
	A      int    `json:"a"` // sentence indexes
	B      int    `json:"b"`
	ValueA string `json:"value_a"`
	ValueB string `json:"value_b"`
}

// maxContradictionSentences bounds the sentences compared pairwise.
const maxContradictionSentences = 400

// checkDisagreement verifies a "Sources disagree: [S2] gives X; [S5]
// gives Y." sentence: each cited source must state the value it is said
// to give, and each citation's evidence is that source's passage. It
// reports false for any other sentence.
func checkDisagreement(c *SentenceCheck, raw string, docs *docSet) bool {
	claims, ok := research.ParseDisagreement(raw)
	if !ok {
		return false
	}
	citedPassages(c, docs)
	states := map[string]bool{}
	c.Supported, c.Score = true, 1
	for _, cl := range claims {
		d := docs.get(cl.Source)
		states[cl.Source] = d != nil && statesValue(d, cl.Value)
		if !states[cl.Source] {
			c.Supported, c.Score = false, 0
		}
	}
	for i := range c.Evidence {
		e := &c.Evidence[i]
		e.Supported = states[e.Cite]
		if c.SourceID == "" && e.Supported && e.Passage != "" {
			c.SourceID, c.Passage, c.PassageStart, c.PassageEnd = e.Cite, e.Passage, e.PassageStart, e.PassageEnd
		}
	}
	return true
}

// statesValue reports whether document d holds value: its numbers, else
// its words.
func statesValue(d *text.Document, value string) bool {
	nums := text.NumberSet(value)
	if len(nums) == 0 {
		return text.ContainsFold(d.Text, value)
	}
	for n := range nums {
		if !d.Numbers()[n] {
			return false
		}
	}
	return true
}

// contradictions finds pairs of cited factual sentences that disagree,
// leaving out the pairs a disagreement sentence of the report already
// reports (both values named in one).
func contradictions(sents []SentenceCheck, raws []string) []Contradiction {
	var reported [][]string
	for _, raw := range raws {
		if claims, ok := research.ParseDisagreement(raw); ok {
			var vals []string
			for _, c := range claims {
				vals = append(vals, text.Fold(c.Value))
			}
			reported = append(reported, vals)
		}
	}
	acknowledged := func(a, b string) bool {
		for _, vals := range reported {
			if mentions(vals, a) && mentions(vals, b) {
				return true
			}
		}
		return false
	}
	var idx []int
	var sts []text.Statement
	for i, s := range sents {
		if s.Factual && len(s.Citations) > 0 && len(idx) < maxContradictionSentences {
			if _, ok := research.ParseDisagreement(raws[i]); ok {
				continue
			}
			idx = append(idx, i)
			sts = append(sts, text.ReadStatement(s.Text))
		}
	}
	var out []Contradiction
	for x := range idx {
		for y := x + 1; y < len(idx); y++ {
			va, vb, ok := text.Disagree(sts[x], sts[y])
			if ok && !acknowledged(va, vb) {
				out = append(out, Contradiction{A: sents[idx[x]].Index, B: sents[idx[y]].Index, ValueA: va, ValueB: vb})
			}
		}
	}
	return out
}

// mentions reports whether one of vals holds v.
func mentions(vals []string, v string) bool {
	v = text.Fold(v)
	for _, x := range vals {
		if strings.Contains(x, v) {
			return true
		}
	}
	return false
}

// contradictionFeedback is the repair line for one contradiction.
func contradictionFeedback(c Contradiction, sents []SentenceCheck) string {
	return fmt.Sprintf("Sentences %d and %d give different values for the same thing (%q and %q): if the sources disagree, say so in one sentence, %q, instead of stating both; otherwise keep only the value the sources support: %q / %q",
		c.A+1, c.B+1, c.ValueA, c.ValueB, research.DisagreeSentence(research.Claim{Source: "S#", Value: c.ValueA}, research.Claim{Source: "S#", Value: c.ValueB}),
		sents[c.A].Text, sents[c.B].Text)
}

// contradictionLineRe matches the repair line contradictionFeedback writes,
// capturing the two sentences it quotes last.
var contradictionLineRe = regexp.MustCompile(`^Sentences \d+ and \d+ give different values for the same thing .*: ("(?:[^"\\]|\\.)*") / ("(?:[^"\\]|\\.)*")$`)

// ContradictionOf returns the two sentences a contradiction's repair line
// quotes, in report order; ok is false for any other line. An engine that
// ranks its sentences keeps the first, its better answer, and drops the
// second.
func ContradictionOf(line string) (first, second string, ok bool) {
	m := contradictionLineRe.FindStringSubmatch(line)
	if m == nil {
		return "", "", false
	}
	a, errA := strconv.Unquote(m[1])
	b, errB := strconv.Unquote(m[2])
	if errA != nil || errB != nil {
		return "", "", false
	}
	return a, b, true
}
