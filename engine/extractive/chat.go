package extractive

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/quarryhq/quarry/engine"
	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// maxChatSentences bounds an answer from named pages.
const maxChatSentences = 6

// browseWords are the words of "summarize this page" that say nothing
// about what to look for in it.
var browseWords = stems("read summarize summarise summary page pages site website article post open visit fetch browse tl dr tldr look check link url http https www com org what say says about main points")

// Chat answers a message without research. With no pages it says plainly
// that the built-in engine cannot converse and offers to research the
// message; with pages (the browse route) it answers from them by quotation.
func (e *Engine) Chat(ctx context.Context, req engine.ChatRequest, stream func(string)) (string, engine.Usage, error) {
	if err := ctx.Err(); err != nil {
		return "", engine.Usage{}, fmt.Errorf("chat: %w", err)
	}
	var out string
	switch {
	case len(req.Sources) == 0 && len(req.Prior) > 0 && RefersBack(req.Message):
		out = priorAnswer(req.Prior)
	case len(req.Sources) == 0:
		out = chatReply(req.Message)
	default:
		out = browseAnswer(req.Message, req.Sources)
	}
	if stream != nil {
		stream(out)
	}
	return out, engine.Usage{}, nil
}

// priorAnswer answers a follow-up about the earlier reports ("simplify
// that") the only way quoting allows: their most central sentences, each
// citing the [P#] section it comes from.
func priorAnswer(prior []research.PriorSection) string {
	p := newPool(nil, prior, nil)
	picks := p.pick(p.centrality(), maxChatSentences, nil, nil, 0)
	if len(picks) == 0 {
		return chatReply("")
	}
	var b strings.Builder
	b.WriteString("## In short\n\n")
	for _, i := range picks {
		b.WriteString("- " + quote(p, i) + "\n")
	}
	return b.String()
}

// chatReply is the honest answer of an engine that only quotes sources.
func chatReply(message string) string {
	msg := strings.TrimSpace(message)
	var b strings.Builder
	b.WriteString("Quarry is running with its built-in extractive engine, which cannot hold a conversation: it answers questions by searching the web and quoting the pages it reads, with a citation on every sentence.\n\n")
	if len(text.Tokens(msg)) >= 2 && !aboutYouRe.MatchString(msg) && !greetingRe.MatchString(msg) {
		fmt.Fprintf(&b, "Would you like me to research this instead? Ask it as a question, for example: *%s*\n", escapeMarkdown(cleanQuestion(msg)))
	} else {
		b.WriteString("Ask a question (for example *What is the default port of PostgreSQL?*) and it will be researched and answered with cited sources. Configure an OpenAI-compatible or Anthropic model to chat.\n")
	}
	return b.String()
}

// browseAnswer answers message from the named pages: the sentences most
// relevant to what it asks, or, for "summarize <url>", each page's most
// central sentences.
func browseAnswer(message string, sources []research.Source) string {
	p := newPool(sources, nil, nil)
	var ask []string
	for _, t := range text.Tokens(urlRe.ReplaceAllString(message, " ")) {
		if !browseWords[t] {
			ask = append(ask, t)
		}
	}
	var b strings.Builder
	if len(ask) >= 1 {
		q := text.Query{}
		q.Add(ask, 1)
		p.setRelevance(q)
		core := coreOf(ask)
		picks := p.pick(p.scores(q), maxChatSentences, func(i int) bool { return p.coverage(core, i) >= coverThreshold }, nil, minRelative)
		b.WriteString("## Answer\n\n")
		if len(picks) == 0 {
			b.WriteString(research.Undetermined + "\n\n")
		}
		for _, i := range picks {
			b.WriteString("- " + quote(p, i) + "\n")
		}
		if len(picks) > 0 {
			return b.String()
		}
		b.WriteString("## What the pages say\n\n")
	} else {
		b.WriteString("## Summary\n\n")
	}
	picks := p.pick(p.centrality(), maxChatSentences, nil, nil, 0)
	if len(picks) == 0 {
		b.WriteString(research.Undetermined + "\n")
	}
	for _, i := range picks {
		b.WriteString("- " + quote(p, i) + "\n")
	}
	return b.String()
}

// centrality rates each sentence by how typical its words are of its own
// page (a summary's sentences share the page's vocabulary), with a bonus
// for coming early; pages take turns so every page is represented.
func (p *pool) centrality() []float64 {
	tf := make([]map[string]int, len(p.docs))
	for i := range tf {
		tf[i] = map[string]int{}
	}
	for _, s := range p.sents {
		for t := range s.set {
			tf[s.src][t]++
		}
	}
	out := make([]float64, len(p.sents))
	best := make([]float64, len(p.docs))
	for i, s := range p.sents {
		if len(s.set) == 0 {
			continue
		}
		sum := 0.0
		for _, t := range text.Unique(s.toks) {
			if n := tf[s.src][t]; n > 1 {
				sum += math.Log(float64(n)) * p.index.IDF(t)
			}
		}
		v := sum / math.Sqrt(float64(len(s.set))) * s.quality * (1 + 1/(1+float64(s.pos)/3))
		out[i] = v
		best[s.src] = max(best[s.src], v)
	}
	for i, s := range p.sents {
		if best[s.src] > 0 {
			out[i] /= best[s.src] // each page's best sentence scores 1
		}
	}
	return out
}
