package extractive

import (
	"maps"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quarryhq/quarry/research"
	"github.com/quarryhq/quarry/text"
)

// Bounds that keep the engine's work proportional to what it can use.
const (
	maxSourceBytes = 2_200_000 // of one source's text: above extract's bound, a manual's one-page reference
	maxSourceSents = 25_000    // quotable sentences kept per source
	maxPoolSents   = 60_000    // quotable sentences kept in all
	minQuoteWords  = 5
	maxQuoteWords  = 80
	maxQuoteBytes  = 600
	maxCodeBytes   = 160 // a command line appended to the sentence that introduces it
	maxCandidates  = 80  // sentences considered by diversity selection
)

// examplePhrases announce the code after a sentence.
var examplePhrases = []string{"listing ", "shows how", "for example", "as follows", "like this", "the following"}

// showsExample reports whether s announces the code after it.
func showsExample(s string) bool {
	l := strings.ToLower(s)
	for _, p := range examplePhrases {
		if strings.Contains(l, p) {
			return true
		}
	}
	return false
}

// sentence is one quotable sentence of a source or prior section.
type sentence struct {
	src   int      // index into pool.docs
	text  string   // as quoted: white space collapsed
	code  string   // a command quoted after the sentence, if any
	label string   // the option or setting the sentence describes ("--offline"), if any
	key   string   // folded text without code marks, for duplicate and repair checks
	toks  []string // content tokens
	set   text.Set
	head  text.Set // tokens of the heading above
	// outer are the tokens of the real heading above, not a label's: the
	// section an entry is one of ("8.102 silencedetect" over "noise, n").
	outer   text.Set
	title   text.Set // tokens of the page title
	quality float64  // in (0, 1.2]: how fit the sentence is to be quoted
	hasNum  bool
	pos     int  // index among the source's quotable sentences
	section int  // headings of the source above it
	para    bool // it opens a paragraph (or list item)
	// box marks a line of an entry's key/value box ("Default: 1m;"): a
	// statement about the entry its label names.
	box bool
	// entry marks a label that names an entry of a reference page (the
	// name above a key/value box), however it is written.
	entry bool
	// row marks a table row, quoted as the sentence it states.
	row bool
	// item marks a "Key: value" line of the list a sentence announces
	// (addItem): its label is the member's name, not an entry's.
	item bool
}

// doc is one citable document of the pool.
type doc struct {
	id    string
	toks  []string // title twice, then the sentences: for page-level relevance
	set   text.Set // the tokens of toks
	title text.Set // the tokens of the title
	// command are the tokens of the command its title names, if any
	// (commandTokens).
	command []string
	// lead are the tokens of its opening sentences, where an article
	// names what it is about before calling it "the telescope".
	lead text.Set
	// name is, for a page titled by a single name ("option",
	// "UNITY_BUILD_BATCH_SIZE", "git-config(1)"), that name in lower
	// case: a reference page of one entry.
	name string
	// siteName marks a name that pages of other titles open with too:
	// the site's, not an entry's (markSiteNames).
	siteName bool
}

// pageEntryName returns the name a page of one entry is titled with, the
// title's first part ("option — CMake 3.25 Documentation" → "option"),
// when that part is one word; "" otherwise.
func pageEntryName(title string) string {
	t := text.OneLine(title)
	for _, sep := range []string{" — ", " – ", " - ", " | ", ": "} {
		if k := strings.Index(t, sep); k > 0 {
			t = t[:k]
		}
	}
	t = strings.TrimSpace(t)
	if t == "" || strings.ContainsAny(t, " \t") {
		return ""
	}
	return strings.ToLower(t)
}

// markSiteNames marks each page whose title opens with a name that pages
// of other titles open with too: "Toolkit - Resources" and "Toolkit -
// Formats" are two pages of a site named Toolkit, not the pages of two
// entries named "toolkit" (finder.pageEntry).
func markSiteNames(docs []doc) {
	first := map[string]int{}
	shared := map[string]bool{}
	for i, d := range docs {
		if d.name == "" {
			continue
		}
		if j, ok := first[d.name]; !ok {
			first[d.name] = i
		} else if !maps.Equal(docs[j].title, d.title) {
			shared[d.name] = true
		}
	}
	for i := range docs {
		docs[i].siteName = shared[docs[i].name]
	}
}

// leadSents is how many opening sentences of a document make its lead.
const leadSents = 3

// pool is the evidence of a run, ready for scoring.
type pool struct {
	docs  []doc
	sents []sentence
	index *text.Index
	// entryWords caches, per criterion text, the plain word that names
	// its entry (entryWord).
	entryWords map[string]string
	// sectionEntries caches, per criterion text, sectionEntry.
	sectionEntries map[string]entry
	// valueEntry caches, per sentence, valueEntryWords.
	valueEntry map[int]text.Set
	// labelCounts are the numbers of distinct labels per page (labelCount).
	labelCounts []int
	// boxes are the box lines of each entry (boxLines).
	boxes  map[boxKey][]int
	docRel []float64           // page relevance to the question, in [0,1]
	ids    map[string][]string // sentence key → ids of every document holding it
	// topical are the words nearly every document holds: the subject of
	// the whole run (the product a documentation site describes).
	topical text.Set
	// titled are the words in the titles of half the pages or more, two
	// at least: the product a manual's pages are titled with ("ProFTPD
	// module mod_xfer").
	titled text.Set
	// context are the words of the question's closing qualifier ("in
	// Python"): the setting of the question, not its subject.
	context text.Set
	// oneSite marks a pool whose pages all come from one site: a search
	// of one product's documentation, where a page need not name the
	// product the question's setting names.
	oneSite bool
}

// oneSite reports whether the sources, at least two, are pages of one
// host.
func oneSite(sources []research.Source) bool {
	host := ""
	for _, s := range sources {
		u, err := url.Parse(s.URL)
		if err != nil || u.Host == "" || host != "" && u.Host != host {
			return false
		}
		host = u.Host
	}
	return len(sources) >= 2
}

// Topical words: held by at least topicalShare of the documents, when
// there are at least minTopicalDocs of them.
const (
	topicalShare   = 0.75
	minTopicalDocs = 3
)

// newPool splits every source (and prior section) into quotable sentences.
// Sentences whose key is in banned (a repair pass) are left out.
func newPool(sources []research.Source, prior []research.PriorSection, banned map[string]bool) *pool {
	p := &pool{ids: map[string][]string{}}
	for _, src := range sources {
		body := src.Text
		if strings.TrimSpace(body) == "" {
			body = strings.Join(src.Findings, "\n\n")
		}
		p.addDoc(src.ID, src.Title, body, 1, banned)
	}
	for _, pr := range prior {
		// A prior section carries its parent's [S#]; they mean nothing here.
		p.addDoc(pr.ID, pr.Heading, research.StripCitations(pr.Text), 0.9, banned)
	}
	p.expandAcronyms(sources)
	p.valuesOfTheSentenceBefore()
	// A sentence is indexed with the words of the heading it sits under:
	// "add this line to ember.conf" answers "set up replication" because
	// its heading says "Setting up a follower".
	docs := make([][]string, len(p.sents))
	for i := range p.sents {
		docs[i] = p.sents[i].toks
		for t := range p.sents[i].head {
			if !p.sents[i].set[t] {
				docs[i] = append(docs[i], t)
			}
		}
	}
	p.index = text.NewIndex(docs)
	// After the index: a pronoun's subject tells what the sentence is
	// about, but does not make the subject's words more common.
	p.resolvePronouns()
	markSiteNames(p.docs)
	p.topical = topicalWords(p.docs)
	p.titled = titleWords(p.docs)
	p.oneSite = oneSite(sources)
	p.docRel = make([]float64, len(p.docs))
	for i := range p.docRel {
		p.docRel[i] = 1
	}
	return p
}

func (p *pool) addDoc(id, title, body string, weight float64, banned map[string]bool) {
	if id == "" || len(p.sents) >= maxPoolSents {
		return
	}
	body = rejoinFragments(text.ClipBytes(body, maxSourceBytes))
	src := len(p.docs)
	titleToks := text.Tokens(title)
	d := doc{id: id, toks: append(append([]string(nil), titleToks...), titleToks...), title: text.NewSet(titleToks), command: commandTokens(title), lead: text.Set{}, name: pageEntryName(title)}
	spans := joinTableRows(body, splitParameterRows(text.Sentences(body)))
	var recurs map[string]bool              // recurringHeadings, read on first need
	syntaxCount := -1                       // syntaxHeadings, counted on first need
	partsOf, parts := "", map[string]bool{} // the recurring headings met in entry partsOf
	titleSet := text.NewSet(titleToks)
	headSet := text.Set{}    // tokens of the heading (or label) above
	var tableHead text.Set   // tokens of the first row of the table being read
	sectionSet := text.Set{} // tokens of the last real heading
	label := ""
	labelEnd := -1 // the label applies to the paragraph that follows it
	pos, section := 0, 0
	consumed := -1       // the last line of a command already quoted with the sentence before it
	last := -1           // the span of the source's last quotable sentence
	var stacked []string // terms on lines of their own above a label
	inBox := false       // the spans since the label are its key/value box
	inEntry := false     // the label names an entry with a box: it holds to the next heading
	codeTerm := ""       // the last inline term written as code: it holds to the next label or heading
	inList := false      // sp follows the items of a list a lead-in announced
	// announced: sp follows a sentence that announces a list of
	// "Key: value" lines, or such a line of it (announcesItems).
	announced := false
	rowEnd := -1 // the span of a parameter row, whose label ends with it
	// tail is the entry whose description may end with its box
	// ("Minimum: 1" / "Default: 10" below the prose): the last entry
	// label, until a heading or another entry.
	tail, tailHead := "", text.Set{}
	// entryKey is the line that named the current entry when it was
	// written as a box line ("Option: X"): its key names the next one.
	entryKey := ""
	// box adds lines of the key/value box of entry name, whose words are
	// head, as quotable sentences.
	box := func(name string, head text.Set, lines ...string) {
		for _, l := range lines {
			p.addBoxLine(id, src, name, l, head, titleSet, pos, section, &d, banned)
			pos++
		}
	}
	// outer: each sentence added holds the words of the real heading it
	// was written under, whatever label it has.
	outer := len(p.sents)
	for i, sp := range spans {
		for ; outer < len(p.sents); outer++ {
			p.sents[outer].outer = sectionSet
		}
		if i <= consumed {
			continue
		}
		if label != "" {
			tail, tailHead = label, headSet
		}
		if rowEnd >= 0 && i > rowEnd {
			label, headSet, rowEnd = "", sectionSet, -1
		}
		if label != "" && !inEntry && i > labelEnd+1 && strings.Contains(body[spans[i-1].End:sp.Start], "\n\n") {
			if label == codeTerm && termAhead(body, spans, i) {
				// "DOT_IMAGE_FORMAT: The … tag …" / "Possible values are:
				// …" / "The default value is: png.": the paragraphs of a
				// flattened definition whose term is written as code
				// are its description, up to the next term or heading.
				labelEnd = i - 1
			} else if strings.HasPrefix(label, "-") && flagAhead(body, spans, i) {
				// "-scale factor" / "Set the horizontal and vertical
				// scale …" / "The default factor is 2 …" / "-shear
				// angle": on a page of option entries,
				// the paragraphs up to the next option's name are the
				// option's description.
				labelEnd = i - 1
			} else if itemOfLabel(body, spans, i, labelEnd) || strings.HasSuffix(strings.TrimSpace(sp.Text), ":") && itemOfLabel(body, spans, i+1, labelEnd) {
				// "Possible values:" / "robust – …" / "asynchronous – …":
				// the list a sentence of the entry announces is the
				// entry's too.
				labelEnd = i - 1
			} else {
				label, headSet = "", sectionSet
			}
		}
		if announced || i > 0 && announcesItems(body, spans, i-1) {
			// "… can be grouped into four categories:" / "Sequences: A,
			// B" / "Maps: C, D": the "Key: value" lines a sentence
			// announces are the items of its list, each its own entry,
			// not the box of an entry the first names.
			if line := text.OneLine(sp.Text); aloneOnLine(body, sp) && keyLine(line) {
				key, value, _ := strings.Cut(boxText(line), ": ")
				p.addItem(id, src, key, value, headSet, titleSet, pos, section, &d, banned)
				pos++
				announced, last = true, i
				continue
			}
		}
		announced = false
		if k := nameKey(entryKey); k != "" && aloneOnLine(body, sp) && nameKey(text.OneLine(sp.Text)) == k {
			// "Option: Aptitude::Get-Root-Command" after "Option:
			// Aptitude::Always-Use-Safe-Resolver" and its box: the key
			// that named one entry names the next.
			label, labelEnd, inBox, inEntry = entryName(sp.Text), i, true, true
			entryKey = text.OneLine(sp.Text)
			headSet = labelSet(label)
			stacked, tail = nil, ""
			last = i
			continue
		}
		if name, ok := declaredName(body, spans, i); ok {
			// "toCount" above "public static int toCount(String s)": a
			// member of an API reference, its name above its
			// declaration. Its description, examples and box are the
			// member's, to the next member or heading.
			section++
			sectionSet = labelSet(name)
			label, labelEnd, inBox, inEntry = name+"()", i+1, false, true
			headSet = sectionSet
			stacked, tail = nil, ""
			last, consumed = i+1, i+1
			continue
		}
		if inBox && i == labelEnd+1 && aloneOnLine(body, sp) && isBoxLine(text.OneLine(sp.Text)) {
			// A line of the entry's box: quoted as a statement about the
			// entry ("`client_body_size` default: 1m;").
			labelEnd = i
			box(label, headSet, boxText(text.OneLine(sp.Text)))
			last = i
			continue
		}
		inBox = false
		if tail != "" && aloneOnLine(body, sp) && isTailBoxLine(text.OneLine(sp.Text)) {
			// "Default: 10" below the description of the entry above it.
			box(tail, tailHead, boxText(text.OneLine(sp.Text)))
			last = i
			continue
		}
		// "TallyMode Full: Tally writes …" / "TallyMode Terse: Tally
		// writes …" inside an entry: the definitions of its values, each
		// on its line, are statements of the entry, like the rows of a
		// table: neither headings nor boxes of entries of their own.
		defRow := inEntry && label != "" && definitionRow(body, spans, i)
		if name, lines, ok := nameWithBox(body, sp); ok && !defRow {
			// "queue_cap Use: main Type: integer Default: 5": a one-row
			// table of the entry's name and its box, flattened onto one
			// line. It opens the entry, which holds to the next one.
			label, labelEnd, inEntry = name, i, true
			headSet = labelSet(label)
			stacked = nil
			box(label, headSet, lines...)
			last = i
			continue
		}
		if lines, ok := columnBox(body, spans, i+1); ok && (isHeading(body, sp) || isNameLine(body, sp)) && !isTableRow(text.OneLine(sp.Text)) {
			// "Port" over "type | default | mandatory" over "word | 514 |
			// no": the entry's box written as a table of one row.
			if isHeading(body, sp) {
				section++
				sectionSet = text.NewSet(text.Tokens(sp.Text))
			}
			label, labelEnd, inEntry = entryName(sp.Text), i+2, true
			headSet = labelSet(label)
			stacked, tail = nil, ""
			box(label, headSet, lines...)
			last, consumed = i+2, i+2
			continue
		}
		if label == "" && i+1 < len(spans) && isSettingLeadIn(body, sp, spans[i+1]) {
			// "On Unix-like systems:" above the paragraphs that hold
			// there, up to the next such line or heading: its words
			// qualify theirs as a heading's would.
			headSet = text.Set(maps.Clone(sectionSet))
			for _, t := range text.Tokens(sp.Text) {
				headSet[t] = true
			}
			continue
		}
		boxNext := opensBox(body, spans, i+1)
		// The items of a list a lead-in announces ("… an upper bound on:"
		// / "The number of columns in a table") are no headings, though
		// each stands alone on its line without a full stop.
		listItem := i > 0 && (strings.HasSuffix(strings.TrimSpace(spans[i-1].Text), ":") || inList) && !boxNext || numberedItem(body, spans, i)
		inList = listItem && isHeading(body, sp)
		// A row of a table under another row ("990 | used as the default
		// for …" under "Pin-Priority | effects") is a statement of the
		// table, however short: no heading; so is a definition row.
		dataRow := defRow || i > 0 && isTableRow(text.OneLine(sp.Text)) && isTableRow(text.OneLine(spans[i-1].Text))
		sigName, sigHead := signatureHeading(body, spans, i)
		if inEntry && label != "" && !sigHead && !listItem && !dataRow && isHeading(body, sp) &&
			len(p.sents) > 0 && p.sents[len(p.sents)-1].src == src && p.sents[len(p.sents)-1].label == label {
			if recurs == nil {
				recurs = recurringHeadings(body, spans)
			}
			h := text.Fold(text.OneLine(sp.Text))
			// "Parameters" / "Returns" under every function of an API
			// page, after the function's description: a part of each
			// entry, not a section of the page. Met twice, it is the
			// part of an entry whose name was not seen.
			if partsOf != label {
				partsOf, parts = label, map[string]bool{}
			}
			if recurs[h] && !parts[h] {
				parts[h] = true
				continue
			}
		}
		if (isHeading(body, sp) || sigHead) && !listItem && !dataRow {
			if len(strings.Fields(sp.Text)) > 1 {
				// A one-word heading inside an entry ("Note", "Warning")
				// titles a callout; the entry's box may still follow it.
				tail = ""
			}
			section++
			sectionSet = text.NewSet(text.Tokens(sp.Text))
			headSet, label, inBox, inEntry = sectionSet, "", false, false
			if boxNext && nameKey(text.OneLine(spans[i+1].Text)) == "" {
				// "KeepAlive Directive" above "Default: …": the heading
				// names the entry its box and prose describe. (Above
				// "Option: X", the line below names the entry.)
				label, labelEnd, inBox, inEntry = entryName(sp.Text), i, true, true
				entryKey = text.OneLine(sp.Text)
				headSet = labelSet(label)
			} else if h := text.OneLine(sp.Text); writtenAsCode(h) && !strings.EqualFold(h, d.name) && i+1 < len(spans) && !isHeading(body, spans[i+1]) {
				// "LIBVIRT_DEFAULT_URI" alone on its line above "The
				// hypervisor to connect to by default.": a name written
				// as code names the entry its paragraphs describe, up
				// to the next heading. (The name a page is titled with
				// names the whole page: pageEntry.)
				label, labelEnd, inEntry = h, i, true
				headSet = labelSet(label)
			} else if name, ok := syntaxHeading(h); ok && !strings.EqualFold(name, d.name) && syntaxPage(&syntaxCount, body, spans) {
				// "TallyLimit number" above "Specifies the …": on a page
				// of such lines, a name written as code and the form
				// of its argument name the entry the paragraph below
				// describes (a manual page's definition list). Lines
				// stacked above it ("TallyLevel low", "TallyLevel
				// high") name the same entry.
				label, labelEnd, inEntry = name, i, true
				headSet = labelSet(label)
			} else if sigHead {
				// "tally.scan (s, sep [, keep])": a function's
				// signature names the entry its paragraphs describe;
				// its parameters stay words of the heading.
				label, labelEnd, inEntry = sigName, i, true
			}
			continue
		}
		if boxNext && isNameLine(body, sp) {
			// "client_body_size" on a line of its own above its box.
			label, labelEnd, inBox, inEntry = entryName(sp.Text), i, true, true
			entryKey = text.OneLine(sp.Text)
			headSet = labelSet(label)
			stacked = nil
			continue
		}
		if term, first, ok := termOnBox(body, spans, i); ok && !dataRow {
			// "tcp-clients: Grammar: tcp-clients <integer>;" over
			// "Blocks: options": the entry's name written onto the first
			// line of its box. The box and what follows are the entry's,
			// to the next entry or heading.
			label, labelEnd, inBox, inEntry = term, i, true, true
			headSet = labelSet(label)
			stacked = nil
			box(label, headSet, boxText(first))
			last = i
			continue
		}
		if i+2 < len(spans) && isTermLine(body, sp) && isLabel(body, spans[i+1], spans[i+2]) {
			// "--sort" / "--no-sort" / "When …": a term of its
			// own line above another; both name the description.
			stacked = append(stacked, text.OneLine(sp.Text))
			continue
		}
		if i+1 < len(spans) && isLabel(body, sp, spans[i+1]) && !dataRow {
			// "--offline" / "Prevents Cargo from accessing the network":
			// the description answers questions about the option it names.
			label, labelEnd, inEntry = strings.Join(append(stacked, text.OneLine(sp.Text)), ", "), i, false
			stacked = nil
			headSet = labelSet(label)
			continue
		}
		stacked = nil
		s := text.OneLine(sp.Text)
		helpLine, described := false, false
		if i+1 < len(spans) && startsLine(body, sp) && !startsLine(body, spans[i+1]) && isTermSentence(s) {
			// "REAL. The value is a floating point value …": a list item
			// that opens with the name it describes in a sentence of its own.
			label, labelEnd, inEntry = strings.TrimSuffix(s, "."), i, false
			headSet = labelSet(label)
			continue
		}
		// "Warning: This function is dangerous …" inside a member's
		// entry: a remark of the entry, written as a term of one title
		// word, not an entry of its own.
		remark := false
		if t, _, ok := strings.Cut(s, ": "); inEntry && label != "" && ok && titleTermRe.MatchString(t) {
			remark = true
		}
		if term, rest, ok := inlineLabel(s); !remark && (ok && startsLine(body, sp) || capsLabelled(body, spans, i)) {
			if !ok {
				term, rest, _ = strings.Cut(s, ": ")
			}
			if label == codeTerm && label != "" && titleTermRe.MatchString(term) {
				// "Note: If you choose svg …" inside DOT_IMAGE_FORMAT's
				// description: a remark of the entry, not an entry.
				term, rest = label, s
			}
			// "cache_pages (integer): Sets the amount … The default is
			// 64MB.": a definition list flattened onto one paragraph; the
			// term names what every sentence of the paragraph describes.
			label, labelEnd, s, inEntry = term, i-1, rest, false
			headSet = labelSet(label)
			described = true
			if writtenAsCode(term) {
				codeTerm = term
			}
		} else if term, rest, ok := helpRow(sp.Text); ok {
			// "-B <size>, --buffer-size <size>" over "size of kernel
			// buffer (def: 2MB)": a program's help output in a code
			// block, its description a statement about its flags.
			label, labelEnd, s, inEntry = term, i-1, rest, false
			headSet = labelSet(label)
			helpLine, rowEnd = true, i
		} else if term, rest, ok := parameterRow(s); ok {
			// "recipient_delimiter (empty) The set of characters that …":
			// a row of a manual's parameter summary, its default in
			// parentheses, run together with the rows around it. The
			// row is one sentence; the next is another row's or prose.
			label, labelEnd, s, inEntry = term, i-1, rest, false
			headSet = labelSet(label)
			rowEnd = i
		}
		q := quality(s)
		if q == 0 && helpLine && len(s) <= maxQuoteBytes {
			q = itemQuality
		}
		if q == 0 && described && strings.HasSuffix(s, ".") && len(strings.Fields(s)) >= 3 && len(s) <= maxQuoteBytes {
			// "I, i: Set integrated loudness target.": the short
			// sentence after a term says what the entry is.
			q = itemQuality
		}
		if q == 0 && label != "" && startsLine(body, sp) && itemRe.MatchString(s) && len(strings.Fields(s)) >= 3 && len(s) <= maxQuoteBytes {
			// "1 - Issue warning.": a short item of the entry's list of
			// values, a statement about the entry.
			q = itemQuality
		}
		if q == 0 && dataRow && (isTableRow(s) || defRow) && len(s) <= maxQuoteBytes {
			// "crit | Critical conditions" under "emerg | Emergencies …":
			// a row of a table is a statement of it, however short; so is
			// a line defining one of an entry's values.
			q = itemQuality
		}
		if q == 0 && p.joinsPrevious(body, spans, i, s, id, src, last, banned) {
			continue
		}
		row := q > 0 && isTableRow(s)
		head := headSet
		if row {
			// The first row of a table names its columns ("key following
			// Alt-SysRq | description of action"): the rows under it are
			// read under those words as under a heading.
			if i > 0 && isTableRow(text.OneLine(spans[i-1].Text)) && tableHead != nil {
				head = text.Set(maps.Clone(headSet))
				maps.Copy(head, tableHead)
			} else {
				tableHead = text.NewSet(text.Tokens(s))
			}
			s = rowSentence(s)
		}
		code := ""
		if !strings.HasSuffix(s, ":") && i+1 < len(spans) && q > 0 && showsExample(s) && isCommand(body, spans[i+1]) {
			// "Listing 8-7 shows how to use a for loop …" and its code.
			code, consumed = codeBlock(body, spans, i+1)
		}
		if strings.HasSuffix(s, ":") && i+1 < len(spans) && len(strings.Fields(s)) >= 4 {
			// "To install it, run:" is only worth quoting with its command.
			if announcesItems(body, spans, i) {
				// "… can be grouped into four categories:" above its
				// items (added as entries after it): quoted as the
				// sentence that announces them.
				q = quality(strings.TrimSuffix(s, ":") + ".")
			} else if isCommand(body, spans[i+1]) {
				code, consumed = codeBlock(body, spans, i+1)
				q = 0.95
			} else if len(strings.Fields(s)) >= 10 {
				// A full statement that introduces an example ("This command
				// quickly checks your code … but doesn’t produce an
				// executable:") is worth quoting without it.
				q = quality(strings.TrimSuffix(s, ":") + ".")
				q *= 0.8
			}
		}
		if q == 0 {
			continue
		}
		key := text.Fold(strings.TrimSpace(s + " " + code))
		if label != "" {
			key = text.Fold(label + ": " + key)
		}
		if banned[key] {
			continue
		}
		if have := p.ids[key]; len(have) > 0 {
			// The same sentence on another page: cite both, quote once.
			if have[len(have)-1] != id {
				p.ids[key] = append(have, id)
			}
			continue
		}
		p.ids[key] = []string{id}
		toks := append(text.Tokens(s+" "+code), flagTokens(s)...)
		if unsetValueRe.MatchString(s) && !slices.Contains(toks, defaultToken) {
			// "If that variable has not been set, the initial value
			// will be 8." states the default in other words, as a
			// question's "unless I change it" asks for it (unsetRe).
			toks = append(toks, defaultToken)
		}
		d.toks = append(d.toks, toks...)
		if pos < leadSents {
			for _, t := range toks {
				d.lead[t] = true
			}
		}
		p.sents = append(p.sents, sentence{
			src: src, text: s, code: code, label: label, key: key, toks: toks, set: text.NewSet(toks),
			head: head, title: titleSet,
			quality: q * weight, hasNum: statesFigure(s+" "+code, toks), pos: pos,
			section: section, para: startsLine(body, sp), row: row, entry: inEntry && label != "",
		})
		last = i
		pos++
		if pos >= maxSourceSents || len(p.sents) >= maxPoolSents {
			break
		}
	}
	for ; outer < len(p.sents); outer++ {
		p.sents[outer].outer = sectionSet
	}
	d.set = text.NewSet(d.toks)
	p.docs = append(p.docs, d)
}

// unsetValueRe matches a sentence that says what holds when nothing sets
// a value: "if that variable has not been set", "when unset", "the
// initial value".
var unsetValueRe = regexp.MustCompile(`(?i)\b(?:if|when|unless|while)\b[^.;:]{0,60}?\b(?:(?:is|are|has|have|was)\s+(?:not|never)\s+(?:been\s+)?(?:set|specified|given|configured|defined)|unset)\b|\binitial\s+value\b`)

// defaultToken is the token of "default".
var defaultToken = text.Tokens("default")[0]

// labelSet is the words of an entry's label, its flags included: what
// the sentences under it are about.
func labelSet(label string) text.Set {
	return text.NewSet(append(text.Tokens(label), flagTokens(label)...))
}

// addBoxLine adds line s of the key/value box of entry label as a
// quotable sentence.
func (p *pool) addBoxLine(id string, src int, label, s string, head, title text.Set, pos, section int, d *doc, banned map[string]bool) {
	toks := append(text.Tokens(s), flagTokens(s)...)
	p.addLabelled(id, text.Fold(label+" "+s), toks, d, banned, sentence{
		src: src, text: s, label: label, head: head, title: title, quality: boxQuality, pos: pos,
		section: section, para: true, box: true, entry: true,
	})
}

// addLabelled adds s, a statement about its label outside the page's
// sentences (a box line, a list's item), under key with tokens toks,
// unless the key is banned or already quoted or the pool is full.
func (p *pool) addLabelled(id, key string, toks []string, d *doc, banned map[string]bool, s sentence) {
	if banned[key] || len(p.ids[key]) > 0 || len(p.sents) >= maxPoolSents {
		return
	}
	p.ids[key] = []string{id}
	d.toks = append(d.toks, toks...)
	s.key, s.toks, s.set, s.hasNum = key, toks, text.NewSet(toks), statesFigure(s.text, toks)
	p.sents = append(p.sents, s)
}

// addItem adds an item of a list of "Key: value" lines a sentence
// announces: a statement about its key, quoted as "`Key`: value".
func (p *pool) addItem(id string, src int, key, value string, head, title text.Set, pos, section int, d *doc, banned map[string]bool) {
	toks := append(text.Tokens(key+" "+value), flagTokens(value)...)
	p.addLabelled(id, text.Fold(key+": "+value), toks, d, banned, sentence{
		src: src, text: value, label: key, head: head, title: title, quality: itemQuality, pos: pos,
		section: section, para: true, item: true,
	})
}

// minAnnouncingWords is the fewest words of a line ending in a colon that
// announces a list: a sentence ("Collections fall into four
// categories:"), not a key ("Options:").
const minAnnouncingWords = 4

// announcesItems reports whether spans[i] is a sentence that ends its
// line in a colon ("If set, selects the codec. The following codecs are
// available:") and announces the "Key: value" lines below it, two at
// least.
func announcesItems(body string, spans []text.Span, i int) bool {
	if !strings.HasSuffix(strings.TrimSpace(spans[i].Text), ":") {
		return false // the check every line meets, before any other
	}
	t := text.OneLine(spans[i].Text)
	return len(strings.Fields(t)) >= minAnnouncingWords && !isBoxLine(t) && endsLine(body, spans[i]) && twoLines(body, spans, i+1, keyLine)
}

// keyLine reports whether s is a "Key: value" line (isBoxLine) written
// with a colon, not a row of a table ("Tally::Left | 0x0001 | …") or a
// qualified name; or a name in lower case that a description in words
// follows ("zstd: Selects the Zstandard codec"), as a list of values
// names them.
func keyLine(s string) bool {
	return (isBoxLine(s) || valueItemRe.MatchString(s)) && strings.Contains(s, ": ") && !strings.Contains(s, "::") && !isTableRow(s)
}

// valueItemRe matches a value's name in lower case, a colon and a
// description that opens in a capital.
var valueItemRe = regexp.MustCompile(`^\p{Ll}[\p{L}\p{N}_.+-]*: \p{Lu}\p{Ll}+ .{0,200}$`)

// boxQuality is the quality of a line of a key/value box: a statement of
// fact, though not a sentence.
const boxQuality = 0.9

// boxLineRe matches a line of a key/value box as the extractor writes it:
// a short key in capitals, a colon or a cell separator, and a value
// ("Default: 1m;", "Context: | http, server", "Type | integer").
var boxLineRe = regexp.MustCompile(`^(\p{Lu}[\p{L}]*(?: [\p{L}]+){0,2})\s*(?::\s*\|?|\|)\s*(\S.{0,200})$`)

// isBoxLine reports whether s is a line of a key/value box: its value is
// short, not a sentence of prose.
func isBoxLine(s string) bool {
	m := boxLineRe.FindStringSubmatch(s)
	return m != nil && !strings.HasSuffix(strings.TrimSpace(m[2]), ":") && len(strings.Fields(m[2])) <= maxBoxWords
}

// maxBoxWords bounds the value of a box line: a description phrase, not
// a paragraph.
const maxBoxWords = 30

// opensBox reports whether spans[i] and spans[i+1] are lines of one
// key/value box: a box has at least two keys ("Syntax", "Default"), so a
// single "Note: …" under a heading is no box.
func opensBox(body string, spans []text.Span, i int) bool {
	return twoLines(body, spans, i, isBoxLine)
}

// twoLines reports whether spans[i] and spans[i+1] each stand alone on
// their line and are lines of the kind is tells.
func twoLines(body string, spans []text.Span, i int, is func(string) bool) bool {
	if i < 0 || i+1 >= len(spans) {
		return false
	}
	for _, sp := range spans[i : i+2] {
		if !aloneOnLine(body, sp) || !is(text.OneLine(sp.Text)) {
			return false
		}
	}
	return true
}

// boxText writes a line of a box as "Key: value", without the table's
// cell separators.
func boxText(s string) string {
	m := boxLineRe.FindStringSubmatch(s)
	if m == nil {
		return s
	}
	value := strings.Join(strings.FieldsFunc(m[2], func(r rune) bool { return r == '|' }), ";")
	return m[1] + ": " + text.OneLine(value)
}

// termOnBox reports whether spans[i] is an entry's name written onto the
// first line of its box ("tcp-clients: Grammar: tcp-clients <integer>;")
// with another line of the box below it, and returns the name and that
// first line.
func termOnBox(body string, spans []text.Span, i int) (term, first string, ok bool) {
	if i+1 >= len(spans) || !aloneOnLine(body, spans[i]) || !aloneOnLine(body, spans[i+1]) ||
		!isBoxLine(text.OneLine(spans[i+1].Text)) {
		return "", "", false
	}
	term, first, ok = strings.Cut(text.OneLine(spans[i].Text), ": ")
	if !ok || len(strings.Fields(term)) > 3 || strings.ContainsAny(term, ".!?;") || !isBoxLine(first) {
		return "", "", false
	}
	return term, first, true
}

// itemQuality is the quality of a short item of an entry's list.
const itemQuality = 0.7

// itemRe matches a list item written as its own paragraph: a term, a
// dash and what it means ("robust – The journal …", "0 - Ignore …"), or a
// bullet.
var itemRe = regexp.MustCompile(`^(?:[\pL\pN_.+-]+(?: [\pL\pN_.+-]+)? [–—-] \S|[-•*] \S)`)

// itemOfLabel reports whether spans[i] is an item of a list that a
// labelled paragraph announces: the span before it ends with a colon, or
// is itself such an item, and both start their lines.
func itemOfLabel(body string, spans []text.Span, i, labelEnd int) bool {
	if i < 1 || i >= len(spans) || !startsLine(body, spans[i]) || !itemRe.MatchString(text.OneLine(spans[i].Text)) {
		return false
	}
	prev := strings.TrimSpace(spans[i-1].Text)
	return strings.HasSuffix(prev, ":") || i-1 > labelEnd && startsLine(body, spans[i-1]) && itemRe.MatchString(text.OneLine(prev))
}

// maxHeaderWords bounds a cell of a table's header row read as a key.
const maxHeaderWords = 4

// columnBox reports whether spans[j] and spans[j+1] are a table of one
// header row and one value row ("type | default | mandatory" over "word
// | 514 | no"), each alone on its line, with no further row of as many
// cells after them, and returns its columns as box lines ("Type: word",
// "Default: 514", "Mandatory: no").
func columnBox(body string, spans []text.Span, j int) ([]string, bool) {
	if j+1 >= len(spans) || !aloneOnLine(body, spans[j]) || !aloneOnLine(body, spans[j+1]) {
		return nil, false
	}
	cells := func(k int) []string {
		parts := strings.Split(text.OneLine(spans[k].Text), "|")
		for n := range parts {
			parts[n] = strings.TrimSpace(parts[n])
		}
		return parts
	}
	head, row := cells(j), cells(j+1)
	if len(head) < 2 || len(head) != len(row) || j+2 < len(spans) && len(cells(j+2)) == len(head) {
		return nil, false
	}
	var lines []string
	for n, key := range head {
		last, _ := utf8.DecodeLastRuneInString(key)
		if key == "" || len(strings.Fields(key)) > maxHeaderWords || strings.ContainsAny(key, "0123456789") || strings.ContainsRune(".!?:;,", last) ||
			len(strings.Fields(row[n])) > maxInlineValueWords {
			return nil, false
		}
		if row[n] == "" {
			continue
		}
		r, size := utf8.DecodeRuneInString(key)
		lines = append(lines, string(unicode.ToUpper(r))+key[size:]+": "+row[n])
	}
	return lines, len(lines) > 0
}

// isTailBoxLine reports whether s is a line of a box written below its
// entry's description: a box line that is no sentence ("Default: 10",
// not "Note: Set the limits low on public servers.").
func isTailBoxLine(s string) bool {
	last, _ := utf8.DecodeLastRuneInString(s)
	return tailKeyRe.MatchString(s) && !strings.ContainsRune(s, '|') && isBoxLine(s) && !strings.ContainsRune(".!?", last)
}

// tailKeyRe matches the key of a box line written below a description:
// a capitalised word, at most two more in lower case, a colon and a space
// ("Default: 10", "Obsolete legacy directive: none"), not a line of code
// ("LogLevel info ssl:warn") or a table's header row.
var tailKeyRe = regexp.MustCompile(`^\p{Lu}\p{Ll}*(?: \p{Ll}+){0,2}: \S`)

// boxKeyRe finds the keys of a box written on one line: a capitalised
// word or three, a colon and a space ("Use: main Type: integer").
var boxKeyRe = regexp.MustCompile(`(?:^|[\s|])(\p{Lu}\p{Ll}+(?: \p{Ll}+){0,2}): `)

// maxInlineValueWords bounds each value of a box written on one line.
const maxInlineValueWords = 8

// nameWithBox reports whether span sp of body is an entry's name followed
// by its whole key/value box on one line of its own ("queue_cap Use: main
// Type: integer Default: 5"), and returns the name and the box's lines
// ("Use: main", "Type: integer", "Default: 5"). It takes at least two
// keys and a name of at most three words that is no sentence.
func nameWithBox(body string, sp text.Span) (name string, lines []string, ok bool) {
	if !aloneOnLine(body, sp) {
		return "", nil, false
	}
	s := text.OneLine(sp.Text)
	keys := boxKeyRe.FindAllStringSubmatchIndex(s, -1)
	if len(keys) < 2 {
		return "", nil, false
	}
	name = strings.TrimSpace(strings.Trim(s[:keys[0][2]], " |"))
	if name == "" || len(strings.Fields(name)) > 3 || strings.ContainsAny(name, ".!?;:,") {
		return "", nil, false
	}
	for k, m := range keys {
		end := len(s)
		if k+1 < len(keys) {
			end = keys[k+1][0]
		}
		value := strings.TrimSpace(strings.Trim(s[m[1]:end], " |"))
		if value == "" || len(strings.Fields(value)) > maxInlineValueWords {
			return "", nil, false
		}
		lines = append(lines, s[m[2]:m[3]]+": "+value)
	}
	return name, lines, true
}

// itemNumberRe matches the number an ordered list's item opens with.
var itemNumberRe = regexp.MustCompile(`^(\d+)\.\s`)

// numberedItem reports whether spans[i] is an item of a numbered list:
// it opens with a number, and the line right above or below it (no
// blank line between) opens with the number before or after. "3. begin()
// cannot be called twice without calling clear()" is a statement, not a
// numbered heading, though short and without a full stop.
func numberedItem(body string, spans []text.Span, i int) bool {
	n, ok := itemNumber(spans[i].Text)
	if !ok {
		return false
	}
	adjacent := func(k, want int) bool {
		if k < 0 || k >= len(spans) {
			return false
		}
		a, b := spans[min(i, k)], spans[max(i, k)]
		if strings.Count(body[a.End:b.Start], "\n") != 1 {
			return false
		}
		m, ok := itemNumber(spans[k].Text)
		return ok && m == want
	}
	return adjacent(i-1, n-1) || adjacent(i+1, n+1)
}

// itemNumber returns the number a line opens with ("4. …"), if any.
func itemNumber(t string) (int, bool) {
	m := itemNumberRe.FindStringSubmatch(strings.TrimSpace(t))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// isNameLine reports whether span sp of body is the name of an entry alone
// on its line: a few words without end punctuation, not itself a line of
// a box.
func isNameLine(body string, sp text.Span) bool {
	t := text.OneLine(sp.Text)
	last, _ := utf8.DecodeLastRuneInString(t)
	return aloneOnLine(body, sp) && len(t) <= 80 && len(strings.Fields(t)) <= 6 && !strings.ContainsRune(".!?:;,", last) && !isBoxLine(t) && namesSomething(t)
}

// entryName is the name an entry's heading gives it, without a last word
// that only classifies it ("KeepAliveTimeout Directive" → "KeepAliveTimeout").
func entryName(heading string) string {
	h := text.OneLine(heading)
	if k := nameKey(h); k != "" {
		// "Option: Aptitude::Theme" names the option.
		h = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(h, k), ":"))
	}
	if m := sectionNumberRe.FindStringIndex(h); m != nil && m[1] < len(h) {
		// "3.142. imap_keepalive": the number is the manual's section,
		// not part of the entry's name.
		h = h[m[1]:]
	}
	f := strings.Fields(h)
	if len(f) >= 2 && genericHeads[text.Stem(strings.ToLower(f[len(f)-1]))] {
		return strings.Join(f[:len(f)-1], " ")
	}
	return h
}

// sectionNumberRe matches the section number a generated manual writes
// before a heading: "3.142. ", "5.2 ", "4. ", "A.1. ", "IV. " — never a
// bare number ("200 thread_pool_min" is a line of command output).
var sectionNumberRe = regexp.MustCompile(`^(?:\d+(?:\.\d+)+\.?|(?:\d+|[A-Z]|[IVXLC]+)(?:\.\d+)*\.)\s+`)

// nameKey returns the key of a line that names an entry as a box line
// does, "Option: Aptitude::Theme" → "Option": a key of one word and a
// value that is an identifier. "" for any other line.
func nameKey(line string) string {
	m := boxLineRe.FindStringSubmatch(line)
	if m == nil || strings.Contains(m[1], " ") || !identifierRe.MatchString(strings.TrimSpace(m[2])) {
		return ""
	}
	return m[1]
}

// identifierRe matches a name written as code: letters and digits joined
// by "::", "_", "-" or ".", or with a capital inside ("Aptitude::Theme",
// "mail_check", "CmdLine"); not a value ("false", "300", "su:/bin/su").
var identifierRe = regexp.MustCompile(`^\pL[\pL\d]*(?:(?:::|[_.-])[\pL\d]+)+$|^\pL+\p{Lu}[\pL\d]*$`)

// paraBreakRe matches a blank line between paragraphs.
var paraBreakRe = regexp.MustCompile(`\n[ \t]*\n\s*`)

// continuesAfter are words a sentence cannot end on: a paragraph ending on
// one was cut by the page's markup ("The valid values are" / "crc32").
var continuesAfter = set("a an the of to with from by for in on at as than that which are is be was were and or nor use using via into onto per like such called named between except")

// rejoinFragments puts back together the sentences a page's inline markup
// broke into paragraphs of their own — manual pages that render each code
// span as a block come out as "The valid values are" / "crc32" / "and (if
// enabled)" / "blake3" / "." — so that each is quoted whole. A paragraph
// that does not end a sentence runs on into the next when that one opens
// with punctuation (", reorder the list …"), when it ends on a word no
// sentence ends on, when it is itself such a fragment and the next opens
// in lower case, or when it is a lone term ("crc32") and the next is the
// rest of a sentence in lower case ("is the default."). Only blank lines
// change into spaces, so every quote is still the page's text.
func rejoinFragments(body string) string {
	breaks := paraBreakRe.FindAllStringIndex(body, -1)
	if len(breaks) == 0 {
		return body
	}
	var b strings.Builder
	start, chain := 0, false
	for _, br := range breaks {
		p, q := body[start:br[0]], body[br[1]:]
		if end := paraBreakRe.FindStringIndex(q); end != nil {
			q = q[:end[0]]
		}
		b.WriteString(body[start:br[0]])
		if joins(strings.TrimSpace(p), strings.TrimSpace(q), chain) {
			b.WriteByte(' ')
			chain = true
		} else {
			b.WriteString(body[br[0]:br[1]])
			chain = false
		}
		start = br[1]
	}
	b.WriteString(body[start:])
	return b.String()
}

// joins reports whether paragraph q continues the sentence paragraph p
// leaves open; chain tells that p itself was joined to the one before.
func joins(p, q string, chain bool) bool {
	if p == "" || q == "" || strings.Contains(p, "\n") && !chain {
		return false
	}
	first, _ := utf8.DecodeRuneInString(q)
	if strings.ContainsRune(",;)]", first) {
		return true // ", automatically modify …" after "matches the same" / "…"
	}
	last, _ := utf8.DecodeLastRuneInString(p)
	if strings.ContainsRune(".!?:;", last) {
		return false
	}
	if strings.ContainsRune(".:…", first) || last == ',' && unicode.IsLower(first) {
		return true // "… in the store," / "tally gc --auto" / "will pack them."
	}
	words := strings.Fields(p)
	lastWord := strings.ToLower(strings.Trim(words[len(words)-1], "\"'()"))
	switch {
	case continuesAfter[lastWord] && len(words) >= 2:
		return true
	case !unicode.IsLower(first):
		return false
	case chain:
		return true
	}
	// A lone term ("crc32") and the rest of its sentence ("is the default."),
	// not a numbered heading ("4.1. Memory") above a paragraph, nor a term
	// above a description that names its own ("cache_pages (integer): …").
	qLast, _ := utf8.DecodeLastRuneInString(q)
	pFirst, _ := utf8.DecodeRuneInString(p)
	_, _, labelled := inlineLabel(q)
	return len(words) == 1 && unicode.IsLower(pFirst) && strings.ContainsRune(".!", qLast) && !strings.Contains(q, "\n") && !labelled
}

// backRefRe opens a short sentence that only says something more of what
// the sentence before it named: "This is the default.", "It is optional."
var backRefRe = regexp.MustCompile(`^(?:This|That|It|These|They)\s+(?:is|are|was|were)\b`)

// joinsPrevious appends span i (text s), a sentence too short to quote
// that says something more of what the sentence before it named ("The
// lz4 codec, tuned for speed. This is the default."), to
// that sentence, the source's last quotable one, when both stand in the
// same paragraph. It reports whether it did.
func (p *pool) joinsPrevious(body string, spans []text.Span, i int, s, id string, src, last int, banned map[string]bool) bool {
	n := len(p.sents) - 1
	if last != i-1 || n < 0 || p.sents[n].src != src || p.sents[n].code != "" || !backRefRe.MatchString(s) ||
		len(strings.Fields(s)) >= minQuoteWords || !strings.HasSuffix(s, ".") ||
		strings.Contains(body[spans[i-1].End:spans[i].Start], "\n") {
		return false
	}
	prev := &p.sents[n]
	joined := prev.text + " " + s
	key := text.Fold(joined)
	if prev.label != "" {
		key = text.Fold(prev.label + ": " + key)
	}
	if banned[key] || len(p.ids[key]) > 0 || len(p.ids[prev.key]) != 1 {
		return false
	}
	delete(p.ids, prev.key)
	p.ids[key] = []string{id}
	toks := text.Tokens(s)
	prev.text, prev.key = joined, key
	prev.toks = append(prev.toks, toks...)
	for _, t := range toks {
		prev.set[t] = true
	}
	prev.hasNum = prev.hasNum || statesFigure(s, toks)
	return true
}

// topicalWords returns the words held by at least topicalShare of docs.
func topicalWords(docs []doc) text.Set {
	out := text.Set{}
	if len(docs) < minTopicalDocs {
		return out
	}
	n := map[string]int{}
	for _, d := range docs {
		for t := range d.set {
			n[t]++
		}
	}
	for t, c := range n {
		if float64(c) >= topicalShare*float64(len(docs)) {
			out[t] = true
		}
	}
	return out
}

// titleWords returns the words in the titles of half of docs or more,
// two at least.
func titleWords(docs []doc) text.Set {
	n := map[string]int{}
	for _, d := range docs {
		for t := range d.title {
			n[t]++
		}
	}
	out := text.Set{}
	for t, k := range n {
		if k >= 2 && 2*k >= len(docs) {
			out[t] = true
		}
	}
	return out
}

// setRelevance weighs pages by their relevance to q (the question), so
// that a sentence on an on-topic page beats an equal one on a stray page.
func (p *pool) setRelevance(q text.Query) {
	if len(p.docs) == 0 {
		return
	}
	docs := make([][]string, len(p.docs))
	for i, d := range p.docs {
		docs[i] = d.toks
	}
	scores := text.NewIndex(docs).Scores(q)
	titles := make([]float64, len(p.docs))
	for i, d := range p.docs {
		for t, w := range q {
			if d.title[t] {
				titles[i] += w
			}
		}
	}
	top, topTitle := 0.0, 0.0
	for i, s := range scores {
		top, topTitle = max(top, s), max(topTitle, titles[i])
	}
	for i, s := range scores {
		rel := 0.0
		if top > 0 {
			rel = s / top
		}
		if topTitle > 0 {
			// A page whose title names the question's subject ("LISTEN")
			// is its reference page, however often other pages repeat the
			// question's commoner words.
			rel = (rel + titles[i]/topTitle) / 2
		}
		if top > 0 || topTitle > 0 {
			p.docRel[i] = rel
		}
	}
}

// cite returns the citation markers for sentence i: every document that
// holds the same sentence, at most three.
func (p *pool) cite(i int) string {
	ids := p.ids[p.sents[i].key]
	if len(ids) == 0 {
		ids = []string{p.docs[p.sents[i].src].id}
	}
	if len(ids) > 3 {
		ids = ids[:3]
	}
	return "[" + strings.Join(ids, "][") + "]"
}

// isHeading reports whether span sp of body stands alone on its line and
// reads like a heading: short, no sentence punctuation at the end.
func isHeading(body string, sp text.Span) bool {
	if !aloneOnLine(body, sp) {
		return false
	}
	words := len(strings.Fields(sp.Text))
	last, _ := utf8.DecodeLastRuneInString(sp.Text)
	first, _ := utf8.DecodeRuneInString(sp.Text)
	if words > 12 || strings.ContainsRune(".!;,:", last) {
		return false
	}
	// API references open headings with the name they document:
	// "namedtuple() Factory Function for Tuples with Named Fields".
	firstWord, _, _ := strings.Cut(sp.Text, " ")
	return unicode.IsUpper(first) || unicode.IsDigit(first) || words >= 3 && strings.ContainsAny(firstWord, "()_")
}

// signatureHeading returns the name of the function whose signature
// spans[i] is (signatureName), when it stands as the heading of its
// entry: alone on its line, after a finished sentence or a heading, above
// a sentence that starts anew. A call written inside a description ("The
// simplest form is" / "plot (y)" / "where y is …") is an example, not a
// heading.
func signatureHeading(body string, spans []text.Span, i int) (string, bool) {
	if i+1 >= len(spans) || !aloneOnLine(body, spans[i]) {
		return "", false
	}
	name, ok := signatureName(spans[i].Text)
	if !ok {
		name, ok = declarationLabel(spans[i].Text)
	}
	if !ok {
		// "Member Function tally()" above "bool tally();": a heading
		// that ends with the call its next line declares.
		if f := strings.Fields(spans[i].Text); strings.HasSuffix(strings.TrimSpace(spans[i].Text), "()") && len(f) > 1 && len(f) <= 4 && callNameRe.MatchString(f[len(f)-1]) &&
			declares(spans[i+1].Text, strings.TrimSuffix(f[len(f)-1], "()")) {
			return f[len(f)-1], true
		}
	}
	if ok && declares(spans[i+1].Text, strings.TrimSuffix(name, "()")) {
		// "t_timeout_add ()" above "guint t_timeout_add (guint
		// interval, …);": the heading of an entry whose declaration
		// follows it, wherever the entry before ended.
		return name, true
	}
	if nf, _ := utf8.DecodeRuneInString(strings.TrimSpace(spans[i+1].Text)); !unicode.IsUpper(nf) {
		return "", false
	}
	if !ok || i == 0 {
		return name, ok
	}
	prev := strings.TrimSpace(spans[i-1].Text)
	last, _ := utf8.DecodeLastRuneInString(prev)
	return name, strings.ContainsRune(".!?)", last) || isHeading(body, spans[i-1])
}

// minRecurring is how often a heading must recur on a page to title a
// part of each entry rather than a section.
const minRecurring = 3

// recurringHeadings returns the headings of body (folded) that recur on
// it at least minRecurring times: the same subheading under each entry
// of a reference page.
func recurringHeadings(body string, spans []text.Span) map[string]bool {
	n := map[string]int{}
	for _, sp := range spans {
		if isHeading(body, sp) {
			n[text.Fold(text.OneLine(sp.Text))]++
		}
	}
	out := map[string]bool{}
	for h, c := range n {
		if c >= minRecurring {
			out[h] = true
		}
	}
	return out
}

// syntaxHeading returns the name a heading line gives as a directive's
// syntax: an identifier with a capital inside or a separator
// (identifierRe), not in capitals alone, then the form of its argument
// in one to three words of lower case, figures or brackets ("TallyLimit
// number", "TallyLevel debug2", "Tally_Mode {on|off}"), not a title's
// words ("OpenTally Support").
func syntaxHeading(h string) (string, bool) {
	f := strings.Fields(h)
	if len(f) < 2 || len(f) > 4 || !identifierRe.MatchString(f[0]) || isCapitalsWord(f[0]) {
		return "", false // "TALLY is …": a name in capitals is a product's or an acronym
	}
	for _, w := range f[1:] {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(r) {
			return "", false
		}
	}
	return f[0], true
}

// syntaxPage reports whether the page has heading lines that give the
// syntax of minRecurring names or more (syntaxHeading): a reference page
// of such entries. *count caches syntaxHeadings; -1 until counted.
func syntaxPage(count *int, body string, spans []text.Span) bool {
	if *count < 0 {
		*count = syntaxHeadings(body, spans)
	}
	return *count >= minRecurring
}

// syntaxHeadings counts the distinct names of the page's heading lines
// that give a syntax (syntaxHeading).
func syntaxHeadings(body string, spans []text.Span) int {
	names := map[string]bool{}
	for _, sp := range spans {
		if isHeading(body, sp) {
			if n, ok := syntaxHeading(text.OneLine(sp.Text)); ok {
				names[n] = true
			}
		}
	}
	return len(names)
}

// declares reports whether t, the line below a signature heading,
// declares the function name: its name called with parameters after a
// word or more of type ("guint t_timeout_add (guint interval, …").
func declares(t, name string) bool {
	k := strings.Index(t, name)
	if k <= 0 || strings.TrimSpace(t[:k]) == "" {
		return false
	}
	if r, _ := utf8.DecodeLastRuneInString(t[:k]); !unicode.IsSpace(r) && r != '*' {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(t[k+len(name):], " \t\n"), "(")
}

// signatureRe matches a function's signature written as a heading: a
// name, qualified or not, then its parameters in parentheses, optional
// ones in brackets ("tally.scan (s, sep [, keep [, raw]])").
// A value in parentheses ("spool_size_limit (default: 10240000)") is
// no parameter list.
var signatureRe = regexp.MustCompile(`^[\pL_][\pL\pN_]*(?:[.:][\pL_][\pL\pN_]*)*\s*\((?:[\pL_\[.·…*&][^():=]*)?\)$`)

// signatureName returns the name of the function whose signature line t
// is, written as a call ("tally.scan()"), and whether it is one.
func signatureName(t string) (string, bool) {
	t = strings.TrimSpace(t)
	if !signatureRe.MatchString(t) {
		return "", false
	}
	name, params, _ := strings.Cut(t, "(")
	for _, part := range strings.Split(strings.Trim(params, ")"), ",") {
		// Each parameter is a name, with its type at most ("String
		// str"): "Tally (the counting tool)" glosses a name, and a
		// call with values ("scan (s, 1.5)") is an example.
		part = strings.Trim(part, "[] ")
		if len(strings.Fields(part)) > 2 {
			return "", false
		}
		if r, _ := utf8.DecodeRuneInString(part); part != "" && !unicode.IsLetter(r) && !strings.ContainsRune("_.…·*&", r) {
			return "", false
		}
	}
	return strings.TrimSpace(name) + "()", true
}

// callNameRe matches a name written as a call without arguments.
var callNameRe = regexp.MustCompile(`^[\pL_][\pL\pN_]*\(\)$`)

// declarationRe matches a member declared as its reference's heading, in
// the form of a typed language: tags in brackets, the return type, the
// name qualified by its class, the parameters with their types and
// default values, the qualifiers after ("[virtual] bool
// Tally::waitForIt(int msecs = 300) const"); the parameters may hold a
// call as a default ("const Name &n = Name()"). The name is written
// against its parenthesis, as code: "Type of file (first character)"
// is a heading of prose with a gloss.
var declarationRe = regexp.MustCompile(`^(?:\[[\pL ]+\]\s*)*((?:[\pL_][\pL\pN_:<>,]*[\s*&]+)*)((?:[\pL_][\pL\pN_]*::)*~?[\pL_][\pL\pN_]*)\(((?:[^()]|\([^()]*\))*)\)(?:\s*(?:const|override|noexcept|final|volatile|&{1,2}|=\s*0|=\s*default|=\s*delete))*$`)

// propertyRe matches a typed member written as its heading, name and
// type apart by a colon between spaces ("maxSize : int").
var propertyRe = regexp.MustCompile(`^([\pL_][\pL\pN_]*) : ([\pL_][\pL\pN_:<>]*)(?:\s*[*&])?$`)

// declarationLabel returns the label of the entry a declaration heading
// t opens (declarationRe, propertyRe), and whether t is one. A function
// is labelled with its name as a call ("waitForIt()"), or, when a
// parameter has a default value, with its name and parameters as the
// page wrote them ("waitForIt(int msecs = 300)"): the default is a
// statement about the function a quote must keep. A declaration needs a
// type and a name in each parameter, and either a default value or the
// class before its name with a return type (or the class's own name: a
// constructor), so a call written as an example is none.
func declarationLabel(t string) (string, bool) {
	if !strings.Contains(t, "(") && !strings.Contains(t, " : ") {
		return "", false // most lines: no parameters and no type
	}
	t = text.OneLine(strings.TrimSpace(t))
	if m := propertyRe.FindStringSubmatch(t); m != nil && !isCapitalsWord(m[2]) {
		// "Required : NO" is a row of a box, not a property.
		return m[1], true
	}
	m := declarationRe.FindStringSubmatch(t)
	if m == nil || strings.Contains(m[3], ";") {
		return "", false // "for(int i = 0; i < n; i++)" is a loop
	}
	name := m[2]
	if k := strings.LastIndex(name, "::"); k >= 0 {
		name = name[k+2:]
	}
	defaults := false
	if params := strings.TrimSpace(m[3]); params != "" && params != "void" {
		for _, part := range splitParams(params) {
			decl, _, hasDefault := strings.Cut(part, "=")
			decl = strings.TrimSpace(decl)
			if decl == "..." {
				continue
			}
			// "int msecs", "const Name &n", "char *buf": a type, then
			// the parameter's name.
			f := strings.Fields(decl)
			if len(f) < 2 && !strings.ContainsAny(decl, "*&") || !paramNameRe.MatchString(f[len(f)-1]) {
				return "", false
			}
			defaults = defaults || hasDefault
		}
	}
	switch {
	case defaults:
		return name + "(" + strings.TrimSpace(m[3]) + ")", true
	case strings.Contains(m[2], "::") && (strings.TrimSpace(m[1]) != "" || strings.HasSuffix(m[2], strings.TrimPrefix(name, "~")+"::"+name)):
		// "void Tally::reset()", "Tally::Tally()", "Tally::~Tally()";
		// "io::stdin()" alone is a call.
		return name + "()", true
	}
	// A line that ends with a call ("Invalid tally_free()") may be a
	// heading of prose: only a class's name or a default value says
	// it is a declaration.
	return "", false
}

// paramNameRe matches the last word of a parameter's declaration: its
// name, after the marks of a pointer or reference.
var paramNameRe = regexp.MustCompile(`^[*&]*[\pL_][\pL\pN_]*(?:\[\d*\])?$`)

// splitParams splits a parameter list at the commas outside parentheses
// and angle brackets.
func splitParams(s string) []string {
	var out []string
	depth, start := 0, 0
	for k, r := range s {
		switch r {
		case '(', '<':
			depth++
		case ')', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:k])
				start = k + 1
			}
		}
	}
	return append(out, s[start:])
}

// isLabel reports whether span sp of body names an option or setting that
// the prose after it describes: alone on its line, at most four words, no
// end punctuation, written like code (lower case, flags, identifiers).
func isLabel(body string, sp, next text.Span) bool {
	if len(sp.Text) > 80 {
		return false
	}
	t := text.OneLine(sp.Text)
	if len(t) > 60 || len(strings.Fields(t)) > 4 || !aloneOnLine(body, sp) || !startsLine(body, next) || !namesSomething(t) || valueLine(t) {
		// "<number> Default: 300000" states a value; it names nothing.
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	first, _ := utf8.DecodeRuneInString(t)
	if strings.ContainsRune(".!?:;,", last) || unicode.IsUpper(first) && !strings.ContainsAny(t, "_-=.:") {
		return false
	}
	nf, _ := utf8.DecodeRuneInString(next.Text)
	nl, _ := utf8.DecodeLastRuneInString(strings.TrimSpace(next.Text))
	return unicode.IsUpper(nf) && strings.ContainsRune(".!", nl) && len(strings.Fields(next.Text)) >= 2
}

// typeMarkRe matches the type marks a parameter's line opens with:
// "<number>", "<string> | <null>".
var typeMarkRe = regexp.MustCompile(`^(?:<[^<>]+>\s*(?:\|\s*)?)+`)

// valueLine reports whether a line states a value: it gives one
// outright, or after its type marks is a line of a key/value box
// ("<number> Default: 300000").
func valueLine(t string) bool {
	return givesValue(t) || isBoxLine(typeMarkRe.ReplaceAllString(t, ""))
}

// namesSomething reports whether a line can be a name: it holds a letter.
// The "}" that closes a code listing stands alone on its line above
// prose too, and labels nothing; nor does an example of what a call
// returns ("Strings.pad("ab", 4) = "ab  "").
func namesSomething(t string) bool {
	return strings.ContainsFunc(t, unicode.IsLetter) && !callResultRe.MatchString(t)
}

// callResultRe matches a call shown with its result.
var callResultRe = regexp.MustCompile(`\)\s*(?:==?|->|→)\s*\S`)

// memberNameRe matches a member's name as an API reference writes it
// alone on its line above the member's declaration.
var memberNameRe = regexp.MustCompile(`^[\pL_$][\pL\pN_$]*$`)

// declaredName returns the name spans[i] gives, when it stands alone on
// its line above the declaration that names it as a function
// ("toCount" / "public static int toCount(String s)").
func declaredName(body string, spans []text.Span, i int) (string, bool) {
	if i+1 >= len(spans) || !aloneOnLine(body, spans[i]) || !aloneOnLine(body, spans[i+1]) {
		return "", false
	}
	name := text.OneLine(spans[i].Text)
	decl := text.OneLine(spans[i+1].Text)
	if !memberNameRe.MatchString(name) || len(decl) > 300 || strings.HasSuffix(decl, ".") {
		return "", false
	}
	// The call follows at once, after white space or a qualifier's dot
	// (declares, below a signature heading, also takes a pointer's star
	// and a space before the parenthesis: here that would make a C
	// prototype's return type the member above it).
	k := strings.Index(decl, name+"(")
	if k < 0 {
		return "", false
	}
	if k > 0 {
		if r, _ := utf8.DecodeLastRuneInString(decl[:k]); !unicode.IsSpace(r) && r != '.' {
			return "", false
		}
	}
	return name, true
}

// isTermLine reports whether span sp of body is a term written like code
// alone on its line, as isLabel wants of its first span: "--sort" above
// "--no-sort" above their description.
func isTermLine(body string, sp text.Span) bool {
	t := text.OneLine(sp.Text)
	if len(t) > 60 || len(strings.Fields(t)) > 4 || !aloneOnLine(body, sp) || !namesSomething(t) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(t)
	first, _ := utf8.DecodeRuneInString(t)
	return !strings.ContainsRune(".!?:;,", last) && (first == '-' || !unicode.IsUpper(first) && strings.ContainsAny(t, "_-=.:"))
}

// inlineLabel splits a paragraph that opens with the option or setting it
// describes ("-v, --verbose: Use verbose output.") into that term and the
// rest. The term is written like code, as isLabel wants, and the rest reads
// like a sentence.
func inlineLabel(s string) (term, rest string, ok bool) {
	i := outerColon(s)
	if i <= 0 || i > 60 {
		return "", "", false
	}
	term, rest = s[:i], s[i+2:]
	first, _ := utf8.DecodeRuneInString(term)
	last, _ := utf8.DecodeLastRuneInString(term)
	if len(strings.Fields(term)) > 4 || strings.ContainsRune(".!?;,", last) ||
		unicode.IsUpper(first) && !strings.ContainsAny(term, "_-=.:") && !namesAliases(term) {
		return "", "", false
	}
	rf, _ := utf8.DecodeRuneInString(rest)
	// A term written as code ("'journal' 'jn'", "max_size") may open a
	// definition that starts with its type ("number (default 200) …").
	if !unicode.IsUpper(rf) && !(first == '-' || strings.ContainsAny(term, "_='`")) || len(strings.Fields(rest)) < 3 {
		return "", "", false
	}
	return term, rest, true
}

// writtenAsCode reports whether a definition's term is a name written as
// code — one word joined by underscores ("DOT_IMAGE_FORMAT",
// "max_clients") or a flag ("--verbose") — the name of an entry, never a
// word of prose ("Note").
func writtenAsCode(term string) bool {
	return !strings.ContainsAny(term, " \t") && (strings.Contains(strings.Trim(term, "_"), "_") || strings.HasPrefix(term, "-") && len(term) > 1)
}

// termAheadSpans bounds how far termAhead looks.
const termAheadSpans = 20

// termAhead reports whether another definition whose term is written as
// code opens a paragraph after spans[i], before any heading: the
// paragraphs between two such terms are the first one's description,
// while those after the last are the section's prose.
func termAhead(body string, spans []text.Span, i int) bool {
	for k := i + 1; k < len(spans) && k <= i+termAheadSpans; k++ {
		if isHeading(body, spans[k]) {
			return false
		}
		if term, _, ok := inlineLabel(text.OneLine(spans[k].Text)); ok && startsLine(body, spans[k]) && writtenAsCode(term) {
			return true
		}
	}
	return false
}

// flagAheadSpans bounds how far flagAhead looks: an option's description
// may run to dozens of sentences.
const flagAheadSpans = 120

// flagAhead reports whether another option's name stands as a label (a
// flag alone on its line above its description) after spans[i], before
// any heading: the paragraphs between two such labels describe the first.
func flagAhead(body string, spans []text.Span, i int) bool {
	for k := i + 1; k+1 < len(spans) && k <= i+flagAheadSpans; k++ {
		if strings.HasPrefix(text.OneLine(spans[k].Text), "-") && isLabel(body, spans[k], spans[k+1]) {
			return true
		}
		if isHeading(body, spans[k]) {
			return false
		}
	}
	return false
}

// namesAliases reports whether term lists one thing's names, each a
// single word ("TP, tp", "I, i"): an option's term, not prose ("Note").
func namesAliases(term string) bool {
	names := strings.Split(term, ", ")
	if len(names) < 2 {
		return false
	}
	for _, n := range names {
		if len(strings.Fields(n)) != 1 {
			return false
		}
	}
	return true
}

// outerColon returns the index of the first ": " of s outside brackets,
// or -1: "--freelist-vol=<number> [default: 20000000]: When …" is labelled
// by all of its term, default and all.
func outerColon(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(', '<', '{':
			depth++
		case ']', ')', '>', '}':
			depth = max(0, depth-1)
		case ':':
			if depth == 0 && i+1 < len(s) && s[i+1] == ' ' {
				return i
			}
		}
	}
	return -1
}

// definitionRow reports whether spans[i] is one of two or more lines in
// a row, each alone on its line, that open with the same word and define
// a term after ": " ("TallyMode Full: Tally writes …" over "TallyMode
// Terse: Tally writes …"): a definition list written one term a line.
func definitionRow(body string, spans []text.Span, i int) bool {
	first := func(k int) string {
		if k < 0 || k >= len(spans) || !aloneOnLine(body, spans[k]) {
			return ""
		}
		t := text.OneLine(spans[k].Text)
		c := outerColon(t)
		if c <= 0 || len(strings.Fields(t[c+2:])) < 2 {
			return ""
		}
		w, _, _ := strings.Cut(t[:c], " ")
		return w
	}
	w := first(i)
	return w != "" && (first(i-1) == w || first(i+1) == w)
}

// keyTermRe matches a configuration key in lower case ("name",
// "lfc-interval", "max_row.errors"): a definition list's term when its
// description opens in lower case too ("lfc-interval: specifies …") and a
// neighbouring paragraph is written the same way.
var keyTermRe = regexp.MustCompile(`^[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*$`)

// titleTermRe matches a term of one word in title case ("Requires",
// "Pre-Requires"): the fields of a definition list, when its neighbours
// are written the same way.
var titleTermRe = regexp.MustCompile(`^\p{Lu}\p{Ll}+(?:-\p{Lu}?\p{Ll}+)*$`)

// capsLabelled reports whether spans[i] opens a paragraph of a definition
// list flattened onto lines ("ZDOTDIR: The directory to search …"): a
// name in capitals, a colon, a sentence — or a key in lower case and a
// description in lower case ("lfc-interval: specifies …") — with a
// neighbouring paragraph written the same way, so that a lone "NOTE: …"
// is no definition.
func capsLabelled(body string, spans []text.Span, i int) bool {
	opens := func(k int) bool {
		if k < 0 || k >= len(spans) || !startsLine(body, spans[k]) {
			return false
		}
		s := text.OneLine(spans[k].Text)
		term, rest, found := strings.Cut(s, ": ")
		rf, _ := utf8.DecodeRuneInString(rest)
		name := termName(term)
		if found && keyTermRe.MatchString(name) && unicode.IsLower(rf) && len(strings.Fields(rest)) >= 3 {
			return true // "lfc-interval: specifies the interval …"
		}
		return found && name != "" && (isCapitalsWord(name) || isTechnical(name) || titleTermRe.MatchString(name)) &&
			unicode.IsUpper(rf) && len(strings.Fields(rest)) >= 3
	}
	if !opens(i) {
		return false
	}
	s := text.OneLine(spans[i].Text)
	if term, _, _ := strings.Cut(s, ": "); !isCapitalsWord(termName(term)) && !titleTermRe.MatchString(termName(term)) && !keyTermRe.MatchString(termName(term)) {
		return false
	}
	// The neighbouring paragraphs: the two nearest spans before and after
	// that begin a line (an entry may run on in a paragraph of its own).
	for _, step := range []int{-1, 1} {
		seen := 0
		for k := i + step; k >= 0 && k < len(spans) && abs(k-i) <= 16 && seen < 2; k += step {
			if isHeading(body, spans[k]) {
				break // another section's list
			}
			if startsLine(body, spans[k]) {
				if opens(k) {
					return true
				}
				seen++
			}
		}
	}
	return false
}

// maxTermMark bounds a mark after a term's name: a flag, a type or a
// colour ("(-g)", "<S>", "(yellow)").
const maxTermMark = 10

// termName is the name a definition's term gives, without the marks
// after it ("HISTSIZE <S>", "HIST_IGNORE_SPACE (-g)", "Warn (yellow)" →
// the first word), or "" when the term is more than a name and its marks.
func termName(term string) string {
	f := strings.Fields(term)
	if len(f) == 0 || len(f) > 4 {
		return ""
	}
	for _, m := range f[1:] {
		if len(m) > maxTermMark || !(strings.HasPrefix(m, "<") && strings.HasSuffix(m, ">") || strings.HasPrefix(m, "(") && strings.HasSuffix(m, ")")) {
			return ""
		}
	}
	return f[0]
}

// parameterRowRe matches a parameter summary's row as a sentence: a name
// written as code, its default in parentheses, its description.
var parameterRowRe = regexp.MustCompile(`^([a-z][a-z0-9]*(?:[_.][a-z0-9]+)+ \([^()]{1,40}\)) (\p{Lu}\S*(?:\s+\S+){2,}.*)$`)

// rowStartRe finds where a parameter row begins inside a span the
// sentence splitter did not cut, its name being written in lower case:
// "… the null sender address. recipient_delimiter (empty) The set …".
var rowStartRe = regexp.MustCompile(`[.):] ([a-z][a-z0-9]*(?:[_.][a-z0-9]+)+ \([^()]{1,40}\) \p{Lu})`)

// splitParameterRows cuts spans at the start of each parameter row run
// into them.
func splitParameterRows(spans []text.Span) []text.Span {
	var out []text.Span
	for _, sp := range spans {
		for strings.Contains(sp.Text, ") ") {
			m := rowStartRe.FindStringSubmatchIndex(sp.Text)
			if m == nil {
				break
			}
			cut := m[2]
			head := strings.TrimRight(sp.Text[:cut], " ")
			out = append(out, text.Span{Text: head, Start: sp.Start, End: sp.Start + len(head)})
			sp = text.Span{Text: sp.Text[cut:], Start: sp.Start + cut, End: sp.End}
		}
		out = append(out, sp)
	}
	return out
}

// joinTableRows joins the sentences the splitter found inside one line of
// a table ("emerg | Emergencies - system is unusable. | \"Child cannot
// open lock file. Exiting\""): a row is one statement, cut at its cells'
// full stops it reads as fragments.
func joinTableRows(body string, spans []text.Span) []text.Span {
	var out []text.Span
	for _, sp := range spans {
		if n := len(out); n > 0 {
			prev := out[n-1]
			gap := body[prev.End:sp.Start]
			if strings.TrimSpace(gap) == "" && !strings.Contains(gap, "\n") && (strings.Contains(prev.Text, " | ") || strings.HasPrefix(sp.Text, "| ")) {
				out[n-1] = text.Span{Text: body[prev.Start:sp.End], Start: prev.Start, End: sp.End}
				continue
			}
		}
		out = append(out, sp)
	}
	return out
}

// parameterRow splits such a row into its term with the default
// ("recipient_delimiter (empty)") and its description.
func parameterRow(s string) (term, rest string, ok bool) {
	m := parameterRowRe.FindStringSubmatch(s)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// isTermSentence reports a "sentence" that is only a name, written as
// code or in capitals, with a full stop: "REAL.", "WAL.", "sha256.".
func isTermSentence(s string) bool {
	t, ok := strings.CutSuffix(s, ".")
	words := strings.Fields(t)
	if !ok || len(words) == 0 || len(words) > 3 {
		return false
	}
	for _, w := range words {
		if !isCapitalsWord(w) && !isTechnical(w) && !strings.ContainsAny(w, "_") {
			return false
		}
	}
	return true
}

// isCommand reports whether span sp of body is a line of code or a
// command: alone on its line, short, and code-like or not prose (no end
// punctuation, starting in lower case or with a symbol).
func isCommand(body string, sp text.Span) bool {
	t := commandOf(text.OneLine(sp.Text))
	if len(t) > maxCodeBytes || len(strings.Fields(t)) > 15 || !aloneOnLine(body, sp) {
		return false
	}
	if dangling(t) {
		return false // a sentence cut by the page's markup, not a command
	}
	if codeLike(t) {
		return true
	}
	words := text.Words(t)
	stops := 0
	for _, w := range words {
		if w.Stop {
			stops++
		}
	}
	if len(words) > 2 && stops*3 >= len(words) {
		return false // prose
	}
	first, _ := utf8.DecodeRuneInString(t)
	last, _ := utf8.DecodeLastRuneInString(t)
	return !strings.ContainsRune(".!?", last) && !unicode.IsUpper(first)
}

// commandOf cuts a shell transcript flattened onto one line ("$ cargo
// check Checking hello v0.1.0 … Finished …") down to its command.
func commandOf(t string) string {
	if !strings.HasPrefix(t, "$ ") {
		return t
	}
	f := strings.Fields(t)
	for i := 2; i < len(f); i++ {
		if r, _ := utf8.DecodeRuneInString(f[i]); unicode.IsUpper(r) || f[i] == "$" {
			return strings.Join(f[:i], " ")
		}
	}
	return t
}

// codeBlock returns the command that begins at spans[j] with the lines
// right below it (no blank line between, as a code block is laid out),
// joined into one line, and the index of its last span: "CREATE INDEX …
// ON access_log (client_ip)" / "WHERE NOT (client_ip > …" is one
// statement, and its first line alone says something else.
func codeBlock(body string, spans []text.Span, j int) (string, int) {
	code := commandOf(text.OneLine(spans[j].Text))
	last := j
	for k := j + 1; k < len(spans); k++ {
		gap := body[spans[k-1].End:spans[k].Start]
		line := text.OneLine(spans[k].Text)
		if strings.Count(gap, "\n") != 1 || strings.TrimSpace(gap) != "" || !aloneOnLine(body, spans[k]) ||
			len(code)+1+len(line) > maxCodeBytes {
			break
		}
		code, last = code+" "+line, k
	}
	return code, last
}

// startsLine reports whether span sp of body begins a line.
func startsLine(body string, sp text.Span) bool {
	before := strings.TrimRight(body[:sp.Start], " \t")
	return before == "" || strings.HasSuffix(before, "\n")
}

// endsLine reports whether span sp of body is the last on its line.
func endsLine(body string, sp text.Span) bool {
	after := strings.TrimLeft(body[sp.End:], " \t")
	return after == "" || strings.HasPrefix(after, "\n")
}

// aloneOnLine reports whether span sp fills its line(s) of body.
func aloneOnLine(body string, sp text.Span) bool {
	return startsLine(body, sp) && endsLine(body, sp)
}

// manRefRe matches a reference to a manual page, "verify(8)" or
// "crontab(5)": the digit is the manual's section, not a figure.
var manRefRe = regexp.MustCompile(`([\w.-])\(\d[a-z]{0,3}\)`)

// statesFigure reports whether s, whose tokens are toks, states a figure
// or a date: a number other than a manual page's section.
func statesFigure(s string, toks []string) bool {
	if !hasNumber(toks) {
		return false
	}
	if manRefRe.MatchString(s) {
		return hasNumber(text.Tokens(manRefRe.ReplaceAllString(s, "$1")))
	}
	return true
}

func hasNumber(toks []string) bool {
	for _, t := range toks {
		if text.IsNumberToken(t) {
			return true
		}
	}
	return false
}

// flagPrefix marks a flag's token ("flag-O"); the tokenizer never makes
// a token with a hyphen, so these stand apart from words.
const flagPrefix = "flag"

// flagRe matches a command-line flag written as such: "-O", "--offline".
var flagRe = regexp.MustCompile(`(?:^|[\s(,])(--?[A-Za-z][A-Za-z0-9-]*)`)

// paragraphSpan returns the range [lo, hi) of the sentences of sentence i's
// paragraph.
func (p *pool) paragraphSpan(i int) (lo, hi int) {
	s := &p.sents[i]
	lo = i
	for lo > 0 && !p.sents[lo].para && p.sents[lo-1].src == s.src && p.sents[lo-1].section == s.section {
		lo--
	}
	hi = i + 1
	for hi < len(p.sents) && !p.sents[hi].para && p.sents[hi].src == s.src && p.sents[hi].section == s.section {
		hi++
	}
	return lo, hi
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// commandTokens are the tokens of the names written as code in a page's
// title ("git-config(1)" → git, config), figures left out: the command a
// manual page documents.
func commandTokens(title string) []string {
	var out []string
	for _, w := range strings.Fields(title) {
		if w = strings.Trim(w, ",:;"); !isTechnical(w) && !strings.Contains(w, "-") {
			continue
		}
		for _, t := range text.Tokens(w) {
			if !unicode.IsDigit([]rune(t)[0]) {
				out = append(out, t)
			}
		}
	}
	return out
}

// boxKey names an entry of one page: its page and its label.
type boxKey struct {
	src   int
	label string
}

// boxLines returns the box lines of the entry label of page src, in page
// order, from an index built over the pool on the first call.
func (p *pool) boxLines(src int, label string) []int {
	if p.boxes == nil {
		p.boxes = map[boxKey][]int{}
		for j := range p.sents {
			if b := &p.sents[j]; b.box {
				k := boxKey{b.src, b.label}
				p.boxes[k] = append(p.boxes[k], j)
			}
		}
	}
	return p.boxes[boxKey{src, label}]
}

// inReadingOrder groups picks by source (sources in the order of their
// best pick) and orders each group as the source does, so that quoted
// sentences read in the order they were written.
func (p *pool) inReadingOrder(picks []int) []int {
	rank := map[int]int{}
	for n, i := range picks {
		if _, ok := rank[p.sents[i].src]; !ok {
			rank[p.sents[i].src] = n
		}
	}
	out := append([]int(nil), picks...)
	sort.SliceStable(out, func(a, b int) bool {
		sa, sb := p.sents[out[a]], p.sents[out[b]]
		if sa.src != sb.src {
			return rank[sa.src] < rank[sb.src]
		}
		return sa.pos < sb.pos
	})
	return out
}

// justBefore returns the sentence right before i on its page, -1 when
// there is none.
func (p *pool) justBefore(i int) int {
	if i > 0 && p.sents[i-1].src == p.sents[i].src && p.sents[i-1].pos == p.sents[i].pos-1 {
		return i - 1
	}
	return -1
}

// pronounOpenRe opens a sentence whose subject is a pronoun for what the
// sentence before it is about: "They must be at most forty characters
// long.", "It is ignored unless …", "Its default is 5."
var pronounOpenRe = regexp.MustCompile(`^(?:(?:It|They|These|Both)\s+(?:\w+\s+)?(?:is|are|was|were|can|cannot|may|must|should|shall|will|has|have|does|do|need|needs)\b|(?:Its|Their)\s+\w)`)

// bareValueRe opens a sentence that states a value without saying of
// what: "The default value is 10.", "Its maximum is 64."
var bareValueRe = regexp.MustCompile(`^(?:The|Its|Their)\s+(?:default|maximum|minimum)(?:\s+value)?\s+(?:is|are|was|were)\b`)

// valuesOfTheSentenceBefore reads a sentence that states a value without
// saying of what ("The default value is “tally-host”.") under the words of
// the sentences before it in its paragraph, or in the paragraph before
// it under the same heading ("The prefix used in the generation of a
// name is specified by the name-prefix parameter."), as under a
// heading, in the ranking and as evidence.
func (p *pool) valuesOfTheSentenceBefore() {
	for i := 1; i < len(p.sents); i++ {
		s, prev := &p.sents[i], &p.sents[i-1]
		if prev.src != s.src || prev.pos != s.pos-1 || prev.section != s.section || s.label != "" || !bareValueRe.MatchString(s.text) {
			continue // (an entry's label says what its value is of)
		}
		// The sentences before it in its paragraph, to the one that
		// opens it ("Specifies how much the journal file records. The
		// value "none" stops all recording …"); for a value
		// that opens a paragraph of its own, the paragraph before it.
		var before []string
		for j := i - 1; j >= 0 && p.sents[j].src == s.src && p.sents[j].pos == p.sents[j+1].pos-1 && p.sents[j].section == s.section; j-- {
			before = append(before, p.sents[j].toks...)
			if p.sents[j].para {
				break
			}
		}
		s.readUnder(before)
	}
}

// subjectEndRe finds the verb that ends a sentence's subject: the first
// auxiliary or copula ("Record titles … must consist …").
var subjectEndRe = regexp.MustCompile(`\s(?:is|are|was|were|can|cannot|may|must|should|shall|will|has|have|does|do)\s`)

// maxSubjectWords bounds the subject a pronoun takes over: a sentence
// whose first verb comes later opens on a clause, not a subject.
const maxSubjectWords = 12

// resolvePronouns reads a sentence that opens on a pronoun ("They must be
// at most forty characters long.") under the subject of the sentence
// before it in the same paragraph ("Record titles … must consist …"), as
// under a heading: its words count for it, at a heading's weight, as
// evidence (the ranking's index is built without them). A sentence with
// a pronoun of its own passes its subject on.
func (p *pool) resolvePronouns() {
	var subject []string // the subject of the sentence before, as tokens
	for i := range p.sents {
		s := &p.sents[i]
		prev := i > 0 && p.sents[i-1].src == s.src && p.sents[i-1].pos == s.pos-1 && !s.para
		if !prev {
			subject = nil
		}
		if pronounOpenRe.MatchString(s.text) {
			if prev && len(subject) > 0 {
				s.readUnder(subject)
			}
			continue // its subject is the one before
		}
		subject = nil
		if m := subjectEndRe.FindStringIndex(s.text); m != nil && len(strings.Fields(s.text[:m[0]])) <= maxSubjectWords {
			subject = text.Tokens(s.text[:m[0]])
		}
	}
}

// acronymRe finds an acronym a page defines after the words it stands
// for: "Journal file compaction (JFC)", "the Domain Name System (DNS)".
var acronymRe = regexp.MustCompile(`((?:[\pL][\pL-]*\s+){1,8})\((\p{Lu}[\p{Lu}\d]{1,7})\)`)

// definedAcronyms returns the acronyms body defines, lower case, each
// with the tokens of the words it stands for: the last words before it
// whose initials spell it ("journal file compaction" for JFC).
func definedAcronyms(body string, into map[string][]string) {
	for _, m := range acronymRe.FindAllStringSubmatch(body, -1) {
		acr := strings.ToLower(m[2])
		letters := strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) {
				return r
			}
			return -1
		}, acr)
		words := strings.Fields(m[1])
		if len(letters) < 2 || len(words) < len(letters) {
			continue
		}
		words = words[len(words)-len(letters):]
		initials := ""
		for _, w := range words {
			r, _ := utf8.DecodeRuneInString(w)
			initials += strings.ToLower(string(r))
		}
		if initials != letters {
			continue
		}
		if _, ok := into[acr]; !ok {
			into[acr] = text.Tokens(strings.Join(words, " "))
		}
	}
}

// expandAcronyms reads a sentence that writes an acronym a page read
// defines ("The default value of the jfc-interval is 3600." where a page
// says "Journal file compaction (JFC)") under the words it stands for, as
// under a heading: they count for it in the ranking and as evidence.
func (p *pool) expandAcronyms(sources []research.Source) {
	defined := map[string][]string{}
	for _, src := range sources {
		definedAcronyms(text.ClipBytes(src.Text, maxSourceBytes), defined)
	}
	if len(defined) == 0 {
		return
	}
	for i := range p.sents {
		s := &p.sents[i]
		var add []string
		for _, t := range s.toks {
			if exp, ok := defined[t]; ok {
				add = append(add, exp...)
			}
		}
		s.readUnder(add)
	}
}

// readUnder adds words to what sentence s is read under, as heading words
// are (its own words aside). Sentences share their heading's set, so s
// gets a set of its own.
func (s *sentence) readUnder(words []string) {
	var head text.Set
	for _, t := range words {
		if s.set[t] || s.head[t] {
			continue
		}
		if head == nil {
			head = text.Set(maps.Clone(s.head))
		}
		head[t] = true
	}
	if head != nil {
		s.head = head
	}
}

// helpRow splits a span of a program's help output, its flags on one line
// and what they do on the next ("-p, --no-promiscuous-mode" over "don't
// capture in promiscuous mode"), into the flags and the description.
func helpRow(span string) (term, rest string, ok bool) {
	first, second, found := strings.Cut(strings.TrimSpace(span), "\n")
	first, second = strings.TrimSpace(first), text.OneLine(second)
	if !found || strings.Contains(second, "\n") || len(first) > 80 || len(strings.Fields(second)) < 2 {
		return "", "", false
	}
	for _, f := range strings.Split(first, ",") {
		if !helpFlagRe.MatchString(strings.TrimSpace(f)) {
			return "", "", false
		}
	}
	return first, second, true
}

// helpFlagRe matches one flag of a help line with its argument: "-B
// <buffer size>", "--linktype=TYPE", "-b <opt.> ...".
var helpFlagRe = regexp.MustCompile(`^--?[\p{L}\d?][\p{L}\d_-]*(?:[ =](?:<[^<>]+>|\[[^\[\]]+\]|[A-Z][A-Z_]*))?(?: \.\.\.)?$`)

// maxLeadInWords bounds the words of a line that sets where the
// paragraphs below it hold ("On Unix-like systems:").
const maxLeadInWords = 5

// isSettingLeadIn reports whether span sp is a short line of its own,
// opening with a preposition and ending in a colon, that opens a
// paragraph of prose below it: "On Windows:" over "The personal folder
// is …". Each paragraph after it holds
// under its words, as under a sub-heading.
func isSettingLeadIn(body string, sp, next text.Span) bool {
	t := text.OneLine(sp.Text)
	if !strings.HasSuffix(t, ":") || len(strings.Fields(t)) > maxLeadInWords || !aloneOnLine(body, sp) || !startsLine(body, next) {
		return false
	}
	ws := text.Words(t)
	if len(ws) < 2 || !ws[0].Stop || articles[ws[0].Lower] || followingRe.MatchString(t) {
		return false // "The following rules apply:" announces a list
	}
	first, _ := utf8.DecodeRuneInString(t)
	nf, _ := utf8.DecodeRuneInString(next.Text)
	return unicode.IsUpper(first) && unicode.IsUpper(nf) && quality(text.OneLine(next.Text)) > 0
}

// articles open a noun phrase: a line that starts with one names a thing,
// not a setting ("On Windows:").
var articles = map[string]bool{"the": true, "a": true, "an": true, "this": true, "these": true, "those": true}
