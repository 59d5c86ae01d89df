package server

import (
	"encoding/json"
	"io"
	mathrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// These tests run the real binary as its own process, so signals and kill -9 hit a server
// exactly as they would in production.

// SIGINT (and SIGTERM) stop the server within a few seconds with status 0, and knights of
// players still connected are saved where they stand.
func TestSignalSavesEveryoneAndExitsZero(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd, addr := startProcess(t, dir)
			key := newKey(t)
			tm := openTerminal(t, addr, key, 80, 24, nil)
			tm.enterDungeon("Lucan")
			start := whoamiJSON(t, addr, key)
			moved := tm.stepOut("the move", start, func() command.Whoami { return whoamiJSON(t, addr, key) })
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := waitExit(t, cmd, 5*time.Second); code != 0 {
				t.Fatalf("exit status %d after %v", code, sig)
			}
			_, addr = startProcess(t, dir)
			if w := whoamiJSON(t, addr, key); w.X != moved.X || w.Y != moved.Y || w.Name != "Lucan" {
				t.Fatalf("after %v and restart: %+v, was %+v", sig, w, moved)
			}
		})
	}
}

// kill -9 loses at most the last checkpoint interval of walking and never the knight or
// the database.
func TestKillNineLosesAtMostACheckpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd, addr := startProcess(t, dir)
	key := newKey(t)
	tm := openTerminal(t, addr, key, 80, 24, nil)
	tm.enterDungeon("Gaheris")
	start := whoamiJSON(t, addr, key)
	moved := tm.stepOut("the move", start, func() command.Whoami { return whoamiJSON(t, addr, key) })
	time.Sleep(checkpointEvery + time.Second) // one checkpoint has certainly happened since
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatalf("database after kill -9: %v", err)
	}
	if err := st.Check(); err != nil {
		t.Fatalf("database after kill -9 fails its check: %v", err)
	}
	_ = st.Close()

	_, addr = startProcess(t, dir)
	if w := whoamiJSON(t, addr, key); w.X != moved.X || w.Y != moved.Y || w.Name != "Gaheris" {
		t.Fatalf("after kill -9: %+v, was %+v", w, moved)
	}
}

// killLoopRounds is how many times TestKillLoop kills the server: a few in every test run,
// ORTHANC_KILL_LOOP (e.g. 50) for the full soak.
func killLoopRounds() int {
	if n, err := strconv.Atoi(os.Getenv("ORTHANC_KILL_LOOP")); err == nil && n > 0 {
		return n
	}
	return 3
}

// killLoopSeed seeds the kill loop's moments: ORTHANC_KILL_SEED, or the clock (the seed
// is printed, so a run can be repeated with the same kills).
func killLoopSeed() uint64 {
	if n, err := strconv.ParseUint(os.Getenv("ORTHANC_KILL_SEED"), 10, 64); err == nil {
		return n
	}
	return uint64(time.Now().UnixNano())
}

// turnClock maps the world's turns to wall time from two samples of the admin's stats,
// so the moment of a saved record (its turn) can be told even if the turns fall behind
// the clock on a busy machine.
type turnClock struct {
	t0, t1 time.Time
	n0, n1 uint64
}

// at is the wall time of turn n.
func (c turnClock) at(n uint64) time.Time {
	perTurn := float64(c.t1.Sub(c.t0)) / float64(c.n1-c.n0)
	return c.t1.Add(-time.Duration(float64(int64(c.n1)-int64(n)) * perTurn))
}

// sampleTurn reads the world's turn with the admin key, timing it at the middle of the
// request; ok is false when the server did not answer.
func sampleTurn(addr string, admin gossh.Signer) (n uint64, at time.Time, ok bool) {
	start := time.Now()
	out, _, code := runCmdQuiet(addr, admin, "stats --json")
	end := time.Now()
	var st command.StatsJSON
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		return 0, time.Time{}, false
	}
	return st.Turn, start.Add(end.Sub(start) / 2), true
}

// The server is killed with SIGKILL at random moments (seeded: ORTHANC_KILL_SEED) while
// knights walk and fight; after every kill the file opens and passes bbolt's consistency
// check, no knight is lost, and the walking lost (the time from the newest record on
// disk to the kill) stays within walkLossBound, what README and OPERATIONS state.
func TestKillLoop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rounds := killLoopRounds()
	seed := killLoopSeed()
	t.Logf("kill loop seed %d (ORTHANC_KILL_SEED=%d repeats these kill moments)", seed, seed)
	r := mathrand.New(mathrand.NewPCG(seed, 7))
	k := &killLoop{t: t, dir: dir, seed: seed, admin: newKey(t), known: map[string]bool{}}
	writeAdminKeys(t, dir, k.admin)
	k.players = make([]gossh.Signer, 3)
	for i := range k.players {
		k.players[i] = newKey(t)
	}
	for round := range rounds {
		k.round(round, time.Duration(800+r.IntN(2500))*time.Millisecond)
	}
	slices.Sort(k.losses)
	median := time.Duration(0)
	if len(k.losses) > 0 {
		median = k.losses[len(k.losses)/2]
	}
	t.Logf("%d kills (seed %d): the file always opened and passed its check, no knight was lost; %d of %d knights sampled just before a kill came back a few squares behind; walking taken back by a kill: median %v, at most %v (bound %v, over %d measured kills)",
		rounds, seed, k.behind, k.sampled, median.Round(time.Millisecond), k.worst.Round(time.Millisecond), walkLossBound, len(k.losses))
}

// killLoop is TestKillLoop's server folder, keys and tally across its rounds.
type killLoop struct {
	t       *testing.T
	dir     string
	seed    uint64
	admin   gossh.Signer
	players []gossh.Signer

	known           map[string]bool // every knight seen so far, by id
	sampled, behind int             // knights sampled before a kill; those the file has a few squares back
	worst           time.Duration
	losses          []time.Duration // the walking each measured kill took back
}

// round starts the server, lets the knights walk and fight for walkFor, kills it with
// SIGKILL and checks the file.
func (k *killLoop) round(round int, walkFor time.Duration) {
	cmd, addr := startProcess(k.t, k.dir)
	n0, t0, ok0 := sampleTurn(addr, k.admin)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, key := range k.players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			walkUntilKilled(k.t, addr, key, i, stop)
		}()
	}
	time.Sleep(walkFor)
	last := map[string]command.Whoami{}
	for _, key := range k.players {
		if o, _, code := runCmdQuiet(addr, key, "whoami --json"); code == 0 {
			var w command.Whoami
			if json.Unmarshal([]byte(o), &w) == nil {
				last[w.Knight] = w
			}
		}
	}
	n1, t1, ok1 := sampleTurn(addr, k.admin)
	_ = cmd.Process.Kill()
	killed := time.Now()
	_ = cmd.Wait()
	close(stop)
	wg.Wait()

	newest := k.checkFile(round, last)
	// The walking a kill takes back is what happened since the newest record on disk
	// was taken: the knights walk all the time, so every checkpoint writes some.
	if ok0 && ok1 && n1 > n0 && newest > 0 {
		loss := killed.Sub(turnClock{t0, t1, n0, n1}.at(newest))
		k.losses = append(k.losses, loss)
		k.worst = max(k.worst, loss)
		if loss > walkLossBound {
			k.t.Errorf("round %d: the kill took back %v of walking, more than the %v README and OPERATIONS state (seed %d)",
				round, loss.Round(time.Millisecond), walkLossBound, k.seed)
		}
	}
}

// walkUntilKilled enters the game with key and walks and fights (the i-th player's
// order of keys) until stop, or until the server is killed under it.
func walkUntilKilled(t *testing.T, addr string, key gossh.Signer, i int, stop <-chan struct{}) {
	tm := openTerminalNoCleanup(t, addr, key, 80, 24)
	if tm == nil {
		return
	}
	defer tm.close()
	if !tm.waitQuiet("Press Enter", 5*time.Second) {
		return
	}
	for range 3 {
		if _, err := io.WriteString(tm.stdin, keyEnter); err != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	arrows := []string{keyUp, keyDown, keyLeft, keyRight, "\x1b[1;2C", "\x1b[1;2D", "f"}
	for j := 0; ; j++ {
		select {
		case <-stop:
			return
		default:
		}
		if _, err := io.WriteString(tm.stdin, arrows[(i+j)%len(arrows)]); err != nil {
			return // the server was killed under it
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// checkFile opens the file after a kill: it passes bbolt's consistency check, each
// knight sampled just before the kill is there as checkKnight wants it, and every knight
// of an earlier round is still there. It returns the turn of the newest knight's record.
func (k *killLoop) checkFile(round int, last map[string]command.Whoami) (newest uint64) {
	t := k.t
	st, err := store.Open(filepath.Join(k.dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatalf("round %d: the file does not open after kill -9: %v", round, err)
	}
	if err := st.Check(); err != nil {
		t.Fatalf("round %d: consistency check after kill -9: %v", round, err)
	}
	for id, w := range last {
		newest = max(newest, k.checkKnight(round, st, id, w))
	}
	for id := range k.known {
		if _, err := st.LoadAdventurer(id); err != nil {
			t.Fatalf("round %d: a knight saved in an earlier round is gone: %v", round, err)
		}
	}
	_ = st.Close()
	return newest
}

// checkKnight checks the knight id, which whoami showed as w just before the kill, in
// the file: it is there, carrying what it carried, wearing no item twice. It returns the
// turn of its record.
func (k *killLoop) checkKnight(round int, st *store.Store, id string, w command.Whoami) uint64 {
	t := k.t
	a, err := st.LoadAdventurer(id)
	if err != nil {
		t.Fatalf("round %d: knight %s lost after kill -9: %v", round, w.Name, err)
	}
	k.known[id] = true
	k.sampled++
	// Items are saved at once when gained or lost, so what the knight carried a moment
	// before the kill is what the file holds: nothing doubled, nothing lost.
	var stored []string
	for _, it := range a.Items {
		stored = append(stored, it.Name())
	}
	var carried []string
	for _, eq := range w.Equipment {
		carried = append(carried, eq.Name)
	}
	if strings.Join(stored, "|") != strings.Join(carried, "|") {
		t.Fatalf("round %d: %s carried %q before the kill, the file holds %q", round, w.Name, carried, stored)
	}
	worn := map[string]int{}
	for _, it := range a.Items {
		if it.Worn {
			worn[it.Info().Name]++
		}
	}
	for name, n := range worn {
		if n > 1 {
			t.Fatalf("round %d: %s wears %d of %s", round, w.Name, n, name)
		}
	}
	if a.X != w.X || a.Y != w.Y || a.Depth != w.Depth {
		k.behind++ // it walked after its last save: the most a crash may take back
	}
	return a.Turn
}
