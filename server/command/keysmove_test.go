package command

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// opsGiveKnight keeps a new knight id, named name, played by the key fp; dead when dead.
func opsGiveKnight(t *testing.T, f *opsFixture, fp, id, name string, dead bool) world.Adventurer {
	t.Helper()
	a := world.NewAdventurer(id, name, world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 12)
	if dead {
		a.Death = &world.Death{Killer: "a troll"}
	}
	if _, err := f.keeper.Give(context.Background(), knights.Give{Key: knights.Key{Fingerprint: fp, Knight: id}, Knight: &a}); err != nil {
		t.Fatal(err)
	}
	if !f.ops.Names.Claim(name, id) {
		t.Fatalf("the name %s is taken", name)
	}
	return a
}

// keys move gives OLD's knight to NEW: OLD plays it no more, its games end saying why
// and its sessions close.
func TestKeysMoveGivesTheKnightToTheNewKey(t *testing.T) {
	t.Parallel() // the sessions close a second after the move
	f := newOpsFixture(t)
	opsGiveKnight(t, f, "SHA256:old", "K-1", "Kay", false)
	closed := make(chan struct{})
	f.ops.Sessions.Add(edge.LiveSession{Fingerprint: "SHA256:old", Knight: "K-1", Game: true, Close: func() { close(closed) }})
	f.ops.Sessions.Add(edge.LiveSession{Fingerprint: "SHA256:another", Close: func() { t.Error("another key's session closed") }})

	out, errOut, code := f.adminRun("keys", "move", "SHA256:old", "SHA256:new")
	if want := "Kay is now played by SHA256:new in place of SHA256:old.\n"; out != want || errOut != "" || code != 0 {
		t.Fatalf("keys move: out %q, err %q, exit %d", out, errOut, code)
	}
	if k, err := f.keeper.KeyOf("SHA256:new"); err != nil || k.Knight != "K-1" || k.Comment != "moved from SHA256:old… by an admin" {
		t.Errorf("the new key: %+v, %v", k, err)
	}
	if _, err := f.keeper.KeyOf("SHA256:old"); !errors.Is(err, knights.ErrNotFound) {
		t.Errorf("the old key is kept still: %v", err)
	}
	f.mu.Lock()
	ended := f.ended
	f.mu.Unlock()
	if len(ended) != 1 || ended[0] != "SHA256:old: "+KeyMovedMessage {
		t.Errorf("games ended: %q", ended)
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the old key's session is still open")
	}
}

// keys move --json says what moved; a dead knight the new key played goes, with its name.
func TestKeysMoveFromADeadKnightsKey(t *testing.T) {
	f := newOpsFixture(t)
	opsGiveKnight(t, f, "SHA256:old", "K-1", "Kay", false)
	opsGiveKnight(t, f, "SHA256:new", "K-2", "Bors", true)
	out, errOut, code := f.adminRun("keys", "move", "--json", "SHA256:old", "SHA256:new")
	if want := `{"old":"SHA256:old","new":"SHA256:new","knight":"K-1","name":"Kay"}` + "\n"; out != want || errOut != "" || code != 0 {
		t.Fatalf("keys move --json: out %q, err %q, exit %d", out, errOut, code)
	}
	if _, err := f.keeper.Knight("K-2"); !errors.Is(err, knights.ErrNotFound) {
		t.Errorf("the dead knight is kept still: %v", err)
	}
	if f.ops.Names.Taken("Bors", "K-3") {
		t.Error("the dead knight's name is still taken")
	}
}

// keys move refuses what it cannot do, and changes nothing then.
func TestKeysMoveRefuses(t *testing.T) {
	f := newOpsFixture(t)
	opsGiveKnight(t, f, "SHA256:old", "K-1", "Kay", false)
	opsGiveKnight(t, f, "SHA256:living", "K-2", "Bors", false)
	opsGiveKnight(t, f, "SHA256:\x1b[2Jliving", "K-4", "Percival", false) // a fingerprint with an escape in it
	if _, err := f.keeper.Give(context.Background(), knights.Give{Key: knights.Key{Fingerprint: "SHA256:second", Knight: "K-1"}}); err != nil {
		t.Fatal(err)
	}
	playing := opsGiveKnight(t, f, "SHA256:playing", "K-3", "Lancelot", false)
	if _, err := f.world.Join(context.Background(), playing, opsNoViews{}); err != nil {
		t.Fatal(err)
	}
	const usage = "; usage: keys move OLD NEW\n"
	for _, tc := range []struct {
		line []string
		want string
	}{
		{[]string{"keys", "move"}, "orthanc: give two key fingerprints, SHA256:..." + usage},
		{[]string{"keys", "move", "SHA256:old"}, "orthanc: give two key fingerprints, SHA256:..." + usage},
		{[]string{"keys", "move", "old", "new"}, "orthanc: give two key fingerprints, SHA256:..." + usage},
		{[]string{"keys", "move", "SHA256:old", "SHA256:new", "SHA256:more"}, "orthanc: give two key fingerprints, SHA256:..." + usage},
		{[]string{"keys", "move", "--bogus", "SHA256:old", "SHA256:new"}, "orthanc: unknown flag \"--bogus\"" + usage},
		{[]string{"keys", "move", "SHA256:old", "SHA256:old"}, "orthanc: the two keys are the same\n"},
		{[]string{"keys", "move", "SHA256:nobody", "SHA256:new"}, "orthanc: SHA256:nobody plays no knight\n"},
		{[]string{"keys", "move", "SHA256:old", "SHA256:living"}, "orthanc: SHA256:living plays a living knight of its own; it cannot take another\n"},
		{[]string{"keys", "move", "SHA256:old", "SHA256:second"}, "orthanc: SHA256:second plays that knight already\n"},
		{[]string{"keys", "move", "SHA256:old", "SHA256:playing"}, "orthanc: SHA256:playing's knight is in the dungeon; kick it first\n"},
		{[]string{"keys", "move", "SHA256:old", "SHA256:\x1b[2Jliving"}, "orthanc: SHA256:[2Jliving plays a living knight of its own; it cannot take another\n"},
	} {
		if out, errOut, code := f.adminRun(tc.line...); out != "" || errOut != tc.want || code != 1 {
			t.Errorf("%q: out %q, err %q, exit %d; want %q", tc.line, out, errOut, code, tc.want)
		}
	}
	if k, err := f.keeper.KeyOf("SHA256:old"); err != nil || k.Knight != "K-1" {
		t.Errorf("the old key after the refusals: %+v, %v", k, err)
	}
	if len(f.ended) != 0 {
		t.Errorf("games ended: %q", f.ended)
	}
}
