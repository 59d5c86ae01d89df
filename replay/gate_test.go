package replay

import (
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A view showing only others is held until othersGap after the last one queued, and
// queued from then on; a step of the knight's own is queued at once.
func TestTheGateHoldsOthersForTheGapExactly(t *testing.T) {
	tick := 25 * time.Millisecond
	gap := uint64(othersGap / tick) // 10 turns
	g := &gate{}
	v := world.View{Turn: 100, Self: world.Self{Pos: world.Pos{X: 3, Y: 3}}}
	if !g.pass(&v, tick) {
		t.Fatal("the session's first view was held")
	}
	g.passed(&v)
	for _, c := range []struct {
		turn uint64
		step bool
		want bool
	}{{100 + gap - 1, false, false}, {100 + gap, false, true}, {101, true, true}} {
		w := v
		w.Turn = c.turn
		if c.step {
			w.Self.Pos.X++
		}
		if got := g.pass(&w, tick); got != c.want {
			t.Errorf("turn %d (a step: %v): queued %v, want %v", c.turn, c.step, got, c.want)
		}
	}
}
