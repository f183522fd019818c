package extract

import (
	"os"
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
