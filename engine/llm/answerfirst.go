package llm

import (
	"strings"
	"unicode"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// minRelevance is how much of a report sentence's content a passage given
// for a part must hold for the sentence to bear on that part (text.Support:
// the share of its words, numbers weighing more). A model writes from the
// passages it was given, so a sentence none of them supports this well
// brings in something the question did not ask.
const minRelevance = 0.5

// holdAnswerFirst holds a model's report to the rules the built-in engine
// follows (DESIGN.md, Synthesize): the first section opens with one
// sentence per part of the question, in the question's order — the
// model's own sentence that best states the part, else the part's best
// evidence quoted with its citation, else a sentence saying no source
// states it — and every other sentence must bear on a part, or it is left
// out; a section left with nothing is dropped.
func holdAnswerFirst(report string, parts []part) string {
	secs := splitSections(report)
	if len(secs) == 0 || len(parts) == 0 {
		return report
	}
	spans := make([][]text.Span, len(secs))
	taken := make([]map[int]bool, len(secs)) // sentences moved into the opening
	for i := range secs {
		spans[i] = text.Sentences(secs[i].body)
		taken[i] = map[int]bool{}
	}
	opening := answers(parts, spans, taken)
	var out []section
	for i, s := range secs {
		if i == 0 {
			s.body = summaryBody(opening, s.body, spans[0], taken[0], parts)
		} else {
			s.body = relevantOnly(s.body, spans[i], taken[i], parts)
		}
		if strings.TrimSpace(s.body) != "" || i == 0 {
			out = append(out, s)
		}
	}
	var b strings.Builder
	for i, s := range out {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if s.heading != "" {
			b.WriteString(s.heading)
			b.WriteString("\n")
		}
		b.WriteString(strings.TrimSpace(s.body))
	}
	return strings.TrimSpace(b.String())
}

// answers picks the opening sentence of each part, in order: the model's
// sentence that best states it, from the first section if one there does,
// else from a later section (moved up, not repeated); else the part's best
// key sentence quoted with its citation; else the sentence that no source
// states it. taken records the model's sentences used.
func answers(parts []part, spans [][]text.Span, taken []map[int]bool) []string {
	var opening []string
	said := map[string]bool{} // a sentence that answers two parts is written once
	add := func(s string) {
		if k := text.OneLine(research.StripCitations(s)); !said[k] {
			said[k] = true
			opening = append(opening, s)
		}
	}
	for _, p := range parts {
		bestSec, best, score := -1, -1, 0.0
		for si := range spans {
			if si > 0 && bestSec == 0 {
				break // the first section answers: nothing is moved
			}
			for k, sp := range spans[si] {
				if taken[si][k] {
					continue
				}
				plain := research.StripCitations(sp.Text)
				s := answerScore(plain, p)
				if si == 0 && !p.cov.Covered() && declaresUnknown(plain) && text.Containment(text.Tokens(p.criterion), text.NewSet(text.Tokens(plain))) >= 0.5 {
					s = 1 // the model said so itself, naming the part
				} else if declaresUnknown(plain) {
					s = 0
				}
				if s >= minRelevance && s > score {
					bestSec, best, score = si, k, s
				}
			}
		}
		switch {
		case best >= 0:
			taken[bestSec][best] = true
			add(strings.TrimSpace(spans[bestSec][best].Text))
		case len(p.key) > 0:
			add(cite(p.key[0].text, p.key[0].id))
		default:
			add(notStated(p.criterion))
		}
	}
	return opening
}

// section is a "## " heading line (empty before the first heading) and the
// text under it.
type section struct {
	heading, body string
}

func splitSections(report string) []section {
	var out []section
	cur := section{}
	var body []string
	flush := func() {
		cur.body = strings.Join(body, "\n")
		if cur.heading != "" || strings.TrimSpace(cur.body) != "" {
			out = append(out, cur)
		}
		body = nil
	}
	for _, line := range strings.Split(report, "\n") {
		if strings.HasPrefix(line, "## ") {
			flush()
			cur = section{heading: strings.TrimRight(line, " ")}
			continue
		}
		body = append(body, line)
	}
	flush()
	return out
}

// sentenceRelevance is how well plain (a report sentence without its
// citations) bears on p: the best support any passage given for p lends
// it. For a part no passage was found for, it is the share of the part's
// words the sentence holds, a word counting when the sentence holds it or
// a word of the same meaning (text.Lexicon): the model may know better
// than the coverage rule, but only about what the part asks.
func sentenceRelevance(plain string, p part) float64 {
	return supportFrom(plain, p.criterion, p.passages)
}

// answerScore is how well plain states p's answer: the support its key
// sentences (the coverage rule's best evidence) lend it, as relevance
// judges by passages. A sentence from the same page about something else
// the part's passages also hold does not state the answer.
func answerScore(plain string, p part) float64 {
	var keys []string
	for _, k := range p.key {
		keys = append(keys, k.text)
	}
	return supportFrom(plain, p.criterion, keys)
}

// supportFrom is the best support any of passages lends plain, or, with no
// passages, the share of the criterion's words plain holds (partWords).
func supportFrom(plain, criterion string, passages []string) float64 {
	claim := text.Tokens(plain)
	if len(passages) == 0 {
		return partWords(criterion, text.NewSet(claim))
	}
	best := 0.0
	for _, passage := range passages {
		best = max(best, text.SupportTokens(claim, text.NewSet(text.Tokens(passage))))
	}
	return best
}

// partWords is the share of the content words of criterion that sentence
// (its token set) holds, or holds a Related form of.
func partWords(criterion string, sentence text.Set) float64 {
	lex, _ := text.SharedLexicon() // nil without WordNet: stems only
	total, held := 0, 0
	seen := map[string]bool{}
	for _, w := range text.Words(criterion) {
		if w.Stop || len(w.Lower) < 2 || seen[w.Stem] {
			continue
		}
		seen[w.Stem] = true
		total++
		if sentence[w.Stem] {
			held++
			continue
		}
		for _, r := range lex.RelatedStems(w.Lower) {
			if sentence[r] {
				held++
				break
			}
		}
	}
	if total == 0 {
		return 0
	}
	return float64(held) / float64(total)
}

// declaresUnknown reports a sentence that says a part is not answered.
func declaresUnknown(plain string) bool {
	return strings.Contains(strings.ToLower(plain), "could not be determined")
}

// relevantOnly removes from body the sentences that bear on no part and
// those moved into the opening, keeping the rest as written.
func relevantOnly(body string, spans []text.Span, taken map[int]bool, parts []part) string {
	var b strings.Builder
	at := 0
	for k, sp := range spans {
		if !taken[k] && keepSentence(research.StripCitations(sp.Text), parts) {
			continue
		}
		b.WriteString(body[at:sp.Start])
		at = sp.End
	}
	b.WriteString(body[at:])
	return tidy(b.String())
}

func keepSentence(plain string, parts []part) bool {
	if declaresUnknown(plain) || len(text.Tokens(plain)) == 0 {
		return true
	}
	for _, p := range parts {
		if sentenceRelevance(plain, p) >= minRelevance {
			return true
		}
	}
	return false
}

// tidy drops the blank lines and empty list markers that removed sentences
// leave behind.
func tidy(body string) string {
	var lines []string
	blank := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if t == "-" || t == "*" || t == "•" {
			continue
		}
		if t == "" {
			blank = len(lines) > 0
			continue
		}
		if blank {
			lines = append(lines, "")
			blank = false
		}
		lines = append(lines, strings.TrimRightFunc(line, unicode.IsSpace))
	}
	return strings.Join(lines, "\n")
}

// summaryBody is the first section: the opening, then the model's other
// sentences there that bear on a part.
func summaryBody(opening []string, body string, spans []text.Span, taken map[int]bool, parts []part) string {
	said := map[string]bool{}
	for _, o := range opening {
		said[text.OneLine(research.StripCitations(o))] = true
	}
	for k, sp := range spans {
		plain := research.StripCitations(sp.Text)
		if !taken[k] && !said[text.OneLine(plain)] && !declaresUnknown(plain) && keepSentence(plain, parts) {
			opening = append(opening, strings.TrimSpace(sp.Text))
		}
	}
	var b strings.Builder
	for i, s := range opening {
		if i > 0 {
			if strings.Contains(s, "\n") || strings.Contains(opening[i-1], "\n") {
				b.WriteString("\n\n")
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(s)
	}
	return b.String()
}

// cite ends sentence with a citation of id, before its final punctuation.
func cite(sentence, id string) string {
	s := strings.TrimSpace(sentence)
	marker := " [" + id + "]"
	if n := len(s); n > 0 && strings.ContainsRune(".!?", rune(s[n-1])) {
		return s[:n-1] + marker + s[n-1:]
	}
	return s + marker + "."
}

// notStated is the sentence for a part no source read answers: the part in
// the question's words, then the sentence verification reads as declaring
// it undetermined.
func notStated(criterion string) string {
	return "“" + strings.TrimSpace(text.OneLine(criterion)) + "”: " + research.Undetermined
}
