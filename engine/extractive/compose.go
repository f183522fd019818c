package extractive

import (
	"sort"
	"strings"

	"github.com/quarryhq/quarry/research"
)

// Stage 4 of synthesis: compose. The Summary comes first and holds one
// paragraph per part of the question, in its order: the lead that states
// the answer, or research.NotStated for a part no source read states.
// Then each section whose part has more relevant evidence lists it, in the
// order the page wrote it; a section with nothing more is not written.

// compose writes the report from the picks, calling emit with each piece.
func compose(p *pool, secs []section, chosen picks, emit func(string)) {
	for si, sec := range secs {
		if sec.summary {
			writeSummary(p, sec, secs, chosen, emit)
			continue
		}
		writeSection(p, sec, chosen.rest[si], chosen.leads[si], emit)
	}
}

// quotedBy returns what section si quotes, its leads and the rest, in the
// order of the sources.
func quotedBy(p *pool, chosen picks, si int) []int {
	var out []int
	for _, l := range chosen.leads[si] {
		out = append(out, l.sents...)
	}
	out = append(out, chosen.rest[si]...)
	sort.SliceStable(out, func(a, b int) bool {
		sa, sb := &p.sents[out[a]], &p.sents[out[b]]
		return sa.src < sb.src || sa.src == sb.src && sa.pos < sb.pos
	})
	return out
}

// writeSummary emits the Summary: a paragraph per criterion of the
// question's parts, in their order, then a list after a lead that
// announces one.
func writeSummary(p *pool, sum section, secs []section, chosen picks, emit func(string)) {
	emit("## " + sum.heading + "\n\n")
	for si, sec := range secs {
		if sec.summary {
			continue
		}
		for ci, c := range sec.criteria {
			l := chosen.leads[si][ci]
			switch {
			case len(l.sents) > 0:
				emit(strings.Join(quoteRun(p, l.sents), " ") + "\n\n")
				if len(l.items) > 0 {
					named := p.sents[l.sents[0]].label
					for _, i := range p.inReadingOrder(l.items) {
						if s := &p.sents[i]; named != "" && s.label == named && !s.box {
							// The entry named above the list.
							emit("- " + quoteText(p, i) + "\n")
							continue
						}
						emit("- " + quote(p, i) + "\n")
					}
					emit("\n")
				}
			case !l.stated && !sec.named:
				emit(escapeMarkdown(research.NotStated(c.text)) + "\n\n")
			}
		}
		// Sources that give different values for what was asked: said
		// beside the answer, not under a heading further down.
		if d := p.disagreements(sec, quotedBy(p, chosen, si)); len(d) > 0 {
			for _, line := range d {
				emit("- " + line + "\n")
			}
			emit("\n")
		}
	}
}

// writeSection emits one section: its heading, then its quotes as a list
// in reading order. It writes nothing when it has none, unless the plan
// names the heading itself: then it says that no source states it.
func writeSection(p *pool, sec section, rest []int, leads []lead, emit func(string)) {
	if len(rest) == 0 {
		if sec.named && !leads[0].stated {
			emit("## " + sec.heading + "\n\n" + escapeMarkdown(research.NotStated(sec.heading)) + "\n\n")
		}
		return
	}
	emit("## " + sec.heading + "\n\n")
	for _, i := range p.inReadingOrder(rest) {
		emit("- " + quote(p, i) + "\n")
	}
	emit("\n")
}

// quoteRun renders sentences written one after another in a paragraph:
// the entry's name is given once, on the first of its sentences, as a
// reader would write it.
func quoteRun(p *pool, idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		s := &p.sents[i]
		if k > 0 && !s.box && s.label != "" {
			if prev := &p.sents[idx[k-1]]; prev.src == s.src && prev.label == s.label {
				out[k] = quoteText(p, i)
				continue
			}
		}
		out[k] = quote(p, i)
	}
	return out
}

// quote renders sentence i as it appears in the source, escaped for
// Markdown, with its citation. A sentence of an entry carries the entry's
// name; a line of the entry's key/value box reads as a statement about it
// ("`client_body_size` default: 1m").
func quote(p *pool, i int) string {
	s := p.sents[i]
	out := escapeMarkdown(s.text)
	if s.box {
		return research.CodeSpan(s.label) + " " + strings.ToLower(out[:1]) + out[1:] + " " + p.cite(i)
	}
	if s.label != "" {
		return research.CodeSpan(s.label) + ": " + quoteText(p, i)
	}
	return quoteText(p, i)
}

// quoteText is quote without the entry's name.
func quoteText(p *pool, i int) string {
	s := p.sents[i]
	out := escapeMarkdown(s.text)
	if s.code != "" {
		// A sentence with its command: the command stays a code span,
		// whatever backticks the page put in it.
		out += " " + research.CodeSpan(s.code)
	}
	return out + " " + p.cite(i)
}
