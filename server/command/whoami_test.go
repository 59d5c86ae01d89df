package command

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// whoami tells the key's knight from its kept record while it is away, from the world
// while it plays, with its party; a key with no knight, or a word too many, is refused.
func TestWhoamiTellsTheKeysKnight(t *testing.T) {
	d := newPlayerDesk(t, "")
	kay, bors := newKey(t), newKey(t)
	kayID := d.knight("Kay", kay, time.Now())
	borsID := d.knight("Bors", bors, time.Now())
	fp := keys.Fingerprint(kay)

	kept := fmt.Sprintf("fingerprint: %s\nknight: %s\nname: Kay\nonline: false\ndead: false\nlevel: 1\nexperience: 0\n"+
		"hits: 10\nmax_hits: 10\nspell_units: 4\nstr: 12\nint: 11\ncon: 10\ndex: 9\ndepth: 1\nx: -1\ny: -1\ngold: 0\n"+
		"treasure_experience: 0\npercent_kills: 0\nparty: none\ndeeds: 0\n", fp, kayID)
	d.wantRun(kay, "whoami", kept, "", 0)
	out, _, code := d.run(kay, "whoami --json")
	var w Whoami
	if err := json.Unmarshal([]byte(out), &w); err != nil || code != 0 {
		t.Fatalf("whoami --json: %d %q (%v)", code, out, err)
	}
	if w.Knight != kayID || w.Fingerprint != fp || w.Online || w.Party.Members == nil || len(w.Party.Members) != 0 ||
		len(w.Equipment) != 1 || w.Equipment[0].Name == "" || w.Effects == nil {
		t.Fatalf("whoami --json of a kept knight: %+v", w)
	}
	if !strings.Contains(out, `"party":{"leader":"","members":[]}`) || !strings.Contains(out, `"effects":[]`) || !strings.Contains(out, `"deeds":[]`) {
		t.Fatalf("whoami --json does not keep its shape: %s", out)
	}

	// Playing, in a party Kay leads.
	pk, pb := d.join(kayID), d.join(borsID)
	if err := pk.Party(d.ctx, world.PartyAction{Kind: world.PartyInvite, Name: "Bors"}); err != nil {
		t.Fatal(err)
	}
	if err := pb.Party(d.ctx, world.PartyAction{Kind: world.PartyAccept}); err != nil {
		t.Fatal(err)
	}
	out, _, code = d.run(bors, "whoami")
	if code != 0 || !strings.Contains(out, "name: Bors\nonline: true\n") || !strings.HasSuffix(out, "party: Kay, Bors (led by Kay)\ndeeds: 1 (newest first: Into the labyrinth)\n") {
		t.Fatalf("whoami of a knight playing in a party: %d\n%s", code, out)
	}
	out, _, _ = d.run(kay, "whoami --json")
	if err := json.Unmarshal([]byte(out), &w); err != nil || !w.Online || w.Party.Leader != "Kay" || strings.Join(w.Party.Members, ",") != "Kay,Bors" ||
		len(w.Deeds) != 1 || w.Deeds[0] != (Deed{world.DeedDepth(1), "Into the labyrinth", "went down into the dungeon"}) {
		t.Fatalf("whoami --json of a knight playing in a party: %s (%v)", out, err)
	}

	stranger := newKey(t)
	d.wantRun(stranger, "whoami", "", "orthanc: no knight for key "+keys.Fingerprint(stranger)+" yet; connect with a terminal to roll one\n", 1)
	d.wantRun(kay, "whoami extra", "", "orthanc: unexpected \"extra\"; usage: whoami [--json]\n", 1)
	d.wantRun(kay, "whoami --bogus", "", "orthanc: unknown flag \"--bogus\"; usage: whoami [--json]\n", 1)
	d.wantRun(nil, "whoami", "", playerGuestRefusal(), 1)
}

// A dead knight's whoami says so, and what killed it.
func TestWhoamiOfADeadKnight(t *testing.T) {
	d := newPlayerDesk(t, "")
	key := newKey(t)
	rec, err := d.keeper.Knight(d.knight("Kay", key, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	rec.Death = &world.Death{Killer: "a giant rat"}
	d.keeper.Put(rec)
	out, _, code := d.run(key, "whoami")
	if code != 0 || !strings.Contains(out, "\ndead: true\n") {
		t.Fatalf("whoami of a dead knight: %d\n%s", code, out)
	}
	out, _, _ = d.run(key, "whoami --json")
	if !strings.Contains(out, `"dead":true,"killed_by":"a giant rat",`) {
		t.Fatalf("whoami --json of a dead knight: %s", out)
	}
}
