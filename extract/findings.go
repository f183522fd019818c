package extract

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/text"
)

// Sentence length bounds for a key finding.
const (
	minFindingRunes = 40
	maxFindingRunes = 400
	minFindingWords = 6
)

// maxFindingsInput bounds how much text KeyFindings reads.
const maxFindingsInput = 200 << 10

// boilerplateRe matches sentences that are page furniture, not content:
// cookie banners, sign-in and subscription prompts, navigation, sharing and
// copyright lines. Phrases rather than single words, so that an article
// about cookies or subscriptions keeps its sentences.
var boilerplateRe = regexp.MustCompile(`(?i)(` +
	`\b(use|uses|using|accept|accepting|allow|enable|disable) (of )?(all )?cookies|cookie (policy|settings|preferences|consent|notice|banner)|` +
	`privacy (policy|settings|notice)|terms (of|and) (use|service|conditions)|terms apply|` +
	`\b(sign|log)[ -]?(in|up)\b|create (an|your|a free) account|register (now|for free|to (read|continue|comment))|` +
	`\bsubscribe (to|now|today|for|here)\b|subscribers? only|subscription (required|needed)|unsubscribe|newsletters?\b|` +
	`all rights reserved|\bcopyright\b|©|` +
	`share (this|on|via)|follow us|click here|read more|continue reading|` +
	`related (articles|stories)|advertisement|sponsored content|` +
	`skip to (main )?content|main menu|breadcrumb|` +
	`enable javascript|javascript (is )?(disabled|required)|ad ?blocker|` +
	`download (the|our) app` +
	`)`)

var yearRe = regexp.MustCompile(`\b(1[89]\d\d|20\d\d)\b`)

// KeyFindings returns up to max of the most informative sentences of body
// in document order. Sentences that look like page furniture (cookie
// banners, sign-in and subscription prompts, navigation, sharing, copyright
// lines) or are too short or too long are skipped; the rest are ranked by
// numbers, dates, names and the share of content words.
func KeyFindings(body string, max int) []string {
	if max <= 0 || body == "" {
		return nil
	}
	body = text.ClipBytes(body, maxFindingsInput)
	type candidate struct {
		idx   int
		text  string
		score float64
	}
	var cands []candidate
	seen := map[string]bool{}
	for _, para := range strings.Split(body, "\n\n") {
		for _, s := range sentences(para) {
			n := utf8.RuneCountInString(s)
			words := strings.Fields(s)
			if n < minFindingRunes || n > maxFindingRunes || (len(words) < minFindingWords && !unspaced(s)) {
				continue
			}
			if boilerplateRe.MatchString(s) || !endsLikeSentence(s) {
				continue
			}
			key := strings.ToLower(s)
			if seen[key] {
				continue
			}
			seen[key] = true
			cands = append(cands, candidate{idx: len(cands), text: s, score: sentenceScore(s, words)})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	if len(cands) > max {
		cands = cands[:max]
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].idx < cands[j].idx })
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.text
	}
	return out
}

// sentenceScore rewards facts: numbers, years, capitalised names inside the
// sentence and a high share of content words; it mildly prefers sentences of
// moderate length.
func sentenceScore(s string, words []string) float64 {
	var content, names, numbers int
	for i, w := range words {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		if w == "" {
			continue
		}
		first, _ := utf8.DecodeRuneInString(w)
		switch {
		case strings.IndexFunc(w, unicode.IsDigit) >= 0:
			numbers++
		case i > 0 && unicode.IsUpper(first):
			names++
		}
		if !text.IsStopword(strings.ToLower(w)) {
			content++
		}
	}
	score := float64(content) / float64(len(words))
	score += 0.25 * float64(min(numbers, 3))
	score += 0.15 * float64(min(names, 4))
	if yearRe.MatchString(s) {
		score += 0.2
	}
	if len(words) > 45 {
		score -= 0.3
	}
	if strings.HasSuffix(s, "?") {
		score -= 0.3
	}
	return score
}

// endsLikeSentence rejects fragments such as headings and captions.
func endsLikeSentence(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s, `"'”’)]»」』）`))
	return strings.ContainsRune(".!?。！？", r)
}

// unspaced reports whether s is mostly written without spaces between words
// (Chinese, Japanese), where a word count says nothing about length.
func unspaced(s string) bool {
	var ideo, letters int
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
				ideo++
			}
		}
	}
	return letters > 0 && ideo*2 > letters
}

// sentences splits a paragraph, laid out on one line, into sentences with
// the shared splitter.
func sentences(para string) []string {
	spans := text.Sentences(text.OneLine(para))
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = sp.Text
	}
	return out
}

// Excerpt returns the start of body cut at a word boundary to at most
// maxChars runes, with an ellipsis when something was cut.
func Excerpt(body string, maxChars int) string {
	body = strings.TrimSpace(body)
	if maxChars <= 0 {
		return ""
	}
	if utf8.RuneCountInString(body) <= maxChars {
		return body
	}
	cut, n := 0, 0
	for i := range body {
		if n == maxChars-1 {
			cut = i
			break
		}
		n++
	}
	s := body[:cut]
	if sp := strings.LastIndexAny(s, " \n"); sp > len(s)/2 {
		s = s[:sp]
	}
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) + "…"
}
