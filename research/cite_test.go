package research

import (
	"reflect"
	"testing"
)

func TestCitations(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"A fact [S3].", []string{"S3"}},
		{"Two [S1, S2].", []string{"S1", "S2"}},
		{"Adjacent [S1][S2] and again [S1].", []string{"S1", "S2"}},
		{"Prior [P2] and [S4; P1].", []string{"P2", "S4", "P1"}},
		{"Range [S2-S4].", []string{"S2", "S3", "S4"}},
		{"Short range [S5–7].", []string{"S5", "S6", "S7"}},
		{"Not a citation [1] or [see S1] or \\[S1\\].", nil},
	}
	for _, tt := range tests {
		if got := Citations(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Citations(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStripCitations(t *testing.T) {
	if got := StripCitations("The port is 5432 [S1][S2]."); got != "The port is 5432." {
		t.Errorf("got %q", got)
	}
	if !IsCitationOnly(" [S1, S2]. ") || IsCitationOnly("Fact [S1]") {
		t.Error("IsCitationOnly wrong")
	}
}

func TestLooksLikeCitation(t *testing.T) {
	for s, want := range map[string]bool{
		"see [S2] for details":   true,
		"an unclosed [ S12 mark": true,
		"[P1, P2]":               true,
		"array [5] and [x]":      false,
		"plain prose":            false,
	} {
		if got := LooksLikeCitation(s); got != want {
			t.Errorf("LooksLikeCitation(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestLabelPattern(t *testing.T) {
	for s, want := range map[string]bool{"S1": true, "P20": true, SourceID(7): true, PriorID(3): true, "S": false, "S12345": false, "x S1": false} {
		if got := LabelPattern.MatchString(s); got != want {
			t.Errorf("LabelPattern(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestCodeSpanHoldsAnyText(t *testing.T) {
	for in, want := range map[string]string{
		"tool --rate [S2]": "`tool --rate [S2]`",
		"a` [S2] `b":       "``a` [S2] `b``",
		"`x`":              "`` `x` ``",
		"a ``` b":          "````a ``` b````",
		"two\nlines":       "`two lines`",
	} {
		if got := CodeSpan(in); got != want {
			t.Errorf("CodeSpan(%q) = %q, want %q", in, got, want)
		}
	}
}
