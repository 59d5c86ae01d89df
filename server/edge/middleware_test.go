package edge

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"charm.land/ssh"
)

// panicSession is just enough of a session for the recover middleware.
type panicSession struct {
	ssh.Session
	exited int
}

func (p *panicSession) Exit(code int) error { p.exited = code; return nil }

// A panic in a session's handler is recovered, logged with its stack, and ends only that
// session with status 1.
func TestPanicInASessionIsRecovered(t *testing.T) {
	var logs bytes.Buffer
	sess := &panicSession{exited: -1}
	RecoverPanics(slog.New(slog.NewTextHandler(&logs, nil)))(func(ssh.Session) { panic("boom") })(sess)
	if sess.exited != 1 || !strings.Contains(logs.String(), "session panic") || !strings.Contains(logs.String(), "boom") || !strings.Contains(logs.String(), "goroutine") {
		t.Fatalf("exit %d, log %q", sess.exited, logs.String())
	}
}

// A key has at most perKey sessions; guests at most guestsPerAddr from one address and
// allGuests in all; a session that ends gives its place back, and the count forgets a key
// with none open.
func TestKeyLimitsCountSessions(t *testing.T) {
	k := NewKeyLimits(2, 1, 2)
	for i, want := range []string{"", "", TooManyPerKey} {
		if got := k.take("SHA256:a", false); got != want {
			t.Fatalf("session %d of a key: %q, want %q", i+1, got, want)
		}
	}
	if got := k.take("SHA256:b", false); got != "" {
		t.Fatalf("another key is refused: %q", got)
	}
	if got := k.take("guest 203.0.113.7", true); got != "" {
		t.Fatalf("a first guest is refused: %q", got)
	}
	if got := k.take("guest 203.0.113.7", true); got != TooManyGuests {
		t.Fatalf("a second guest from one address: %q", got)
	}
	if got := k.take("guest 198.51.100.1", true); got != "" {
		t.Fatalf("a guest from another address is refused: %q", got)
	}
	if got := k.take("guest 192.0.2.1", true); got != TooManyGuests {
		t.Fatalf("a third guest on a server of two: %q", got)
	}
	k.give("guest 203.0.113.7", true)
	if got := k.take("guest 192.0.2.1", true); got != "" {
		t.Fatalf("a guest after one left is refused: %q", got)
	}
	k.give("SHA256:a", false)
	if got := k.take("SHA256:a", false); got != "" {
		t.Fatalf("a key after one of its sessions ended is refused: %q", got)
	}
	for _, fp := range []string{"SHA256:a", "SHA256:a", "SHA256:b"} {
		k.give(fp, false)
	}
	if _, ok := k.n["SHA256:a"]; ok || len(k.n) != 2 {
		t.Fatalf("the count keeps keys with no session open: %v", k.n)
	}
}
