package text

// Set is a set of tokens.
type Set map[string]bool

// NewSet returns the set of toks.
func NewSet(toks []string) Set {
	s := make(Set, len(toks))
	for _, t := range toks {
		s[t] = true
	}
	return s
}

// numberWeight is how much more a number counts than a word when judging
// support: a claim with the wrong figure is not supported.
const numberWeight = 3

// missingNumberPenalty multiplies the support score once per claim number
// absent from the passage.
const missingNumberPenalty = 0.6

// Support scores in [0,1] how well passage supports claim: the share of the
// claim's content tokens found in the passage, numbers weighing more, and a
// penalty for every number of the claim the passage does not contain.
// The claim is plain text (no citation markers). A claim without content tokens scores 1.
func Support(claim, passage string) float64 {
	return SupportTokens(Tokens(claim), NewSet(Tokens(passage)))
}

// SupportTokens is Support over already tokenised text.
func SupportTokens(claim []string, passage Set) float64 {
	claim = Unique(claim)
	if len(claim) == 0 {
		return 1
	}
	var have, total float64
	missingNums := 0
	for _, t := range claim {
		w := 1.0
		num := IsNumberToken(t)
		if num {
			w = numberWeight
		}
		total += w
		if passage[t] {
			have += w
		} else if num {
			missingNums++
		}
	}
	score := have / total
	for range missingNums {
		score *= missingNumberPenalty
	}
	return score
}

// Containment is the share of the distinct tokens of a found in b.
func Containment(a []string, b Set) float64 {
	a = Unique(a)
	if len(a) == 0 {
		return 0
	}
	n := 0
	for _, t := range a {
		if b[t] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// Jaccard is the Jaccard similarity of two token sets.
func Jaccard(a, b Set) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	small, large := a, b
	if len(small) > len(large) {
		small, large = large, small
	}
	for t := range small {
		if large[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// Overlap is the share of the smaller set found in the larger one: 1 when
// one sentence repeats the other's content.
func Overlap(a, b Set) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	small, large := a, b
	if len(small) > len(large) {
		small, large = large, small
	}
	inter := 0
	for t := range small {
		if large[t] {
			inter++
		}
	}
	return float64(inter) / float64(len(small))
}

// IsNumberToken reports whether a token (from Tokens) is a number.
func IsNumberToken(t string) bool { return t != "" && t[0] >= '0' && t[0] <= '9' }
