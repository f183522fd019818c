package extract

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quarryhq/quarry/text"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden sentence files of testdata/sentences")

// sentenceCase is a real manual page of testdata/sentences (see its README)
// with the structures whole sentences depend on, and the sentences that
// must come out of it whole, as the page wrote them; NAME.golden.json holds
// every sentence of the page's text, reviewed by hand.
type sentenceCase struct {
	name  string
	whole []string    // sentences that must be found exactly
	apart [][2]string // texts that must never be in one sentence
}

var sentenceCorpus = []sentenceCase{
	{name: "sqlite-rowidtable", // a list after "… that", then a paragraph
		whole: []string{"A \"rowid table\" is any table in an SQLite schema that\n- is not a virtual table, and\n- is not a WITHOUT ROWID table.",
			"Most tables in a typical SQLite database schema are rowid tables."},
		apart: [][2]string{{"schema that", "Rowid tables are distinguished"}}},
	{name: "sqlite-withoutrowid", // code blocks between sentences, numbered headings
		whole: []string{"1.1. Syntax", "For example:", "CREATE TABLE IF NOT EXISTS wordcount(\nword TEXT PRIMARY KEY,\ncnt INTEGER\n) WITHOUT ROWID;",
			"As with all SQL syntax, the case of the keywords does not matter.", "SELECT cnt FROM wordcount WHERE word='xyzzy';"},
		apart: [][2]string{{"For example", "CREATE TABLE"}, {"WITHOUT ROWID;", "As with all"}, {"Optimization", "Introduction"}}},
	{name: "postgresql-runtime-config-resource", // definition lists: "term: definition"
		whole: []string{"shared_buffers (integer): Sets the amount of memory the database server uses for shared memory buffers.",
			"huge_pages (enum): Controls whether huge pages are requested for the main shared memory area.",
			"Valid values are try (the default), on, and off."},
		apart: [][2]string{{"20.4.1. Memory", "shared_buffers"}}},
	{name: "postgresql-limits", // a table: a row a sentence, its caption whole
		whole: []string{"Table K.1. PostgreSQL Limitations", "Item | Upper Limit | Comment",
			"identifier length | 63 bytes | can be increased by recompiling PostgreSQL"},
		apart: [][2]string{{"identifier length", "function arguments"}}},
	{name: "apache-core-limits", // one section per directive, each opening with a key/value box
		whole: []string{"LimitRequestBody Directive", "Syntax: LimitRequestBody bytes", "Default: LimitRequestBody 1073741824",
			"Context: server config, virtual host, directory, .htaccess",
			"This directive specifies the number of bytes that are allowed in a request body."},
		apart: [][2]string{{"LimitRequestBody Directive", "Description"}, {"1073741824", "Context"}}},
	{name: "python-ipaddress", // a numbered list after a colon, definition terms, doctest blocks
		whole: []string{"Source code: Lib/ipaddress.py",
			// Items that are several sentences each stay statements of their own.
			"The following constitutes a valid IPv4 address:", "An integer that fits into 32 bits.",
			"class ipaddress.IPv4Address(address): Construct an IPv4 address.",
			"max_prefixlen: The total number of bits in the address representation for this version: 32 for IPv4, 128 for IPv6."},
		apart: [][2]string{{"manipulation library", "Source code"}, {"Lib/ipaddress.py", "provides the capabilities"}, {"32 bits", ">>>"}}},
}

// TestSentenceCorpus extracts each page of the corpus and splits its text
// into sentences: lead-ins keep their lists, definition terms lead their
// definitions, table rows and headings stand alone, code blocks are never
// spliced into the sentences around them, and the whole list matches the
// reviewed golden file (go test -run TestSentenceCorpus -update rewrites it).
func TestSentenceCorpus(t *testing.T) {
	for _, c := range sentenceCorpus {
		t.Run(c.name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "sentences", c.name+".html"))
			if err != nil {
				t.Fatal(err)
			}
			page, err := Extract(raw, "http://127.0.0.1/manual/"+c.name+".html")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, sp := range text.Sentences(page.Text) {
				got = append(got, sp.Text)
			}
			for _, w := range c.whole {
				if !slices.Contains(got, w) {
					t.Errorf("no sentence %q", w)
				}
			}
			for _, pair := range c.apart {
				for _, s := range got {
					if strings.Contains(s, pair[0]) && strings.Contains(s, pair[1]) {
						t.Errorf("%q and %q spliced into one sentence: %q", pair[0], pair[1], s)
					}
				}
			}
			golden := filepath.Join("testdata", "sentences", c.name+".golden.json")
			if *updateGolden {
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				if err := enc.Encode(got); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				for i := range max(len(got), len(want)) {
					g, w := "", ""
					if i < len(got) {
						g = got[i]
					}
					if i < len(want) {
						w = want[i]
					}
					if g != w {
						t.Fatalf("sentence %d of %d:\n got %q\nwant %q", i+1, len(want), g, w)
					}
				}
			}
		})
	}
}
