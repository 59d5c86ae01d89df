package server

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testtools"
)

// The harness of the cmd tests, by subject:
//
//	harness_server_test.go    the real server started in the test (or as its own process), its clock, its log
//	harness_ssh_test.go       keys and SSH clients for each identity, commands run over SSH
//	harness_terminal_test.go  terminals read through an emulator as a player sees them; parts of a screen
//	harness_knights_test.go   knights seeded into a data folder or joined into the world; ways through the dungeon
//
// and here, waiting: poll is the one polling loop, and every wait is a use of it.

// TestMain runs the tests, twice as many parallel ones at once as there are cores (they
// wait on servers, processes and browsers far more than they compute), then says which
// were skipped for want of a program (an SSH client, the browser, promtool), once.
func TestMain(m *testing.M) {
	testtools.Waiting(2 * runtime.GOMAXPROCS(0))
	testtools.Main(m, removeServerBinary)
}

// Waiting.

// pollEvery is how often a wait looks again.
const pollEvery = 20 * time.Millisecond

// poll calls cond every interval until it holds, for at most within, and reports whether
// it held. It is the one polling loop of the tests: the waits below are uses of it, and a
// test that must act between looks (a key to press again) does so in cond.
func poll(within, every time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(every)
	}
	return true
}

// waitUntil polls cond until it holds or 10 s pass.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !poll(10*time.Second, pollEvery, cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// waitFor waits until every want appears on screen and returns the screen.
func (tm *terminal) waitFor(want ...string) string {
	tm.t.Helper()
	var s string
	if !poll(10*time.Second, pollEvery, func() bool { s = tm.screen(); return containsAll(s, want) }) {
		tm.t.Fatalf("screen never showed %q; it shows:\n%s", want, s)
	}
	return s
}

// waitWords is waitFor for texts that may wrap: it reads the screen's words, its lines
// joined with spaces.
func (tm *terminal) waitWords(want ...string) string {
	tm.t.Helper()
	var s string
	if !poll(10*time.Second, pollEvery, func() bool { s = tm.screen(); return containsAll(screenWords(s), want) }) {
		tm.t.Fatalf("screen never showed %q; it shows:\n%s", want, s)
	}
	return s
}

// waitRaw waits until every want appears in the bytes the server sent (screen-reader mode
// prints whole lines, broken between words at the terminal's width, so its text is there
// as sent, or with a line break for a space).
func (tm *terminal) waitRaw(want ...string) string {
	tm.t.Helper()
	return tm.waitRawFor(fmt.Sprintf("%q", want), func(s string) bool {
		if containsAll(s, want) {
			return true
		}
		said := screenWords(ansi.Strip(s))
		for _, w := range want {
			if !strings.Contains(said, screenWords(w)) {
				return false
			}
		}
		return true
	})
}

// waitRawFor waits until cond holds for the bytes the server sent, and returns them.
func (tm *terminal) waitRawFor(what string, cond func(string) bool) string {
	tm.t.Helper()
	var s string
	if !poll(10*time.Second, pollEvery, func() bool { s = tm.rawOutput(); return cond(s) }) {
		tm.t.Fatalf("output never held %s; it holds:\n%s", what, s)
	}
	return s
}

// waitScreen waits until cond holds for the screen, and returns it.
func (tm *terminal) waitScreen(what string, cond func(string) bool) string {
	tm.t.Helper()
	var s string
	if !poll(15*time.Second, pollEvery, func() bool { s = tm.screen(); return cond(s) }) {
		tm.t.Fatalf("screen never showed %s; it shows:\n%s", what, s)
	}
	return s
}

// waitQuiet waits for text on screen without failing the test.
func (tm *terminal) waitQuiet(want string, d time.Duration) bool {
	return poll(d, pollEvery, func() bool { return strings.Contains(tm.screen(), want) })
}

// ended waits for the terminal's session to end, for at most within, and reports whether
// it did.
func (tm *terminal) ended(within time.Duration) bool {
	select {
	case <-tm.done:
		return true
	case <-time.After(within):
		return false
	}
}

// finalOutput is every byte the server sent, once the session has ended (as a shutdown
// ends it): the last bytes may still be on their way when the server has stopped.
func (tm *terminal) finalOutput() string {
	tm.t.Helper()
	if !tm.ended(10 * time.Second) {
		tm.t.Fatalf("the session did not end:\n%s", tm.screen())
	}
	return tm.rawOutput()
}

// containsAll reports whether s holds every one of want.
func containsAll(s string, want []string) bool {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}
