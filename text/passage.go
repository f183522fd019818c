package text

import "strings"

// maxWindow is the most sentences a supporting passage spans.
const maxWindow = 3

// maxClaimTokens bounds a claim for passage search (one bit per token).
const maxClaimTokens = 64

// Document is a source text prepared for passage search: its sentences,
// their token sets, its numbers and a folded copy for name look-ups.
type Document struct {
	ID    string
	Text  string
	spans []Span
	sets  []Set
	all   Set
	nums  Set
	fold  string
}

// NewDocument splits and tokenises body once, for many claims. A Document
// caches lazily and is not safe for concurrent use.
func NewDocument(id, body string) *Document {
	d := &Document{ID: id, Text: body, spans: Sentences(body), all: Set{}, nums: Set{}}
	d.sets = make([]Set, len(d.spans))
	for i, sp := range d.spans {
		words := Words(sp.Text)
		d.sets[i] = NewSet(tokensOf(words))
		for t := range d.sets[i] {
			d.all[t] = true
		}
		for _, w := range words {
			if w.Num {
				d.nums[w.Stem] = true
			}
		}
	}
	return d
}

// Passage is a window of one to three consecutive sentences of a Document.
type Passage struct {
	Start, End int     // byte offsets in the document text
	Score      float64 // SupportTokens of the claim against the window
	Mask       uint64  // which claim tokens the window holds
}

// Text returns the passage as written in d.
func (d *Document) Passage(p Passage) string { return d.Text[p.Start:p.End] }

// BestPassage returns the window of one to three sentences that best
// supports claim (distinct content tokens, at most 64 are considered). On a
// tie the narrower window wins, then the earlier one.
func (d *Document) BestPassage(claim []string) Passage {
	claim = Unique(claim)
	if len(claim) > maxClaimTokens {
		claim = claim[:maxClaimTokens]
	}
	masks := make([]uint64, len(d.spans))
	for i, set := range d.sets {
		for b, t := range claim {
			if set[t] {
				masks[i] |= 1 << b
			}
		}
	}
	best := Passage{Score: -1}
	bestWidth := 0
	for i := range d.spans {
		if masks[i] == 0 {
			continue
		}
		var m uint64
		for w := 0; w < maxWindow && i+w < len(d.spans); w++ {
			m |= masks[i+w]
			if w > 0 && masks[i+w] == 0 {
				continue // a window is only worth widening by a sentence that adds tokens
			}
			sc := MaskScore(claim, m)
			if sc > best.Score+1e-12 || sc > best.Score-1e-12 && w+1 < bestWidth {
				best = Passage{Start: d.spans[i].Start, End: d.spans[i+w].End, Score: sc, Mask: m}
				bestWidth = w + 1
			}
		}
	}
	if best.Score < 0 {
		return Passage{Score: MaskScore(claim, 0)}
	}
	return best
}

// MaskScore is SupportTokens for a claim whose tokens present in a passage
// are given as a bit mask.
func MaskScore(claim []string, mask uint64) float64 {
	if len(claim) > maxClaimTokens {
		claim = claim[:maxClaimTokens]
	}
	if len(claim) == 0 {
		return 1
	}
	var have, total float64
	missing := 0
	for b, t := range claim {
		w := 1.0
		num := IsNumberToken(t)
		if num {
			w = numberWeight
		}
		total += w
		if mask&(1<<b) != 0 {
			have += w
		} else if num {
			missing++
		}
	}
	score := have / total
	for range missing {
		score *= missingNumberPenalty
	}
	return score
}

// Numbers returns the numbers mentioned anywhere in the document.
func (d *Document) Numbers() Set { return d.nums }

// Mentions reports whether the document names name: the phrase itself
// (ignoring case and spacing), or else all of its words.
func (d *Document) Mentions(name string) bool {
	if d.fold == "" {
		d.fold = Fold(d.Text)
	}
	if strings.Contains(d.fold, Fold(name)) {
		return true
	}
	toks := Tokens(name)
	if len(toks) == 0 {
		return false
	}
	for _, t := range toks {
		if !d.all[t] {
			return false
		}
	}
	return true
}
