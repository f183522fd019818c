package text

import "testing"

func TestBestPassage(t *testing.T) {
	body := "port\n\nThe TCP port for client connections. The default port is 7420. To change it, set port in ember.conf.\n\nOther text about memory limits."
	d := NewDocument("S1", body)
	tests := []struct {
		claim string
		want  string
		score float64
	}{
		{"The default port is 7420.", "The default port is 7420.", 1},
		{"To change the default port of 7420, set port in ember.conf.", "The default port is 7420. To change it, set port in ember.conf.", 1},
		{"The default port is 8080.", "The default port is 7420.", 2.0 / 5 * 0.6}, // the number weighs 3 and is missing
	}
	for _, tt := range tests {
		p := d.BestPassage(Tokens(tt.claim))
		if got := d.Passage(p); got != tt.want {
			t.Errorf("BestPassage(%q) = %q, want %q", tt.claim, got, tt.want)
		}
		if p.Score < tt.score-1e-9 || p.Score > tt.score+1e-9 {
			t.Errorf("BestPassage(%q) score %v, want %v", tt.claim, p.Score, tt.score)
		}
	}
	if !d.Mentions("Ember.conf") || d.Mentions("PostgreSQL") || !d.Numbers()["7420"] {
		t.Error("Mentions/Numbers wrong")
	}
}
