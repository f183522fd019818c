package llm

import (
	"fmt"
	"strings"

	"github.com/quarryhq/quarry/engine/extractive"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// A model engine is given what the built-in engine would quote: for each
// part of the question (a success criterion, in the question's order) the
// sources the one coverage rule (extractive.Coverage) finds evidence in,
// and their passages that best bear on that part — not every gathered
// sentence. Its report is then held to the same answer-first rules
// (holdAnswerFirst).

// maxPartSources bounds the sources whose passages are given for one part.
const maxPartSources = 3

// part is one part of the question with its evidence.
type part struct {
	criterion string
	cov       research.CriterionCoverage
	key       []keySentence // the best sentence of each of its first sources
	passages  []string      // every passage given for it, for the relevance check
}

// keySentence is a whole sentence of a source that is evidence for a part.
type keySentence struct {
	id, text string
}

// questionParts returns the parts of the question with their evidence:
// the criteria of spec, or the question itself when it has none.
func questionParts(question string, spec research.TaskSpec, sources []research.Source) []part {
	if len(spec.Criteria) == 0 {
		spec.Criteria = []string{question}
	}
	if strings.TrimSpace(spec.Goal) == "" {
		spec.Goal = question
	}
	byID := map[string]research.Source{}
	for _, s := range sources {
		byID[s.ID] = s
	}
	var out []part
	for i, cov := range extractive.Coverage(spec, sources) {
		p := part{criterion: spec.Criteria[i], cov: cov}
		for _, k := range cov.Key {
			id, sentence := splitKey(k)
			if full := wholeSentence(byID[id].Text, sentence); full != "" {
				p.key = append(p.key, keySentence{id: id, text: full})
			}
		}
		out = append(out, p)
	}
	return out
}

// splitKey reads a coverage key sentence, "[S2] text…".
func splitKey(k string) (id, sentence string) {
	if !strings.HasPrefix(k, "[") {
		return "", k
	}
	id, sentence, _ = strings.Cut(k[1:], "] ")
	return id, sentence
}

// wholeSentence finds in body the sentence that key (possibly clipped,
// ending in "…") begins, as the page wrote it; "" when there is none.
func wholeSentence(body, key string) string {
	prefix := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(key), "…"))
	if prefix == "" {
		return ""
	}
	for _, sp := range text.Sentences(body) {
		if strings.HasPrefix(text.OneLine(sp.Text), text.OneLine(prefix)) {
			return sp.Text
		}
	}
	return ""
}

// partsBlock writes the sources that hold evidence and, for each part, its
// key sentences and best passages, in at most budget bytes; it records on
// parts the passages it gave. Parts share the budget equally.
func partsBlock(parts []part, sources []research.Source, budget int) string {
	byID := map[string]research.Source{}
	for _, s := range sources {
		byID[s.ID] = s
	}
	var used []string
	seen := map[string]bool{}
	for _, p := range parts {
		for _, id := range p.cov.Sources[:min(len(p.cov.Sources), maxPartSources)] {
			if _, ok := byID[id]; ok && !seen[id] {
				seen[id] = true
				used = append(used, id)
			}
		}
	}
	if len(used) == 0 || budget < minSourceChars {
		return ""
	}
	var b strings.Builder
	b.WriteString("Sources:\n")
	for _, id := range used {
		s := byID[id]
		fmt.Fprintf(&b, "[%s] %s\nURL: %s\n", s.ID, text.ClipBytes(text.OneLine(s.Title), 200), text.ClipBytes(text.OneLine(s.URL), 300))
		if s.Published != "" {
			fmt.Fprintf(&b, "Published: %s\n", text.ClipBytes(text.OneLine(s.Published), 40))
		}
	}
	b.WriteString("\nEvidence for each part of the question, in the question's order (the passages of the sources that bear on it; nothing else is evidence):\n")
	share := max((budget-b.Len())/len(parts), 0)
	for i := range parts {
		p := &parts[i]
		var pb strings.Builder
		fmt.Fprintf(&pb, "\nPart %d: %s\n", i+1, text.ClipBytes(text.OneLine(p.criterion), maxItemLen))
		if !p.cov.Covered() {
			pb.WriteString("No source read states this part.\n")
			b.WriteString(pb.String())
			continue
		}
		for _, k := range p.key {
			line := fmt.Sprintf("[%s] %s\n", k.id, k.text)
			if pb.Len()+len(line) > share {
				break
			}
			pb.WriteString(line)
			p.passages = append(p.passages, k.text)
		}
		q := relevanceQuery(p.criterion)
		ids := p.cov.Sources[:min(len(p.cov.Sources), maxPartSources)]
		for j, id := range ids {
			room := (share - pb.Len()) / (len(ids) - j)
			if room < 200 {
				continue
			}
			ex := excerpt(byID[id].Text, q, room-len(id)-16)
			if ex == "" {
				continue
			}
			fmt.Fprintf(&pb, "[%s] passage:\n%s\n", id, ex)
			p.passages = append(p.passages, ex)
		}
		b.WriteString(pb.String())
	}
	return b.String()
}
