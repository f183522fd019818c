package extract

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// sourceBlock describes where a paragraph of extracted text came from in the
// original document.
type sourceBlock struct {
	linkShare float64 // share of the text inside links
}

// pageIndex knows the headlines and link-heavy blocks of the original page,
// so that the extracted paragraphs can be judged by their origin.
type pageIndex struct {
	titles []string               // token keys of the page title and <h1>s
	blocks map[string]sourceBlock // token key of a block's text → origin
}

// tokenKey is the lower-case word sequence of s, the form in which texts are
// compared regardless of spacing and punctuation.
func tokenKey(s string) string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsNumber(r))
	})
	return strings.Join(words, " ")
}

// indexPage records the text blocks of doc and its title candidates.
func indexPage(doc *html.Node, titles ...string) *pageIndex {
	idx := &pageIndex{blocks: map[string]sourceBlock{}}
	for _, t := range titles {
		if k := tokenKey(t); k != "" {
			idx.titles = append(idx.titles, k)
		}
	}
	body := findBody(doc)
	if body == nil {
		return idx
	}
	var blocks []densityBlock
	// Chrome included: any extracted paragraph must be found.
	collectBlocks(body, body, false, &blocks, false)
	for _, b := range blocks {
		k := tokenKey(b.text)
		if k == "" {
			continue
		}
		sb := sourceBlock{linkShare: b.linkShare()}
		if isH1(b.owner) {
			idx.titles = append(idx.titles, k)
		}
		if prev, ok := idx.blocks[k]; ok {
			// The same text in several places: trust the least link-like.
			sb.linkShare = min(sb.linkShare, prev.linkShare)
		}
		idx.blocks[k] = sb
	}
	return idx
}

// isH1 reports whether n is or sits in an <h1>.
func isH1(n *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n.DataAtom == atom.H1 {
			return true
		}
	}
	return false
}

// isTitle reports whether a paragraph repeats the page's headline.
func (idx *pageIndex) isTitle(para string) bool {
	k := tokenKey(para)
	if k == "" {
		return false
	}
	for _, t := range idx.titles {
		if k == t {
			return true
		}
		// "<headline> | <site>" titles: the paragraph is the headline part.
		if strings.HasPrefix(t, k+" ") && len(k) >= len(t)*6/10 {
			return true
		}
	}
	return false
}

// leadWindow is how many leading paragraphs are checked for a repeated
// headline, byline or dateline.
const leadWindow = 3

// datelineRe finds a time of day, a numeric date or a publication verb.
var datelineRe = regexp.MustCompile(`\b\d{1,2}:\d{2}\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|(?i:\b(published|updated|posted|publicado|atualizado|publié|veröffentlicht)\b)`)

// readingTimeRe matches "5 min read" and its translations.
var readingTimeRe = regexp.MustCompile(`(?i)^\W*(\d+\s*(min|mins|minutes?|minutos?)\.?\s+(read|de leitura|de lectura|de lecture|lesezeit|lettura)|(reading time|tempo de leitura|tiempo de lectura|temps de lecture|lesezeit|tempo di lettura)\s*:?\s*\d+\s*\p{L}*)\W*$`)

// isDateline reports whether a short line is a publication date or time,
// or a reading-time note, rather than a sentence.
func isDateline(p string) bool {
	return wordCount(p) <= 20 && !endsLikeSentence(p) && (datelineRe.MatchString(p) || readingTimeRe.MatchString(p))
}

// uiLabelRe matches the text of page controls that extractors keep as
// paragraphs.
var uiLabelRe = regexp.MustCompile(`(?i)^\W*(order reprints|reprints?|print( this)?( article| page| story)?|text size|font size|continue reading( below| the main story)?|advertisement|ad|sponsored( content)?|skip (ad|advertisement)|share( this)?( article| story)?|tweet|e-?mail( this)?( article)?|save( article| for later)?|listen( to (this )?article)?|\d+ comments?|comments?)\W*$`)

// bylineRe matches a byline line: "By Ada Marsh and Tom Reed".
var bylineRe = regexp.MustCompile(`^(?i:by|from|von|por|par)\s+\p{Lu}[\p{L}.'’-]*(\s+\p{Lu}[\p{L}.'’-]*){0,4}(\s*(,|and|&)\s*\p{Lu}[\p{L}.'’-]*(\s+\p{Lu}[\p{L}.'’-]*){0,3})*\.?$`)

// A paragraph of at most linkListWords words with at least linkListShare of
// its text in links is a teaser for another page, not part of the article.
const (
	linkListShare = 0.7
	linkListWords = 20
)

// teaserRe matches a paragraph that points elsewhere wherever it stands:
// "Read more: …", "Related: …", "Don't miss …".
var teaserRe = regexp.MustCompile(`^\W{0,3}(?i:(read|see|watch|listen)( more| also| next)?\s*[:|»-]|related( stories| articles| coverage| content| reading)?\s*[:|»-]|more:|also read|don'?t miss|recommended( for you)?\s*[:|»-])`)

// tailRe matches the furniture that follows an article body: credits,
// contact lines, newsletter and social prompts, copyright and tags.
var tailRe = regexp.MustCompile(`(?i)(` +
	`^\(?(additional )?(reporting|writing|editing|compiled|contributing)( by)?[: ]|` +
	`contributed (to )?(this )?report|\bcontributed reporting|` +
	`^(associated press|ap) writers?\b|` +
	`^(e-?mail|contact|reach|follow) (us|him|her|them|the (reporter|author|writer)s?|[\p{Lu}][\p{L}.]+( [\p{Lu}][\p{L}.]+)?)\b.{0,80}\b(at|on|via)\b|` +
	`\bfollow (us|@\w+|[\p{L}'’ ]{2,40}) on (twitter|facebook|instagram|linkedin|youtube)|` +
	`^more ap\b|^follow ap'?s|` +
	`have a (news )?tip\?|thanks for (signing up|subscribing)|(processing|confirm) your subscription|keep an eye on your inbox|` +
	`\b(sign up|subscribe|subscribing)\b.{0,80}\b(newsletter|inbox|email|updates)|` +
	`\bnewsletters?\b.{0,40}\b(sign up|subscribe|inbox|delivered)|` +
	`^(you (may|might) also like|like this (story|article)|share (this|on)|more (great )?[\p{Lu}\w]+ stories|explore further|` +
	`filed under|tags?\s*[:|]|categor(y|ies)\s*[:|]|citation:|` +
	`if you (enjoyed|liked) this|join the conversation|comments? (are|is) closed|` +
	`this (article|story) (was|has been) (updated|corrected))|` +
	`copyright|©|ⓒ|all rights reserved|` +
	`^[\w.+-]+@[\w-]+(\.[\w-]+)+$|` +
	`^updated (at|on)? ?\d` +
	`)`)

// moreStoriesRe matches the headings of teaser lists placed after an article.
var moreStoriesRe = regexp.MustCompile(`(?i)^\W*(more (great |top )?([\p{L}\d]+ ){0,3}(stories|news|articles|reads)|related( stories| articles| content| coverage| posts| reading)?|you (may|might) also (like|enjoy)|recommended( for you| stories| reading)?|most (read|popular|viewed)( [\p{L}\d ]{0,30})?|trending( now)?|top stories|latest (news|stories)|popular (now|stories))\W*$`)

// maxHeadingWords bounds the lines taken for a section heading or a
// control label.
const maxHeadingWords = 8

// maxFurnitureWords bounds the paragraphs dropped for looking like page
// furniture wherever they stand.
const maxFurnitureWords = 25

// maxTailWords bounds the paragraphs that tail trimming may remove; a long
// paragraph is content even when it mentions a newsletter.
const maxTailWords = 60

// cleanParagraphs removes what the extractors let through around the article
// body: the teaser list after a "more stories" heading, a repeated headline,
// byline or dateline at the top, link teasers, control labels and short
// furniture (credits, newsletter prompts, copyright) anywhere, and any run
// of such furniture at the end. It returns a new slice.
func cleanParagraphs(paras []string, idx *pageIndex) []string {
	// A "more stories" heading in the second half starts the teasers that
	// follow an article: cut there.
	// A paragraph that carries a list (see withList) is judged by its
	// lead-in, and its items each as a paragraph of their own.
	for i := len(paras) / 2; i < len(paras); i++ {
		if lead, _ := splitList(paras[i]); i > 0 && wordCount(lead) <= maxHeadingWords && moreStoriesRe.MatchString(lead) {
			paras = paras[:i]
			break
		}
	}
	kept := make([]string, 0, len(paras))
	for i, p := range paras {
		p, lines := splitList(p)
		if lines != nil {
			var items []string
			for _, line := range lines {
				if b, ok := idx.blocks[tokenKey(itemOf(line))]; !ok || b.linkShare < linkListShare {
					items = append(items, line)
				}
			}
			lines = items
			if len(items) == 0 {
				lines = nil // a list of links: the lead-in is judged alone
			}
		}
		// The top of an extraction repeats the headline, byline and
		// dateline that the article body does not contain.
		if i < leadWindow && len(paras) > 1 && (idx.isTitle(p) || bylineRe.MatchString(p) || isDateline(p)) {
			continue
		}
		if b, ok := idx.blocks[tokenKey(p)]; ok && b.linkShare >= linkListShare && wordCount(p) <= linkListWords {
			continue
		}
		if n := wordCount(p); (n <= linkListWords && teaserRe.MatchString(p)) || (n <= maxFurnitureWords && tailRe.MatchString(p)) || (n <= maxHeadingWords && uiLabelRe.MatchString(p)) {
			continue
		}
		if lines != nil {
			p = withList(p, lines)
		}
		kept = append(kept, p)
	}
	paras = kept
	// Trailing furniture, from the end up to the last real paragraph.
	for len(paras) > 1 {
		last := paras[len(paras)-1]
		if wordCount(last) > maxTailWords || !tailRe.MatchString(last) {
			break
		}
		paras = paras[:len(paras)-1]
	}
	return paras
}
