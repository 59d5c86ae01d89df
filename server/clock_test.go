package server

import (
	"testing"
	"time"
)

// The tick loop keeps wall time: on time it steps one turn; woken late it steps the
// turns it missed, at most maxCatchUp at once; far behind it forgets the excess.
func TestTurnsDueKeepsWallTime(t *testing.T) {
	const tick = 25 * time.Millisecond
	for _, c := range []struct {
		elapsed      time.Duration
		done         int
		n, afterDone int
	}{
		{25 * time.Millisecond, 0, 1, 1},
		{30 * time.Millisecond, 1, 0, 1},
		{100 * time.Millisecond, 1, 3, 4},                       // three turns late
		{300 * time.Millisecond, 1, maxCatchUp, 1 + maxCatchUp}, // the rest next time
		{time.Minute, 10, 1, 2400},                              // far behind: forgotten
	} {
		n, done := turnsDue(c.elapsed, tick, c.done)
		if n != c.n || done != c.afterDone {
			t.Errorf("turnsDue(%v, done %d) = %d, %d; want %d, %d", c.elapsed, c.done, n, done, c.n, c.afterDone)
		}
	}
}
