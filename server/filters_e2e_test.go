package server

import (
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Issue 44's filters by kind through real SSH: set movements off covered only knights
// coming into sight in the dungeon, so a listener who set it still heard every knight
// join and leave the game, and every coming and going on the surface. Kay sets movements
// and party off; Lis, beside Kay, keeps them, and hears what Kay is spared. Bors joins,
// invites them both into his party (an invitation is said even so), talks to it, shouts
// and leaves. Kay hears the invitation, the shout and the party's own business, and
// none of Bors's comings and goings nor his party talk.
func TestTheFiltersQuietOthersMovementsAndPartyTalkOverSSH(t *testing.T) {
	dir := t.TempDir()
	entrance := world.GenerateSurface(defaultSeed, world.DefaultSurfaceSize).Entrance
	kay, lis, bors := newKey(t), newKey(t), newKey(t)
	seed := func(name string) func(a *world.Adventurer) {
		return func(a *world.Adventurer) { a.Name, a.Depth, a.X, a.Y = name, 0, entrance.X, entrance.Y }
	}
	seedKnight(t, dir, kay, seed("Kay"))
	seedKnight(t, dir, lis, seed("Lis"))
	seedKnight(t, dir, bors, seed("Bors"))
	srv := startServer(t, dir)

	k := openPlain(t, srv.addr, kay, "Kay")
	plainAnswer(t, k, "set movements off")
	plainAnswer(t, k, "set party off")
	l := openPlain(t, srv.addr, lis, "Lis")
	from := len(k.rawOutput())

	b := openPlain(t, srv.addr, bors, "Bors")
	l.waitRaw("Bors joins the game.", "Bors is now on the surface")
	plainAnswer(t, b, "invite Kay")
	k.waitRaw("Bors invites you to join the party.")
	plainAnswer(t, k, "accept Bors")
	plainAnswer(t, b, "invite Lis")
	l.waitRaw("Bors invites you to join the party.")
	plainAnswer(t, l, "accept Bors")
	b.waitRaw("Lis joins the party.")
	plainAnswer(t, b, "party wait for me")
	l.waitRaw("Bors (party): wait for me")
	plainAnswer(t, b, "quit")
	b.press("yes", keyEnter)
	l.waitRaw("Bors leaves the game.", "Bors has left the surface.")
	// A line after all of Bors's: once Kay has heard it, Kay has been told everything
	// before it.
	plainAnswer(t, l, "shout all quiet")
	said := k.waitRaw("Lis shouts: all quiet")[from:]
	if !strings.Contains(said, "Bors invites you to join the party.") || !strings.Contains(said, "Lis joins the party.") {
		t.Fatalf("the filters quieted the party's own business:\n%s", said)
	}
	for _, quiet := range []string{"Bors joins the game.", "Bors is now on the surface", "Bors (party):", "Bors leaves the game.", "Bors has left the surface."} {
		if strings.Contains(said, quiet) {
			t.Errorf("with movements and party off, Kay heard %q:\n%s", quiet, said)
		}
	}
	for _, tm := range []*terminal{k, l, b} {
		noEscape(t, tm.rawOutput())
	}
}
