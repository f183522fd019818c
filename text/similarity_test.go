package text

import "testing"

func TestSupport(t *testing.T) {
	passage := "PostgreSQL was developed at the University of California, Berkeley, starting in 1986 under Michael Stonebraker."
	tests := []struct {
		name  string
		claim string
		min   float64
		max   float64
	}{
		{"verbatim", passage, 1, 1},
		{"paraphrase", "Development of PostgreSQL started in 1986 at Berkeley.", 0.8, 1},
		{"wrong number", "PostgreSQL was developed at the University of California, Berkeley, starting in 1996 under Michael Stonebraker.", 0, 0.5},
		{"unsupported", "PostgreSQL was created at MIT by Bill Gates as a spreadsheet.", 0, 0.5},
		{"number word", "Development started in 1986 with three students.", 0, 0.7},
		{"empty", "", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Support(tt.claim, passage)
			if got < tt.min || got > tt.max {
				t.Errorf("Support = %.3f, want in [%.2f, %.2f]", got, tt.min, tt.max)
			}
		})
	}
	if got := Support("The team had three members.", "The team had 3 members."); got != 1 {
		t.Errorf("number words must match digits, got %.3f", got)
	}
}

func TestSetMeasures(t *testing.T) {
	a := NewSet([]string{"x", "y", "z"})
	b := NewSet([]string{"y", "z", "w", "v"})
	if got := Jaccard(a, b); got != 2.0/5 {
		t.Errorf("Jaccard = %v", got)
	}
	if got := Overlap(a, b); got != 2.0/3 {
		t.Errorf("Overlap = %v", got)
	}
	if got := Containment([]string{"x", "w", "x"}, a); got != 0.5 {
		t.Errorf("Containment = %v", got)
	}
}
