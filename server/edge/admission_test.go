package edge

import (
	"strings"
	"testing"
	"time"
)

// An address is charged for each silent or failed connection and refused once its charge
// is past penaltyGrace, until it runs down, never for more than penaltyMax; early drop
// takes none below early-drop-at and all at max-handshakes.
func TestPenaltiesAndEarlyDrop(t *testing.T) {
	lim := DefaultLimits
	l := NewListener(nil, lim, nil)
	now := time.Now()
	l.penalise("192.0.2.1", penaltySilent, now)
	if reason, _ := l.admission("192.0.2.1", now); reason != "" {
		t.Errorf("one silent connection refuses its address: %s", reason)
	}
	l.penalise("192.0.2.1", penaltySilent, now)
	reason, msg := l.admission("192.0.2.1", now)
	if reason != RefusedPenalty || !strings.Contains(msg, "try again in 5s") {
		t.Errorf("two silent connections: %q %q", reason, msg)
	}
	if reason, _ := l.admission("192.0.2.2", now); reason != "" {
		t.Errorf("another address is refused: %s", reason)
	}
	if reason, _ := l.admission("192.0.2.1", now.Add(6*time.Second)); reason != "" {
		t.Errorf("a charge run down below the grace still refuses: %s", reason)
	}
	for range 1000 {
		l.penalise("192.0.2.3", penaltySilent, now)
	}
	if left := l.penalty("192.0.2.3", now); left != penaltyMax-penaltyGrace {
		t.Errorf("a thousand charges refuse for %s, want %s", left, penaltyMax-penaltyGrace)
	}
	drops := func(waiting int) int {
		l.shaking = waiting
		n := 0
		for range 1000 {
			if l.earlyDrop() {
				n++
			}
		}
		return n
	}
	if n := drops(lim.EarlyDropAt - 1); n != 0 {
		t.Errorf("%d of 1000 dropped below early-drop-at", n)
	}
	if n := drops(lim.EarlyDropAt); n < 200 || n > 400 {
		t.Errorf("%d of 1000 dropped at early-drop-at, want about 300", n)
	}
	if n := drops(lim.MaxHandshakes - 1); n < 980 {
		t.Errorf("%d of 1000 dropped with one place left, want nearly all", n)
	}
}
