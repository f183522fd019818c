package fetch

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Why a page was rendered in the browser, as Result.Reason reports it.
const (
	ReasonHost      = "host needs a browser"   // the host's remembered decision
	ReasonNoText    = "no main text"           // the extractor found (almost) nothing
	ReasonShort     = "main text short"        // little text beside a page that says more
	ReasonShell     = "application shell"      // an empty body that scripts fill
	ReasonNoscript  = "noscript holds content" // the content is in <noscript>
	ReasonJSNotice  = "asks for JavaScript"    // a notice to enable JavaScript
	ReasonScripted  = "content in scripts"     // the page's data travels in scripts
	ReasonStatus    = "status"                 // refused plain clients (403, 429, 5xx)
	ReasonHTTPError = "http failed"            // the HTTP fetch failed in a way a browser may not
)

// shape is what a single pass over the served HTML tells about how the
// page is built.
type shape struct {
	execScripts int // <script> elements a browser would run
	scriptBytes int // bytes of inline executable script
	dataBytes   int // bytes of inline data scripts (JSON state, not JSON-LD metadata)
	bodyText    int // characters of visible body text, outside scripts and <noscript>
	noscript    int // characters of text inside <noscript> in the body
	jsNotice    bool
	hidden      int // characters of prose in data scripts that the served page does not show
}

// Thresholds of the test. A page with less main text than minMainText is
// suspect when the HTML also carries scripts; the ratios say how much more
// the rest of the page must hold before the main text counts as short.
const (
	minMainText = 200 // characters: below it the page has no main text
	shortText   = 250 // characters: below it a main text is short when the page says 8 times more
	minHidden   = 300 // characters of prose in scripts, not shown, that make a page scripted
	maxScan     = 2 << 20
)

// measure tokenises page once; it is cheaper than a tree.
func measure(page []byte) shape {
	var s shape
	z := html.NewTokenizer(bytes.NewReader(page))
	var inBody, inScript, inStyle, dataScript bool
	noscriptDepth := 0
	var skip int // depth inside elements whose text is not shown
	var visible, scripts []byte
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			s.hidden = hiddenProse(scripts, visible)
			return s
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			switch a {
			case atom.Body:
				inBody = true
			case atom.Script:
				typ := ""
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					if string(k) == "type" {
						typ = strings.ToLower(strings.TrimSpace(string(v)))
					}
				}
				switch {
				case typ == "" || typ == "module" || strings.Contains(typ, "javascript") || strings.Contains(typ, "ecmascript"):
					s.execScripts++
					inScript = tt == html.StartTagToken
					dataScript = false
				case strings.Contains(typ, "json") && !strings.Contains(typ, "ld+json"):
					inScript = tt == html.StartTagToken
					dataScript = true
				default:
					inScript = tt == html.StartTagToken
					dataScript = false
				}
			case atom.Style, atom.Template, atom.Svg:
				if tt == html.StartTagToken {
					inStyle = true
					skip++
				}
			case atom.Noscript:
				if tt == html.StartTagToken {
					noscriptDepth++
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Script:
				inScript = false
			case atom.Style, atom.Template, atom.Svg:
				if skip > 0 {
					skip--
				}
				inStyle = skip > 0
			case atom.Noscript:
				if noscriptDepth > 0 {
					noscriptDepth--
				}
			}
		case html.TextToken:
			t := z.Text()
			switch {
			case inScript && dataScript:
				s.dataBytes += len(t)
				if len(scripts) < maxScan {
					scripts = append(append(scripts, t...), '\n')
				}
			case inScript:
				// Code holds prose of every kind (messages, other pages'
				// teasers); only data scripts are read for hidden text.
				s.scriptBytes += len(t)
			case inStyle:
			case noscriptDepth > 0:
				if inBody {
					// The tokenizer reads <noscript> content as raw text
					// (scripting on); strip the tags it may hold.
					s.noscript += visibleLen(stripTags(t))
					if mentionsJavaScript(t) {
						s.jsNotice = true
					}
				}
			case inBody:
				s.bodyText += visibleLen(t)
				if len(visible) < maxScan {
					visible = append(append(visible, html.UnescapeString(string(t))...), ' ')
				}
				if !s.jsNotice && mentionsJavaScript(t) && visibleLen(t) < 400 {
					s.jsNotice = true
				}
			}
		}
	}
}

// needsBrowser returns why a page whose served HTML is raw and whose main
// text the extractor found to be mainText needs rendering, or "" when the
// served HTML is the page. The rules are structural: a page without
// scripts never needs a browser, since nothing would change it.
func needsBrowser(raw []byte, mainText string) string {
	s := measure(raw)
	main := utf8.RuneCountInString(mainText)
	if s.execScripts == 0 {
		return ""
	}
	switch {
	case s.noscript >= minMainText && s.noscript > main/2:
		return ReasonNoscript
	case s.jsNotice && main < shortText*2:
		return ReasonJSNotice
	case main < minMainText && s.bodyText < minMainText:
		return ReasonShell
	case main < minMainText:
		return ReasonNoText
	case main < shortText && s.bodyText > 8*main:
		return ReasonShort
	case s.hidden >= minHidden && s.hidden > 2*main:
		return ReasonScripted
	}
	return ""
}

// jsString matches a string literal of JSON or JavaScript long enough to
// be prose.
var jsString = regexp.MustCompile(`"((?:[^"\\\n]|\\.){60,})"`)

// hiddenProse counts the characters of the prose strings in scripts (state
// a script will render: paragraphs, not code or identifiers) that the
// served page does not show.
func hiddenProse(scripts, visible []byte) int {
	if len(scripts) == 0 {
		return 0
	}
	shown := normalise(string(visible))
	n := 0
	for _, m := range jsString.FindAllSubmatch(scripts, -1) {
		str, err := strconv.Unquote(`"` + strings.ReplaceAll(string(m[1]), `\/`, "/") + `"`)
		if err != nil {
			continue
		}
		str = normalise(html.UnescapeString(string(stripTags([]byte(str)))))
		if !isProse(str) {
			continue
		}
		// A long string (a whole article body) may begin with the teaser
		// the page shows: each stretch of it is looked for on its own.
		for len(str) > 0 {
			end := min(len(str), 240)
			for end < len(str) && !utf8.RuneStart(str[end]) {
				end++
			}
			chunk := str[:end]
			str = str[end:]
			probe := strings.TrimSpace(chunk[:min(len(chunk), 48)])
			for len(probe) > 0 && !utf8.ValidString(probe) {
				probe = probe[:len(probe)-1]
			}
			if len(chunk) >= 48 && !strings.Contains(shown, probe) {
				n += utf8.RuneCountInString(chunk)
			}
		}
	}
	return n
}

// isProse: words separated by spaces, mostly letters.
func isProse(s string) bool {
	if len(s) < 60 || strings.Count(s, " ") < 8 {
		return false
	}
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) || r == ' ' {
			letters++
		}
	}
	return letters*10 >= utf8.RuneCountInString(s)*8
}

func normalise(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

func mentionsJavaScript(t []byte) bool {
	return bytes.Contains(bytes.ToLower(t), []byte("javascript"))
}

// visibleLen counts the characters of t that are not white space.
func visibleLen(t []byte) int {
	n := 0
	for _, r := range string(t) {
		if r != ' ' && r != '\n' && r != '\t' && r != '\r' && r != '\u00a0' {
			n++
		}
	}
	return n
}

func stripTags(t []byte) []byte {
	var out []byte
	in := false
	for _, c := range t {
		switch {
		case c == '<':
			in = true
		case c == '>':
			in = false
		case !in:
			out = append(out, c)
		}
	}
	return out
}
