package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Replays end to end, through real SSH sessions and the web page: a record is one
// knight's life (a key's next knight shares its id, never its record), its privacy is
// the knight's now (turned on after a death, it hides the death at once; turned off, it
// shows it again), a closed report's record and a removed one are gone for everyone, and
// no cast the page links holds a line that was not said aloud.

// TestTheNextLifesRetirementHoldsNothingOfThePrivateDeathBeforeIt: Doomed (key C)
// keeps its replays private, says a line and dies; C's next knight, Phoenix, turns them
// public, says a line of its own and retires. Another key's replay of Phoenix's
// retirement, and the page's cast of it, show Phoenix and its line and nothing of Doomed
// (its name, its line); Doomed's tombstone links nothing, another key's replay of the
// death is refused, and C's own replay of it is Doomed's, to its end, with nothing of
// Phoenix. Doomed is named an hour before, or before lives were told apart (no Created:
// its records tell no life).
func TestTheNextLifesRetirementHoldsNothingOfThePrivateDeathBeforeIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		created time.Time
	}{{"named an hour ago", time.Now().UTC().Add(-time.Hour).Truncate(time.Second)}, {"named before lives were told apart", time.Time{}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const doomedLine, phoenixLine = "the dark tower waits", "a bright new dawn"
			dir := t.TempDir()
			key, other := newKey(t), newKey(t)
			in, room := seedAtTheGuardsDoor(t, dir, key, func(a *world.Adventurer) {
				a.Name, a.Dex, a.Hits, a.MaxHits, a.Created = "Doomed", 3, 12, 12, tc.created
			})
			ts, base := startWithPage(t, dir)

			tm := dieSaying(t, ts.addr, key, in, room, true, doomedLine)
			tm.rollAfterDeath("Phoenix")
			tm.setReplaysPrivate(false) // the options are the key's: the new knight has them too
			tm.sayAloud(ts.addr, key, phoenixLine)
			tm.climbOut()
			tm.retire()

			r := openTerminalCmd(t, ts.addr, other, 100, 30, "replay Phoenix --retired")
			r.waitFor("REPLAY of Phoenix")
			r.waitFor("You say: " + phoenixLine)
			r.press("f", "f", "f", "f")
			r.waitFor("the end")
			notShown(t, "another key's replay of Phoenix's retirement", r.rawOutput(), "Doomed", doomedLine)

			st := waitPage(t, base, "Phoenix's entry and Doomed's tombstone", func(st web.Status) bool {
				_, fame := fameOf(st, "Phoenix")
				_, dead := deathOf(st, "Doomed")
				return fame && dead
			})
			if d, _ := deathOf(st, "Doomed"); d.Replay != "" {
				t.Errorf("the page links Doomed's private death: %q", d.Replay)
			}
			f, _ := fameOf(st, "Phoenix")
			if f.Replay == "" {
				t.Fatalf("the page links no replay of Phoenix's retirement: %+v", st.Fame)
			}
			cast := playCast(t, httpGet(t, base+f.Replay, 200))
			if !cast.shows("You say: " + phoenixLine) {
				t.Errorf("the cast of Phoenix's retirement never shows its line %q", phoenixLine)
			}
			cast.holdsNone(t, "the cast of Phoenix's retirement", "Doomed", doomedLine)

			openTerminalCmd(t, ts.addr, other, 100, 30, "replay Doomed --death").waitFor("Doomed keeps its replays private.")

			own := openTerminalCmd(t, ts.addr, key, 100, 30, fmt.Sprintf("replay %d", ownReplayNumber(t, ts.addr, key, "Doomed died")))
			own.waitFor("REPLAY of Doomed")
			own.press("f", "f", "f", "f")
			own.waitFor("the end", "You have been slain by")
			notShown(t, "the key's own replay of Doomed's death", own.rawOutput(), "Phoenix", phoenixLine)
		})
	}
}

// TestReplaysTurnedPrivateAfterADeathHideItAtOnce: Doomed dies keeping its replays
// public, and its tombstone on the page links a cast, fetched (so kept in the page's
// memory). The key's next knight turns its replays private: the page no longer links the
// death, the cast's address is 404, and another key's replay of the death is refused,
// while it plays and after it has left. Turned public again, all of it is back.
func TestReplaysTurnedPrivateAfterADeathHideItAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key, other := newKey(t), newKey(t)
	in, room := seedDoomed(t, dir, key)
	ts, base := startWithPage(t, dir)

	tm := dieSaying(t, ts.addr, key, in, room, false, "none shall pass")
	st := waitPage(t, base, "Doomed's death linked", func(st web.Status) bool { d, _ := deathOf(st, "Doomed"); return d.Replay != "" })
	d, _ := deathOf(st, "Doomed")
	link := d.Replay
	if !playCast(t, httpGet(t, base+link, 200)).shows("You say: none shall pass") {
		t.Errorf("the cast of Doomed's death never shows its line")
	}
	openTerminalCmd(t, ts.addr, other, 100, 30, "replay Doomed --death").waitFor("REPLAY of Doomed")

	hidden := func(when string) {
		t.Helper()
		if !poll(10*time.Second, pollEvery, func() bool { return httpStatus(t, base+link) == http.StatusNotFound }) {
			t.Fatalf("%s: the cast of Doomed's death is still served", when)
		}
		waitPage(t, base, "Doomed's death unlinked", func(st web.Status) bool {
			d, ok := deathOf(st, "Doomed")
			return ok && d.Replay == ""
		})
		openTerminalCmd(t, ts.addr, other, 100, 30, "replay Doomed --death").waitFor("Doomed keeps its replays private.")
	}
	tm.rollAfterDeath("Phoenix")
	tm.setReplaysPrivate(true)
	hidden("while Phoenix plays")
	tm.quit()
	hidden("once Phoenix has left")

	tm = openTerminal(t, ts.addr, key, 100, 30, nil)
	tm.continueKnight()
	tm.setReplaysPrivate(false)
	waitPage(t, base, "Doomed's death linked again", func(st web.Status) bool { d, _ := deathOf(st, "Doomed"); return d.Replay == link })
	if !playCast(t, httpGet(t, base+link, 200)).shows("You say: none shall pass") {
		t.Errorf("the cast of Doomed's death, public again, never shows its line")
	}
	r := openTerminalCmd(t, ts.addr, other, 100, 30, "replay Doomed --death")
	r.waitFor("REPLAY of Doomed")
	r.press("f", "f", "f", "f")
	r.waitFor("the end", "You have been slain by")
}

// TestAClosedReportsReplayIsNoLongerKept: Gawain reports Percival and Percival reports
// Gawain; the admin's reports say how to play each one's replay, and replay --report plays
// it. Once the first is resolved and the second dismissed, neither replay is kept.
func TestAClosedReportsReplayIsNoLongerKept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	admin, alice, bob := newKey(t), newKey(t), newKey(t)
	writeAdminKeys(t, dir, admin)
	ts := startServer(t, dir)
	a := openTerminal(t, ts.addr, alice, 100, 30, nil)
	a.enterDungeon("Gawain")
	b := openTerminal(t, ts.addr, bob, 100, 30, nil)
	b.enterDungeon("Percival")
	b.chat("hello there, you fool")
	a.waitFor("Percival says: hello there, you fool")
	a.chat("/report Percival rude words")
	a.waitFor("Your report about Percival is with the admins")
	a.chat("and you are a fool too")
	b.waitFor("Gawain says: and you are a fool too")
	b.chat("/report Gawain rude answer")
	b.waitFor("Your report about Gawain is with the admins")

	out := mustRun(t, ts.addr, admin, "reports")
	for n, name := range map[int]string{1: "Percival", 2: "Gawain"} {
		if want := fmt.Sprintf("(what %s did in the 2 minutes before: ssh -t -p ", name); !strings.Contains(out, want) ||
			!strings.Contains(out, fmt.Sprintf("replay --report %d)", n)) {
			t.Fatalf("reports does not offer report %d's replay:\n%s", n, out)
		}
		r := openTerminalCmd(t, ts.addr, admin, 100, 30, fmt.Sprintf("replay --report %d", n))
		r.waitFor("REPLAY of " + name)
	}

	mustRun(t, ts.addr, admin, "reports resolve 1")
	mustRun(t, ts.addr, admin, "reports dismiss 2")
	for n := range 2 {
		n++
		r := openTerminalCmd(t, ts.addr, admin, 100, 30, fmt.Sprintf("replay --report %d", n))
		r.waitFor(fmt.Sprintf("No replay is kept with report %d.", n))
	}
	if out := mustRun(t, ts.addr, admin, "reports"); strings.Contains(out, "replay --report") {
		t.Errorf("reports still offers a closed report's replay:\n%s", out)
	}
}

// TestAnAdminRemovesAReplayForEveryone: an admin removes Doomed's public death by the id
// its link on the page gives, and Elder's retirement by its name. Each is answered with
// whose it was; the page links neither, their casts (fetched before) are 404, and another
// key's replay of either says none is kept. Removed again, it is refused.
func TestAnAdminRemovesAReplayForEveryone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	admin, key, elder, other := newKey(t), newKey(t), newKey(t), newKey(t)
	writeAdminKeys(t, dir, admin)
	in, room := seedDoomed(t, dir, key)
	seedKnight(t, dir, elder, func(a *world.Adventurer) { a.Name, a.Depth = "Elder", 0 })
	ts, base := startWithPage(t, dir)

	e := openTerminal(t, ts.addr, elder, 100, 30, nil)
	e.waitFor("Welcome back, Elder")
	e.press(keyEnter)
	e.waitFor("Elder │ Level")
	e.retire()
	dieSaying(t, ts.addr, key, in, room, false, "none shall pass")

	st := waitPage(t, base, "Doomed's death and Elder's retirement linked", func(st web.Status) bool {
		d, _ := deathOf(st, "Doomed")
		f, _ := fameOf(st, "Elder")
		return d.Replay != "" && f.Replay != ""
	})
	d, _ := deathOf(st, "Doomed")
	f, _ := fameOf(st, "Elder")
	for _, link := range []string{d.Replay, f.Replay} {
		httpGet(t, base+link, 200)
	}
	id := castLinkID(t, d.Replay)
	if out := mustRun(t, ts.addr, admin, "replay remove "+id); out != "Removed the replay of Doomed's death ("+id+").\n" {
		t.Errorf("replay remove %s: %q", id, out)
	}
	if out := mustRun(t, ts.addr, admin, "replay remove Elder --retired"); out != "Removed the replay of Elder's retirement ("+castLinkID(t, f.Replay)+").\n" {
		t.Errorf("replay remove Elder --retired: %q", out)
	}
	for _, link := range []string{d.Replay, f.Replay} {
		if code := httpStatus(t, base+link); code != http.StatusNotFound {
			t.Errorf("GET %s after its removal: %d", link, code)
		}
	}
	waitPage(t, base, "neither linked", func(st web.Status) bool {
		d, dead := deathOf(st, "Doomed")
		f, fame := fameOf(st, "Elder")
		return dead && fame && d.Replay == "" && f.Replay == ""
	})
	openTerminalCmd(t, ts.addr, other, 100, 30, "replay Doomed --death").waitFor("No replay of Doomed's death is kept.")
	openTerminalCmd(t, ts.addr, other, 100, 30, "replay Elder --retired").waitFor("No replay of Elder's retirement is kept.")
	if _, errOut, code := runCmd(t, ts.addr, admin, "replay remove "+id); code != 1 || !strings.Contains(errOut, "no such replay is kept") {
		t.Errorf("replay remove %s again: %d %q", id, code, errOut)
	}
}

// TestNoPublicCastHoldsAPrivateLine: Alda and Bede, outside, talk in a party, whisper, and
// talk on a channel, and Alda says a line aloud; Cara, in the dungeon, keeps its replays
// private and says a line there, heard by no one. All three retire. The page links Alda's
// and Bede's retirements, not Cara's; every cast it links shows the line said aloud, and
// none holds a line of the party, the whispers, the channel or Cara.
func TestNoPublicCastHoldsAPrivateLine(t *testing.T) {
	t.Parallel()
	const (
		aloud   = "fair weather today"
		party   = "meet by the well"
		whisper = "the key is mine"
		reply   = "then keep it hidden"
		channel = "anyone seen a troll"
		cara    = "nobody hears me here"
	)
	private := []string{party, whisper, reply, channel, cara}
	dir := t.TempDir()
	ka, kb, kc := newKey(t), newKey(t), newKey(t)
	for _, k := range []struct {
		key  gossh.Signer
		name string
	}{{ka, "Alda"}, {kb, "Bede"}} {
		seedKnight(t, dir, k.key, func(a *world.Adventurer) { a.Name, a.Depth = k.name, 0 })
	}
	ts, base := startWithPage(t, dir)
	a := openTerminal(t, ts.addr, ka, 100, 30, nil)
	b := openTerminal(t, ts.addr, kb, 100, 30, nil)
	for _, tm := range []*terminal{a, b} {
		tm.waitFor("Welcome back")
		tm.press(keyEnter)
		tm.waitFor("THE SURFACE")
	}
	c := openTerminal(t, ts.addr, kc, 100, 30, nil)
	c.enterDungeon("Cara")
	c.setReplaysPrivate(true)
	c.chat(cara)
	c.waitFor("You say: " + cara)

	a.chat("/invite Bede")
	b.waitFor("Alda invites you to join the party.")
	b.chat("/accept")
	a.waitFor("Bede joins the party.")
	a.chat("/p " + party)
	b.waitFor("Alda (party): " + party)
	a.chat("/w Bede " + whisper)
	b.waitFor("Alda whispers: " + whisper)
	b.chat("/r " + reply)
	a.waitFor("Bede whispers: " + reply)
	for _, tm := range []*terminal{a, b} {
		tm.chat("/join ooc")
		tm.waitFor("You join ooc")
	}
	a.chat("/ooc " + channel)
	b.waitFor("[ooc] Alda: " + channel)
	a.sayAloud(ts.addr, ka, aloud)
	b.waitFor("Alda says: " + aloud)
	recordNow(t, ts.addr, kb)

	c.climbOut()
	for _, tm := range []*terminal{a, b, c} {
		tm.retire()
	}

	st := waitPage(t, base, "the three retired", func(st web.Status) bool {
		_, fa := fameOf(st, "Alda")
		_, fb := fameOf(st, "Bede")
		_, fc := fameOf(st, "Cara")
		return fa && fb && fc
	})
	if f, _ := fameOf(st, "Cara"); f.Replay != "" {
		t.Errorf("the page links Cara's private retirement: %q", f.Replay)
	}
	page := httpGet(t, base+"/", 200)
	links := regexp.MustCompile(`href="(/replay/[0-9a-f]+\.cast)"`).FindAllStringSubmatch(page, -1)
	if len(links) != 2 {
		t.Fatalf("the page links %d casts, want Alda's and Bede's:\n%s", len(links), page)
	}
	for _, name := range []string{"Alda", "Bede"} {
		f, _ := fameOf(st, name)
		if !strings.Contains(page, `href="`+f.Replay+`"`) {
			t.Errorf("the page does not link %s's retirement %q", name, f.Replay)
		}
	}
	for _, l := range links {
		cast := playCast(t, httpGet(t, base+l[1], 200))
		if !cast.shows(aloud) {
			t.Errorf("the cast %s never shows the line said aloud, %q", l[1], aloud)
		}
		cast.holdsNone(t, "the cast "+l[1], private...)
	}
}

// Helpers.

// startWithPage starts the server on dir with its web page, whose rate cap the tests'
// polling does not reach, and returns the server and the page's address.
func startWithPage(t *testing.T, dir string) (*testServer, string) {
	t.Helper()
	cfg := testConfig(dir, defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.Web.Rate, cfg.Web.Burst = 1000, 1000
	ts, srv := startConfigured(t, cfg)
	return ts, "http://" + srv.httpLn.Addr().String()
}

// dieSaying plays Doomed (key, seeded by seedDoomed) with its replays kept private or
// public, says line aloud, then walks into the guarded room and fights until it dies. It
// returns Doomed's terminal on the death screen.
func dieSaying(t *testing.T, addr string, key gossh.Signer, in []string, room []world.Pos, private bool, line string) *terminal {
	t.Helper()
	tm := openTerminal(t, addr, key, 100, 30, nil)
	tm.waitFor("Welcome back, Doomed")
	tm.press(keyEnter)
	tm.waitFor("Doomed │ Level 1")
	tm.setReplaysPrivate(private)
	tm.sayAloud(addr, key, line)
	walk(t, tm, addr, key, in, room)
	tm.waitFor("FIGHT")
	if !poll(30*time.Second, 50*time.Millisecond, func() bool {
		if strings.Contains(tm.screen(), "R. I. P.") {
			return true
		}
		tm.press("f")
		return false
	}) {
		t.Fatalf("the knight did not die:\n%s", tm.screen())
	}
	tm.waitFor("R. I. P.", "slain by")
	return tm
}

// sayAloud says line aloud, waits until the screen shows it, and has it recorded now.
func (tm *terminal) sayAloud(addr string, key gossh.Signer, line string) {
	tm.t.Helper()
	tm.chat(line)
	tm.waitFor("You say: " + line)
	recordNow(tm.t, addr, key)
}

// recordNow has the record of key's knight take what its screen shows now: a view with
// nothing new of the knight's own but its log is held for the knight's next step or blow
// (replay/gate.go), when the lines it brings may push the line off the screen; the key's
// own list of its replays hands over the knight's record as it is (Recorder.Cut).
func recordNow(t testing.TB, addr string, key gossh.Signer) {
	t.Helper()
	mustRun(t, addr, key, "replay")
}

// setReplaysPrivate opens the options (o) and sets "Death replays" (g) to yours alone or
// to anyone, as the screen says it is now, then returns to the game.
func (tm *terminal) setReplaysPrivate(private bool) {
	tm.t.Helper()
	want, not := "anyone may watch them", "yours alone"
	if private {
		want, not = not, want
	}
	tm.press("o")
	s := tm.waitScreen("the options", func(s string) bool {
		return strings.Contains(s, "Death replays") && (strings.Contains(s, want) || strings.Contains(s, not))
	})
	if !strings.Contains(s, want) {
		tm.press("g")
		tm.waitFor("Death replays", want)
	}
	tm.press("q")
	tm.waitScreen("the game again", func(s string) bool { return !strings.Contains(s, "Death replays") })
}

// rollAfterDeath takes the key from its knight's tombstone to a new knight named name,
// in the dungeon.
func (tm *terminal) rollAfterDeath(name string) {
	tm.t.Helper()
	tm.press(keyEnter)
	tm.waitFor("Press r to roll again")
	tm.press(keyEnter)
	tm.waitFor("Name your knight")
	tm.press(name, keyEnter)
	tm.waitFor(name + " │ Level 1")
}

// climbOut climbs out of the dungeon by its entrance, where a new knight stands.
func (tm *terminal) climbOut() {
	tm.t.Helper()
	tm.press("<")
	tm.waitFor("THE SURFACE", "Outside")
}

// retire retires the knight, outside the dungeon.
func (tm *terminal) retire() {
	tm.t.Helper()
	tm.press("R")
	tm.waitFor("(y/n)")
	tm.press("y")
	tm.waitFor("RETIRED WITH HONOUR")
}

// ownReplayNumber is the number the key's list of its replays gives the one it says
// begins with what.
func ownReplayNumber(t *testing.T, addr string, key gossh.Signer, what string) int {
	t.Helper()
	out := mustRun(t, addr, key, "replay")
	m := regexp.MustCompile(`(?m)^\s*(\d+)  ` + regexp.QuoteMeta(what)).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the key's replays list no %q:\n%s", what, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// castLinkID is the id in a cast's address on the page (web.CastPath).
func castLinkID(t *testing.T, link string) string {
	t.Helper()
	id, ok := strings.CutSuffix(strings.TrimPrefix(link, "/replay/"), ".cast")
	if !ok || id == "" || strings.Contains(id, "/") {
		t.Fatalf("not a cast's address: %q", link)
	}
	return id
}

// pageStatus is the page's /api/status.
func pageStatus(t *testing.T, base string) web.Status {
	t.Helper()
	var st web.Status
	if err := json.Unmarshal([]byte(httpGet(t, base+"/api/status", 200)), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// waitPage polls the page's status until cond holds (it is gathered again at most once a
// web.CacheFor) and returns it.
func waitPage(t *testing.T, base, what string, cond func(web.Status) bool) web.Status {
	t.Helper()
	var st web.Status
	if !poll(3*web.CacheFor, 100*time.Millisecond, func() bool { st = pageStatus(t, base); return cond(st) }) {
		t.Fatalf("the page never showed %s: %+v", what, st)
	}
	return st
}

// deathOf is the named knight's tombstone on the page.
func deathOf(st web.Status, name string) (web.Death, bool) {
	for _, d := range st.Deaths {
		if d.Name == name {
			return d, true
		}
	}
	return web.Death{}, false
}

// fameOf is the named knight's hall-of-fame entry on the page.
func fameOf(st web.Status, name string) (web.Fame, bool) {
	for _, f := range st.Fame {
		if f.Name == name {
			return f, true
		}
	}
	return web.Fame{}, false
}

// httpStatus is the status of a GET of url.
func httpStatus(t *testing.T, url string) int {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return r.StatusCode
}

// castSeen is what an asciicast file showed: its screen after each event, and all it
// wrote with its escapes taken out.
type castSeen struct {
	screens []string
	text    string
}

// playCast plays an asciicast file through a terminal emulator of its size.
func playCast(t *testing.T, cast string) castSeen {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(cast))
	sc.Buffer(nil, 16<<20)
	if !sc.Scan() {
		t.Fatalf("an empty cast")
	}
	var h struct{ Width, Height int }
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil || h.Width == 0 || h.Height == 0 {
		t.Fatalf("the cast's header %q: %v", sc.Text(), err)
	}
	em := vt.NewEmulator(h.Width, h.Height)
	go func() { _, _ = io.Copy(io.Discard, em) }() // its answers to queries; parked at the end, as a terminal's
	var seen castSeen
	var all strings.Builder
	for sc.Scan() {
		var ev []any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || len(ev) != 3 {
			t.Fatalf("a cast's event %q: %v", sc.Text(), err)
		}
		data, _ := ev[2].(string)
		_, _ = em.Write([]byte(data))
		all.WriteString(data)
		seen.screens = append(seen.screens, em.String())
	}
	seen.text = ansi.Strip(all.String())
	return seen
}

// shows reports whether a screen of the cast showed want.
func (c castSeen) shows(want string) bool {
	for _, s := range c.screens {
		if strings.Contains(s, want) {
			return true
		}
	}
	return false
}

// holdsNone fails the test when a screen of the cast showed any of lines, or its text
// holds one.
func (c castSeen) holdsNone(t *testing.T, what string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if strings.Contains(c.text, l) {
			t.Errorf("%s holds %q", what, l)
			continue
		}
		for _, s := range c.screens {
			if strings.Contains(s, l) {
				t.Errorf("%s shows %q:\n%s", what, l, s)
				break
			}
		}
	}
}

// notShown fails the test when out, a session's bytes, holds any of lines, as sent or
// with its escapes taken out.
func notShown(t *testing.T, what, out string, lines ...string) {
	t.Helper()
	plain := ansi.Strip(out)
	for _, l := range lines {
		if strings.Contains(out, l) || strings.Contains(plain, l) {
			t.Errorf("%s holds %q", what, l)
		}
	}
}
