package text

import (
	"reflect"
	"testing"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"simple", "The cat sat. The dog ran! Did it?", []string{"The cat sat.", "The dog ran!", "Did it?"}},
		{"title abbreviation", "Dr. Smith arrived at 5 p.m. on Monday. He left early.",
			[]string{"Dr. Smith arrived at 5 p.m. on Monday.", "He left early."}},
		{"dotted acronym mid sentence", "The U.S. Senate voted. It passed.", []string{"The U.S. Senate voted.", "It passed."}},
		{"dotted acronym at end", "He moved to the U.S. The next year he left.", []string{"He moved to the U.S.", "The next year he left."}},
		{"decimals", "The ratio rose to 3.5 in 2021. Version 1.26.8 fixed it.", []string{"The ratio rose to 3.5 in 2021.", "Version 1.26.8 fixed it."}},
		{"initials", "The books by J. K. Rowling sold well. Fans agree.", []string{"The books by J. K. Rowling sold well.", "Fans agree."}},
		{"quotes", `He said "Stop." Then he left. "Is it over?" she asked.`, []string{`He said "Stop."`, `Then he left.`, `"Is it over?" she asked.`}},
		{"e.g.", "Use a flag, e.g. Verbose mode. Done.", []string{"Use a flag, e.g. Verbose mode.", "Done."}},
		{"paragraphs", "Installation\n\nRun the installer. It takes a minute.\n\nUsage", []string{"Installation", "Run the installer.", "It takes a minute.", "Usage"}},
		{"caption numbering", "Table K.1. PostgreSQL Limitations\n\nSee Section 3.2. It helps.", []string{"Table K.1. PostgreSQL Limitations", "See Section 3.2.", "It helps."}},
		{"list numbering", "1. Install Go.\n2. Run the tests.", []string{"1. Install Go.", "2. Run the tests."}},
		{"numbered headings", "The WITHOUT ROWID Optimization\n\n1. Introduction\n\n1.1. Syntax\n\nCREATE TABLE t(\nword TEXT\n) WITHOUT ROWID;",
			[]string{"The WITHOUT ROWID Optimization", "1. Introduction", "1.1. Syntax", "CREATE TABLE t(\nword TEXT\n) WITHOUT ROWID;"}},
		{"wrapped line", "This sentence is wrapped\nover two lines. Next one.", []string{"This sentence is wrapped\nover two lines.", "Next one."}},
		{"lines are items", "First item\nSecond item", []string{"First item", "Second item"}},
		{"lower-case after period", "See fig. 3 for details. ok then.", []string{"See fig. 3 for details. ok then."}},
		{"inc at end", "He joined Apple Inc. The company grew.", []string{"He joined Apple Inc.", "The company grew."}},
		{"inc mid", "Acme Inc. Research published it.", []string{"Acme Inc. Research published it."}},
		{"url", "Visit example.com/docs. It helps.", []string{"Visit example.com/docs.", "It helps."}},
		{"ellipsis", "Wait... What happened?", []string{"Wait...", "What happened?"}},
		{"two dots write a range", "An integer type with at least the range [-2^29 .. 2^29-1]. The exact range is given by Bounded.",
			[]string{"An integer type with at least the range [-2^29 .. 2^29-1].", "The exact range is given by Bounded."}},
		{"cjk", "今日は晴れ。明日は雨。", []string{"今日は晴れ。", "明日は雨。"}},
		{"empty", "  \n\n ", nil},
		{"inline code split into paragraphs", "To run on all targets, use the\n\n--all-targets\n\nflag. This aligns it.\n\nNext heading",
			[]string{"To run on all targets, use the\n\n--all-targets\n\nflag.", "This aligns it.", "Next heading"}},
		{"heading then lower-case command", "Install it\n\ncargo install foo", []string{"Install it", "cargo install foo"}},
		{"code word after a function word", "Cargo is used as when the existing\n\nCargo.lock\n\nfile was generated. Next.",
			[]string{"Cargo is used as when the existing\n\nCargo.lock\n\nfile was generated.", "Next."}},
		{"no splice of heading, label and paragraph", "ipaddress — IPv4/IPv6 manipulation library\n\nSource code: Lib/ipaddress.py\n\nipaddress provides the capabilities to create addresses.",
			[]string{"ipaddress — IPv4/IPv6 manipulation library", "Source code: Lib/ipaddress.py", "ipaddress provides the capabilities to create addresses."}},
		{"no splice of heading and lower-case paragraph", "Configuring the server\n\nmax_connections sets the number of connections.",
			[]string{"Configuring the server", "max_connections sets the number of connections."}},
		{"lead-in keeps its list", "Rowid tables are common. A rowid table is any table in a schema that\n- is not a virtual table, and\n- is not a WITHOUT ROWID table.\n\nMost tables are rowid tables.",
			[]string{"Rowid tables are common.", "A rowid table is any table in a schema that\n- is not a virtual table, and\n- is not a WITHOUT ROWID table.", "Most tables are rowid tables."}},
		{"colon keeps its numbered list", "The type must be one of:\n1. WHOLE.\n2. DECIMAL.\nNo other type is accepted.",
			[]string{"The type must be one of:\n1. WHOLE.\n2. DECIMAL.", "No other type is accepted."}},
		{"a finished sentence does not take a list", "It has three parts.\n- a head\n- a tail",
			[]string{"It has three parts.", "- a head", "- a tail"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans := Sentences(tt.in)
			var got []string
			for _, sp := range spans {
				if tt.in[sp.Start:sp.End] != sp.Text {
					t.Fatalf("span offsets [%d:%d] = %q, text %q", sp.Start, sp.End, tt.in[sp.Start:sp.End], sp.Text)
				}
				got = append(got, sp.Text)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Sentences(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// Rows of a table, one paragraph each, are separate sentences even when a
// row starts in lower case after one that ends without punctuation.
func TestSentencesTableRowsStandAlone(t *testing.T) {
	in := "Item | Upper Limit | Comment\n\nidentifier length | 63 bytes | can be increased by recompiling\n\ncolumns per table | 1600 | further limited by tuple size"
	got := Sentences(in)
	if len(got) != 3 {
		var texts []string
		for _, sp := range got {
			texts = append(texts, sp.Text)
		}
		t.Fatalf("Sentences = %q, want the three rows apart", texts)
	}
}
