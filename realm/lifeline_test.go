package realm

import (
	"testing"
	"time"
)

// at is a moment of a test's timeline, in milliseconds from its start.
func at(ms int) time.Time { return time.Unix(1000, 0).Add(time.Duration(ms) * time.Millisecond) }

func TestLifelineStopsAMarginBeforeTheLeaseCouldLapse(t *testing.T) {
	// TTL 6s, margin 1s, granted at 0: safe until 5s, renew at 0.75s.
	l := newLifeline(6*time.Second, time.Second, at(0), 6*time.Second)
	if got := l.wait(at(0), false); got != 750*time.Millisecond {
		t.Errorf("first wait = %v, want 750ms (an eighth of the TTL)", got)
	}
	if got := l.wait(at(750), true); got != 4250*time.Millisecond {
		t.Errorf("wait while renewing = %v, want 4.25s (until the stop)", got)
	}
	l.failed(at(750)) // refused: again in TTL/20
	if got := l.wait(at(750), false); got != 300*time.Millisecond {
		t.Errorf("wait after a failure = %v, want 300ms", got)
	}
	if l.over(at(4999)) || !l.over(at(5000)) {
		t.Errorf("over at 4.999s, 5s = %v, %v; want false, true", l.over(at(4999)), l.over(at(5000)))
	}
}

func TestLifelineCountsFromTheSendingNotTheAnswer(t *testing.T) {
	l := newLifeline(6*time.Second, time.Second, at(0), 6*time.Second)
	// Sent at 2s, answered whenever: etcd renewed it at 2s or later, so it lives past 8s.
	l.renewed(at(2000), 6*time.Second)
	if l.over(at(6999)) || !l.over(at(7000)) {
		t.Errorf("after renewal sent at 2s: over at 6.999s, 7s = %v, %v", l.over(at(6999)), l.over(at(7000)))
	}
	if got := l.wait(at(2500), false); got != 250*time.Millisecond {
		t.Errorf("wait = %v, want 250ms (renew at 2.75s)", got)
	}
	// A late answer to an older keep-alive never shortens what is known.
	l.renewed(at(1000), 6*time.Second)
	if l.over(at(6999)) {
		t.Error("an older renewal moved the stop earlier")
	}
	// A smaller grant (a TTL changed by etcd) is believed.
	l.renewed(at(3000), 3*time.Second)
	if l.over(at(6999)) {
		t.Error("a later, shorter grant shortened the stop below an earlier promise")
	}
}

func TestLifelineWaitNeverNegative(t *testing.T) {
	l := newLifeline(3*time.Second, 500*time.Millisecond, at(0), 3*time.Second)
	if got := l.wait(at(9000), false); got != 0 {
		t.Errorf("wait past everything = %v, want 0", got)
	}
}
