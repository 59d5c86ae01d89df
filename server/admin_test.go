package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testtools"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// adminCommands is the admin console: the rows of the command table only admins may run.
func adminCommands(t testing.TB) []command.Command {
	var out []command.Command
	for _, c := range tableRows(t) {
		if c.Admin {
			out = append(out, c)
		}
	}
	return out
}

// An admin regenerates the level a knight is playing on: the knight's session lives on,
// it stands on the new level's up stairs (a square of the new level, not rock), its screen
// says why, and it can walk on. Revert brings the original seeds back (stats --json).
func TestAdminRegenMovesAPlayingKnightToTheNewLevel(t *testing.T) {
	t.Parallel()
	srv, admin := startAdminServer(t)
	player := newKey(t)
	tm := openTerminal(t, srv.addr, player, 80, 24, nil)
	tm.enterDungeon("Gareth")
	start := whoamiJSON(t, srv.addr, player)
	tm.stepOut("the first step", start, func() command.Whoami { return whoamiJSON(t, srv.addr, player) })

	seed := regenLevelOne(t, srv.addr, admin)
	tm.waitFor("level 1 is remade", "You stand on its exit")
	l := world.Generate(1, seed, false)
	w := whoamiJSON(t, srv.addr, player)
	if !w.Online || w.Depth != 1 || w.X != l.Up.X || w.Y != l.Up.Y || l.Terrain(world.Pos{X: w.X, Y: w.Y}) == world.Rock {
		t.Fatalf("after regen the knight is at %d,%d depth %d (online %v); the new level's exit is %v", w.X, w.Y, w.Depth, w.Online, l.Up)
	}
	stepOffTheExit(t, tm, srv.addr, player, l) // the session is alive and plays the new level

	st := statsJSONOf(t, srv.addr, admin)
	if len(st.Levels) != world.DefaultDepth || st.Levels[0].Seed != seed || st.Levels[0].Original ||
		st.Levels[1].Seed != world.LevelSeed(defaultSeed, 2) || st.PlayersOnline != 1 || st.DungeonSeed != defaultSeed {
		t.Fatalf("stats after regen: %+v", st)
	}
	revertAll(t, srv.addr, admin, player)
	for _, bad := range []string{"regen", "regen 0", "regen 11 --seed 1", "regen 1 --seed x", "regen 1 --bogus", "revert 1 2"} {
		if _, errOut, code := runCmd(t, srv.addr, admin, bad); code != 1 || !strings.HasPrefix(errOut, "orthanc: ") {
			t.Errorf("%q: exit %d, stderr %q", bad, code, errOut)
		}
	}
}

// regenLevelOne runs regen 1 --seed 99 --json as the admin, checks what it printed (one
// level, its new seed, not the original, one player on it), and returns the level's seed.
func regenLevelOne(t *testing.T, addr string, admin gossh.Signer) uint64 {
	t.Helper()
	out, errOut, code := runCmd(t, addr, admin, "regen 1 --seed 99 --json")
	if code != 0 {
		t.Fatalf("regen: exit %d: %s", code, errOut)
	}
	var got struct {
		DungeonSeed uint64            `json:"dungeon_seed"`
		Levels      []world.LevelInfo `json:"levels"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("regen --json: %v in %q", err, out)
	}
	seed := world.LevelSeed(99, 1)
	if got.DungeonSeed != 99 || len(got.Levels) != 1 || got.Levels[0].Seed != seed || got.Levels[0].Original || got.Levels[0].Players != 1 {
		t.Fatalf("regen --json: %+v", got)
	}
	return seed
}

// stepOffTheExit walks the knight one step off level l's exit, by the first open edge,
// and waits until whoami shows it there.
func stepOffTheExit(t *testing.T, tm *terminal, addr string, player gossh.Signer, l *world.Level) {
	t.Helper()
	keyOf := map[world.Dir]string{world.North: keyUp, world.South: keyDown, world.East: keyRight, world.West: keyLeft}
	for _, d := range world.Dirs {
		if l.Edge(l.Up, d) == world.EdgeOpen {
			tm.press(keyOf[d])
			dx, dy := d.Delta()
			waitUntil(t, "a step on the new level", func() bool {
				w := whoamiJSON(t, addr, player)
				return w.X == l.Up.X+dx && w.Y == l.Up.Y+dy
			})
			break
		}
	}
}

// revertAll runs revert as the admin: every level has its original seed again (stats
// --json), and the playing knight stands on the original level's exit.
func revertAll(t *testing.T, addr string, admin, player gossh.Signer) {
	t.Helper()
	out, errOut, code := runCmd(t, addr, admin, "revert")
	if code != 0 || !strings.Contains(out, "Reverted with dungeon seed 1977") {
		t.Fatalf("revert: exit %d: %s %s", code, out, errOut)
	}
	for _, lv := range statsJSONOf(t, addr, admin).Levels {
		if lv.Seed != world.LevelSeed(defaultSeed, lv.Depth) || !lv.Original {
			t.Fatalf("after revert: %+v", lv)
		}
	}
	orig := world.Generate(1, world.LevelSeed(defaultSeed, 1), false)
	if w := whoamiJSON(t, addr, player); w.X != orig.Up.X || w.Y != orig.Up.Y || !w.Online {
		t.Fatalf("after revert the knight is at %d,%d, want the original exit %v", w.X, w.Y, orig.Up)
	}
}

// No admin command escapes the gate: a key that is not an admin's gets exactly
// "permission denied" and status 1 for every entry of the table, with or without
// arguments or --help, and help does not list them.
func TestEveryAdminCommandRefusesANonAdmin(t *testing.T) {
	t.Parallel()
	srv, admin := startAdminServer(t)
	player := newKey(t)
	for _, c := range adminCommands(t) {
		for _, line := range []string{c.Name, c.Name + " --help", c.Name + " all --seed 1 --json"} {
			out, errOut, code := runCmd(t, srv.addr, player, line)
			if code != 1 || out != "" || errOut != "permission denied\n" {
				t.Errorf("%q as a player: exit %d, stdout %q, stderr %q", line, code, out, errOut)
			}
		}
	}
	out, _, _ := runCmd(t, srv.addr, player, "help")
	adminOut, _, _ := runCmd(t, srv.addr, admin, "help")
	for _, c := range adminCommands(t) {
		if strings.Contains(out, c.Usage) {
			t.Errorf("help shows %q to a player", c.Usage)
		}
		if !strings.Contains(adminOut, c.Usage) {
			t.Errorf("help does not show %q to an admin", c.Usage)
		}
	}
	if out, _, _ := runCmd(t, srv.addr, admin, "bans --json"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("a refused command changed something: bans %s", out)
	}
}

// Every admin command explains itself with --help, and exits 0.
func TestEveryAdminCommandAnswersHelp(t *testing.T) {
	t.Parallel()
	srv, admin := startAdminServer(t)
	for _, c := range adminCommands(t) {
		out, errOut, code := runCmd(t, srv.addr, admin, c.Name+" --help")
		if code != 0 || !strings.Contains(out, "usage: "+c.Usage) || errOut != "" {
			t.Errorf("%s --help: exit %d, stdout %q, stderr %q", c.Name, code, out, errOut)
		}
	}
}

// Every command of the table, an admin's or everyone's, explains itself with --help from
// its row (the ssh command it names, the server's own), to a key that may run it, and
// exits 0; help --json lists the rows the key may run, in the table's order.
func TestEveryCommandAnswersHelp(t *testing.T) {
	t.Parallel()
	admin, player := newKey(t), newKey(t)
	srv := startWorld(t, admin)
	for _, c := range srv.commands.Rows() {
		key := publicKey(t, player)
		if c.Admin {
			key = publicKey(t, admin)
		}
		var out, errOut bytes.Buffer
		code := srv.runCommandLine(context.Background(), key, []string{c.Name, "--help"}, &out, &errOut)
		want := "usage: " + c.Usage + "\n  " + c.Summary + "\n"
		if c.Help != "" {
			want += "\n" + srv.commands.WithSSH(c.Help) + "\n"
		}
		if code != 0 || out.String() != want || errOut.Len() != 0 || strings.Contains(out.String(), "PORT host") {
			t.Errorf("%s --help: exit %d, stdout %q, stderr %q; want %q", c.Name, code, out.String(), errOut.String(), want)
		}
	}
	for _, tc := range []struct {
		key   gossh.Signer
		admin bool
	}{{player, false}, {admin, true}} {
		var out, errOut bytes.Buffer
		if code := srv.runCommandLine(context.Background(), publicKey(t, tc.key), []string{"help", "--json"}, &out, &errOut); code != 0 {
			t.Fatalf("help --json: exit %d: %s", code, errOut.String())
		}
		var got []struct{ Name string }
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("help --json: %v in %q", err, out.String())
		}
		var want []string
		for _, c := range srv.commands.Rows() {
			if !c.Admin || tc.admin {
				want = append(want, c.Name)
			}
		}
		var names []string
		for _, c := range got {
			names = append(names, c.Name)
		}
		if !slices.Equal(names, want) {
			t.Errorf("help --json as admin %v lists %q, want %q", tc.admin, names, want)
		}
	}
}

// The console runs the same table through the same gate: help lists every command that
// runs there and none that runs only from a shell ("?" too), those say where they run
// (with the server's own ssh command), who shows an admin's columns, and a word that is
// no command says to try help. A key that is not an admin's has no console.
func TestTheConsoleRunsTheCommandTable(t *testing.T) {
	t.Parallel()
	admin, player := newKey(t), newKey(t)
	srv := startWorld(t, admin)
	if srv.consoleHook(context.Background(), publicKey(t, player)) != nil {
		t.Fatal("a player's game has the admin console")
	}
	console := srv.consoleHook(context.Background(), publicKey(t, admin))
	rec := world.NewAdventurer("SHA256:console-test", "Bedivere", world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 12)
	joinKnight(t, srv.engine, rec)
	for _, line := range []string{"help", "?"} {
		out, ok := console(line)
		if !ok || !strings.HasPrefix(out, "Admin console (") {
			t.Fatalf("%q in the console: ok %v:\n%s", line, ok, out)
		}
		for _, c := range srv.commands.Rows() {
			if shown := strings.Contains(out, "  "+c.Usage+" "); shown != (c.Shell == "") {
				t.Errorf("%q in the console shows %q: %v", line, c.Usage, shown)
			}
		}
	}
	for _, c := range srv.commands.Rows() {
		if c.Shell == "" {
			continue
		}
		if out, ok := console(c.Name); ok || out != "orthanc: "+srv.commands.WithSSH(c.Shell)+"\n" || strings.Contains(out, "PORT") {
			t.Errorf("%s in the console: ok %v, %q", c.Name, ok, out)
		}
	}
	if out, ok := console("who"); !ok || !strings.Contains(out, "FINGERPRINT") || !strings.Contains(out, "SHA256:console-test") {
		t.Errorf("who in the console: ok %v:\n%s", ok, out)
	}
	if out, ok := console("frobnicate now"); ok || out != "orthanc: unknown command \"frobnicate\"; try help\n" {
		t.Errorf("an unknown command in the console: ok %v, %q", ok, out)
	}
	if out, ok := console("   "); !ok || out != "" {
		t.Errorf("an empty line in the console: ok %v, %q", ok, out)
	}
}

// Regression (auth bypass, as soft-serve pins it): the public-key callback sees every key
// a client offers, including keys it cannot sign for. A client that offers the admin's
// public key first and then authenticates with its own must be its own key everywhere —
// the commands, whoami, and the game's console — never the admin.
func TestOfferingTheAdminKeyWithoutItsSignatureIsNotAdmin(t *testing.T) {
	t.Parallel()
	srv, admin := startAdminServer(t)
	own := newKey(t)
	foreign := &foreignSigner{pub: admin.PublicKey()}
	c := dialOfferingFirst(t, srv.addr, foreign, own)
	defer c.Close()
	if !foreign.signed.Load() {
		t.Fatal("the server never accepted the offer of the admin's key, so the test proves nothing")
	}
	for _, cmd := range []string{"stats", "regen all", "backup", "ban nobody"} {
		out, errOut, code := runOn(t, c, cmd)
		if code != 1 || out != "" || errOut != "permission denied\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", cmd, code, out, errOut)
		}
	}
	_, errOut, _ := runOn(t, c, "whoami")
	if fp := keys.Fingerprint(own.PublicKey()); !strings.Contains(errOut, fp) {
		t.Errorf("whoami names %q, want the key that signed, %s", errOut, fp)
	}
	out, _, _ := runOn(t, c, "help")
	if strings.Contains(out, "regen") {
		t.Error("help lists the admin commands")
	}
	tm := terminalOn(t, c, 80, 24, nil, "")
	tm.enterDungeon("Pretender")
	tm.press(":")
	tm.waitFor("The console is for admins.")
}

// A backup taken while a knight walks is a bbolt file that opens and passes store.Check.
func TestBackupWhileKnightsMove(t *testing.T) {
	t.Parallel()
	srv, admin := startAdminServer(t)
	tm := openTerminal(t, srv.addr, newKey(t), 80, 24, nil)
	tm.enterDungeon("Lamorak")
	d, k := openDir(t)
	back := map[world.Dir]string{world.North: keyDown, world.South: keyUp, world.East: keyLeft, world.West: keyRight}[d]
	stop := make(chan struct{})
	walking := sync.WaitGroup{}
	var pressed atomic.Int64 // keys the walker has sent
	walking.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(15 * time.Millisecond):
			}
			key := k
			if i%2 == 1 {
				key = back
			}
			if _, err := io.WriteString(tm.stdin, key); err != nil {
				return
			}
			pressed.Add(1)
		}
	})
	defer func() { close(stop); walking.Wait() }()
	for i := range 3 {
		out, errOut, code := runCmd(t, srv.addr, admin, "backup")
		if code != 0 || errOut != "" {
			t.Fatalf("backup %d: exit %d: %s", i, code, errOut)
		}
		path := filepath.Join(t.TempDir(), "orthanc.db")
		if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
			t.Fatal(err)
		}
		st, err := store.Open(path, store.Options{})
		if err != nil {
			t.Fatalf("backup %d does not open: %v", i, err)
		}
		if err := st.Check(); err != nil {
			t.Fatalf("backup %d: %v", i, err)
		}
		_ = st.Close()
		// The next backup is taken after the knight has walked on.
		from := pressed.Load()
		waitUntil(t, "the knight to walk on", func() bool { return pressed.Load() >= from+6 })
	}
}

// Regression: a new knight's key is written with its first record, so a ban in the
// moment after the knight entered the game found no key of it stored, answered "Banned
// Percival ()." and banned nothing. The key its open session plays it with is banned.
func TestABanOfANewKnightBansTheKeyItPlaysWith(t *testing.T) {
	t.Parallel()
	admin, player := newKey(t), newKey(t)
	srv := startWorld(t, admin)
	rec := world.NewAdventurer(knights.NewKnightID(), "Percival", world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 12)
	joinKnight(t, srv.engine, rec)
	fp := keys.Fingerprint(player.PublicKey())
	remove := srv.live.Add(edge.LiveSession{Fingerprint: fp, Knight: rec.ID, Game: true, Start: time.Now(), Sent: new(atomic.Int64), Close: func() {}})
	defer remove()
	if stored, err := srv.store.KeysOf(rec.ID); err != nil || len(stored) != 0 {
		t.Fatalf("the knight's keys are stored already (%v, %v): the test would not test the moment before", stored, err)
	}

	var out, errOut bytes.Buffer
	code := srv.runCommandLine(context.Background(), publicKey(t, admin), []string{"ban", "Percival"}, &out, &errOut)
	if want := "Banned Percival (" + fp + "). Its knight was removed from the dungeon.\n"; code != 0 || out.String() != want {
		t.Fatalf("ban: exit %d, stdout %q, stderr %q; want %q", code, out.String(), errOut.String(), want)
	}
	if banned, err := srv.store.IsBanned(fp, time.Now()); !banned || err != nil {
		t.Fatalf("the key the knight plays with is not banned (%v)", err)
	}
}

// A banned key is turned away at login, with a terminal and without; banning removes the
// knight that was playing; unban lets the key back in. An admin's key cannot be banned.
func TestBanRefusesTheKeyAtLoginAndUnbanLetsItIn(t *testing.T) {
	t.Parallel()
	srv, admin := startAdminServer(t)
	player := newKey(t)
	fp := keys.Fingerprint(player.PublicKey())
	tm := openTerminal(t, srv.addr, player, 80, 24, nil)
	tm.enterDungeon("Mordred")

	out, errOut, code := runCmd(t, srv.addr, admin, "ban mordred --reason spamming the chat")
	if code != 0 || !strings.Contains(out, "Banned Mordred ("+fp+")") || !strings.Contains(out, "removed from the dungeon") {
		t.Fatalf("ban: exit %d: %q %q", code, out, errOut)
	}
	if !tm.ended(10 * time.Second) {
		t.Fatal("the banned knight's session stayed open")
	}
	if !strings.Contains(tm.rawOutput(), "An admin has removed you") {
		t.Errorf("the banned player was not told; the screen shows:\n%s", tm.screen())
	}
	if banner, err := dialBanner(t, srv.addr, player); err == nil || !strings.Contains(banner, edge.BannedMessage) {
		t.Fatalf("a banned key's login: banner %q, err %v", banner, err)
	}

	out, _, _ = runCmd(t, srv.addr, admin, "bans --json")
	var bans []knights.Ban
	if err := json.Unmarshal([]byte(out), &bans); err != nil || len(bans) != 1 || bans[0].Fingerprint != fp ||
		bans[0].Name != "Mordred" || bans[0].Reason != "spamming the chat" || bans[0].By != keys.Fingerprint(admin.PublicKey()) {
		t.Fatalf("bans --json: %v %s", err, out)
	}
	if _, errOut, code := runCmd(t, srv.addr, admin, "ban "+keys.Fingerprint(admin.PublicKey())); code != 1 || !strings.Contains(errOut, "admin's key") {
		t.Fatalf("banning an admin's key: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runCmd(t, srv.addr, admin, "ban Nobody At All"); code != 1 || !strings.Contains(errOut, "no knight") {
		t.Fatalf("banning a name no knight has: exit %d, %q", code, errOut)
	}
	if out, errOut, code := runCmd(t, srv.addr, admin, "unban MORDRED"); code != 0 || !strings.Contains(out, fp) {
		t.Fatalf("unban: exit %d: %q %q", code, out, errOut)
	}
	if w := whoamiJSON(t, srv.addr, player); w.Name != "Mordred" {
		t.Fatalf("after unban: %+v", w)
	}
	if _, _, code := runCmd(t, srv.addr, admin, "unban "+fp); code != 1 {
		t.Fatal("unbanning a key that is not banned succeeded")
	}
}

// Kick closes the knight's session and saves it; a broadcast reaches every screen,
// cleaned; who shows admins keys and addresses, and players neither.
func TestKickBroadcastAndWho(t *testing.T) {
	t.Parallel()
	srv, admin := startAdminServer(t)
	pa, pb := newKey(t), newKey(t)
	a := openTerminal(t, srv.addr, pa, 80, 24, nil)
	a.enterDungeon("Dagonet")
	b := openTerminal(t, srv.addr, pb, 80, 24, nil)
	b.enterDungeon("Pelleas")

	out, _, code := runCmd(t, srv.addr, admin, "who")
	if code != 0 || !strings.Contains(out, keys.Fingerprint(pa.PublicKey())) || !strings.Contains(out, "127.0.0.1:") || !strings.Contains(out, "ADDRESS") {
		t.Fatalf("who as an admin:\n%s", out)
	}
	out, _, _ = runCmd(t, srv.addr, admin, "who --json")
	var rows []command.WhoRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 || !strings.HasPrefix(rows[0].Addr, "127.0.0.1:") || rows[0].BytesSent == 0 {
		t.Fatalf("who --json as an admin: %v %s", err, out)
	}
	out, _, _ = runCmd(t, srv.addr, pa, "who --json")
	if strings.Contains(out, "127.0.0.1") || strings.Contains(out, "SHA256:") || !strings.Contains(out, "Pelleas") {
		t.Fatalf("who --json as a player: %s", out)
	}

	out, errOut, code := runCmd(t, srv.addr, admin, "broadcast 'Hear \x1b[31mye\x1b[0m, \u202ehear ye!'")
	if code != 0 || !strings.Contains(out, "Sent to 2 knights: [admin] Hear ye, hear ye!") {
		t.Fatalf("broadcast: exit %d: %q %q", code, out, errOut)
	}
	a.waitFor("[admin] Hear ye, hear ye!")
	b.waitFor("[admin] Hear ye, hear ye!")
	if strings.Contains(a.rawOutput(), "\x1b[31m") || strings.Contains(a.rawOutput(), "\u202e") {
		t.Fatal("the broadcast reached the screen with its escape sequences")
	}

	out, errOut, code = runCmd(t, srv.addr, admin, "kick DAGONET")
	if code != 0 || !strings.Contains(out, "Removed") {
		t.Fatalf("kick: exit %d: %q %q", code, out, errOut)
	}
	if !a.ended(10 * time.Second) {
		t.Fatal("kick did not close the session")
	}
	if w := whoamiJSON(t, srv.addr, pa); w.Online || w.Name != "Dagonet" {
		t.Fatalf("after kick: %+v", w)
	}
	if _, errOut, code := runCmd(t, srv.addr, admin, "kick Dagonet"); code != 1 || !strings.Contains(errOut, "online") {
		t.Fatalf("kicking a knight that is not online: exit %d, %q", code, errOut)
	}
	b.waitFor("Pelleas │ Level 1") // the other knight plays on
}

// The console: ':' in an admin's game opens it, lines run through the same command table
// (stats, regen), and a player who is not an admin is told it is not theirs.
func TestAdminConsoleInTheGame(t *testing.T) {
	t.Parallel()
	srv, admin := startAdminServer(t)
	tm := openTerminal(t, srv.addr, admin, 100, 30, nil)
	tm.enterDungeon("Arthur")
	tm.press(":")
	tm.waitFor("── console")
	tm.press("stats", keyEnter)
	tm.waitFor(": stats", "players online", "(more)") // longer than the panel: its start shows
	tm.press("\x1b[6~")                               // PgDn
	tm.waitFor("LEVEL  SEED")
	tm.press("regen 2 --seed 7", keyEnter)
	tm.waitFor("Regenerated with dungeon seed 7")
	if st := statsJSONOf(t, srv.addr, admin); st.Levels[1].Seed != world.LevelSeed(7, 2) {
		t.Fatalf("regen from the console did not rebuild level 2: %+v", st.Levels[1])
	}
	tm.press("backup", keyEnter)
	tm.waitFor("run it from a shell")
	tm.press("\x1b")
	waitUntil(t, "Esc to close the console", func() bool { return !strings.Contains(tm.screen(), "── console") })

	other := openTerminal(t, srv.addr, newKey(t), 80, 24, nil)
	other.enterDungeon("Mark")
	other.press(":")
	other.waitFor("The console is for admins.")
}

// With -metrics-addr the server serves Prometheus metrics: sessions, players, tick and
// save times, failed public-key attempts, bytes sent, keys timed to their frames, the
// knights stored and the bans; every labelled counter's reasons from the start, at 0
// (issue 32); and promtool, where it is installed, finds nothing to say of them.
func TestMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	admin := newKey(t)
	writeAdminKeys(t, dir, admin)
	cfg := testConfig(dir, defaultSeed)
	cfg.MetricsAddr = "127.0.0.1:0"
	ts, srv := startConfigured(t, cfg)
	player := newKey(t)
	tm := openTerminal(t, ts.addr, player, 80, 24, nil)
	tm.enterDungeon("Lucan")
	c := dialOfferingFirst(t, ts.addr, &foreignSigner{pub: admin.PublicKey()}, player)
	_ = c.Close()
	if _, errOut, code := runCmd(t, ts.addr, admin, "revert 2"); code != 0 { // saves at once
		t.Fatalf("revert: %s", errOut)
	}
	addr := srv.metrics.Addr().String()
	var m map[string]float64
	// A loaded machine may have run few turns by then: wait for both, not only the save.
	waitUntil(t, "a save and some turns to be measured", func() bool {
		m = scrape(t, addr)
		return m["orthanc_save_duration_seconds_count"] > 0 && m["orthanc_tick_duration_seconds_count"] > 10
	})
	for name, want := range map[string]func(float64) bool{
		"orthanc_sessions":                             func(v float64) bool { return v >= 1 },
		"orthanc_players_online":                       func(v float64) bool { return v == 1 },
		"orthanc_monsters_alive":                       func(v float64) bool { return v > 0 },
		"orthanc_tick_duration_seconds_count":          func(v float64) bool { return v > 10 },
		`orthanc_auth_failures_total{reason="method"}`: func(v float64) bool { return v == 1 }, // the forged "signature" names no algorithm
		"orthanc_sent_bytes_total":                     func(v float64) bool { return v > 1000 },
		"orthanc_key_to_frame_seconds_count":           func(v float64) bool { return v > 0 }, // the keys that entered the dungeon
		"orthanc_stored_knights":                       func(v float64) bool { return v >= 0 },
		`orthanc_bans{kind="key"}`:                     func(v float64) bool { return v == 0 },
		`orthanc_bans{kind="address"}`:                 func(v float64) bool { return v == 0 },
		"orthanc_saves_total":                          func(v float64) bool { return v > 0 },
		"go_goroutines":                                func(v float64) bool { return v > 0 },
		"orthanc_save_duration_seconds_count":          func(v float64) bool { return v > 0 },
		"orthanc_handshake_failures_total":             func(v float64) bool { return v >= 0 },
		"orthanc_tick_duration_seconds_bucket":         nil, // has labels: checked below
		fmt.Sprintf(`orthanc_build_info{goversion=%q,version=%q}`, runtime.Version(), testVersion): func(v float64) bool { return v == 1 },
	} {
		if want == nil {
			continue
		}
		if v, ok := m[name]; !ok || !want(v) {
			t.Errorf("metric %s = %v (present %v)", name, v, ok)
		}
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `orthanc_tick_duration_seconds_bucket{le="+Inf"}`) {
		t.Error("no tick duration histogram")
	}
	// Every reason of a labelled counter is there from the start, though none happened.
	for _, r := range refusalReasons {
		if v, ok := m[`orthanc_connections_refused_total{reason="`+r+`"}`]; !ok || v != 0 {
			t.Errorf("orthanc_connections_refused_total{reason=%q} = %v (present %v), want 0", r, v, ok)
		}
	}
	for _, r := range edge.AuthReasons {
		if _, ok := m[`orthanc_auth_failures_total{reason="`+r+`"}`]; !ok {
			t.Errorf("orthanc_auth_failures_total{reason=%q} missing", r)
		}
	}
	t.Logf("%v keys timed to their frames, %.1f ms on average", m["orthanc_key_to_frame_seconds_count"],
		1000*m["orthanc_key_to_frame_seconds_sum"]/m["orthanc_key_to_frame_seconds_count"])
	t.Run("promtool", func(t *testing.T) { promtoolCheck(t, body) })
	// The profiler shares the address (docs/OPERATIONS.md).
	resp, err = http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine profile") {
		t.Errorf("the profiler answered %s:\n%.200s", resp.Status, body)
	}
}

// promtoolCheck runs `promtool check metrics` (Prometheus's own lint: names, units last,
// help, types) on a scrape; it prints nothing and exits 0 when it finds nothing wrong.
func promtoolCheck(t *testing.T, scrape []byte) {
	promtool := testtools.Need(t, "prometheus", "promtool")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(scrape)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// A bad metrics address fails at start, naming it.
func TestBadMetricsAddressFailsAtStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := testConfig(dir, defaultSeed)
	cfg.MetricsAddr = "256.0.0.1:1"
	_, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), "metrics listen 256.0.0.1:1") {
		t.Fatalf("New with a bad metrics address: %v", err)
	}
}

// An admin keys file that is not there is warned about, at start and on reload, with
// the fix; a junk one logs its first bad lines and a count of the rest, not a line each,
// and reload answers the same.
func TestTheAdminKeysFileIsWarnedAboutOnce(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	srv, err := New(testConfig(dir, defaultSeed), slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	missing := `level=WARN msg="admin keys: no such file, so no key may run admin commands"`
	if n := strings.Count(log.String(), missing); n != 1 || !strings.Contains(log.String(), "then run reload or send SIGHUP") {
		t.Fatalf("a missing admin keys file at start, %d warnings:\n%s", n, log.String())
	}
	junk := strings.Repeat("not a key at all\n", 5000)
	if err := os.WriteFile(filepath.Join(dir, "admin_keys"), []byte(junk), 0o600); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	r := srv.reload()
	if n := strings.Count(log.String(), "level=WARN"); n != badLinesShown+1 || !strings.Contains(log.String(), `msg="admin keys: skipped and 4997 more bad lines"`) {
		t.Fatalf("a junk admin keys file on reload, %d warnings:\n%s", n, log.String())
	}
	if len(r.Skipped) != badLinesShown+1 || r.Skipped[badLinesShown] != "and 4997 more bad lines" {
		t.Fatalf("reload's answer names %d skipped lines: %q", len(r.Skipped), r.Skipped[len(r.Skipped)-1])
	}
	if err := os.Remove(filepath.Join(dir, "admin_keys")); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	srv.reload()
	if !strings.Contains(log.String(), missing) {
		t.Fatalf("a missing admin keys file on reload:\n%s", log.String())
	}
}
