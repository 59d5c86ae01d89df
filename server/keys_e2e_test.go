package server

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// linkCodeRe finds the code in what keys add prints.
var linkCodeRe = regexp.MustCompile(`link ([A-Z0-9]{4}-[A-Z0-9]{4})`)

// keysAdd runs keys add with key and returns the code it printed.
func keysAdd(t *testing.T, addr string, key gossh.Signer) string {
	t.Helper()
	out, errOut, code := runCmd(t, addr, key, "keys add")
	m := linkCodeRe.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("keys add: %d %q %q", code, out, errOut)
	}
	return m[1]
}

// keysOf is keys --json of key.
func keysOf(t *testing.T, addr string, key gossh.Signer) []command.KeyRow {
	t.Helper()
	out, errOut, code := runCmd(t, addr, key, "keys --json")
	var rows []command.KeyRow
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil {
		t.Fatalf("keys --json: %d %q %q", code, out, errOut)
	}
	return rows
}

// A player on two machines: keys add on the laptop's key gives a code, link CODE from
// the desktop's key attaches it to the same knight, and whoami --json names the knight
// from both; keys lists both with the fingerprints ssh-keygen -l prints, the comment the
// player gave and when each was added and used. The bad cases of each step are refused
// with a line that says why: a wrong code, a reused one, an expired one, a code for a
// knight that has died since, a key that has a living knight of its own (unless
// --replace, which retires that knight into a tombstone), removing a key not the
// knight's, and removing the last key.
func TestOneKnightOnTwoMachines(t *testing.T) {
	m := startTwoMachines(t)
	m.linkTheDesktop()
	m.anExpiredCodeIsRefused()
	m.linkOverALivingKnight()
	m.removeKeys()
	m.aDeadKnightsCodeIsRefused()
}

// twoMachines is TestOneKnightOnTwoMachines' server and keys, its steps its methods.
type twoMachines struct {
	t               *testing.T
	ts              *testServer
	srv             *Server
	laptop, desktop gossh.Signer
	third           gossh.Signer // a key with a knight of its own, then linked with --replace
	knight          string       // Gawain's id
}

// startTwoMachines starts the server with Gawain, played from the laptop's key.
func startTwoMachines(t *testing.T) *twoMachines {
	ts, srv := startConfigured(t, testConfig(t.TempDir(), defaultSeed))
	m := &twoMachines{t: t, ts: ts, srv: srv, laptop: newKey(t), desktop: newKey(t)}
	tm := openTerminal(t, ts.addr, m.laptop, 80, 24, nil)
	tm.enterDungeon("Gawain")
	tm.quit()
	return m
}

// linkTheDesktop: a wrong code is refused; the laptop's code links the desktop, whoami
// names Gawain from both, keys lists both; the used code is refused a second time.
func (m *twoMachines) linkTheDesktop() {
	t, addr := m.t, m.ts.addr
	if _, errOut, code := runCmd(t, addr, m.desktop, "link ZZZZ-ZZZZ"); code != 1 || !strings.Contains(errOut, "no such code") {
		t.Fatalf("a wrong code: %d %q", code, errOut)
	}
	code := keysAdd(t, addr, m.laptop)
	if out, errOut, c := runCmd(t, addr, m.desktop, "link "+strings.ToLower(code)+" --comment the desktop"); c != 0 || !strings.Contains(out, "This key now plays Gawain") {
		t.Fatalf("link: %d %q %q", c, out, errOut)
	}
	a, b := whoamiJSON(t, addr, m.laptop), whoamiJSON(t, addr, m.desktop)
	if a.Name != "Gawain" || b.Name != "Gawain" || a.Knight != b.Knight || a.Fingerprint == b.Fingerprint {
		t.Fatalf("whoami from the two keys: %+v / %+v", a, b)
	}
	m.knight = a.Knight
	m.keysListBoth()
	if _, errOut, c := runCmd(t, addr, newKey(t), "link "+code); c != 1 || !strings.Contains(errOut, "no such code") {
		t.Fatalf("a code used twice: %d %q", c, errOut)
	}
}

// keysListBoth: keys --json and keys list the laptop's and the desktop's keys, with the
// fingerprints, the comment, the key asking, and when each was added and used.
func (m *twoMachines) keysListBoth() {
	t, addr := m.t, m.ts.addr
	rows := keysOf(t, addr, m.desktop)
	if len(rows) != 2 || rows[0].Fingerprint != keys.Fingerprint(m.laptop.PublicKey()) || rows[1].Fingerprint != keys.Fingerprint(m.desktop.PublicKey()) ||
		rows[1].Comment != "the desktop" || !rows[1].This || rows[0].This || rows[0].Type != "ssh-ed25519" || rows[0].Added == "" || rows[0].LastUsed == "" {
		t.Fatalf("keys --json: %+v", rows)
	}
	out, _, _ := runCmd(t, addr, m.laptop, "keys")
	if !strings.Contains(out, keys.Fingerprint(m.desktop.PublicKey())) || !strings.Contains(out, "(this key)") {
		t.Fatalf("keys:\n%s", out)
	}
}

// anExpiredCodeIsRefused: a code past its life links nothing.
func (m *twoMachines) anExpiredCodeIsRefused() {
	t, addr := m.t, m.ts.addr
	code := keysAdd(t, addr, m.laptop)
	m.srv.codes.SetClock(func() time.Time { return time.Now().Add(knights.CodeLife + time.Second) })
	if _, errOut, c := runCmd(t, addr, newKey(t), "link "+code); c != 1 || !strings.Contains(errOut, "no such code") {
		t.Fatalf("an expired code: %d %q", c, errOut)
	}
	m.srv.codes.SetClock(nil)
}

// linkOverALivingKnight: a key with a living knight of its own is refused, then with
// --replace the other knight is a tombstone.
func (m *twoMachines) linkOverALivingKnight() {
	t, addr := m.t, m.ts.addr
	m.third = newKey(t)
	tm3 := openTerminal(t, addr, m.third, 80, 24, nil)
	tm3.enterDungeon("Percival")
	code := keysAdd(t, addr, m.laptop)
	if _, errOut, c := runCmd(t, addr, m.third, "link "+code); c != 1 || !strings.Contains(errOut, "leave the game first") {
		t.Fatalf("link while the key's knight plays: %d %q", c, errOut)
	}
	tm3.quit()
	if _, errOut, c := runCmd(t, addr, m.third, "link "+code); c != 1 || !strings.Contains(errOut, "living knight, Percival") || !strings.Contains(errOut, "--replace") {
		t.Fatalf("link over a living knight: %d %q", c, errOut)
	}
	if w := whoamiJSON(t, addr, m.third); w.Name != "Percival" {
		t.Fatalf("a refused link changed the key's knight: %+v", w)
	}
	if out, errOut, c := runCmd(t, addr, m.third, "link "+code+" --replace"); c != 0 || !strings.Contains(out, "retired into a tombstone") {
		t.Fatalf("link --replace: %d %q %q", c, out, errOut) // the code was given back when refused
	}
	if w := whoamiJSON(t, addr, m.third); w.Name != "Gawain" {
		t.Fatalf("after link --replace the key plays %+v", w)
	}
	tombs, err := m.srv.store.Tombstones()
	if err != nil || len(tombs) != 1 || tombs[0].Adventurer.Name != "Percival" || tombs[0].Adventurer.Death == nil {
		t.Fatalf("tombstones: %+v %v", tombs, err)
	}
	if m.srv.book().Taken("Percival", "K-ANOTHER") {
		t.Error("the retired knight's name is still taken")
	}
}

// removeKeys: keys remove takes no other knight's key, and never the last.
func (m *twoMachines) removeKeys() {
	t, addr := m.t, m.ts.addr
	stranger := newKey(t)
	tms := openTerminal(t, addr, stranger, 80, 24, nil)
	tms.enterDungeon("Kay")
	tms.quit()
	if _, errOut, c := runCmd(t, addr, m.laptop, "keys remove "+keys.Fingerprint(stranger.PublicKey())); c != 1 || !strings.Contains(errOut, "not a key of your knight") {
		t.Fatalf("removing another knight's key: %d %q", c, errOut)
	}
	for _, k := range []gossh.Signer{m.third, m.desktop} {
		if _, errOut, c := runCmd(t, addr, m.laptop, "keys remove "+keys.Fingerprint(k.PublicKey())); c != 0 {
			t.Fatalf("keys remove: %d %q", c, errOut)
		}
	}
	if _, errOut, c := runCmd(t, addr, m.laptop, "keys remove "+keys.Fingerprint(m.laptop.PublicKey())); c != 1 || !strings.Contains(errOut, "only key") {
		t.Fatalf("removing the last key: %d %q", c, errOut)
	}
	if _, errOut, c := runCmd(t, addr, m.desktop, "whoami"); c != 1 || !strings.Contains(errOut, "no knight") {
		t.Fatalf("a removed key still plays: %d %q", c, errOut)
	}
}

// aDeadKnightsCodeIsRefused: a code for a knight that has died since it was given links
// nothing, and a dead knight's key gets no new code.
func (m *twoMachines) aDeadKnightsCodeIsRefused() {
	t, addr := m.t, m.ts.addr
	code := keysAdd(t, addr, m.laptop)
	rec, err := m.srv.saver.Load(m.knight)
	if err != nil {
		t.Fatal(err)
	}
	rec.Death = &world.Death{Killer: "a Dragon", Depth: 1}
	m.srv.saver.Put(rec)
	if _, errOut, c := runCmd(t, addr, m.desktop, "link "+code); c != 1 || !strings.Contains(errOut, "died or retired") {
		t.Fatalf("a code of a dead knight: %d %q", c, errOut)
	}
	if _, errOut, c := runCmd(t, addr, m.laptop, "keys add"); c != 1 || !strings.Contains(errOut, "dead or retired") {
		t.Fatalf("keys add of a dead knight: %d %q", c, errOut)
	}
}

// Wrong codes are counted per key and per address: after knights.MaxCodeTries even the right
// code is refused, so a code cannot be guessed.
func TestWrongCodesAreCounted(t *testing.T) {
	ts := startServer(t, t.TempDir())
	owner, guesser := newKey(t), newKey(t)
	tm := openTerminal(t, ts.addr, owner, 80, 24, nil)
	tm.enterDungeon("Tristan")
	tm.quit()
	code := keysAdd(t, ts.addr, owner)
	for range knights.MaxCodeTries {
		runCmd(t, ts.addr, guesser, "link AAAA-AAAA")
	}
	if _, errOut, c := runCmd(t, ts.addr, guesser, "link "+code); c != 1 || !strings.Contains(errOut, "too many wrong codes") {
		t.Fatalf("after %d wrong codes: %d %q", knights.MaxCodeTries, c, errOut)
	}
}

// The same knight twice, by two of its keys: the second connection takes the knight
// over, the first is told so and closed — never two sessions driving one knight (the rule
// was the same key twice before a knight had several keys).
func TestTwoKeysOfOneKnightNeverDriveItAtOnce(t *testing.T) {
	ts := startServer(t, t.TempDir())
	laptop, desktop := newKey(t), newKey(t)
	first := openTerminal(t, ts.addr, laptop, 80, 24, nil)
	first.enterDungeon("Bors")
	code := keysAdd(t, ts.addr, laptop)
	if _, errOut, c := runCmd(t, ts.addr, desktop, "link "+code); c != 0 {
		t.Fatalf("link: %d %q", c, errOut)
	}
	second := openTerminal(t, ts.addr, desktop, 80, 24, nil)
	second.waitFor("Welcome back, Bors")
	second.press(keyEnter)
	second.waitFor("Bors │ Level 1")
	if !first.ended(10 * time.Second) {
		t.Fatal("the first connection was not closed")
	}
	if !strings.Contains(first.rawOutput(), "taken over by another connection") {
		t.Fatal("the first connection was not told why")
	}
	out, _, _ := runCmd(t, ts.addr, newKey(t), "who")
	if strings.Count(out, "Bors") != 1 {
		t.Fatalf("who lists the knight %d times:\n%s", strings.Count(out, "Bors"), out)
	}
}

// An admin's keys move OLD NEW, for a player who lost a key: NEW plays the knight, OLD
// plays nothing; a key of a living knight cannot be moved onto; a player cannot run it.
func TestAdminMovesALostKey(t *testing.T) {
	ts, admin := startAdminServer(t)
	lost, found := newKey(t), newKey(t)
	tm := openTerminal(t, ts.addr, lost, 80, 24, nil)
	tm.enterDungeon("Lamorak")
	tm.quit()
	oldFP, newFP := keys.Fingerprint(lost.PublicKey()), keys.Fingerprint(found.PublicKey())
	if _, errOut, c := runCmd(t, ts.addr, found, "keys move "+oldFP+" "+newFP); c != 1 || strings.TrimSpace(errOut) != command.PermissionDenied {
		t.Fatalf("a player ran keys move: %d %q", c, errOut)
	}
	out, errOut, c := runCmd(t, ts.addr, admin, "keys move "+oldFP+" "+newFP)
	if c != 0 || !strings.Contains(out, "Lamorak is now played by "+newFP) {
		t.Fatalf("keys move: %d %q %q", c, out, errOut)
	}
	if w := whoamiJSON(t, ts.addr, found); w.Name != "Lamorak" {
		t.Fatalf("the new key plays %+v", w)
	}
	if _, errOut, c := runCmd(t, ts.addr, lost, "whoami"); c != 1 || !strings.Contains(errOut, "no knight") {
		t.Fatalf("the lost key still plays: %d %q", c, errOut)
	}
	other := newKey(t)
	tmo := openTerminal(t, ts.addr, other, 80, 24, nil)
	tmo.enterDungeon("Dagonet")
	tmo.quit()
	if _, errOut, c := runCmd(t, ts.addr, admin, "keys move "+newFP+" "+keys.Fingerprint(other.PublicKey())); c != 1 || !strings.Contains(errOut, "living knight") {
		t.Fatalf("keys move onto a key with a living knight: %d %q", c, errOut)
	}
	if _, errOut, c := runCmd(t, ts.addr, admin, "keys move SHA256:nobody "+newFP); c != 1 || !strings.Contains(errOut, "plays no knight") {
		t.Fatalf("keys move of an unknown key: %d %q", c, errOut)
	}
}

// The message of the day: an admin sets it, the title screen and motd show it, clear
// takes it away; a player may not set it.
func TestMessageOfTheDay(t *testing.T) {
	ts, admin := startAdminServer(t)
	player := newKey(t)
	if _, errOut, c := runCmd(t, ts.addr, player, "motd set hello"); c != 1 || strings.TrimSpace(errOut) != command.PermissionDenied {
		t.Fatalf("a player set the motd: %d %q", c, errOut)
	}
	if out, errOut, c := runCmd(t, ts.addr, admin, "motd set Welcome to the \x1b[31mdungeon\x1b[0m; the Balrog is on level 9."); c != 0 {
		t.Fatalf("motd set: %d %q %q", c, out, errOut)
	}
	out, _, _ := runCmd(t, ts.addr, player, "motd")
	if !strings.Contains(out, "Welcome to the") || strings.Contains(out, "\x1b") {
		t.Fatalf("motd: %q", out)
	}
	tm := openTerminal(t, ts.addr, player, 80, 24, nil)
	tm.waitFor("Welcome to the", "Balrog is on level 9.")
	tm.close()
	runCmd(t, ts.addr, admin, "motd clear")
	if out, _, _ := runCmd(t, ts.addr, player, "motd"); !strings.Contains(out, "No message of the day") {
		t.Fatalf("motd after clear: %q", out)
	}
}

// Regression (issue 30): codes were kept in memory only, so a restart lost them, and a
// new keys add left the knight's older codes waiting. A knight's new code replaces its
// older one, and the new one links after a restart within its ten minutes.
func TestALinkCodeOutlivesARestart(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, dir)
	laptop, desktop := newKey(t), newKey(t)
	tm := openTerminal(t, ts.addr, laptop, 80, 24, nil)
	tm.enterDungeon("Gawain")
	tm.quit()
	older, newer := keysAdd(t, ts.addr, laptop), keysAdd(t, ts.addr, laptop)
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	ts = startServer(t, dir)
	if _, errOut, code := runCmd(t, ts.addr, desktop, "link "+older); code != 1 || !strings.Contains(errOut, "code") {
		t.Errorf("the knight's older code after a newer: %d %q", code, errOut)
	}
	if out, errOut, code := runCmd(t, ts.addr, desktop, "link "+newer); code != 0 {
		t.Fatalf("link with the newer code after a restart: %d %q %q", code, out, errOut)
	}
	if w := whoamiJSON(t, ts.addr, desktop); w.Name != "Gawain" {
		t.Errorf("the desktop plays %q after linking", w.Name)
	}
}
