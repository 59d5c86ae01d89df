package knights

import (
	"slices"
	"testing"
)

func TestNamedIsWithoutRegardToCase(t *testing.T) {
	names := []KnightName{{Knight: "K-1", Name: "Sir Kay"}, {Knight: "K-2", Name: "Bors"}, {Knight: "K-3", Name: "sir kay"}, {Knight: "K-1", Name: "Sir Kay"}}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"SIR KAY", []string{"K-1", "K-3"}},
		{" bors ", []string{"K-2"}},
		{"Lancelot", nil},
	} {
		if got := Named(names, tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("Named(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}
