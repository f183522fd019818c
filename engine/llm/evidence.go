package llm

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// Evidence packing: sources are ranked by relevance to the question and
// each gets a share of the budget, filled with its findings and its most
// relevant passages. Sources that cannot get a useful share are left out.
const (
	minSourceChars = 600   // below this a source is not worth including
	maxSourceChars = 24000 // one source never takes more than this
	maxPassage     = 700   // passages longer than this are split
)

// estimateTokens approximates a token count at four characters a token.
func estimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// messagesTokens estimates the tokens of a conversation, with a small
// allowance per message for the chat template.
func messagesTokens(msgs []message) int {
	n := 0
	for _, m := range msgs {
		n += estimateTokens(m.Content) + 8
	}
	return n
}

// packSources renders sources for a prompt within budget characters, most
// relevant first. It returns the text and the ids of the included sources.
func packSources(sources []research.Source, q text.Query, budget int) (string, []string) {
	if len(sources) == 0 || budget < minSourceChars {
		return "", nil
	}
	order := rankSources(sources, q)
	n := min(len(order), budget/minSourceChars)
	var b strings.Builder
	var ids []string
	remaining := budget
	for i, idx := range order[:n] {
		share := min(remaining/(n-i), maxSourceChars)
		block := renderSource(sources[idx], q, share)
		if block == "" {
			continue
		}
		b.WriteString(block)
		b.WriteString("\n")
		remaining -= len(block) + 1
		ids = append(ids, sources[idx].ID)
	}
	return b.String(), ids
}

// renderSource writes one source in at most limit bytes: header, findings,
// then the passages of its text that best match terms, in text order.
func renderSource(s research.Source, q text.Query, limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s\nURL: %s\n", s.ID, text.ClipBytes(text.OneLine(s.Title), 200), text.ClipBytes(text.OneLine(s.URL), 300))
	if s.Published != "" {
		fmt.Fprintf(&b, "Published: %s\n", text.ClipBytes(text.OneLine(s.Published), 40))
	}
	if b.Len() >= limit {
		return ""
	}
	findingsBudget := (limit - b.Len()) * 2 / 5
	if len(s.Findings) > 0 {
		var f strings.Builder
		f.WriteString("Key findings:\n")
		for _, finding := range s.Findings {
			line := "- " + text.ClipBytes(text.OneLine(finding), 400) + "\n"
			if f.Len()+len(line) > findingsBudget {
				break
			}
			f.WriteString(line)
		}
		if f.Len() > len("Key findings:\n") {
			b.WriteString(f.String())
		}
	}
	if rest := limit - b.Len() - len("Excerpt:\n") - 1; rest > 80 {
		if ex := excerpt(s.Text, q, rest); ex != "" {
			b.WriteString("Excerpt:\n")
			b.WriteString(ex)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// excerpt picks the passages of body that best match q, up to limit
// bytes, and joins them in their original order with an ellipsis marking
// each gap.
func excerpt(body string, q text.Query, limit int) string {
	passages := splitPassages(body)
	if len(passages) == 0 {
		return ""
	}
	type scored struct {
		i     int
		score float64
	}
	ranked := make([]scored, len(passages))
	for i, p := range passages {
		// Earlier passages win ties: pages lead with their main point.
		ranked[i] = scored{i, termScore(p, q) - float64(i)*1e-6}
	}
	sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].score > ranked[b].score })
	chosen := make([]bool, len(passages))
	used := 0
	for _, r := range ranked {
		if cost := len(passages[r.i]) + 5; used+cost <= limit {
			chosen[r.i] = true
			used += cost
		}
	}
	if used == 0 { // the best passage alone is too long: cut it
		return text.ClipBytes(passages[ranked[0].i], limit)
	}
	var b strings.Builder
	prev := -1
	for i, ok := range chosen {
		if !ok {
			continue
		}
		if b.Len() > 0 {
			if i == prev+1 {
				b.WriteString("\n")
			} else {
				b.WriteString("\n…\n")
			}
		}
		b.WriteString(passages[i])
		prev = i
	}
	return b.String()
}

// splitPassages cuts body into paragraphs, splitting long ones at sentence
// ends near maxPassage bytes.
func splitPassages(body string) []string {
	var out []string
	for _, para := range strings.Split(body, "\n") {
		para = text.OneLine(para)
		for len(para) > maxPassage {
			cut := strings.LastIndex(para[:maxPassage], ". ")
			if cut < maxPassage/3 {
				cut = strings.LastIndexByte(para[:maxPassage], ' ')
			}
			if cut <= 0 {
				cut = maxPassage - 1
			}
			out = append(out, text.ClipBytes(para[:cut+1], maxPassage))
			para = strings.TrimSpace(para[cut+1:])
		}
		if para != "" {
			out = append(out, para)
		}
	}
	return out
}

// rankSources orders sources by BM25 relevance to q over their title,
// findings and text, best first; ties keep the sources' own order.
func rankSources(sources []research.Source, q text.Query) []int {
	docs := make([][]string, len(sources))
	for i, s := range sources {
		docs[i] = text.Tokens(s.Title + "\n" + s.Title + "\n" + strings.Join(s.Findings, "\n") + "\n" + s.Text)
	}
	scores := text.NewIndex(docs).Scores(q)
	order := make([]int, len(sources))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	return order
}

// termScore is how well a passage matches q: the weight of each distinct
// query token it contains, plus a little for repeats.
func termScore(passage string, q text.Query) float64 {
	if len(q) == 0 {
		return 0
	}
	tf := map[string]int{}
	for _, t := range text.Tokens(passage) {
		tf[t]++
	}
	score := 0.0
	for _, t := range q.Terms() {
		if n := tf[t]; n > 0 {
			score += q[t] * (1 + math.Log(float64(n))*0.3)
		}
	}
	return score
}

// relevanceQuery weighs the question's tokens fully and those of the goal
// and criteria a little less.
func relevanceQuery(question string, related ...string) text.Query {
	q := text.Query{}
	q.Add(text.Tokens(strings.Join(related, "\n")), 0.6)
	q.Add(text.Tokens(question), 1)
	return q
}
