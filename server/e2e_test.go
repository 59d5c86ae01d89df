package server

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A brand-new player reaches the dungeon by pressing Enter at every prompt.
func TestNewPlayerReachesTheDungeonWithEnter(t *testing.T) {
	srv := startServer(t, t.TempDir())
	key := newKey(t)
	tm := openTerminal(t, srv.addr, key, 80, 24, nil)
	screen := tm.enterDungeon("")
	if !strings.Contains(screen, "Level 1") || !strings.Contains(screen, "Hits") || !strings.Contains(screen, "Spells 4") {
		t.Fatalf("status line missing:\n%s", screen)
	}
	if !strings.Contains(screen, "()") {
		t.Fatalf("the knight is not drawn:\n%s", screen)
	}
	w := whoamiJSON(t, srv.addr, key)
	if w.Fingerprint != keys.Fingerprint(key.PublicKey()) || w.Depth != 1 || !w.Online || w.Name == "" {
		t.Fatalf("whoami: %+v", w)
	}
	if w.Party.Leader != "" || w.Party.Members == nil || len(w.Party.Members) != 0 {
		t.Fatalf("a knight alone has the party %+v, want an empty leader and members []", w.Party)
	}
	l := world.Generate(1, world.LevelSeed(defaultSeed, 1), false)
	if w.X != l.Up.X || w.Y != l.Up.Y {
		t.Fatalf("new knight at %d,%d, want the entrance %v", w.X, w.Y, l.Up)
	}
}

func TestMovingChangesWhoami(t *testing.T) {
	srv := startServer(t, t.TempDir())
	key := newKey(t)
	tm := openTerminal(t, srv.addr, key, 80, 24, nil)
	tm.enterDungeon("Percival")
	before := whoamiJSON(t, srv.addr, key)
	d, k := openDir(t)
	tm.press(k)
	dx, dy := d.Delta()
	waitUntil(t, "whoami to show the move", func() bool {
		w := whoamiJSON(t, srv.addr, key)
		return w.X == before.X+dx && w.Y == before.Y+dy
	})
	out, _, code := runCmd(t, srv.addr, key, "whoami")
	if code != 0 || !strings.Contains(out, "name: Percival\n") || !strings.Contains(out, "depth: 1\n") || !strings.Contains(out, "party: none\n") {
		t.Fatalf("whoami text (exit %d):\n%s", code, out)
	}
}

func TestTwoPlayersSeeEachOther(t *testing.T) {
	srv := startServer(t, t.TempDir())
	ka, kb := newKey(t), newKey(t)
	a := openTerminal(t, srv.addr, ka, 80, 24, nil)
	a.enterDungeon("Gawain")
	b := openTerminal(t, srv.addr, kb, 100, 30, nil)
	b.enterDungeon("Bors")

	out, _, code := runCmd(t, srv.addr, ka, "who")
	if code != 0 || !strings.Contains(out, "Gawain") || !strings.Contains(out, "Bors") {
		t.Fatalf("who (exit %d):\n%s", code, out)
	}
	out, _, _ = runCmd(t, srv.addr, ka, "who --json")
	if !strings.Contains(out, `"name":"Gawain"`) || !strings.Contains(out, `"name":"Bors"`) {
		t.Fatalf("who --json: %s", out)
	}
	// Both start at the entrance: each sees the other there, drawn by initials.
	a.waitFor("With you: Bors", "Bo")
	b.waitFor("With you: Gawain", "Ga")

	// Bors walks away; Gawain's screen follows him live.
	_, k := openDir(t)
	b.press(k)
	waitUntil(t, "Bors to move", func() bool {
		w := whoamiJSON(t, srv.addr, kb)
		return w.X != whoamiJSON(t, srv.addr, ka).X || w.Y != whoamiJSON(t, srv.addr, ka).Y
	})
	a.waitFor("Bors") // still listed: with him, or elsewhere on the level
}

func TestDifferentKeysHaveDifferentKnights(t *testing.T) {
	srv := startServer(t, t.TempDir())
	ka, kb := newKey(t), newKey(t)
	openTerminal(t, srv.addr, ka, 80, 24, nil).enterDungeon("Tristan")
	_, errOut, code := runCmd(t, srv.addr, kb, "whoami")
	if code != 1 || !strings.Contains(errOut, "no knight") {
		t.Fatalf("whoami for a key without a knight: exit %d, %q", code, errOut)
	}
	openTerminal(t, srv.addr, kb, 80, 24, nil).enterDungeon("Lancelot")
	a, b := whoamiJSON(t, srv.addr, ka), whoamiJSON(t, srv.addr, kb)
	if a.Name != "Tristan" || b.Name != "Lancelot" || a.Fingerprint == b.Fingerprint {
		t.Fatalf("knights: %+v and %+v", a, b)
	}
}

func TestUnknownCommandExitsOne(t *testing.T) {
	srv := startServer(t, t.TempDir())
	key := newKey(t)
	for _, cmd := range []string{"frobnicate", "who --bogus", "whoami extra", "\x1b]0;evil\x07"} {
		out, errOut, code := runCmd(t, srv.addr, key, cmd)
		if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 || strings.ContainsAny(errOut, "\x1b\x07") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", cmd, code, out, errOut)
		}
	}
	out, _, code := runCmd(t, srv.addr, key, "help")
	if code != 0 || !strings.Contains(out, "whoami") {
		t.Fatalf("help: exit %d %q", code, out)
	}
}

// A knight is where it was left after a disconnect and a server restart.
func TestRestartKeepsTheKnightWhereItStood(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	key := newKey(t)
	tm := openTerminal(t, srv.addr, key, 80, 24, nil)
	tm.enterDungeon("Galahad")
	before := whoamiJSON(t, srv.addr, key)
	d, k := openDir(t)
	tm.press(k)
	dx, dy := d.Delta()
	waitUntil(t, "the move", func() bool { w := whoamiJSON(t, srv.addr, key); return w.X == before.X+dx && w.Y == before.Y+dy })
	moved := whoamiJSON(t, srv.addr, key)
	tm.quit()
	if err := srv.stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}

	srv = startServer(t, dir)
	after := whoamiJSON(t, srv.addr, key)
	if after.Online || after.X != moved.X || after.Y != moved.Y || after.Depth != moved.Depth || after.Name != "Galahad" {
		t.Fatalf("after restart: %+v, before: %+v", after, moved)
	}
	tm = openTerminal(t, srv.addr, key, 160, 50, nil)
	tm.waitFor("Welcome back, Galahad")
	tm.press(keyEnter)
	tm.waitFor("Galahad │ Level 1", "Depth 1")
	if w := whoamiJSON(t, srv.addr, key); w.X != moved.X || w.Y != moved.Y {
		t.Fatalf("back in the dungeon at %d,%d, left at %d,%d", w.X, w.Y, moved.X, moved.Y)
	}
}

// Dropping the connection (no q) also saves the knight, and shutting the server down while
// players are connected saves them too.
func TestShutdownWithPlayersConnectedSavesThem(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	key := newKey(t)
	tm := openTerminal(t, srv.addr, key, 80, 24, nil)
	tm.enterDungeon("Kay")
	before := whoamiJSON(t, srv.addr, key)
	moved := tm.stepOut("the move", before, func() command.Whoami { return whoamiJSON(t, srv.addr, key) })
	start := time.Now()
	if err := srv.stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("shutdown took %v", d)
	}
	if !strings.Contains(tm.finalOutput(), "The server is going down for now. Your knight is saved") {
		t.Fatal("the player was not told the server is going down")
	}
	srv = startServer(t, dir)
	if w := whoamiJSON(t, srv.addr, key); w.Name != "Kay" || w.X != moved.X || w.Y != moved.Y {
		t.Fatalf("after shutdown: %+v, before %+v", w, moved)
	}
}

// The host key is made on first start and reused after.
func TestHostKeyIsKept(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, dir)
	first, err := os.ReadFile(filepath.Join(dir, "ssh_host_ed25519_key"))
	if err != nil {
		t.Fatal(err)
	}
	_ = srv.stop()
	startServer(t, dir)
	second, _ := os.ReadFile(filepath.Join(dir, "ssh_host_ed25519_key"))
	if string(first) != string(second) {
		t.Fatal("the host key changed between starts")
	}
}

// A terminal smaller than the game draws in is asked to grow, and told the command that
// plays in plain mode with the host and port the web page gives; growing it shows the
// game.
func TestSmallTerminalIsAskedToEnlarge(t *testing.T) {
	srv := startServer(t, t.TempDir())
	tm := openTerminal(t, srv.addr, newKey(t), 30, 10, nil)
	_, port, _ := net.SplitHostPort(srv.addr)
	tm.waitWords("Please enlarge your terminal to at least", "ssh -t -p "+port+" localhost play --plain")
	tm.resize(80, 24)
	tm.waitFor("Press Enter to begin")
}

// Issue 28: behind the too-small message, keys moved the knight, opened the chat line and
// struck blows the player never saw. Through SSH, keys pressed while the terminal is too
// small change nothing: growing it again shows the screen as it was, a half-typed chat
// line included.
func TestKeysChangeNothingWhileTheTerminalIsTooSmall(t *testing.T) {
	srv := startServer(t, t.TempDir())
	tm := openTerminal(t, srv.addr, newKey(t), 80, 24, nil)
	tm.enterDungeon("Lamorak")
	before := tm.screen()
	behind := func(keys ...string) {
		tm.resize(30, 10)
		tm.waitWords("(it is 30×10 now)")
		tm.press(keys...)
		// The keys went before this window change on the session's channel.
		tm.resize(31, 11)
		tm.waitWords("(it is 31×11 now)")
		tm.resize(80, 24)
	}
	behind(keyUp, keyUp, keyLeft, "m", "i", keyEnter)
	tm.waitFor("Depth 1")
	if !poll(5*time.Second, pollEvery, func() bool { return tm.screen() == before }) {
		t.Errorf("keys behind the message changed the screen:\n%s\nwant:\n%s", tm.screen(), before)
	}
	tm.press(keyEnter, "hel")
	tm.waitFor("hel_")
	behind("lo", keyEnter)
	s := tm.waitFor("hel_")
	if strings.Contains(s, "hello") {
		t.Errorf("keys behind the message typed on the chat line:\n%s", s)
	}
	tm.press("lo", keyEnter)
	tm.log("You say: hello")
}

// Colour follows the client: the PLATO orange in 256 colours for xterm-256color, in true
// colour when the client says so, and no colour at all with NO_COLOR.
func TestColourFollowsTheClient(t *testing.T) {
	srv := startServer(t, t.TempDir())
	colour := regexp.MustCompile(`\x1b\[[0-9;:]*[34]8[;:][25]`)
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string // a colour sequence that must appear, or "" for none at all
	}{
		{"256 colours", nil, "38;5;208"},
		{"true colour", map[string]string{"COLORTERM": "truecolor"}, "38;2;255;140;0"},
		{"NO_COLOR", map[string]string{"NO_COLOR": "1"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := openTerminal(t, srv.addr, newKey(t), 80, 24, tc.env)
			tm.enterDungeon("")
			raw := tm.rawOutput()
			if tc.want == "" {
				if m := colour.FindString(raw); m != "" {
					t.Fatalf("NO_COLOR output has a colour sequence %q", m)
				}
				return
			}
			if !strings.Contains(raw, tc.want) {
				t.Fatalf("output lacks %q; colour sequences seen: %q", tc.want, colour.FindAllString(raw, 5))
			}
		})
	}
}

// A knight leaves through the exit (seed 000's successful exit), retires from outside, and
// the hall of fame shows it: `scores`, `scores --json` and the in-game screen. The key then
// rolls a new knight.
func TestRetireIntoTheHallOfFame(t *testing.T) {
	srv := startServer(t, t.TempDir())
	key := newKey(t)
	out, _, code := runCmd(t, srv.addr, key, "scores")
	if code != 0 || !strings.Contains(out, "No knight has retired yet.") {
		t.Fatalf("scores on a new server (exit %d): %q", code, out)
	}
	tm := openTerminal(t, srv.addr, key, 80, 24, nil)
	tm.enterDungeon("Palamedes")
	tm.press("<")
	tm.waitFor("THE SURFACE", "EX", "Outside")
	tm.press("R")
	tm.waitFor("(y/n)")
	tm.press("y")
	tm.waitFor("RETIRED WITH HONOUR", "Palamedes")
	out, _, code = runCmd(t, srv.addr, key, "scores")
	if code != 0 || !strings.Contains(out, "Palamedes") || !strings.Contains(out, "(yours)") {
		t.Fatalf("scores (exit %d):\n%s", code, out)
	}
	out, _, _ = runCmd(t, srv.addr, newKey(t), "scores --json")
	if !strings.Contains(out, `"name":"Palamedes"`) || !strings.Contains(out, `"yours":false`) {
		t.Fatalf("scores --json: %s", out)
	}
	tm.press(keyEnter)
	tm.waitFor("Press r to roll again")
	tm.press(keyEnter)
	tm.waitFor("Name your knight")
	tm.press("Tor", keyEnter)
	tm.waitFor("Tor │ Level 1")
	tm.press("F")
	tm.waitFor("HALL OF FAME", "Palamedes")
}

// A spell is cast from the menu that 1 opens: Depth tells the level and costs one unit
// (seed 000: "Level 1 spells cost you 1 unit each").
func TestCastASpell(t *testing.T) {
	srv := startServer(t, t.TempDir())
	key := newKey(t)
	tm := openTerminal(t, srv.addr, key, 80, 24, nil)
	tm.enterDungeon("Ector")
	tm.press("1")
	tm.waitFor("LEVEL 1 SPELLS", "Depth", "Magic Missile")
	tm.press("e") // Depth, the fifth spell of level 1
	tm.waitFor("you are on level 1 of the dungeon", "Spells 3")
	if w := whoamiJSON(t, srv.addr, key); w.SpellUnits != 3 {
		t.Fatalf("spell units %d after one level-1 spell, want 3", w.SpellUnits)
	}
	tm.press("1", "f") // Light: secret doors show for 24 moves
	tm.waitFor("casts Light", "Spells 2")
	out, _, _ := runCmd(t, srv.addr, key, "whoami --json")
	if !strings.Contains(out, `"effects":["Light (24 moves)"]`) {
		t.Fatalf("whoami effects: %s", out)
	}
}

// Issue 14: at shutdown a player on the death screen was not told (the log said told=3
// with 4 connected): only sessions with a knight in the world were. Every game session
// is told, whatever screen it is on: playing, the title, the death screen, watching.
func TestEverySessionIsToldAtShutdown(t *testing.T) {
	dir := t.TempDir()
	doomedKey := newKey(t)
	in, room := seedAtTheGuardsDoor(t, dir, doomedKey, func(a *world.Adventurer) {
		a.Name, a.Dex, a.Hits, a.MaxHits = "Doomed", 3, 1, 1
	})
	srv := startServer(t, dir)
	player := openTerminal(t, srv.addr, newKey(t), 80, 24, nil)
	player.enterDungeon("Kay")
	title := openTerminal(t, srv.addr, newKey(t), 80, 24, nil)
	title.waitFor("Do you use a screen reader?")
	watcher := openTerminalCmd(t, srv.addr, newKey(t), 80, 24, "watch Kay")
	watcher.waitFor("Kay │ Level 1")
	dead := openTerminal(t, srv.addr, doomedKey, 100, 30, nil)
	dead.waitFor("Welcome back, Doomed")
	dead.press(keyEnter)
	dead.waitFor("Doomed │ Level 1")
	walk(t, dead, srv.addr, doomedKey, in, room)
	waitUntil(t, "Doomed to die", func() bool {
		if strings.Contains(dead.screen(), "R. I. P.") {
			return true
		}
		dead.press("f") // swing (and miss) so the monster swings back
		return false
	})
	if err := srv.stop(); err != nil {
		t.Fatal(err)
	}
	for name, tm := range map[string]*terminal{"playing": player, "on the title": title, "watching": watcher, "on the death screen": dead} {
		if !strings.Contains(tm.finalOutput(), farewellMessage) {
			t.Errorf("a session %s was not told the server is going down:\n%s", name, tm.screen())
		}
	}
}
