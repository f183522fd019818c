package research

import (
	"reflect"
	"testing"
)

func TestDisagreeSentenceRoundTrip(t *testing.T) {
	claims := []Claim{{"S2", "1932"}, {"S5", "$7 million"}}
	s := DisagreeSentence(claims...)
	if s != "Sources disagree: [S2] gives 1932; [S5] gives $7 million." {
		t.Fatalf("sentence %q", s)
	}
	got, ok := ParseDisagreement(s)
	if !ok || !reflect.DeepEqual(got, claims) {
		t.Errorf("parsed %+v, %v", got, ok)
	}
	if _, ok := ParseDisagreement("The bridge opened in 1932 [S2]."); ok {
		t.Error("an ordinary sentence parsed as a disagreement")
	}
}
