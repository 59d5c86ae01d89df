package command

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/memory"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

func TestRenameGivesAKnightANewName(t *testing.T) {
	m := modStart(t)
	m.keep("K-kay", "Kay", 2)
	m.join("K-gawain", "Gawain", 3, "")
	m.want("rename Kay Sir Kai", "Renamed Kay (K-kay) to Sir Kai. It will be told when it next plays.\n", "", 0)
	if rec, _ := m.keeper.Knight("K-kay"); rec.Name != "Sir Kai" {
		t.Errorf("Kay's kept name is %q", rec.Name)
	}
	if !m.names.Taken("Sir Kai", "K-other") || m.names.Taken("Kay", "K-other") {
		t.Error("the name book did not follow the rename")
	}
	out, _, code := m.run("rename Gawain Gareth --json")
	var got renameJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || got != (renameJSON{Knight: "K-gawain", Old: "Gawain", Name: "Gareth", Online: true}) {
		t.Errorf("rename --json: %q %d: %+v %v", out, code, got, err)
	}
	if rec, online, _ := m.world.Lookup(context.Background(), "K-gawain"); !online || rec.Name != "Gareth" {
		t.Errorf("Gawain in the world is %q, online %v", rec.Name, online)
	}
	// The other realms are told of the knight offline, whose name their worlds keep for
	// letters; a knight in the world here is named by this realm's presence.
	if told := m.toldRealms(); len(told) != 1 || told[0] != (talk.Moderation{Kind: talk.ModRename, Knight: "K-kay", Name: "Sir Kai"}) {
		t.Errorf("the realms were told %+v", told)
	}
}

// elsewhere is a keeper whose knights all play on another realm.
type elsewhere struct{ *memory.Keeper }

func (elsewhere) Rename(_ context.Context, id, _, _ string) error {
	return &knights.ElsewhereError{Knight: id, Where: "north"}
}

func TestRenameOfAKnightElsewhereIsToldToItsRealm(t *testing.T) {
	m := modStartKeeping(t, func(k *memory.Keeper) knights.Keeper { return elsewhere{k} })
	m.keep("K-tristan", "Tristan", 2)
	m.want("rename Tristan Tristram", "Renamed Tristan (K-tristan) to Tristram. It plays in realm north, which has been told.\n", "", 0)
	told := m.toldRealms()
	if len(told) != 1 || told[0] != (talk.Moderation{Kind: talk.ModRename, Knight: "K-tristan", Name: "Tristram"}) {
		t.Errorf("the realms were told %+v", told)
	}
}

// taken is a keeper whose names are all another realm's.
type taken struct{ *memory.Keeper }

func (taken) Rename(context.Context, string, string, string) error { return knights.ErrNameTaken }

func TestRenameToANameTakenElsewhereGivesTheOldOneBack(t *testing.T) {
	m := modStartKeeping(t, func(k *memory.Keeper) knights.Keeper { return taken{k} })
	m.keep("K-kay", "Kay", 2)
	m.want("rename Kay Kai", "", "orthanc: cannot rename to \"Kai\": taken\n", 1)
	if m.names.Taken("Kai", "K-other") || !m.names.Taken("Kay", "K-other") {
		t.Error("the name book kept the refused name")
	}
}

func TestRenameRefusesWhatItCannotDo(t *testing.T) {
	m := modStart(t)
	m.keep("K-kay", "Kay", 2)
	m.keep("K-bors", "Bors", 3)
	dead := world.NewAdventurer("K-lot", "Lot", world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 12)
	dead.Death = &world.Death{}
	m.keeper.Put(dead)
	guest := knights.NewGuestID()
	m.join(guest, "Guest Tom", 0, "203.0.113.7:50022")
	const usage = "; usage: rename <name|fingerprint|id> NEW [--json]\n"
	m.want("rename Kay", "", "orthanc: name the knight, then its new name"+usage, 1)
	m.want("rename Kay bors", "", "orthanc: cannot rename to \"bors\": taken\n", 1)
	m.want("rename Kay !!", "", "orthanc: cannot rename to \"!!\": a bad name\n", 1)
	m.want("rename Lot Lott", "", "orthanc: Lot (K-lot) has died or retired: rename changes a living knight\n", 1)
	m.want("rename "+guest+" Tom", "", "orthanc: Guest Tom ("+guest+") is a guest: its name goes with its session (kick it, or ban its address)\n", 1)
	m.want("rename Nobody Kai", "", "orthanc: no knight \"Nobody\", online or stored; rename by fingerprint\n", 1)
	if rec, _ := m.keeper.Knight("K-kay"); rec.Name != "Kay" {
		t.Errorf("Kay's kept name is %q", rec.Name)
	}
}
