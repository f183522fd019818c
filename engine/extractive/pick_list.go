package extractive

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/quarryhq/quarry/text"
)

// Stage 3, lists: a part that asks for the members of a set is answered
// by the list an entry or a sentence announces, its items quoted as
// items.

// enumAnchor returns the sentence that anchors an enumeration: a pick
// that announces a list followed by its entries, else such an
// announcement in a pick's section that names c's group ("… one of the
// following storage classes:"), else the pick whose section has the most
// paragraphs naming the group; the first on a tie.
func (p picker) enumAnchor(c criterion, picks []int, scores []float64) int {
	if i := p.bestAnnouncement(c, picks, scores); i >= 0 {
		return i
	}
	for _, i := range picks {
		if _, hi := p.sectionSpan(i); p.announcesList(c, i, hi) {
			return i
		}
	}
	best, bestN := picks[0], -1
	for _, i := range picks {
		lo, hi := p.sectionSpan(i)
		n := 0
		for j := lo; j < hi; j++ {
			if s := &p.sents[j]; s.para && s.set[c.enum] {
				if p.announcesList(c, j, hi) {
					return j
				}
				n++
			}
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	return best
}

// bestAnnouncement returns the best scored sentence, anywhere in the pool,
// that names c's group and announces a list of it ("The store features
// three built-in codec modules, described in the sections below:"), when it
// scores at least minRelative of the best pick; else -1. The list a page
// announces is the answer to "which … does it provide" even when the
// section's picks come from elsewhere on the page.
func (p picker) bestAnnouncement(c criterion, picks []int, scores []float64) int {
	if len(scores) != len(p.sents) {
		return -1
	}
	top := 0.0
	for _, i := range picks {
		top = max(top, scores[i])
	}
	// A list that announces the group itself ("The following levels are
	// used", "… features three built-in tokenizer modules:") first; then a sentence that counts the members ("There are
	// three backends: …"); a list that only names the group ("Entries are
	// grouped by level and contain the following:", "The following list
	// gives the parameters of the memfile backend.") last.
	bestOf := func(tier int, group string) int {
		best := -1
		for i := range p.sents {
			s := &p.sents[i]
			if scores[i] <= 0 || scores[i] < minRelative*top || !s.set[group] || best >= 0 && scores[i] <= scores[best] {
				continue
			}
			switch lists := introducesList(s.text); {
			case tier == 0 && !(lists && (announcesGroup(s.text, c) || countsMembers(c, s.text) > 0)),
				tier == 1 && lists,
				tier == 2 && !lists:
				continue
			}
			if _, hi := p.sectionSpan(i); p.announcesList(c, i, hi) {
				best = i
			}
		}
		return best
	}
	// A list of the noun a classifier qualifies ("collections" for
	// "which collection types") answers when none of the group does.
	for _, group := range []string{c.enum, c.enumKind} {
		if group == "" {
			continue
		}
		for tier := range 3 {
			if i := bestOf(tier, group); i >= 0 {
				return i
			}
		}
	}
	return -1
}

// announcedWords bounds how far after "the following" the group's noun is
// read as what a sentence announces.
const announcedWords = 3

// announcesGroup reports whether s announces the group c lists as its
// list: the group's noun follows "the following" closely ("The following
// priority levels are recognized"), or, with no "following", is the last
// word before the closing colon ("… one of two storage classes:"). The
// word before the noun, if any, must be one c says: "checkpoint mode:"
// announces no journal modes. "Entries are grouped by level and contain
// the following:" names the group but announces something else.
func announcesGroup(s string, c criterion) bool {
	ws := text.Words(s)
	qualified := func(k int) bool { // the noun at ws[k] is the group c asks for
		if k == 0 || ws[k-1].Stop || ws[k-1].Num || ws[k-1].Stem == "follow" {
			return true
		}
		return c.query[ws[k-1].Stem] > 0
	}
	if m := followingRe.FindStringIndex(s); m != nil {
		seen := 0
		for k, w := range ws {
			if w.Start < m[1] || w.Stop {
				continue
			}
			if seen++; seen > announcedWords {
				break
			}
			if w.Stem == c.enum {
				return qualified(k)
			}
		}
		return false
	}
	for k := len(ws) - 1; k >= 0; k-- {
		if ws[k].Stop {
			continue
		}
		return strings.HasSuffix(s, ":") && ws[k].Stem == c.enum && qualified(k)
	}
	return false
}

// announcesList reports whether sentence i introduces a list (a colon, "the
// following") and at least
// two entries follow it before hi, the end of its section, or counts the
// members of c's group that follow it ("There are three more special
// permission bits.").
func (p picker) announcesList(c criterion, i, hi int) bool {
	if introducesList(p.sents[i].text) && len(p.listEntries(c, i, hi, 2)) >= 2 {
		return true
	}
	n := countsMembers(c, p.sents[i].text)
	return n > 0 && !introducesList(p.sents[i].text) && len(p.countedEntries(i, n)) == n
}

// introducesList reports whether sentence s introduces what follows it:
// it ends in a colon, or says "the following" ("The following urgency
// levels are recognized by the archive tools.") or "as follows".
func introducesList(s string) bool {
	return strings.HasSuffix(s, ":") || followingRe.MatchString(s)
}

var followingRe = regexp.MustCompile(`(?i)\b(?:the|these)\s+following\b|\bas\s+follows\b`)

// maxCounted bounds the members a counting sentence may announce.
const maxCounted = 20

// countsMembers returns how many members of c's group sentence s says
// there are, when it writes a count right before the group's noun
// ("eight kinds of name statistics are supported", "three more special
// permission bits"); 0 otherwise.
func countsMembers(c criterion, s string) int {
	if c.enum == "" {
		return 0
	}
	words := text.Words(s)
	for k, w := range words {
		n, err := strconv.Atoi(w.Stem)
		if !w.Num || err != nil || n < 2 || n > maxCounted {
			continue
		}
		for _, v := range words[k+1 : min(len(words), k+6)] {
			if v.Num {
				break
			}
			if v.Stem == c.enum {
				return n
			}
		}
	}
	return 0
}

// countedEntries returns the n members a counting sentence i announces:
// the first sentence of each of the next n entries of its page when
// entries follow it ("clockstats: Enables …", "loopstats: …"), else of
// each of the next n paragraphs. Fewer when the page ends first.
func (p picker) countedEntries(i, n int) []int {
	var out []int
	label := p.sents[i].label
	entries := i+1 < len(p.sents) && p.sents[i+1].label != "" && p.sents[i+1].label != label
	for j := i + 1; j < len(p.sents) && p.sents[j].src == p.sents[i].src && len(out) < n; j++ {
		s := &p.sents[j]
		switch {
		case entries && s.label != "" && s.label != label && !s.box && !s.row:
			out = append(out, j)
			label = s.label
		case !entries && s.para:
			out = append(out, j)
		}
	}
	return out
}

// listEntries returns up to max entries of the list sentence i announces,
// before hi: labelled entries ("REAL: The value is …"), or the paragraphs
// right after it that each name c's group ("The zstd codec, which
// …"), as a bulleted list of sentences is extracted. The list ends at the
// first paragraph that is neither.
func (p picker) listEntries(c criterion, i, hi, max int) []int {
	var out []int
	lastLabel := p.sents[i].label
	for j := i + 1; j < hi && len(out) < max; j++ {
		s := &p.sents[j]
		switch {
		case s.row:
			out = append(out, j) // "Emerg: Emergencies - system is unusable; …"
		case s.label != "" && s.label != lastLabel && len(out) > 0 && p.sents[out[0]].label != "" && isNumber(p.sents[out[0]].label) != isNumber(s.label):
			return out // "high: …" then the page's footnotes "1: …": another list
		case s.label != "" && s.label != lastLabel:
			out = append(out, j)
		case s.label != "":
		case s.para && c.enum != "" && s.set[c.enum]:
			out = append(out, j)
		case s.para && len(out) > 0 && p.sents[out[len(out)-1]].label == "":
			return out // a paragraph of prose: the list is over
		}
		lastLabel = s.label
	}
	return out
}

// sectionSpan returns the range [lo, hi) of the sentences that share
// sentence i's source and section: a source's sentences are added
// together and its sections follow in order.
func (p picker) sectionSpan(i int) (lo, hi int) {
	s := &p.sents[i]
	same := func(j int) bool { return p.sents[j].src == s.src && p.sents[j].section == s.section }
	lo, hi = i, i+1
	for lo > 0 && same(lo-1) {
		lo--
	}
	for hi < len(p.sents) && same(hi) {
		hi++
	}
	return lo, hi
}

// inlineListRe matches a sentence that lists members after a colon: ":
// "page", "index", and "marker"", ": lz4, zstd or deflate", or members
// each with its description, between semicolons: ": rows, which hold
// values; pages, which hold rows; and files, which …".
var inlineListRe = regexp.MustCompile(`:\s+(?:[^,:;]{1,40}(?:,\s+[^,:;]{1,40}){1,},?|[^;:]{1,120}(?:;\s+[^;:]{1,120}){1,};?)\s+(?:and|or)\s+\S`)

// valuesRe matches a sentence that lists the values an entry allows.
var valuesRe = regexp.MustCompile(`(?i)\b(?:valid|possible|allowed|supported|accepted|available)\s+(?:values?|options?|choices?|settings?)\s+(?:are|is|include)\b|\bmust be one of\b|\bcan be (?:one of|either)\b`)

// valuesOfEntry returns the sentence of pick i's labelled entry, at most
// two sentences on, that lists the values the entry allows, or -1.
func (p picker) valuesOfEntry(i int) int {
	s := &p.sents[i]
	if s.label == "" {
		return -1
	}
	for j := i + 1; j < len(p.sents) && j <= i+2; j++ {
		t := &p.sents[j]
		if t.src != s.src || t.label != s.label {
			return -1
		}
		if valuesRe.MatchString(t.text) {
			return j
		}
	}
	return -1
}

// maxEnumItems bounds the items an enumeration adds to its section.
const maxEnumItems = 8

// enumerate completes the picks of a section whose criterion c asks for a
// set of things: in the section of the page the best pick comes from, the
// items that page lists beside it join the picks — each paragraph that
// names the group ("The TRUNCATE journaling mode …"), each sentence of the
// pick's own entry that does ("logical adds the information …"), and,
// after a pick that announces a list ("… one of the following storage
// classes:"), the first sentence of each entry that follows. anchor is
// the picks' enumAnchor.
func (p picker) enumerate(c criterion, picks []int, anchor int) []int {
	if c.enum == "" || len(picks) == 0 {
		return picks
	}
	first := p.sents[anchor]
	counted := countsMembers(c, first.text)
	announces := introducesList(first.text) || counted > 0
	in := map[int]bool{}
	for _, i := range picks {
		in[i] = true
	}
	out := append([]int(nil), picks...)
	if !in[anchor] {
		in[anchor] = true
		out = append(out, anchor)
	}
	if j := p.valuesOfEntry(picks[0]); j >= 0 && !in[j] {
		// "Specify the checksum kind (digest algorithm)." and, next
		// in its entry, "The valid values are crc32 and blake3.": the
		// best pick's own entry lists the members.
		in[j] = true
		out = append(out, j)
	}
	added, lastLabel := 0, first.label
	lo, hi := p.sectionSpan(anchor)
	if announces {
		// "… three built-in codec modules:" and the list after it: its
		// entries are the members, not what the section says elsewhere.
		entries := p.listEntries(c, anchor, hi, maxEnumItems)
		if counted > 0 && !introducesList(first.text) {
			// No colon: the entries or paragraphs the count
			// announces.
			entries = p.countedEntries(anchor, counted)
		}
		if len(entries) >= 2 {
			for _, j := range entries {
				if !in[j] && (counted > 0 && p.sents[j].label != first.label && p.sents[j].label != "" || !p.duplicates(j, out)) {
					in[j] = true
					out = append(out, j)
				}
			}
			return out
		}
	}
	for j := lo; j < hi && added < maxEnumItems; j++ {
		s := &p.sents[j]
		if in[j] {
			continue
		}
		names := s.set[c.enum] || s.label != "" && slices.Contains(text.Tokens(s.label), c.enum)
		item := false
		switch {
		case s.para && names:
			item = true // a paragraph of its own about one member
		case first.label != "" && s.label == first.label && (names || s.pos > first.pos && s.pos <= first.pos+2):
			// The pick's own entry names another member, or goes on to
			// list them ("The valid values are …").
			item = true
		case announces && s.pos > first.pos && s.label != "" && s.label != lastLabel:
			item = true // the next entry of the announced list
		}
		if s.label != "" {
			lastLabel = s.label
		}
		if item && !p.duplicates(j, out) {
			in[j] = true
			out = append(out, j)
			added++
		}
	}
	return out
}

// members returns the lead of an enumeration c and the members it lists:
// the list the section's candidates point to (pool.enumerate), after the
// sentence that announces it when that is not already the lead.
func (p picker) members(c criterion, lead, cands []int, scores []float64) (sents, items []int) {
	if len(cands) == 0 {
		return lead, nil
	}
	sents = lead
	a := p.enumAnchor(c, cands, scores)
	var listed []int // the entries of the list a announces
	if introducesList(p.sents[a].text) {
		_, hi := p.sectionSpan(a)
		if listed = p.listEntries(c, a, hi, maxEnumItems); len(listed) < 2 {
			listed = nil
		}
	}
	if (introducesList(p.sents[a].text) || countsMembers(c, p.sents[a].text) > 0) && !slices.Contains(sents, a) {
		if listed != nil {
			// A lead that introduces another list ("… and contain the
			// following:") is cut from its list: the announced list
			// answers in its place.
			sents = slices.DeleteFunc(slices.Clone(sents), func(j int) bool { return strings.HasSuffix(p.sents[j].text, ":") })
		}
		sents = append(sents, a)
	}
	for n, j := range p.enumerate(c, cands, a) {
		s := &p.sents[j]
		member := n >= len(cands) || s.set[c.enum] || s.label != "" && slices.Contains(text.Tokens(s.label), c.enum)
		if listed != nil {
			// The announced list holds the members; other sentences
			// that name the group only talk about it.
			member = slices.Contains(listed, j)
		}
		// An item of the announced list is labelled with its own name
		// ("zstd: Selects the Zstandard codec"), which is no other entry
		// than the one asked: it is a member.
		if member && !slices.Contains(sents, j) && (p.sents[j].item || !p.ofAnotherEntry(c, j)) {
			items = append(items, j)
		}
	}
	return sents, items
}

// entryItems returns the sentences of entry e written as the items of a
// list, each a paragraph that opens with its term and a dash or with a
// bullet ("robust – The journal …", "0 - Ignore max_vcl parameter.").
func (p picker) entryItems(e entry) []int {
	var out []int
	for _, i := range e.sents {
		if s := &p.sents[i]; s.para && !s.box && itemRe.MatchString(s.text) {
			out = append(out, i)
		}
	}
	return out
}

// isNumber reports whether label l is a number ("1", "2.3"): a footnote's
// or a section's, not a term's.
func isNumber(l string) bool {
	return l != "" && strings.Trim(l, "0123456789.") == ""
}
