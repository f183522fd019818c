package pipeline

import (
	"reflect"
	"testing"

	"github.com/quarryhq/quarry/research"
)

func TestPriorSections(t *testing.T) {
	tests := []struct {
		md   string
		want []research.PriorSection
	}{
		{"# Title\n\n## Delivery\n\nAt commit [S1].\n\n## Sources\n\n- [S1] x\n",
			[]research.PriorSection{{ID: "P1", Heading: "Delivery", Text: "At commit [S1]."}}},
		{"Notifications go out at commit [P1].\n\nShort answer.\n",
			[]research.PriorSection{{ID: "P1", Heading: "Answer", Text: "Notifications go out at commit [P1].\nShort answer."}}},
		{"Lead text.\n\n## Details\n\nMore.\n\n## Prior research used\n\n- [P1] x\n",
			[]research.PriorSection{{ID: "P1", Heading: "Answer", Text: "Lead text."}, {ID: "P2", Heading: "Details", Text: "More."}}},
	}
	for _, tt := range tests {
		if got := PriorSections(tt.md); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("PriorSections(%q) = %+v, want %+v", tt.md, got, tt.want)
		}
	}
}
