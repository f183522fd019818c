package text

import (
	"reflect"
	"testing"
)

func TestExtractFacts(t *testing.T) {
	tests := []struct {
		in   string
		want Facts
	}{
		{
			"Python was created by Guido van Rossum and first released in 1991.",
			Facts{Numbers: []string{"1991"}, Entities: []string{"Guido van Rossum"}},
		},
		{
			"The Bank of America reported revenue of $1,200 million, up 3.5% on March 5, 2021.",
			Facts{Numbers: []string{"1200", "3.5", "5", "2021"}, Dates: []string{"March 5, 2021"}, Entities: []string{"Bank of America"}},
		},
		{
			"NASA said the PostgreSQL server on port 5432 was fine.",
			Facts{Numbers: []string{"5432"}, Entities: []string{"NASA", "PostgreSQL"}},
		},
		{
			"The default is fine.",
			Facts{},
		},
	}
	for _, tt := range tests {
		got := ExtractFacts(tt.in)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ExtractFacts(%q)\n got %+v\nwant %+v", tt.in, got, tt.want)
		}
	}
}

func TestNumberSetAndFold(t *testing.T) {
	s := NumberSet("It has three ports and 1,024 users.")
	for _, n := range []string{"3", "1024"} {
		if !s[n] {
			t.Errorf("NumberSet missing %s: %v", n, s)
		}
	}
	if !ContainsFold("Guido  van\nRossum wrote it", "guido van rossum") {
		t.Error("ContainsFold must ignore case and spacing")
	}
}
