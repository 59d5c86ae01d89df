package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// seedTestFolder seeds a folder of n knights in a test's temporary folder.
func seedTestFolder(t *testing.T, n int, place string, levels int) (string, []loadKey) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := seedFolder(seedConfig{Dir: dir, N: n, Seed: 7, DungeonSeed: serverDefaultSeed, Levels: levels, Place: place}); err != nil {
		t.Fatal(err)
	}
	ks, err := readKeysFile(filepath.Join(dir, keysFileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != n {
		t.Fatalf("%d keys in the file, want %d", len(ks), n)
	}
	return dir, ks
}

// A seeded folder holds, through the store's own reading, every knight on a corridor
// square of its level, the levels in turn, each found from its key in the keys index;
// the dungeon's levels are saved; the keys file is the owner's alone; and one seed makes
// the same keys, knights and squares.
func TestSeedWritesReturningPlayers(t *testing.T) {
	t.Parallel()
	const n = 23
	dir, ks := seedTestFolder(t, n, placeFloor, world.DefaultDepth)
	if fi, err := os.Stat(filepath.Join(dir, keysFileName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("keys file: %v, %v; want mode 0600", fi, err)
	}
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	levels := world.GenerateDungeon(serverDefaultSeed, world.DefaultDepth)
	saved, err := st.Levels()
	if err != nil {
		t.Fatal(err)
	}
	if len(saved) != world.DefaultDepth+1 { // and the surface's
		t.Errorf("%d level states saved, want %d", len(saved), world.DefaultDepth+1)
	}
	names := map[string]bool{}
	for i, k := range ks {
		pub, err := gossh.NewPublicKey(k.priv.Public())
		if err != nil {
			t.Fatal(err)
		}
		entry, err := st.KeyOf(keys.Fingerprint(pub))
		if err != nil {
			t.Fatalf("knight %d: %v", i, err)
		}
		rec, err := st.LoadAdventurer(entry.Knight)
		if err != nil {
			t.Fatalf("knight %d: %v", i, err)
		}
		if rec.Depth != i%world.DefaultDepth+1 || rec.Depth != k.depth || rec.X != k.x || rec.Y != k.y || rec.Name != k.name {
			t.Errorf("knight %d stored at %d (%d,%d) as %q; the keys file says %d (%d,%d) %q",
				i, rec.Depth, rec.X, rec.Y, rec.Name, k.depth, k.x, k.y, k.name)
		}
		if l := levels[rec.Depth-1]; !usable(l, rec.Pos()) {
			t.Errorf("knight %d stands on level %d at %v: terrain %v, feature %v", i, rec.Depth, rec.Pos(), l.Terrain(rec.Pos()), l.Feature(rec.Pos()))
		}
		if _, err := world.CleanName(rec.Name); err != nil || names[world.NameKey(rec.Name)] {
			t.Errorf("knight %d's name %q: %v (or taken)", i, rec.Name, err)
		}
		names[world.NameKey(rec.Name)] = true
		if rec.Ended() || rec.Hits <= 0 || rec.Level != 1 {
			t.Errorf("knight %d: %+v", i, rec)
		}
	}
	if count, err := st.CountKnights(); err != nil || count != n {
		t.Errorf("%d knights stored (%v), want %d", count, err, n)
	}

	_, again := seedTestFolder(t, n, placeFloor, world.DefaultDepth)
	for i := range ks {
		if !ks[i].priv.Equal(again[i].priv) || ks[i].depth != again[i].depth || ks[i].x != again[i].x || ks[i].y != again[i].y || ks[i].name != again[i].name {
			t.Fatalf("knight %d differs between two folders of one seed", i)
		}
	}
	if _, err := seedFolder(seedConfig{Dir: dir, N: 1, Levels: 1, Place: placeFloor}); err == nil {
		t.Error("seeding a folder that has a store already: no error")
	}
}

// -place doors puts each knight on the corridor square outside a door of a room that a
// guard of the saved dungeon guards.
func TestSeedBesideGuardedDoors(t *testing.T) {
	t.Parallel()
	dir, ks := seedTestFolder(t, 12, placeDoors, 3)
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	saved, err := st.Levels()
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	levels := world.GenerateDungeon(serverDefaultSeed, world.DefaultDepth)
	for i, k := range ks {
		l := levels[k.depth-1]
		guarded := guardedRooms(saved, k.depth)
		p := world.Pos{X: k.x, Y: k.y}
		beside := false
		for _, d := range []world.Dir{world.North, world.East, world.South, world.West} {
			e := l.Edge(p, d)
			if r := l.RoomAt(p.Step(d)); r >= 0 && slices.Contains(guarded, r) && (e == world.EdgeDoor || e == world.EdgeLocked || e == world.EdgeSecretMarked) {
				beside = true
			}
		}
		if k.depth != i%3+1 || !usable(l, p) || !beside {
			t.Errorf("knight %d at level %d %v: beside a guarded room's door %v", i, k.depth, p, beside)
		}
	}
}

func TestScenarioConfigCheck(t *testing.T) {
	ok := Config{Addr: "127.0.0.1:1", N: 2, Active: 2, Rate: 1, Duration: 10 * time.Second, Mode: ModeGame,
		Keys: make([]loadKey, 3), Scenario: ScenarioRooms, ServerPID: 1, RestartAfter: time.Second}
	if err := ok.check(); err != nil {
		t.Fatalf("good config: %v", err)
	}
	if c := (Config{Addr: "x", N: 1, Duration: time.Second, Mode: ModeGame}); c.check() != nil || c.Scenario != ScenarioWalk {
		t.Errorf("the default scenario is %q, want %s", c.Scenario, ScenarioWalk)
	}
	for name, mut := range map[string]func(*Config){
		"bad scenario":         func(c *Config) { c.Scenario = "x" },
		"rooms in bare mode":   func(c *Config) { c.Keys, c.Mode = nil, ModeBare },
		"keys in bare mode":    func(c *Config) { c.Scenario, c.Mode = "", ModeBare },
		"fewer keys than n":    func(c *Config) { c.Keys = c.Keys[:1] },
		"restart without pid":  func(c *Config) { c.ServerPID = 0 },
		"restart after window": func(c *Config) { c.RestartAfter = c.Duration },
		"negative restart":     func(c *Config) { c.RestartAfter = -time.Second },
	} {
		c := ok
		mut(&c)
		if err := c.check(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"-keys", "/nonexistent"}, &out, &errOut); code != 2 {
		t.Errorf("-keys of no file: exit %d, want 2 (%s)", code, errOut.String())
	}
}

// The report says what the scenarios measured, in words and in JSON.
func TestScenarioReportText(t *testing.T) {
	r := &Report{
		Addr: "127.0.0.1:2222", Mode: ModeGame, Scenario: ScenarioRooms, N: 4, Active: 4, Rate: 2, WindowSeconds: 60,
		Fights:    &Fights{Sessions: 4, Started: 9, Won: 6, Lost: 2, Other: 1, Deaths: 3, PerMinute: 9, PerSession: Rates{Sessions: 4, Mean: 2.25, P50: 2, Max: 4}},
		Returning: &Returning{Keys: 4, OnStoredLevel: 3, Depths: map[int]int{1: 2, 3: 1, 0: 1}},
		Restart: &Restart{PID: 10, NewPID: 11, AtSeconds: 5, ExitMs: 1200, Sessions: 4, Back: 3, Failed: 1, SameLevel: 3,
			BackTime: Percentiles{Count: 3, P50: 400, Max: 900}, AllBackMs: 900, FirstHandshakeMs: 150, Handshakes: 5,
			HandshakesPerSecond: 6.5, PeakHandshakesPerSecond: 4, Retries: 12},
	}
	var buf bytes.Buffer
	if err := r.writeText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"(game mode, rooms)", "9 started, 6 won, 2 lost, 1 other; 3 deaths", "9.0 in all; per session mean 2.25",
		"3 arrived on their stored level; by level 0:1 1:2 3:1", "exited in 1200 ms", "3 of 4 (1 failed, 3 on the same level), all back after 900 ms",
		"6.5/s sustained, 4 in the busiest second; 12 retries"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"scenario":"rooms"`, `"started_per_minute":9`, `"on_stored_level":3`, `"depths":{"0":1,"1":2,"3":1}`,
		`"exit_ms":1200`, `"all_back_ms":900`, `"handshakes_per_second":6.5`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %s", want, b)
		}
	}
}

func TestSeedCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	for _, args := range [][]string{{"seed"}, {"seed", "-data", t.TempDir(), "-place", "x"}, {"seed", "-data", t.TempDir(), "-levels", "11"}, {"seed", "-data", t.TempDir(), "-n", "0"}} {
		if code := run(t.Context(), args, &out, &errOut); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, errOut.String())
		}
	}
	dir := filepath.Join(t.TempDir(), "data")
	if code := run(t.Context(), []string{"seed", "-data", dir, "-n", "3", "-levels", "3"}, &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), "wrote 3 knights") || !strings.Contains(out.String(), "1:1 2:1 3:1") {
		t.Errorf("seed: exit %d, %q %q", code, out.String(), errOut.String())
	}
	if code := run(t.Context(), []string{"seed", "-data", dir, "-n", "3"}, &out, &errOut); code != 1 {
		t.Errorf("seed of a folder seeded already: exit %d, want 1", code)
	}
}

func TestScreenDepth(t *testing.T) {
	for _, tc := range []struct {
		screen string
		want   int
	}{
		{"Sir Kay │ Level 1 │ Hits 12/12 │ Spells 4 │ Exp 0 │ Depth 10", 10},
		{"Sir Kay │ Level 1 │ Depth 3 │ On the stairs down", 3},
		{"Sir Kay │ Level 2 │ Exp 900 │ Outside", 0},
		{"Press Enter to begin.", -1},
	} {
		if got := screenDepth(tc.screen); got != tc.want {
			t.Errorf("screenDepth(%q) = %d, want %d", tc.screen, got, tc.want)
		}
	}
}

// A returning knight presses Enter at the title's welcome and has arrived when the
// dungeon shows, not on the screen that waits for the world (its status line is of
// nobody, outside); one whose knight died meanwhile rolls a new one and names it.
func TestReturningWalker(t *testing.T) {
	for _, tc := range []struct {
		name    string
		screens []string
		sends   [][]string
	}{
		{"alive", []string{
			"\x1b[2J\x1b[HWelcome back, Bot abc.\r\nPress Enter to continue your adventure.",
			"\x1b[2J\x1b[H  Entering the dungeon...\x1b[24;1HLevel 0 │ Hits 0/0 │ Outside",
			"\x1b[2J\x1b[HWelcome, Bot abc.\x1b[24;1HBot abc │ Level 1 │ Depth 7",
		}, [][]string{{keyEnter}, nil, nil}},
		{"dead", []string{
			"\x1b[2J\x1b[HYour last knight, Bot abc, was slain by a Troll on level 4.\r\nPress Enter to roll a new knight.",
			"\x1b[2J\x1b[HStr 12\r\nPress r to roll again, Enter to keep this knight.",
			"\r\nName your knight, or press Enter to be Sir Kay.",
			"\x1b[2J\x1b[HWelcome, Bot abc.\x1b[24;1HBot abc │ Level 1 │ Depth 1",
		}, [][]string{{keyEnter}, {keyEnter}, {"Bot abc", keyEnter}, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wk := newWalker(returningScript, termWidth, termHeight, "Bot abc")
			for i, scr := range tc.screens {
				send, arrived := wk.feed([]byte(scr))
				last := i == len(tc.screens)-1
				if !slices.Equal(send, tc.sends[i]) || arrived != last {
					t.Fatalf("screen %d: feed = %q, %v; want %q, %v\n%s", i, send, arrived, tc.sends[i], last, wk.screen())
				}
			}
		})
	}
}

// seekerScreen is a walker whose screen shows rows (from row 1) as the game draws the
// dungeon, with a status line.
func seekerScreen(t *testing.T, rows ...string) (*walker, string) {
	t.Helper()
	wk := newWalker(gameScript, termWidth, termHeight, "Bot abc")
	var b strings.Builder
	b.WriteString("\x1b[2J\x1b[HORTHANC")
	for i, r := range rows {
		b.WriteString("\x1b[" + strconv.Itoa(i+2) + ";1H" + r)
	}
	b.WriteString("\x1b[24;1HBot abc │ Level 1 │ Depth 1")
	wk.feed([]byte(b.String()))
	return wk, wk.screen()
}

// The door seeker goes through a door beside it with the door key, not back through the
// one it has just come through (it walks on, away from it), and walks towards a door the
// screen shows further off, the longer way first, where the way is open.
func TestDoorSeeker(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	noWander := func(d *doorSeeker, wk *walker, scr string) string {
		t.Helper()
		for range 50 { // past the share of moves that wander
			if d.next(wk, scr, rng) {
				return d.key
			}
		}
		t.Fatal("the seeker chose no key in 50 tries")
		return ""
	}

	// The screens below draw squares as the game does: two columns and one row each, the
	// edges in the column and the row between them.

	// A locked door east of the knight.
	wk, scr := seekerScreen(t,
		"          ┌────────┬──┐",
		"          │      ()║  │",
		"          └────────┴──┘")
	d := doorSeeker{crossed: -1}
	if !d.next(wk, scr, rng) || d.key != "L" || d.crossed != dirEast {
		t.Fatalf("beside a door east: %q (crossed %d), want L", d.key, d.crossed)
	}

	// Through it: the door is now west, behind it. Walled in on every other side, it
	// leaves the way to the walker; with the way on east open, it walks on east.
	wk, scr = seekerScreen(t,
		"          ┌────────┬──┐",
		"          │        ║()│",
		"          └────────┴──┘")
	if d.next(wk, scr, rng) {
		t.Fatalf("just through a door, walled in: it chose %q, want nothing (the walker turns)", d.key)
	}
	wk, scr = seekerScreen(t,
		"          ┌────────┬──┬──┐",
		"          │        ║()   │",
		"          └────────┴──┴──┘")
	if k := noWander(&d, wk, scr); k != keyRight {
		t.Fatalf("just through a door, the way on open: %q, want east", k)
	}

	// A door two squares south and one east: south first, and east when south is shut.
	room := func(below string) (*walker, string) {
		return seekerScreen(t,
			"          ┌───────────┐",
			"          │   ()      │",
			below,
			"          │           │",
			"          │           │",
			"          │           │",
			"          └──────╌╌───┘")
	}
	wk, scr = room("          │           │")
	d = doorSeeker{crossed: -1}
	if k := noWander(&d, wk, scr); k != keyDown {
		t.Fatalf("a door south-east, south the longer way: %q, want south", k)
	}
	wk, scr = room("          │   ──      │")
	if k := noWander(&d, wk, scr); k != keyRight {
		t.Fatalf("a door south-east, south walled: %q, want east", k)
	}

	// A door in the east wall, two squares east and one south: east first.
	wk, scr = seekerScreen(t,
		"          ┌───────────┐",
		"          │   ()      │",
		"          │           │",
		"          │           ║",
		"          └───────────┘")
	if k := noWander(&d, wk, scr); k != keyRight {
		t.Fatalf("a door east-south, east the longer way: %q, want east", k)
	}

	// No door on the screen, or no knight: the walker walks.
	wk, scr = seekerScreen(t, "          │   ()     │")
	for range 20 {
		if d.next(wk, scr, rng) {
			t.Fatalf("no door on the screen: it chose %q", d.key)
		}
	}
}

// The battles a screen shows are counted once each, with how they ended, and only those
// that start in the window.
func TestFightWatch(t *testing.T) {
	const (
		dungeon = "Bot abc │ Level 1 │ Depth 1"
		fight   = "┌─ FIGHT, ROUND 1 ──┐ Your move."
		fight2  = "┌─ FIGHT, ROUND 2 ──┐ The battle goes on..."
		won     = "┌─ LAST FIGHT ──┐ Bot abc hits the Troll for 9. The Troll is dead!"
		ran     = "┌─ LAST FIGHT ──┐ Bot abc runs away from the Troll!"
		death   = "You were slain. Death is permanent. Press Enter to roll a new knight, q to leave."
	)
	var f fightWatch
	for _, scr := range []string{dungeon, fight, fight2, fight2, won, dungeon, fight, ran, fight, death, death, dungeon, death} {
		f.watch(scr, true)
	}
	if want := (fightCounts{started: 3, won: 1, lost: 1, other: 1, deaths: 2}); f.n != want {
		t.Errorf("counted %+v, want %+v", f.n, want)
	}
	var g fightWatch
	g.watch(fight, false) // started before the window: neither it nor its end counts
	g.watch(won, true)
	g.watch(fight, true)
	g.watch(won, true)
	if want := (fightCounts{started: 1, won: 1}); g.n != want {
		t.Errorf("across the window's start: %+v, want %+v", g.n, want)
	}
}
