package server

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Seed 000: "Level only increases on successful exit from the dungeon ... Additional hits
// are determined by the roll of an eight-sided die" and units = (level+1)×2. A knight with
// 4000 experience (level 3) that climbs out through the exit reaches level 3.
func TestSuccessfulExitRaisesTheLevelOverSSH(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t)
	seedKnight(t, dir, key, func(a *world.Adventurer) { a.Name, a.Experience = "Ywain", 4000 })
	srv := startServer(t, dir)
	tm := openTerminal(t, srv.addr, key, 80, 24, nil)
	tm.waitFor("Welcome back, Ywain")
	tm.press(keyEnter)
	tm.waitFor("Ywain │ Level 1", "On the exit")
	tm.press("<")
	tm.waitFor("You have reached level 3!", "Ywain │ Level 3", "Spells 8", "Outside")
	w := whoamiJSON(t, srv.addr, key)
	if w.Level != 3 || w.SpellUnits != 8 || w.MaxHits <= 12 || w.Hits != w.MaxHits {
		t.Fatalf("after the exit: %+v", w)
	}
}

// Seed 000: death is permanent. A knight with one hit that cannot hit back (Dexterity 3)
// walks into a guarded room: it dies, the screen shows its tombstone (with the last blows
// and what might have saved it), the next connection
// offers a new knight, and the key rolls one.
func TestDeathOverSSH(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := newKey(t)
	in, room := seedAtTheGuardsDoor(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Dex, a.Hits, a.MaxHits = "Doomed", 3, 1, 1
	})
	srv := startServer(t, dir)
	tm := openTerminal(t, srv.addr, key, 100, 30, nil)
	tm.waitFor("Welcome back, Doomed")
	tm.press(keyEnter)
	tm.waitFor("Doomed │ Level 1")
	walk(t, tm, srv.addr, key, in, room)
	if !poll(30*time.Second, 50*time.Millisecond, func() bool {
		if strings.Contains(tm.screen(), "R. I. P.") {
			return true
		}
		tm.press("f") // swing (and miss) so the monster swings back
		return false
	}) {
		t.Fatalf("the knight did not die:\n%s", tm.screen())
	}
	tm.waitFor("R. I. P.", "Doomed", "slain by")
	// Issue 31: the tombstone tells the blow that killed and what might have saved it.
	tm.waitFor("The last blows:", "(0 left)", "What might have saved you:", "There is no running from a room")
	w := whoamiJSON(t, srv.addr, key)
	if !w.Dead || w.KilledBy == "" {
		t.Fatalf("after dying: %+v", w)
	}
	tm.press(keyEnter)
	tm.waitFor("Press r to roll again")
	tm.close()
	again := openTerminal(t, srv.addr, key, 80, 24, nil)
	again.waitFor("Your last knight, Doomed, was slain by")
	again.press(keyEnter)
	again.waitFor("Press r to roll again")
	again.press(keyEnter)
	again.waitFor("Name your knight")
	again.press("Phoenix", keyEnter)
	again.waitFor("Phoenix │ Level 1")
	if w := whoamiJSON(t, srv.addr, key); w.Dead || w.Name != "Phoenix" {
		t.Fatalf("the new knight: %+v", w)
	}
	_ = srv.stop() // the server holds the file: the tombstone is read once it has stopped
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tombs, err := st.Tombstones()
	if err != nil || len(tombs) != 1 || tombs[0].Adventurer.Name != "Doomed" || tombs[0].Adventurer.Death == nil || tombs[0].Died.IsZero() {
		t.Fatalf("tombstones: %+v %v", tombs, err)
	}
}
