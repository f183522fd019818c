package extractive

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// quality rates how fit s is to be quoted as a finding: 0 for fragments,
// questions, headings, code, boilerplate and run-ons; less for sentences
// that lean on context; more for concrete facts.
func quality(s string) float64 {
	words := strings.Fields(s)
	n := 0
	for _, w := range words {
		// "…", "," and "." standing alone (a sentence put back together
		// around its code spans) are no words.
		if isWord(w) {
			n++
		}
	}
	switch {
	case n >= minRepeatWords && repeatsItself(words, n):
		// "Fields inherited from Fields inherited from , , ,": a page's
		// template repeated with its names lost, not a sentence.
		return 0
	case n < minQuoteWords && n >= 2 && statesValue(s):
		// "The default is 4.0.": short, but the answer to a value question.
		return 0.9
	case n < minQuoteWords || n > maxQuoteWords || len(s) > maxQuoteBytes:
		return 0
	case strings.HasSuffix(s, "?"):
		return 0
	case isBoilerplate(s, n):
		return 0
	case codeLike(s), research.LooksLikeCitation(s):
		return 0
	}
	q := 1.0
	last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s, "\"'”’)"))
	first, _ := utf8.DecodeRuneInString(s)
	if isTableRow(s) {
		// "identifier length | 63 bytes | can be increased by recompiling":
		// a row of a reference table states a fact without a sentence's
		// capital and full stop.
		q = 0.9
		if strings.ContainsAny(s, "0123456789") {
			q *= 1.1
		}
		if n < 8 && !strings.ContainsAny(s, "0123456789") {
			q *= 0.8 // a header row
		}
		return q
	}
	switch {
	case last == ':':
		return 0 // a lead-in to something not quoted (a command is attached by addDoc)
	case strings.ContainsRune(",.;:)-–—", first):
		return 0 // the tail of a sentence cut by the page's markup
	case !strings.ContainsRune(".!。", last):
		if n < 8 || dangling(s) {
			return 0 // a label, a menu entry or a cut sentence
		}
		q *= 0.75
	}
	if unicode.IsLower(first) {
		q *= 0.6
	}
	lead := strings.ToLower(strings.Trim(words[0], ",.;:\"'"))
	switch lead {
	case "but", "and", "also", "so", "or", "then", "therefore", "thus", "however", "still", "yet":
		q *= 0.85
	case "it", "this", "they", "these", "that", "he", "she", "those", "its", "their", "here":
		q *= 0.9
	}
	hasNum := strings.ContainsAny(s, "0123456789")
	switch {
	case n < 8 && !hasNum:
		q *= 0.8 // "Add as a build dependency.": a flag's label, rarely an answer
	case n < 8 || n > 45:
		q *= 0.9
	}
	if hasNum {
		q *= 1.1
	}
	if strings.Contains(s, "http://") || strings.Contains(s, "https://") {
		q *= 0.9
	}
	return q
}

// minRepeatWords is the fewest words from which a sentence that uses
// fewer than half as many different words repeats itself.
const minRepeatWords = 6

// isWord reports whether w holds a letter or a digit.
func isWord(w string) bool { return strings.IndexFunc(w, isAlnum) >= 0 }

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// repeatsItself reports whether words, n of which are words, use fewer
// than n/2 different ones.
func repeatsItself(words []string, n int) bool {
	distinct := map[string]bool{}
	for _, w := range words {
		if isWord(w) {
			distinct[strings.ToLower(w)] = true
		}
	}
	return 2*len(distinct) < n
}

// shortValueRe matches a short statement of a setting's value: "The
// default is 4.0.", "Default: 64MB", "Defaults to off.", "Maximum value
// is 4095.".
var shortValueRe = regexp.MustCompile(`(?i)^(?:the\s+)?(?:default|maximum|minimum)(?:\s+(?:value|setting|size|length|level))?\s*(?:is|:|=)\s*(\S+)|^defaults\s+to\s+(\S+)`)

// maxValueWords is the most words a value statement whose value holds no
// figure may have: "The default is off." states a value, "The default is
// well within the RFC-specified minimum amount of time (30 minutes)
// before …" says something about it.
const maxValueWords = 12

// statesValue reports whether s states a value outright: a short value
// statement that ends like a sentence or is a "Default:" line.
func statesValue(s string) bool {
	m := shortValueRe.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	if v := m[1] + m[2]; !strings.ContainsAny(v, "0123456789\"“'`") && len(strings.Fields(s)) > maxValueWords {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	// "The default is 20.0" closing a paragraph without a full stop is
	// whole: it ends on its figure.
	return strings.ContainsRune(".!", last) || strings.Contains(s, ":") || endsOnFigure(s)
}

// endsOnFigure reports whether s ends on a figure, or on a figure and a
// unit that is no word of a sentence going on ("300 s", not "20 when").
func endsOnFigure(s string) bool {
	m := endsOnFigureRe.FindStringSubmatch(s)
	return m != nil && (len(m[1]) <= 1 || !text.IsStopword(strings.ToLower(m[1])))
}

// endsOnFigureRe matches a statement that ends on a figure, with at most
// a short unit after it: "… is 20.0", "… is 300 s".
var endsOnFigureRe = regexp.MustCompile(`\s[-+]?\d[\d.,]*(?:\s?([\pL%]{1,4}))?$`)

// isTableRow reports whether s is a table row as the extractor writes it:
// two or more cells separated by " | ", none of them a whole sentence.
func isTableRow(s string) bool {
	cells := strings.Split(s, " | ")
	if len(cells) < 2 {
		return false
	}
	for _, c := range cells[:len(cells)-1] {
		// In a row of three cells or more a cell may end its phrase with
		// a full stop ("Emergencies - system is unusable."); two
		// sentences joined by one bar are no row, and a paragraph is no
		// cell.
		c = strings.TrimSpace(c)
		if c == "" || len(strings.Fields(c)) > maxCellWords || len(cells) < 3 && strings.HasSuffix(c, ".") {
			return false
		}
	}
	return true
}

// maxCellWords bounds a table cell before the last: a phrase, not prose
// that happens to hold " | ".
const maxCellWords = 12

// rowSentence writes a table row as the sentence it states: the first
// cell names the subject, the others give its values ("identifier length
// | 63 bytes | can be increased by recompiling" → "Identifier length: 63
// bytes; can be increased by recompiling."), so that a quoted row reads as
// prose rather than a fragment of pipes.
func rowSentence(s string) string {
	var cells []string
	// An empty last cell leaves its bar at the row's end ("interval |
	// the time between calls |").
	for _, c := range strings.Split(strings.TrimSuffix(strings.TrimSpace(s), " |"), " | ") {
		if c = strings.TrimSpace(c); c != "" && c != "-" && c != "—" {
			cells = append(cells, c)
		}
	}
	if len(cells) < 2 {
		return s
	}
	for k := range cells[:len(cells)-1] {
		cells[k] = strings.TrimSuffix(cells[k], ".")
	}
	head := strings.TrimRight(cells[0], ":")
	if r, size := utf8.DecodeRuneInString(head); unicode.IsLower(r) && !strings.ContainsAny(head, "_.()") {
		head = string(unicode.ToUpper(r)) + head[size:]
	}
	out := head + ": " + strings.Join(cells[1:], "; ")
	if last, _ := utf8.DecodeLastRuneInString(out); !strings.ContainsRune(".!?", last) {
		out += "."
	}
	return out
}

// boilerStrong marks page furniture wherever it appears; boilerWeak only
// in short sentences ("Read more", but not "read more of the spec to …").
var (
	boilerStrong = []string{"cookie", "all rights reserved", "©", "skip to content", "skip to main content",
		"was this page helpful", "was this article helpful", "was this answer helpful", "edit this page",
		"edit on github", "subscribe to our newsletter", "subscribe to the newsletter", "sign up for",
		"enable javascript", "javascript is disabled", "javascript is required", "privacy policy",
		"terms of use", "terms of service", "accept all", "your browser", "table of contents", "jump to navigation"}
	boilerWeak = []string{"read more", "click here", "share this", "share on", "follow us", "last updated",
		"last modified", "last reviewed", "print this", "log in", "login", "sign in", "signin", "advertisement",
		"sponsored", "newsletter", "download the app", "back to top", "next", "previous", "home page",
		"see also", "related article"}
)

// isBoilerplate reports whether s (of n words) is page furniture.
func isBoilerplate(s string, n int) bool {
	l := strings.ToLower(s)
	for _, b := range boilerStrong {
		if strings.Contains(l, b) {
			return true
		}
	}
	if n >= 12 {
		return false
	}
	for _, b := range boilerWeak {
		if i := strings.Index(l, b); i >= 0 && wordBoundary(l, i, i+len(b)) {
			return true
		}
	}
	return false
}

func wordBoundary(s string, i, j int) bool {
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[j:])
	return (i == 0 || !isAlnum(before)) && (j == len(s) || !isAlnum(after))
}

// danglingWords end a sentence that the page's markup cut short.
var danglingWords = set("the a an to of and or with for in on by use using like as is are from that this")

// dangling reports whether s ends in a word that cannot end a sentence.
func dangling(s string) bool {
	f := strings.Fields(s)
	return len(f) > 0 && danglingWords[strings.ToLower(f[len(f)-1])]
}

// codeStarts open a line of code or a shell transcript.
var codeStarts = []string{"$ ", "# ", ">>> ", "% ", "import ", "func ", "def ", "class ", "var ", "const ",
	"let ", "package ", "#include", "//", "/*", "{", "}", "@", "<?", "</", "<!"}

// parentheticalRe matches words in parentheses: "(seconds)", "(see
// below)".
var parentheticalRe = regexp.MustCompile(`\(([\pL][\pL ,.'-]*)\)`)

// namedCallRe matches a function named in prose by an empty call.
var namedCallRe = regexp.MustCompile(`([\pL\pN_.:]+)\(\)`)

// codeLike reports whether s looks like a line of code or a shell command
// rather than prose.
func codeLike(s string) bool {
	for _, p := range codeStarts {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	if len(s) > 1 && s[0] == '<' && isASCIILetter(s[1]) {
		return true // markup
	}
	// "foo.bar(x)" or "x = 1" as a whole line.
	ident := 0
	for ident < len(s) && (isASCIILetter(s[ident]) || s[ident] == '_' || s[ident] == '.' || ident > 0 && s[ident] >= '0' && s[ident] <= '9') {
		ident++
	}
	if ident > 0 && ident < len(s) {
		rest := s[ident:]
		if rest[0] == '(' && (strings.HasSuffix(s, ")") || strings.HasSuffix(s, ");")) ||
			strings.HasPrefix(rest, " = ") || strings.HasPrefix(rest, " := ") || strings.HasPrefix(rest, "=") {
			return true
		}
	}
	sym, runes, flags := 0, 0, 0
	prev := ' '
	// In a sentence, parentheses around words are prose ("s (seconds), m
	// (minutes)."), not a call's or an expression's.
	counted := s
	if strings.HasSuffix(s, ".") {
		// A sentence's web address and a power written "2^{19937}"
		// are prose's too.
		counted = parentheticalRe.ReplaceAllString(urlRe.ReplaceAllString(powerRe.ReplaceAllString(s, "$1"), ""), "$1")
		// So is a set written in braces: "its keys are {1..k}".
		counted = setNotationRe.ReplaceAllString(counted, "set")
		// And a function named by its call ("Use t_strfreev() to free
		// it.").
		counted = namedCallRe.ReplaceAllString(counted, "$1")
	}
	for _, r := range counted {
		runes++
		if strings.ContainsRune("{}[]();=<>$|\\/_*#@%^~`", r) {
			sym++
		}
		if r == '-' && prev == ' ' {
			flags++ // " -p", " --offline"
		}
		prev = r
	}
	if runes > 0 && float64(sym)/float64(runes) > 0.1 {
		return true
	}
	if flags >= 2 && strings.Count(s, "[") >= 1 {
		return true // a synopsis: "cargo add [options] --path path"
	}
	if strings.Contains(s, " $ ") || strings.Count(s, "; ") >= 3 && !listsClauses(s) || strings.Count(s, ": ") >= 3 && !strings.ContainsAny(s[len(s)-1:], ".!?") {
		return true // terminal output or YAML flattened onto one line
	}
	return strings.Contains(s, "();") || strings.Contains(counted, "{") && strings.Contains(counted, "}")
}

// listsClauses reports whether s is a sentence whose semicolons part
// clauses of prose, four words or more each on average ("Returns the
// state as a string: "ticking", if the timer ticks; "done" if it has
// stopped."), not statements of code or output on one line.
func listsClauses(s string) bool {
	if !strings.ContainsAny(s[len(s)-1:], ".!?") {
		return false
	}
	parts := strings.Split(s, "; ")
	return len(strings.Fields(s)) >= 4*len(parts)
}

// setNotationRe matches a set written in braces in prose: "{1..k}",
// "{a, b, c}".
var setNotationRe = regexp.MustCompile(`\{\w+(?:\s*(?:,|\.\.|…)\s*\w+)+\}`)

// powerRe matches a power written as TeX does in prose: "2^{19937}".
var powerRe = regexp.MustCompile(`\^\{(\d+)\}`)

func isASCIILetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
