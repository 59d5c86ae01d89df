package server

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// The goroutines a game session holds (issue 46): each one's stack is memory a knight
// costs, about 8 KB and more, so a new one is a choice, not an accident. The server runs
// as its own process, so the test's own SSH clients are not counted with it, and its
// goroutines are read from its profiler (the metrics address): the goroutines a second
// walking session adds beside a first are one session's, whatever the server starts once.

// sessionGoroutines are the goroutines one game session holds, by the function each runs
// (goroutineName), and how many of each. docs/PERFORMANCE.md ("Where the memory goes")
// lists them with why each is there.
var sessionGoroutines = map[string]int{
	// x/crypto/ssh, a connection's: its reader, its key exchange, its channels' mux.
	"golang.org/x/crypto/ssh.(*handshakeTransport).readLoop": 1,
	"golang.org/x/crypto/ssh.(*handshakeTransport).kexLoop":  1,
	"golang.org/x/crypto/ssh.(*mux).loop":                    1,
	// charm ssh: the connection (its new channels), its global requests, the session's
	// handler (the middleware, then the session's loop: the model, the keys decoded, the
	// world's views waited for, the commands' messages, and the session's requests
	// answered once it has started, edge.SessionChannel).
	"charm.land/ssh.(*Server).HandleConn":            1,
	"charm.land/ssh.(*Server).handleConn.func3":      1,
	"charm.land/ssh.(*session).handleRequests.func1": 1,
	// the input pump's read of the client (a read blocks)
	"github.com/orthanc-ssh/orthanc-ssh/server/edge.(*InputPump).fill": 1,
}

// drawerGoroutine is what a drawer runs (drawers.go): the sessions share them.
const drawerGoroutine = "github.com/orthanc-ssh/orthanc-ssh/server.(*drawers).draw"

func TestGoroutinesOfAGameSession(t *testing.T) {
	_, addr, metrics := startProcessWith(t, t.TempDir(), "-metrics-addr", "127.0.0.1:0")
	if metrics == "" {
		t.Fatal("the server did not say where it serves its metrics")
	}
	walk := func(name string) {
		tm := openTerminal(t, addr, newKey(t), 80, 24, nil)
		tm.enterDungeon(name)
		for _, k := range []string{keyRight, keyDown, keyLeft, keyUp} {
			sent := len(tm.rawOutput())
			tm.press(k)
			tm.waitRawFor("a frame after the key", func(s string) bool { return len(s) > sent })
		}
	}
	walk("Firstone")
	one := settledGoroutines(t, metrics)
	walk("Secondone")
	two := settledGoroutines(t, metrics)
	// The drawers are the sessions' together, not one session's: as many as draw at once
	// and at most twice GOMAXPROCS waiting (drawersKept), however many sessions there are.
	for _, m := range []map[string]int{one, two} {
		if n := m[drawerGoroutine]; n > 2*runtime.GOMAXPROCS(0) {
			t.Errorf("%d drawers wait with one or two sessions; at most %d", n, 2*runtime.GOMAXPROCS(0))
		}
		delete(m, drawerGoroutine)
	}
	added := map[string]int{}
	for name, n := range two {
		if d := n - one[name]; d != 0 {
			added[name] = d
		}
	}
	for name, n := range one {
		if _, ok := two[name]; !ok {
			added[name] = -n
		}
	}
	total := 0
	for _, n := range added {
		total += n
	}
	t.Logf("a walking game session holds %d goroutines:\n%s", total, goroutineList(added))
	if !maps.Equal(added, sessionGoroutines) {
		t.Errorf("a game session holds these goroutines:\n%swhere the list says:\n%s",
			goroutineList(added), goroutineList(sessionGoroutines))
	}
}

// goroutineList writes counts of goroutines by name, a line each, sorted.
func goroutineList(m map[string]int) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "\t%2d  %s\n", m[name], name)
	}
	return b.String()
}

// settledGoroutines reads the server's goroutines by name until two reads in a row agree
// (a timer's goroutine comes and goes), for at most 10 s.
func settledGoroutines(t *testing.T, metrics string) map[string]int {
	t.Helper()
	var last map[string]int
	if !poll(10*time.Second, 100*time.Millisecond, func() bool {
		now := serverGoroutines(t, metrics)
		same := last != nil && maps.Equal(now, last)
		last = now
		return same
	}) {
		t.Fatalf("the server's goroutines never settled; last read:\n%s", goroutineList(last))
	}
	return last
}

// serverGoroutines reads the server's goroutines from its profiler, counted by name. The
// connection is not kept: its goroutine in the server would be counted too.
func serverGoroutines(t *testing.T, metrics string) map[string]int {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + metrics + "/debug/pprof/goroutine?debug=2")
	if err != nil {
		t.Fatalf("read the server's goroutines: %v", err)
	}
	defer resp.Body.Close()
	m, err := countGoroutines(resp.Body)
	if err != nil {
		t.Fatalf("read the server's goroutines: %v", err)
	}
	return m
}

// countGoroutines counts the goroutines of a dump in Go's panic format (as the profiler
// writes with debug=2) by goroutineName. The HTTP server's goroutines are left out: they
// serve the profile being read, and come and go with it.
func countGoroutines(r io.Reader) (map[string]int, error) {
	m := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var entry string // the last function of the stack being read: where it started
	inHTTP := false
	end := func() {
		if entry != "" && !inHTTP {
			m[goroutineName(entry)]++
		}
		entry, inHTTP = "", false
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "goroutine "):
			entry, inHTTP = "", false
		case strings.HasPrefix(line, "created by "), line == "":
			end()
		case strings.HasPrefix(line, "\t"), strings.HasPrefix(line, "runtime.goexit("):
			// a frame's file and line; the frame under a goroutine not yet run
		default:
			entry = line
			inHTTP = inHTTP || strings.HasPrefix(line, "net/http.")
		}
	}
	end()
	return m, sc.Err()
}

// goroutineName is the function a goroutine started in (a frame line of its stack, the
// last), without its arguments: "golang.org/x/crypto/ssh.(*mux).loop".
func goroutineName(frame string) string {
	if i := strings.LastIndexByte(frame, '('); i > 0 && strings.HasSuffix(frame, ")") {
		frame = frame[:i]
	}
	return frame
}
