package extract

import (
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// A help file rendered into one <pre> is read as plain text: paragraphs
// at blank lines and rules, hard-wrapped lines joined, an option's line
// set out to the left as the term of the indented lines under it, the
// example after a colon on a line of its own, a table in columns as rows,
// a numbered list an item per line, and the line of anchor names above
// an entry dropped.
func TestPlainTextDocumentInPre(t *testing.T) {
	raw, err := os.ReadFile("testdata/plaintext/help.html")
	if err != nil {
		t.Fatal(err)
	}
	page, err := Extract(raw, "http://docs.test/settings.html")
	if err != nil {
		t.Fatal(err)
	}
	paras := strings.Split(strings.ReplaceAll(page.Text, "\u2028", "\n"), "\n\n")
	has := func(want string) bool {
		for _, p := range paras {
			if p == want || strings.HasPrefix(p, want) {
				return true
			}
		}
		return false
	}
	for _, want := range []string{
		"Settings change how the editor behaves. Each setting has a name and a short name, and holds a number, a string or a flag. A setting is changed with the \":set\" command, and the change lasts until the editor exits.",
		"To make a change last, put the command in your startup file:\n:set journal=500\nThe startup file is read every time the editor starts.",
		"There are three kinds of settings:\n1. Number settings, such as 'journal'\n2. String settings, such as 'theme'\n3. Flag settings, such as 'wrap'",
		"'journal' 'jn': number (default 200) global Number of changes the editor keeps in its journal. When the journal is full, the oldest change is dropped.",
		"'keeplines' 'kl': number (default 4000) global The longest line, in characters, that the editor keeps whole.",
		"Setting | kind | default | meaning\n'journal' | number | 200 | changes kept\n'keeplines' | number | 4000 | longest line kept whole",
	} {
		if !has(want) {
			t.Errorf("no paragraph %q in:\n%s", want, strings.Join(paras, "\n---\n"))
		}
	}
	for _, p := range paras {
		if strings.HasPrefix(p, "*'journal'*") || strings.Contains(p, "=====") {
			t.Errorf("anchor names or a rule kept as text: %q", p)
		}
	}
}

// A page with a short <pre> of code among its prose is no plain-text
// document, and a long <pre> of code is not prose.
func TestCodeInPreIsNoPlainTextDocument(t *testing.T) {
	article := "<html><body><article><h1>Setting up</h1>" + strings.Repeat("<p>The service reads its configuration at start. Each key sets one behaviour of the daemon, and unknown keys are reported.</p>", 12) +
		"<pre>listen = 8080\nworkers = 4\n</pre></article></body></html>"
	if _, ok := plainTextParagraphs(mustParse(t, article), 0); ok {
		t.Error("an article with a short code block is read as a plain-text document")
	}
	code := "<html><body><pre>" + strings.Repeat("func f(x int) int { return x*2 + 1 }\nvar y = map[string]int{\"a\": 1}\n", 60) + "</pre></body></html>"
	if _, ok := plainTextParagraphs(mustParse(t, code), 0); ok {
		t.Error("a page of code is read as a plain-text document")
	}
}

func mustParse(t *testing.T, s string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// A generator that writes each entry's name outside the <pre> blocks of
// its text (a keyword line between them) keeps the name as a paragraph
// of its own before the entry's text; a sentence between two blocks is
// no name, and stops the names there.
func TestEntryNamesBetweenPreBlocks(t *testing.T) {
	t.Parallel()
	keyword := func(name, arg string) string {
		return `<a class="anchor" name="` + name + `"></a><div class="keyword"><b><a href="#` + name + `">` + name +
			`</a></b> <span>&lt;` + arg + `&gt;</span></div>`
	}
	prose := "The server reads its settings from one file, a section at a time, and applies each\n" +
		"setting when the section that holds it ends. A setting given twice keeps the last value\n" +
		"it was given. Settings that take a size accept the suffixes k, m and g as well. Settings\n" +
		"that take a time accept the suffixes s, m and h, and read a bare number as milliseconds.\n"
	raw := "<html><head><title>Tallyd configuration</title></head><body><pre>" + strings.Repeat(prose, 4) + "</pre>" +
		keyword("cache.size", "number") + "<pre>Sets the size of the session cache, in blocks. It defaults to 20000.\nA block holds one session.\n</pre>" +
		keyword("cache.lifetime", "time") + keyword("cache.idle", "time") + "<pre>Sets how long a cached session stays valid. It defaults to 300 seconds.\n</pre>" +
		"<p>This paragraph between two blocks is a sentence.</p><pre>Sessions are purged when the cache is full.\n</pre></body></html>"
	page, err := Extract([]byte(raw), "http://docs.test/configuration.html")
	if err != nil {
		t.Fatal(err)
	}
	paras := strings.Split(page.Text, "\n\n")
	for _, want := range []string{"cache.size <number>", "cache.lifetime <time>", "cache.idle <time>"} {
		k := slices.Index(paras, want)
		if k < 0 || k+1 >= len(paras) || !strings.HasPrefix(paras[k+1], "Sets ") && !strings.HasPrefix(paras[k+1], "cache.idle") {
			t.Errorf("no paragraph %q before its entry's text in:\n%s", want, strings.Join(paras, "\n---\n"))
		}
	}
	if strings.Contains(page.Text, "This paragraph between two blocks") {
		t.Errorf("a sentence between two blocks is kept as a name:\n%s", page.Text)
	}
}
