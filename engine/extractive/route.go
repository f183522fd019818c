package extractive

import (
	"regexp"
	"strings"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

var (
	urlRe = regexp.MustCompile(`(?i)\bhttps?://[^\s<>"'` + "`" + `]+|\bwww\.[a-z0-9-]+(?:\.[a-z0-9-]+)+[^\s<>"'` + "`" + `]*`)
	// readSiteRe matches "read/summarize <site>" where the site is a bare
	// domain such as go.dev/doc/effective_go.
	readSiteRe = regexp.MustCompile(`(?i)^(?:please\s+|can you\s+|could you\s+)?(?:read|summari[sz]e|open|visit|fetch|browse|go to|look at|check out|tl;?dr)\b(?:\s+(?:the|this|that|me|page|site|website|article|docs|post))*\s+(?:at\s+|on\s+)?([a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.([a-z]{2,12})(?:/[^\s]*)?)`)
	greetingRe = regexp.MustCompile(`(?i)^(?:hi+|hello+|hey+|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening|night)|thanks?(?: you)?(?: (?:so|very) much)?|thx|ty|cheers|bye|goodbye|see you|ok(?:ay)?|cool|nice|great|awesome|perfect|lol|haha|hmm+|test(?:ing)?)\b[\s,!.:;)-]*`)
	aboutYouRe = regexp.MustCompile(`(?i)^(?:who|what) are you\b|^what can you do\b|^how are you\b|^what(?:'s| is) your name\b|^are you (?:a |an )?(?:bot|human|ai|robot|real|there)\b|^help\s*[?!.]*$|^(?:tell me a joke|how's it going|what's up|sup)\b`)
	creativeRe = regexp.MustCompile(`(?i)^(?:please\s+)?(?:write|compose|draft|rewrite|rephrase|translate|generate|paraphrase|proofread)\s+(?:me\s+)?(?:a|an|the|this|that|my)\b`)
)

// knownTLDs limits bare-domain detection so that "Node.js" or "main.go" are
// not taken for sites.
var knownTLDs = map[string]bool{
	"com": true, "org": true, "net": true, "io": true, "dev": true, "ai": true, "app": true,
	"co": true, "edu": true, "gov": true, "uk": true, "de": true, "fr": true, "jp": true,
	"cn": true, "ru": true, "info": true, "me": true, "tv": true, "us": true, "ca": true,
	"au": true, "in": true, "nl": true, "eu": true, "ch": true, "se": true, "no": true,
	"es": true, "it": true, "pl": true, "br": true, "sh": true, "xyz": true, "site": true,
	"tech": true, "blog": true, "wiki": true, "cloud": true, "page": true, "rs": true,
	"so": true, "gg": true, "fm": true, "ly": true, "be": true, "at": true, "dk": true,
	"fi": true, "nz": true, "ie": true, "kr": true, "tw": true, "mx": true, "ar": true,
}

// smallTalk are words that make up messages with nothing to research.
var smallTalk = map[string]bool{
	"ok": true, "okay": true, "yes": true, "yeah": true, "yep": true, "no": true, "nope": true,
	"thanks": true, "thank": true, "cool": true, "nice": true, "great": true, "hi": true,
	"hello": true, "hey": true, "bye": true, "lol": true, "test": true, "hmm": true,
	"sure": true, "fine": true, "good": true, "awesome": true, "wow": true, "oh": true,
	"ah": true, "please": true, "sorry": true, "what": true, "why": true, "huh": true,
}

// Route decides, without a model, what a message asks for: browse (it names
// pages: URLs, or "read/summarize <site>"), chat (greetings, thanks, small
// talk, questions about the assistant, very short non-questions, writing
// tasks) or research (everything else). For browse it returns the URLs.
func Route(message string) (route string, urls []string) {
	route, urls = Decide(message)
	if route == Undecided {
		route = research.RouteResearch
	}
	return route, urls
}

// Undecided is Decide's answer for a message its rules do not recognise.
const Undecided = ""

// Decide is the zero-latency router every engine runs first: it returns
// browse (with the URLs) or chat when a rule recognises the message, and
// Undecided otherwise, leaving the rest to the engine (the extractive
// engine researches it; a model engine decides).
func Decide(message string) (route string, urls []string) {
	msg := strings.TrimSpace(message)
	if msg == "" {
		return research.RouteChat, nil
	}
	if found := urlRe.FindAllString(msg, 10); len(found) > 0 {
		for _, u := range found {
			u = strings.TrimRight(u, ".,;:!?)]}'\"")
			if strings.HasPrefix(strings.ToLower(u), "www.") {
				u = "https://" + u
			}
			urls = appendUnique(urls, u)
		}
		return research.RouteBrowse, urls
	}
	if m := readSiteRe.FindStringSubmatch(msg); m != nil && knownTLDs[strings.ToLower(m[2])] {
		return research.RouteBrowse, []string{"https://" + strings.TrimRight(m[1], ".,;:!?)]}'\"")}
	}
	if aboutYouRe.MatchString(msg) || creativeRe.MatchString(msg) {
		return research.RouteChat, nil
	}
	if loc := greetingRe.FindStringIndex(msg); loc != nil {
		rest := strings.TrimSpace(msg[loc[1]:])
		if len(text.Tokens(rest)) < 2 && !strings.HasSuffix(rest, "?") || aboutYouRe.MatchString(rest) {
			return research.RouteChat, nil
		}
		return Decide(rest)
	}
	if isSmallTalk(msg) {
		return research.RouteChat, nil
	}
	return Undecided, nil
}

// refersBackRe matches a request to rework what was already said: a
// verb that transforms text, then a word pointing back at it ("simplify
// that", "summarize the above", "explain it like I'm five"), or a bare
// "tl;dr".
var refersBackRe = regexp.MustCompile(`(?i)^(?:(?:please|can you|could you|now)\s+)*(?:simplify|summari[sz]e|shorten|condense|rephrase|reword|rewrite|explain|clarify|expand|elaborate|translate|restate|make)\b.*\b(?:that|this|it|above|previous|earlier|last|report|answer|summary)\b|^(?:tl;?dr|eli5|in short|shorter|simpler)\W*$`)

// maxRefersBackWords bounds a message that only asks to rework the
// earlier answer: a longer one asks something new.
const maxRefersBackWords = 12

// RefersBack reports whether a follow-up asks to rework the earlier
// reports rather than to research something new: it is then answered
// from them, as chat.
func RefersBack(message string) bool {
	msg := strings.TrimSpace(message)
	return len(strings.Fields(msg)) <= maxRefersBackWords && refersBackRe.MatchString(msg)
}

// isSmallTalk reports whether msg is a very short non-question made of
// filler words only ("ok", "yes please", "nice one").
func isSmallTalk(msg string) bool {
	if strings.HasSuffix(msg, "?") && len(text.Tokens(msg)) > 0 {
		return false
	}
	words := text.Words(msg)
	if len(words) == 0 {
		return true // only punctuation or emoji
	}
	if len(words) > 3 {
		return false
	}
	for _, w := range words {
		if !smallTalk[w.Lower] && !w.Stop {
			return false
		}
	}
	return true
}

func appendUnique(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}
