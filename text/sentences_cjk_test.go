package text

import (
	"reflect"
	"testing"
)

func TestSentencesCJKClosers(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"「そうです。」と彼は言った。", []string{"「そうです。」", "と彼は言った。"}},
		{"『本当か？』『はい！』", []string{"『本当か？』", "『はい！』"}},
		{"（注意してください。）次へ進む。", []string{"（注意してください。）", "次へ進む。"}},
		{"他说：“好。”然后走了。", []string{"他说：“好。”", "然后走了。"}},
		{`He said "it works." Then he left.`, []string{`He said "it works."`, "Then he left."}},
	}
	for _, tt := range tests {
		var got []string
		for _, sp := range Sentences(tt.in) {
			if tt.in[sp.Start:sp.End] != sp.Text {
				t.Fatalf("span offsets [%d:%d] = %q, text %q", sp.Start, sp.End, tt.in[sp.Start:sp.End], sp.Text)
			}
			got = append(got, sp.Text)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Sentences(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
