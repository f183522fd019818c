package browser

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
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

// abbreviations that end in a full stop without ending a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true,
	"jr": true, "st": true, "vs": true, "etc": true, "inc": true, "ltd": true,
	"co": true, "corp": true, "gen": true, "gov": true, "sen": true, "rep": true,
	"no": true, "fig": true, "jan": true, "feb": true, "mar": true, "apr": true,
	"jun": true, "jul": true, "aug": true, "sep": true, "sept": true, "oct": true,
	"nov": true, "dec": true, "mt": true, "ft": true, "approx": true, "e.g": true,
	"i.e": true, "u.s": true, "u.k": true, "a.m": true, "p.m": true,
}

// stopwords carry no content of their own when scoring sentences.
var stopwords = toSet(`a about above after again against all also am an and any are as at be
because been before being below between both but by can could did do does doing down during
each few for from further had has have having he her here hers herself him himself his how i
if in into is it its itself just me more most my myself no nor not now of off on once only or
other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we
were what when where which while who whom why will with would you your yours yourself said says
one two new like get got make made many much may might must well even still back way`)

var yearRe = regexp.MustCompile(`\b(1[89]\d\d|20\d\d)\b`)

// KeyFindings returns up to max of the most informative sentences of text
// in document order. Sentences that look like page furniture (cookie
// banners, sign-in and subscription prompts, navigation, sharing, copyright
// lines) or are too short or too long are skipped; the rest are ranked by
// numbers, dates, names and the share of content words.
func KeyFindings(text string, max int) []string {
	if max <= 0 || text == "" {
		return nil
	}
	text = truncateUTF8(text, maxFindingsInput)
	type candidate struct {
		idx   int
		text  string
		score float64
	}
	var cands []candidate
	seen := map[string]bool{}
	for _, para := range strings.Split(text, "\n\n") {
		for _, s := range splitSentences(para) {
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
		if !stopwords[strings.ToLower(w)] {
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

// splitSentences splits a paragraph at sentence-final punctuation followed by
// white space, unless the word before the stop is a known abbreviation or a
// single initial, or the next word starts in lower case. The ideographic
// full stop and the full-width marks end a sentence without a space.
func splitSentences(para string) []string {
	para = strings.Join(strings.Fields(para), " ")
	var out []string
	start := 0
	for i, r := range para {
		if i < start {
			continue
		}
		switch r {
		case '。', '！', '？':
			end := i + utf8.RuneLen(r)
			end += closerLen(para[end:])
			out = appendSentence(out, para[start:end])
			start = end
			continue
		case '.', '!', '?':
		default:
			continue
		}
		end := i + 1
		end += closerLen(para[end:])
		if end >= len(para) || para[end] != ' ' {
			continue
		}
		if r == '.' && isAbbreviation(para[start:i]) {
			continue
		}
		if next, _ := utf8.DecodeRuneInString(para[end+1:]); unicode.IsLower(next) {
			continue
		}
		out = appendSentence(out, para[start:end])
		start = end + 1
	}
	if start < len(para) {
		out = appendSentence(out, para[start:])
	}
	return out
}

// closerLen is the length of the closing quotes and brackets at the start
// of s, which belong to the sentence before them.
func closerLen(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !strings.ContainsRune(`"')]”’」』）»`, r) {
			break
		}
		n += size
	}
	return n
}

func appendSentence(out []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" {
		out = append(out, s)
	}
	return out
}

// isAbbreviation reports whether the text before a full stop ends with an
// abbreviation or an initial.
func isAbbreviation(before string) bool {
	i := strings.LastIndexAny(before, " (\"“")
	word := strings.ToLower(before[i+1:])
	if word == "" {
		return false
	}
	if utf8.RuneCountInString(word) == 1 {
		r, _ := utf8.DecodeRuneInString(word)
		return unicode.IsLetter(r)
	}
	return abbreviations[word]
}

// Excerpt returns the start of text cut at a word boundary to at most
// maxChars runes, with an ellipsis when something was cut.
func Excerpt(text string, maxChars int) string {
	text = strings.TrimSpace(text)
	if maxChars <= 0 {
		return ""
	}
	if utf8.RuneCountInString(text) <= maxChars {
		return text
	}
	cut, n := 0, 0
	for i := range text {
		if n == maxChars-1 {
			cut = i
			break
		}
		n++
	}
	s := text[:cut]
	if sp := strings.LastIndexAny(s, " \n"); sp > len(s)/2 {
		s = s[:sp]
	}
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) + "…"
}

func toSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
