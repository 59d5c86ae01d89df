package command

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

func TestKickRemovesAKnightOnline(t *testing.T) {
	m := modStart(t)
	gawain := m.join("K-gawain", "Gawain", 2, "")
	m.want("kick gawain", "Removed gawain from the dungeon.\n", "", 0)
	if got := gawain.end(); got != world.KickedMessage {
		t.Errorf("Gawain's game ended with %q", got)
	}
	m.want("kick Gawain", "", "orthanc: no knight \"Gawain\" is online\n", 1)

	bors := m.join("K-bors", "Bors", 3, "")
	m.want("kick Bors --reason spamming the  channel", "Removed Bors from the dungeon, telling it why: spamming the channel\n", "", 0)
	if got, want := bors.end(), world.KickedFor("spamming the channel"); got != want {
		t.Errorf("Bors's game ended with %q, want %q", got, want)
	}
}

func TestKickByKeyAndInJSON(t *testing.T) {
	m := modStart(t)
	m.join("K-kay", "Kay", 2, "")
	fp := keys.Fingerprint(modKey(t, 2))
	out, errOut, code := m.run("kick " + fp + " --json")
	var got actionJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || errOut != "" {
		t.Fatalf("kick --json: %q %q %d: %v", out, errOut, code, err)
	}
	if got.Name != fp || !got.Kicked || got.Banned || got.Realm != "" {
		t.Errorf("kick --json = %+v", got)
	}
	if _, online, _ := m.world.Lookup(context.Background(), "K-kay"); online {
		t.Error("Kay is still in the game")
	}
}

func TestKickReachesAKnightOfAnotherRealm(t *testing.T) {
	m := modStart(t)
	if err := m.world.SetPresence(context.Background(), "north", []world.FarKnight{{ID: "K-tristan", Name: "Tristan"}, {ID: "guest-1", Name: "Guest Tom", Guest: true}}); err != nil {
		t.Fatal(err)
	}
	m.want("kick tristan --reason rude", "Removed tristan from the dungeon of realm north, telling it why: rude\n", "", 0)
	told := m.toldRealms()
	if len(told) != 1 || told[0] != (talk.Moderation{Kind: talk.ModKick, Knight: "K-tristan", Reason: "rude"}) {
		t.Errorf("the realms were told %+v", told)
	}
	m.want("kick Guest Tom", "", "orthanc: no knight \"Guest Tom\" is online\n", 1) // a guest is its realm's own
}

func TestKickRefusesWhatItCannotDo(t *testing.T) {
	m := modStart(t)
	m.join("K-bors1", "Bors", 2, "")
	m.join("K-bors2", "Bors", 3, "")
	m.want("kick Bors", "", "orthanc: several knights online are named \"Bors\"; kick by fingerprint (see who)\n", 1)
	m.want("kick", "", "orthanc: name the knight; usage: kick <name|fingerprint> [--json] [--reason TEXT]\n", 1)
	m.want("kick Bors --reason", "", "orthanc: --reason needs a text; usage: kick <name|fingerprint> [--json] [--reason TEXT]\n", 1)
	m.want("kick Bors --for 2h", "", "orthanc: unknown flag \"--for\"; usage: kick <name|fingerprint> [--json] [--reason TEXT]\n", 1)
	m.want("kick \x1b[2JBors", "", "orthanc: no knight \"[2JBors\" is online\n", 1)
}
