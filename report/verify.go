package report

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// maxFailures bounds the feedback handed to a repair pass.
const maxFailures = 30

// maxReportBytes bounds the Markdown Verify reads; a longer report is
// checked on its first maxReportBytes.
const maxReportBytes = 512 << 10

// VerifyOptions are the thresholds of verification. A zero field takes its
// default (DefaultVerifyOptions); a negative one disables that check.
type VerifyOptions struct {
	MinValidity      float64 `json:"min_validity"`      // share of citation markers naming a real source
	MinSupport       float64 `json:"min_support"`       // share of cited sentences supported by a cited passage
	MinCoverage      float64 `json:"min_coverage"`      // share of factual sentences carrying a citation
	SupportThreshold float64 `json:"support_threshold"` // per-sentence support score needed
	MinGrounding     float64 `json:"min_grounding"`     // share of numbers and names found in the cited sources
	MinCriteria      float64 `json:"min_criteria"`      // share of criteria answered or declared undetermined
}

// DefaultVerifyOptions are the strict defaults of DESIGN.md: every citation
// valid, 90% of cited sentences supported.
func DefaultVerifyOptions() VerifyOptions {
	return VerifyOptions{
		MinValidity:      1.0,
		MinSupport:       0.9,
		MinCoverage:      0.8,
		SupportThreshold: 0.6,
		MinGrounding:     0.9,
		MinCriteria:      1.0,
	}
}

// withDefaults fills zero fields from the defaults.
func (o VerifyOptions) withDefaults() VerifyOptions {
	d := DefaultVerifyOptions()
	pick := func(v, def float64) float64 {
		if v == 0 {
			return def
		}
		return v
	}
	return VerifyOptions{
		MinValidity:      pick(o.MinValidity, d.MinValidity),
		MinSupport:       pick(o.MinSupport, d.MinSupport),
		MinCoverage:      pick(o.MinCoverage, d.MinCoverage),
		SupportThreshold: pick(o.SupportThreshold, d.SupportThreshold),
		MinGrounding:     pick(o.MinGrounding, d.MinGrounding),
		MinCriteria:      pick(o.MinCriteria, d.MinCriteria),
	}
}

// Verification is the deterministic check of one report version.
type Verification struct {
	research.Scores
	Sentences []SentenceCheck  `json:"sentences"`
	Criteria  []CriterionCheck `json:"criteria,omitempty"`
	// Contradictions are sentence pairs giving different values for the
	// same thing without saying the sources disagree.
	Contradictions []Contradiction `json:"contradictions,omitempty"`
	Failures       []string        `json:"failures,omitempty"` // feedback lines for a repair pass
	Warning        string          `json:"warning,omitempty"`
}

// SentenceCheck is the verdict on one sentence of a report.
type SentenceCheck struct {
	Index        int      `json:"index"`
	Section      string   `json:"section,omitempty"`
	Text         string   `json:"text"` // without citation markers or Markdown
	Citations    []string `json:"citations,omitempty"`
	Factual      bool     `json:"factual"`
	Valid        bool     `json:"valid"` // every cited id exists
	Supported    bool     `json:"supported"`
	Score        float64  `json:"score"`
	SourceID     string   `json:"source_id,omitempty"` // best supporting source
	Passage      string   `json:"passage,omitempty"`   // best supporting passage, verbatim
	PassageStart int      `json:"passage_start"`       // byte offsets of Passage in that source's Text
	PassageEnd   int      `json:"passage_end"`
	Ungrounded   []string `json:"ungrounded,omitempty"` // numbers and names missing from the cited sources
	Inference    bool     `json:"inference,omitempty"`
	Undetermined bool     `json:"undetermined,omitempty"`
	// Evidence is the verdict per cited id, in the order of Citations:
	// what a reader who opens that one citation should see.
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Evidence is the best passage of one cited source (or prior section) for
// one sentence, as the verifier scored it with the run's thresholds.
type Evidence struct {
	Cite  string `json:"cite"`  // S1 or P1
	Found bool   `json:"found"` // the id names a source or prior section of the run
	// Supported: this source supports the sentence. For the sentence's best
	// source it is the sentence's verdict (several sources may support it
	// together); for another it is this passage's own score against the
	// threshold.
	Supported    bool    `json:"supported"`
	Score        float64 `json:"score"`
	Passage      string  `json:"passage,omitempty"` // verbatim
	PassageStart int     `json:"passage_start"`     // byte offsets of Passage in the cited text
	PassageEnd   int     `json:"passage_end"`
	// Before and After are the cited text around Passage (AddContext).
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// CriterionCheck says whether a success criterion was answered.
type CriterionCheck struct {
	Criterion    string `json:"criterion"`
	Section      string `json:"section,omitempty"`
	Answered     bool   `json:"answered"`
	Undetermined bool   `json:"undetermined"`
	Sentences    []int  `json:"sentences,omitempty"` // indexes of the answering sentences
}

// Verify checks a report against the sources and prior sections it may
// cite: citation validity, coverage of factual sentences, support of each
// cited sentence by a passage of its cited sources, grounding of numbers
// and names, and coverage of the success criteria.
func Verify(markdown string, sources []research.Source, prior []research.PriorSection, criteria []string, opt VerifyOptions) Verification {
	return verify(ReportSentences(clipReport(markdown)), sources, prior, criteria, opt)
}

// Verify checks the report r (see the function Verify) and keeps the
// per-sentence verdicts in r, where rendering and the report page read them.
func (r *Report) Verify(sources []research.Source, prior []research.PriorSection, criteria []string, opt VerifyOptions) Verification {
	v := verify(r.split, sources, prior, criteria, opt)
	r.Sentences, r.Verified = v.Sentences, true
	r.Criteria = CriterionResults(v)
	return v
}

// clipReport cuts markdown to the part verification reads.
func clipReport(markdown string) string {
	if len(markdown) > maxReportBytes {
		return markdown[:maxReportBytes]
	}
	return markdown
}

func verify(sents []ReportSentence, sources []research.Source, prior []research.PriorSection, criteria []string, opt VerifyOptions) Verification {
	opt = opt.withDefaults()
	docs := newDocSet(sources, prior)
	v := Verification{Sentences: make([]SentenceCheck, 0, len(sents))}
	var markers, validMarkers, factual, cited, supported, facts, grounded int
	for i, s := range sents {
		c := SentenceCheck{Index: i, Section: s.Section, Text: s.Plain, Citations: research.Citations(s.Raw)}
		c.Inference = inferenceRe.MatchString(s.Raw)
		c.Undetermined = research.IsUndetermined(s.Plain)
		c.Valid = true
		for _, id := range c.Citations {
			markers++
			if docs.get(id) != nil {
				validMarkers++
			} else {
				c.Valid = false
			}
		}
		c.Factual = !c.Inference && !c.Undetermined && (len(c.Citations) > 0 || isClaim(s.Plain))
		if c.Factual {
			factual++
		}
		if c.Factual && len(c.Citations) > 0 {
			cited++
			if checkDisagreement(&c, s.Raw, docs) {
				if c.Supported {
					supported++
				}
				v.Sentences = append(v.Sentences, c)
				continue
			}
			checkSupport(&c, docs, opt.SupportThreshold)
			if c.Supported {
				supported++
			}
			f := text.ExtractFacts(s.Plain)
			n := len(f.Numbers) + len(f.Entities)
			facts += n
			grounded += n - len(c.Ungrounded)
		} else if len(c.Citations) > 0 {
			citedPassages(&c, docs)
		}
		v.Sentences = append(v.Sentences, c)
	}
	v.Validity = ratio(validMarkers, markers)
	v.Coverage = ratio(cited, factual)
	v.Support = ratio(supported, cited)
	v.Grounding = ratio(grounded, facts)
	v.Criteria = checkCriteria(criteria, v.Sentences)
	answered := 0
	for _, c := range v.Criteria {
		if c.Answered || c.Undetermined {
			answered++
		}
	}
	v.CriteriaCoverage = ratio(answered, len(v.Criteria))
	raws := make([]string, len(sents))
	for i, s := range sents {
		raws[i] = s.Raw
	}
	v.Contradictions = contradictions(v.Sentences, raws)
	v.Passed = len(v.Sentences) > 0 && len(v.Contradictions) == 0 &&
		meets(v.Validity, opt.MinValidity) && meets(v.Support, opt.MinSupport) &&
		meets(v.Coverage, opt.MinCoverage) && meets(v.Grounding, opt.MinGrounding) &&
		meets(v.CriteriaCoverage, opt.MinCriteria)
	v.Failures = failures(v, docs, opt)
	if !v.Passed {
		v.Warning = warning(v, opt)
	}
	return v
}

// Score ranks report versions: a passing version beats any failing one,
// then the weighted metrics decide.
func Score(v Verification) float64 {
	s := 0.3*v.Validity + 0.3*v.Support + 0.2*v.Coverage + 0.1*v.Grounding + 0.1*v.CriteriaCoverage
	if len(v.Sentences) == 0 {
		return 0
	}
	if v.Passed {
		s++
	}
	return s
}

// Feedback returns the repair feedback of v: one line per problem, naming
// the sentence and what to do about it.
func Feedback(v Verification) []string { return v.Failures }

func ratio(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

func meets(v, min float64) bool { return min < 0 || v >= min-1e-9 }

var (
	inferenceRe = regexp.MustCompile(`(?i)\(inference\)|^\s*inference:`)
	// metaRe matches sentences about the report or its sources rather than
	// about the world: "The sources do not say when …", "This report covers …".
	metaRe = regexp.MustCompile(`(?i)\b(?:the|these|those|available|provided|cited|fetched|gathered) sources?\b|\bthis (?:report|section|answer)\b|\bas follows\b|\bsee (?:above|below)\b`)
)

// isClaim reports whether a sentence without citations states something a
// reader would take as fact: not a question, not a lead-in ending in ":",
// not a remark about the report or its sources, at least a few words with
// content.
func isClaim(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, ":") || metaRe.MatchString(s) {
		return false
	}
	return len(text.Words(s)) >= 4 && len(text.Tokens(s)) >= 2
}

// checkSupport finds the best passage of the cited documents for c and
// fills Score, Supported, SourceID, Passage and Ungrounded.
func checkSupport(c *SentenceCheck, docs *docSet, threshold float64) {
	claim := text.Unique(text.Tokens(c.Text))
	var union uint64
	var best text.Passage
	var bestDoc *text.Document
	var cited []*text.Document
	c.Evidence = make([]Evidence, len(c.Citations))
	for i, id := range c.Citations {
		c.Evidence[i].Cite = id
		d := docs.get(id)
		if d == nil {
			continue
		}
		cited = append(cited, d)
		p := d.BestPassage(claim)
		union |= p.Mask
		if bestDoc == nil || p.Score > best.Score {
			best, bestDoc = p, d
		}
		e := &c.Evidence[i]
		e.Found, e.Score = true, p.Score
		if p.End > p.Start {
			e.Passage, e.PassageStart, e.PassageEnd = d.Passage(p), p.Start, p.End
		}
	}
	if bestDoc != nil {
		c.Score = best.Score
		if len(cited) > 1 {
			// Several citations may support a sentence together.
			c.Score = max(c.Score, text.MaskScore(claim, union))
		}
		c.SourceID = bestDoc.ID
		c.PassageStart, c.PassageEnd = best.Start, best.End
		c.Passage = bestDoc.Passage(best)
	}
	c.Supported = c.Valid && c.Score >= threshold
	for i := range c.Evidence {
		e := &c.Evidence[i]
		if bestDoc != nil && e.Cite == bestDoc.ID {
			e.Score, e.Supported = c.Score, c.Supported
			continue
		}
		e.Supported = c.Valid && e.Found && e.Score >= threshold
	}
	f := text.ExtractFacts(c.Text)
	for _, n := range f.Numbers {
		if !anyDoc(cited, func(d *text.Document) bool { return d.Numbers()[n] }) {
			c.Ungrounded = append(c.Ungrounded, n)
		}
	}
	for _, e := range f.Entities {
		if !anyDoc(cited, func(d *text.Document) bool { return d.Mentions(e) }) {
			c.Ungrounded = append(c.Ungrounded, e)
		}
	}
}

// citedPassages fills the Evidence of a sentence that is cited but not
// checked (an inference, say): each cited source's best passage, for the
// reader, with no verdict.
func citedPassages(c *SentenceCheck, docs *docSet) {
	claim := text.Unique(text.Tokens(c.Text))
	c.Evidence = make([]Evidence, len(c.Citations))
	for i, id := range c.Citations {
		c.Evidence[i].Cite = id
		if d := docs.get(id); d != nil {
			p := d.BestPassage(claim)
			c.Evidence[i].Found, c.Evidence[i].Score = true, p.Score
			if p.End > p.Start {
				c.Evidence[i].Passage, c.Evidence[i].PassageStart, c.Evidence[i].PassageEnd = d.Passage(p), p.Start, p.End
			}
		}
	}
}

func anyDoc(docs []*text.Document, f func(*text.Document) bool) bool {
	for _, d := range docs {
		if f(d) {
			return true
		}
	}
	return false
}

// docSet holds what a report may cite: sources and prior sections by id,
// prepared for passage search on first use.
type docSet struct {
	texts map[string]string
	ids   []string
	cache map[string]*text.Document
}

func newDocSet(sources []research.Source, prior []research.PriorSection) *docSet {
	s := &docSet{texts: map[string]string{}, cache: map[string]*text.Document{}}
	for _, src := range sources {
		if src.ID != "" {
			s.texts[src.ID] = src.Text
			s.ids = append(s.ids, src.ID)
		}
	}
	for _, p := range prior {
		if p.ID != "" {
			s.texts[p.ID] = p.Heading + "\n\n" + p.Text
			s.ids = append(s.ids, p.ID)
		}
	}
	return s
}

// get returns the document cited as id, or nil when there is none.
func (s *docSet) get(id string) *text.Document {
	if d, ok := s.cache[id]; ok {
		return d
	}
	body, ok := s.texts[id]
	if !ok {
		return nil
	}
	d := text.NewDocument(id, body)
	s.cache[id] = d
	return d
}

// idRange lists the valid ids for feedback: "S1–S5, P1".
func (s *docSet) idRange() string {
	if len(s.ids) == 0 {
		return "none"
	}
	if len(s.ids) <= 6 {
		return strings.Join(s.ids, ", ")
	}
	return s.ids[0] + "–" + s.ids[len(s.ids)-1]
}

// checkCriteria decides for each criterion whether the report answers it
// (a valid cited sentence under its section, or relevant to it anywhere) or
// declares it undetermined. A report answers first (DESIGN.md,
// Synthesize): its Summary opens with one answer per criterion in the
// question's order, so a criterion still open after those checks takes the
// first Summary sentence that no other criterion claimed.
func checkCriteria(criteria []string, sents []SentenceCheck) []CriterionCheck {
	var sections []string
	seen := map[string]bool{}
	for _, s := range sents {
		if !seen[s.Section] {
			seen[s.Section] = true
			sections = append(sections, s.Section)
		}
	}
	answers := func(s SentenceCheck) bool { return s.Factual && len(s.Citations) > 0 && s.Valid }
	claimed := map[int]bool{}
	out := make([]CriterionCheck, 0, len(criteria))
	for _, cr := range criteria {
		ct := text.NewSet(text.Tokens(cr))
		check := CriterionCheck{Criterion: cr, Section: bestSection(ct, sections)}
		for _, s := range sents {
			if check.Section != "" && s.Section == check.Section && answers(s) {
				check.Answered = true
				check.Sentences = append(check.Sentences, s.Index)
			}
		}
		if !check.Answered {
			for _, s := range sents {
				ctx := text.NewSet(text.Tokens(s.Text + " " + s.Section))
				if answers(s) && (len(ct) == 0 || containsShare(ct, ctx) >= 0.5) {
					check.Answered = true
					check.Sentences = append(check.Sentences, s.Index)
				}
			}
		}
		if !check.Answered {
			for _, s := range sents {
				if !s.Undetermined {
					continue
				}
				related := check.Section != "" && s.Section == check.Section ||
					check.Section == "" && containsShare(ct, text.NewSet(text.Tokens(s.Text+" "+s.Section))) >= 0.3
				if related || len(ct) == 0 {
					check.Undetermined = true
					check.Sentences = append(check.Sentences, s.Index)
					break
				}
			}
		}
		for _, i := range check.Sentences {
			claimed[i] = true
		}
		out = append(out, check)
	}
	if len(sents) == 0 || len(sections) < 1 {
		return out
	}
	summary := sections[0]
	for k := range out {
		if out[k].Answered || out[k].Undetermined {
			continue
		}
		for _, s := range sents {
			if s.Section == summary && answers(s) && !claimed[s.Index] {
				claimed[s.Index] = true
				out[k].Answered = true
				out[k].Sentences = append(out[k].Sentences, s.Index)
				break
			}
		}
	}
	return out
}

// bestSection returns the section whose heading is most contained in the
// criterion (a heading derived from it), or "" when none is close.
func bestSection(criterion text.Set, sections []string) string {
	best, bestScore := "", 0.0
	for _, sec := range sections {
		toks := text.Tokens(sec)
		if len(toks) == 0 {
			continue
		}
		if sc := text.Containment(toks, criterion); sc > bestScore+1e-9 {
			best, bestScore = sec, sc
		}
	}
	if bestScore < 0.5 {
		return ""
	}
	return best
}

// containsShare is the share of the tokens of a found in b.
func containsShare(a, b text.Set) float64 {
	if len(a) == 0 {
		return 0
	}
	n := 0
	for t := range a {
		if b[t] {
			n++
		}
	}
	return float64(n) / float64(len(a))
}

// failures turns the checks into repair feedback lines.
func failures(v Verification, docs *docSet, opt VerifyOptions) []string {
	var out []string
	add := func(format string, args ...any) {
		if len(out) < maxFailures {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	for _, s := range v.Sentences {
		if !s.Valid {
			var bad []string
			for _, id := range s.Citations {
				if docs.get(id) == nil {
					bad = append(bad, "["+id+"]")
				}
			}
			add("Sentence %d cites %s, which is not a source of this run (valid: %s); cite a real source or remove the claim: %q",
				s.Index+1, strings.Join(bad, ", "), docs.idRange(), s.Text)
		}
	}
	for _, s := range v.Sentences {
		if s.Factual && len(s.Citations) > 0 && s.Valid && !s.Supported {
			add("Sentence %d is not supported by %s (support %.2f, needs %.2f); say only what the source says, cite the source that says it, or remove it: %q",
				s.Index+1, strings.Join(bracket(s.Citations), ""), s.Score, opt.SupportThreshold, s.Text)
		}
	}
	for _, s := range v.Sentences {
		if len(s.Ungrounded) > 0 && s.Valid {
			add("Sentence %d has %s, not found in %s; use the figures and names the source gives: %q",
				s.Index+1, quoteList(s.Ungrounded), strings.Join(bracket(s.Citations), ""), s.Text)
		}
	}
	for _, s := range v.Sentences {
		if s.Factual && len(s.Citations) == 0 {
			add("Sentence %d states a fact without a citation; cite the source that says it or mark it (inference): %q", s.Index+1, s.Text)
		}
	}
	for _, c := range v.Contradictions {
		add("%s", contradictionFeedback(c, v.Sentences))
	}
	for _, c := range v.Criteria {
		if !c.Answered && !c.Undetermined {
			add("Criterion not addressed: %q; answer it with a cited sentence, or write %q under its section.", c.Criterion, research.Undetermined)
		}
	}
	if len(v.Sentences) == 0 {
		add("The report is empty; write the deliverable sections with cited sentences.")
	}
	return out
}

func bracket(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "[" + id + "]"
	}
	return out
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// warning says in one line why a version falls short.
func warning(v Verification, opt VerifyOptions) string {
	var short []string
	check := func(name string, got, want float64) {
		if !meets(got, want) {
			short = append(short, fmt.Sprintf("%s %.0f%% (target %.0f%%)", name, got*100, want*100))
		}
	}
	check("citation validity", v.Validity, opt.MinValidity)
	check("citation support", v.Support, opt.MinSupport)
	check("citation coverage", v.Coverage, opt.MinCoverage)
	check("grounding", v.Grounding, opt.MinGrounding)
	check("criteria coverage", v.CriteriaCoverage, opt.MinCriteria)
	if n := len(v.Contradictions); n > 0 {
		short = append(short, fmt.Sprintf("%d pair(s) of sentences give different values for the same thing", n))
	}
	if len(v.Sentences) == 0 {
		short = append(short, "the report is empty")
	}
	return "Verification fell short: " + strings.Join(short, "; ") + "."
}
