package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testtools"
	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/server/webpage"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The web page's replays (issue 33): a knight dies in a seeded fight, with a whisper
// during it, and another retires. The page and its JSON link each one's asciicast file;
// fetched over HTTP, it is a cast of 80×24 that Debian's asciinema plays (asciinema cat),
// and its screen, read through a terminal emulator at 80×24, shows the replay's bar, the
// blow that killed and the tombstone, and never the whisper.
func TestTheWebPageLinksEachDeathsReplayWhichAsciinemaPlays(t *testing.T) {
	t.Parallel()
	asciinema := testtools.Need(t, "asciinema", "asciinema")
	dir := t.TempDir()
	key, elder, other := newKey(t), newKey(t), newKey(t)
	in, room := seedDoomed(t, dir, key)
	seedKnight(t, dir, elder, func(a *world.Adventurer) { a.Name, a.Depth = "Elder", 0 })
	cfg := testConfig(dir, defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	ts, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()

	e := openTerminal(t, ts.addr, elder, 100, 30, nil)
	e.waitFor("Welcome back, Elder")
	e.press(keyEnter)
	e.waitFor("Elder │ Level")
	e.press("R")
	e.waitFor("Retire this knight")
	e.press("y")
	e.waitFor("RETIRED WITH HONOUR")
	e.close()

	tm, killer, blow := dieWhispered(t, ts.addr, key, other, in, room)
	tm.close()

	var st web.Status
	if err := json.Unmarshal([]byte(httpGet(t, base+"/api/status", 200)), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Deaths) == 0 || st.Deaths[0].Name != "Doomed" || !strings.HasPrefix(st.Deaths[0].Replay, "/replay/") {
		t.Fatalf("the status does not link Doomed's death: %+v", st.Deaths)
	}
	var fame []web.Fame
	if err := json.Unmarshal([]byte(httpGet(t, base+"/api/fame", 200)), &fame); err != nil {
		t.Fatal(err)
	}
	if len(fame) != 1 || fame[0].Name != "Elder" || !strings.HasSuffix(fame[0].Replay, ".cast") {
		t.Fatalf("the hall of fame does not link Elder's retirement: %+v", fame)
	}
	page := httpGet(t, base+"/", 200)
	for _, link := range []string{st.Deaths[0].Replay, fame[0].Replay} {
		if !strings.Contains(page, `href="`+link+`"`) {
			t.Fatalf("the page does not link %s:\n%s", link, page)
		}
	}

	resp, err := http.Get(base + st.Deaths[0].Replay)
	if err != nil {
		t.Fatal(err)
	}
	cast, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != web.CastType {
		t.Fatalf("GET the cast: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if bytes.Contains(cast, []byte("secret is under")) {
		t.Fatal("the public cast shows the whisper")
	}
	file := filepath.Join(t.TempDir(), "doomed.cast")
	if d := os.Getenv("ORTHANC_CAST_DIR"); d != "" {
		file = filepath.Join(d, "doomed.cast")
	}
	if err := os.WriteFile(file, cast, 0o600); err != nil {
		t.Fatal(err)
	}
	// asciinema reads its keys from the terminal: it runs in one, of 80×24, read through
	// the emulator.
	player := openProcTerminal(t, 80, 24, asciinema, "cat", file)
	if !player.ended(20 * time.Second) {
		t.Fatalf("asciinema cat did not end:\n%s", player.screen())
	}
	screen := player.screen()
	for _, want := range []string{"REPLAY of Doomed", "the end", "Doomed is slain!", "slain by " + killer, blow} {
		if !strings.Contains(screen, want) {
			t.Errorf("the cast's last screen lacks %q:\n%s", want, screen)
		}
	}
	// The cast ends with the cursor on the last row, left empty: what the terminal prints
	// next covers nothing of the frame.
	if rows := strings.Split(strings.TrimRight(screen, "\n"), "\n"); len(rows) > 23 && strings.TrimSpace(rows[23]) != "" {
		t.Errorf("the cast's last row is not left empty: %q", rows[23])
	}
	t.Logf("the cast: %d bytes, %d lines", len(cast), bytes.Count(cast, []byte("\n")))
}

// openProcTerminal runs a program in a pseudo-terminal of w×h and reads what it shows
// through the emulator, as openSSHTerminal runs ssh.
func openProcTerminal(t *testing.T, w, h int, bin string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "HOME="+t.TempDir()) // asciinema keeps its config in HOME
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(h), Cols: uint16(w)})
	if err != nil {
		t.Fatal(err)
	}
	tm := &terminal{t: t, proc: cmd, stdin: &lockedWriter{w: ptmx}, em: vt.NewEmulator(w, h), done: make(chan struct{})}
	tm.pump(ptmx)
	t.Cleanup(tm.close)
	return tm
}

// httpGet gets url and checks its status.
func httpGet(t *testing.T, url string, want int) string {
	t.Helper()
	return httpGetFrom(t, http.DefaultClient, url, want)
}

// httpGetFrom is httpGet through c.
func httpGetFrom(t *testing.T, c *http.Client, url string, want int) string {
	t.Helper()
	r, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != want {
		t.Fatalf("GET %s = %d, want %d:\n%s", url, r.StatusCode, want, b)
	}
	return string(b)
}

// The page's casts are of public records only: a death its knight keeps private, and a
// report's record, are 404 at the address the public one would have, as is a record
// no longer kept, each with a line that says why.
func TestTheWebPageRefusesPrivateReplays(t *testing.T) {
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	_, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()
	at := time.Now().Add(-time.Minute)
	records := []store.Replay{
		{Knight: "K-open", Name: "Open", Kind: string(replay.KindDeath), At: at, Window: replay.DeathWindow},
		{Knight: "K-hidden", Name: "Hidden", Kind: string(replay.KindDeath), At: at, Private: true, Window: replay.DeathWindow},
		{Knight: "K-reported", Name: "Reported", Kind: string(replay.KindReport), At: at, Report: 1, Window: replay.ReportWindow},
	}
	w := store.NewReplayWriter(srv.store, 0, replay.Rolling, nil) // beside the server's, on its store
	for _, r := range records {
		w.PutChunk(r.Knight, store.ReplayChunk{Start: at.Add(-time.Second), Data: []byte{1}})
		w.Keep(r)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if cast := httpGet(t, base+web.CastPath(webpage.CastID(records[0])), 200); !strings.HasPrefix(cast, `{"version":2,"width":80,"height":24,`) {
		t.Fatalf("the public record's cast:\n%s", cast)
	}
	for _, r := range records[1:] {
		if b := httpGet(t, base+web.CastPath(webpage.CastID(r)), 404); !strings.Contains(b, "keeps it private") {
			t.Errorf("%s's record: %q", r.Name, b)
		}
	}
	// From an address of its own: each may ask for 3 casts not made already.
	gone := records[0]
	gone.At = at.Add(-time.Hour)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 3)}}
	httpGetFrom(t, &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}, base+web.CastPath(webpage.CastID(gone)), 404)
}
