package research

import (
	"regexp"
	"strings"
)

// DisagreePrefix opens the sentence that reports sources disagreeing:
// "Sources disagree: [S2] gives 1932; [S5] gives 1934."
const DisagreePrefix = "Sources disagree:"

// Claim is one source's value in a disagreement.
type Claim struct {
	Source string // S2
	Value  string // 1932
}

// DisagreeSentence writes the sentence that reports claims disagreeing.
func DisagreeSentence(claims ...Claim) string {
	parts := make([]string, len(claims))
	for i, c := range claims {
		parts[i] = "[" + c.Source + "] gives " + c.Value
	}
	return DisagreePrefix + " " + strings.Join(parts, "; ") + "."
}

var claimRe = regexp.MustCompile(`\[([SP]\d+)\]\s+gives\s+([^;]+?)\s*(?:;|\.?\s*$)`)

// ParseDisagreement reads a sentence DisagreeSentence wrote (with its
// citation markers); ok is false for any other sentence.
func ParseDisagreement(s string) (claims []Claim, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(s), DisagreePrefix)
	if !found {
		return nil, false
	}
	for _, m := range claimRe.FindAllStringSubmatch(rest, -1) {
		claims = append(claims, Claim{Source: m[1], Value: strings.TrimSpace(m[2])})
	}
	return claims, len(claims) >= 2
}
