package report

import "testing"

// The repair line of a contradiction gives back its two sentences, in
// report order, quotes and all; any other line gives none.
func TestContradictionOf(t *testing.T) {
	sents := []SentenceCheck{
		{Text: `The default value of the "cleanup" interval is 3600.`},
		{Text: "The default value of 0 disables the limit."},
	}
	line := contradictionFeedback(Contradiction{A: 0, B: 1, ValueA: "3600", ValueB: "0"}, sents)
	first, second, ok := ContradictionOf(line)
	if !ok || first != sents[0].Text || second != sents[1].Text {
		t.Errorf("ContradictionOf(%q) = %q, %q, %v", line, first, second, ok)
	}
	if _, _, ok := ContradictionOf(`Sentence 2 cites [S3], but "x" is not in it.`); ok {
		t.Error("another repair line read as a contradiction")
	}
}
