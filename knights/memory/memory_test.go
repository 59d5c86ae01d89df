package memory_test

import (
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/knightstest"
	"github.com/orthanc-ssh/orthanc-ssh/knights/memory"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// backend is r as the contract suite's Backend, its write methods as the hooks.
func backend(r *memory.Records) knightstest.Backend {
	return knightstest.Backend{Records: r, Retire: r.Retire, Bury: r.Bury, AddKey: r.AddKnight,
		Name: r.SetName, PutMail: r.PutMail}
}

// The records in memory keep the contract every keeper of them keeps.
func TestTheContract(t *testing.T) {
	knightstest.Run(t, func(t *testing.T) knightstest.Backend { return backend(memory.New()) })
}

// A name is one knight's, whatever its spelling's look-alikes, until that knight
// releases it; the knight may claim it again, and its spelling is then the new one.
func TestANameIsClaimedByOneKnight(t *testing.T) {
	r := memory.New()
	claim := func(name, knight string, want bool) {
		t.Helper()
		if ok, err := r.ClaimName(name, knight); ok != want || err != nil {
			t.Fatalf("ClaimName(%q, %q) = %v, %v; want %v", name, knight, ok, err, want)
		}
	}
	claimed := func(want ...knights.KnightName) {
		t.Helper()
		if got := r.ClaimedNames(); !slices.Equal(got, want) {
			t.Fatalf("ClaimedNames = %+v, want %+v", got, want)
		}
	}
	claimed()
	claim("Kay", "K-1", true)
	claim("KAY", "K-2", false)
	claim("K ay", "K-2", false) // world.NameKey drops spaces
	claim("Bors", "K-2", true)
	claim("kay", "K-1", true) // its own name again, spelt anew
	claimed(knights.KnightName{Knight: "K-2", Name: "Bors"}, knights.KnightName{Knight: "K-1", Name: "kay"})
	for _, release := range []struct{ name, knight string }{{"Kay", "K-2"}, {"Gawain", "K-1"}} {
		if err := r.ReleaseName(release.name, release.knight); err != nil {
			t.Fatal(err)
		}
	}
	claim("Kay", "K-2", false) // released by a knight that did not have it: still K-1's
	if err := r.ReleaseName("KAY", "K-1"); err != nil {
		t.Fatal(err)
	}
	claim("Kay", "K-2", true)
	claimed(knights.KnightName{Knight: "K-2", Name: "Bors"}, knights.KnightName{Knight: "K-2", Name: "Kay"})
	if names, err := r.KnightNames(); err != nil || names != nil {
		t.Errorf("claims are among the sheets' names: %+v, %v", names, err)
	}
}

// SetName names a knight on its sheet, keeping the rest; a knight with no sheet has one
// made.
func TestSetNameKeepsTheSheet(t *testing.T) {
	r := memory.New()
	if err := r.AddKnight(world.Adventurer{ID: "K-1", Name: "Kay", Gold: 7}, knights.Key{Fingerprint: "SHA256:a", Knight: "K-1"}); err != nil {
		t.Fatal(err)
	}
	for id, name := range map[string]string{"K-1": "Sir Kay", "K-2": "Bors"} {
		if err := r.SetName(id, name); err != nil {
			t.Fatal(err)
		}
	}
	if a, err := r.LoadAdventurer("K-1"); err != nil || a.Name != "Sir Kay" || a.Gold != 7 {
		t.Errorf("K-1 = %+v, %v", a, err)
	}
	if a, err := r.LoadAdventurer("K-2"); err != nil || !reflect.DeepEqual(a, world.Adventurer{ID: "K-2", Name: "Bors"}) {
		t.Errorf("K-2 = %+v, %v", a, err)
	}
	if err := r.SetName("", "Nobody"); err == nil {
		t.Error("a knight without an id was named")
	}
	if err := r.AddKnight(world.Adventurer{ID: "K-3"}, knights.Key{Fingerprint: "SHA256:b", Knight: "K-4"}); err == nil {
		t.Error("a key was added to a knight it does not lead to")
	}
}

// fullSheet is a sheet with every collection set, the death's too.
func fullSheet(id string) world.Adventurer {
	return world.Adventurer{ID: id, Name: "Kay", Experience: 100,
		Items:    []world.Item{{Kind: 1, Plus: 2}},
		Effects:  []world.Effect{{Spell: 1, Moves: 3}},
		Status:   []world.Status{{Kind: 1, Left: 2}},
		Maps:     []world.LevelMap{{Depth: 1, Seed: 9, W: 2, H: 2, Seen: []byte{1}, Doors: []int{1}, Traps: []int{2}}},
		Death:    &world.Death{Killer: "a Wraith", LastBlows: []world.Blow{{By: "a Wraith", Damage: 3}}, Hints: []string{"run"}, LastLines: []string{"The end."}},
		Options:  world.Options{Muted: []string{"Mordred"}},
		Channels: map[string]bool{"trade": true},
		Created:  time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)}
}

// scribble changes every collection of a in place, as a careless caller would.
func scribble(a *world.Adventurer) {
	a.Items[0].Plus = 9
	a.Effects[0].Moves = 9
	a.Status[0].Left = 9
	a.Maps[0].Seen[0], a.Maps[0].Doors[0], a.Maps[0].Traps[0] = 9, 9, 9
	a.Death.Killer = "nobody"
	a.Death.LastBlows[0].Damage = 9
	a.Death.Hints[0], a.Death.LastLines[0] = "scribbled", "scribbled"
	a.Options.Muted[0] = "scribbled"
	a.Channels["trade"] = false
}

// A value handed in or read out is a copy: changing it changes nothing kept.
func TestValuesAreCopied(t *testing.T) {
	r := memory.New()
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	a, want := fullSheet("K-1"), fullSheet("K-1")
	guest := fullSheet("guest-1")
	ls := []world.Letter{{From: "Bors", Text: "hi", Sent: at}}
	for _, err := range []error{
		r.Bury(knights.Tombstone{Died: at, Adventurer: a}),
		r.Retire(knights.FameEntry{Retired: at, Adventurer: a}),
		r.PutCode(knights.Code{Code: "ABCD-EFGH", Kind: "claim", Guest: &guest, Expires: at.Add(time.Hour)}),
		r.PutMail("K-1", ls),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	scribble(&a)
	scribble(&guest)
	ls[0].Text = "scribbled"
	read := func() (world.Adventurer, world.Adventurer, world.Adventurer, []world.Letter) {
		sheet, err := r.LoadAdventurer("K-1")
		tombs, err2 := r.Tombstones()
		fame, err3 := r.Fame()
		mail, err4 := r.Mail()
		if err != nil || err2 != nil || err3 != nil || err4 != nil || len(tombs) != 1 || len(fame) != 1 {
			t.Fatalf("read: %v %v %v %v, %d tombstones, %d in fame", err, err2, err3, err4, len(tombs), len(fame))
		}
		return sheet, tombs[0].Adventurer, fame[0].Adventurer, mail["K-1"]
	}
	sheet, tomb, famed, box := read()
	for _, got := range []world.Adventurer{sheet, tomb, famed} {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("a sheet changed by its writer's copy:\n got %+v\nwant %+v", got, want)
		}
	}
	if box[0].Text != "hi" {
		t.Errorf("a letter changed by its writer's copy: %+v", box)
	}
	scribble(&sheet)
	scribble(&tomb)
	scribble(&famed)
	box[0].Text = "scribbled"
	sheet, tomb, famed, box = read()
	for _, got := range []world.Adventurer{sheet, tomb, famed} {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("a sheet changed by its reader's copy:\n got %+v\nwant %+v", got, want)
		}
	}
	if box[0].Text != "hi" {
		t.Errorf("a letter changed by its reader's copy: %+v", box)
	}
	c, err := r.TakeCode("ABCD-EFGH", "claim", at)
	if err != nil || !reflect.DeepEqual(*c.Guest, fullSheet("guest-1")) {
		t.Errorf("the claim code's guest changed by its writer's copy: %+v, %v", c.Guest, err)
	}
}

// What the store never writes, a sheet's prelude and a letter's engine id, is not kept.
func TestWhatTheStoreDropsIsNotKept(t *testing.T) {
	r := memory.New()
	a := world.Adventurer{ID: "K-1", Name: "Kay", Prelude: []string{"You died."}}
	if err := r.AddKnight(a, knights.Key{Fingerprint: "SHA256:a", Knight: "K-1"}); err != nil {
		t.Fatal(err)
	}
	if got, err := r.LoadAdventurer("K-1"); err != nil || got.Prelude != nil {
		t.Errorf("the prelude was kept: %+v, %v", got, err)
	}
	if err := r.PutMail("K-1", []world.Letter{{ID: 7, From: "Bors", Text: "hi"}}); err != nil {
		t.Fatal(err)
	}
	if mail, err := r.Mail(); err != nil || mail["K-1"][0].ID != 0 {
		t.Errorf("a letter's engine id was kept: %+v, %v", mail, err)
	}
}

// Readers and writers at once share no memory unguarded (run with -race).
func TestRecordsAreSafeAtOnce(t *testing.T) {
	r := memory.New()
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	if err := r.AddKnight(fullSheet("K-1"), knights.Key{Fingerprint: "SHA256:a", Knight: "K-1", Added: at}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 50 {
				now := at.Add(time.Duration(i*50+j) * time.Second)
				_ = r.TouchKey("SHA256:a", now, "203.0.113.9")
				_ = r.Ban(knights.Ban{Fingerprint: "SHA256:b", At: now, Until: now.Add(time.Second)})
				_, _ = r.Bans(now)
				_ = r.Retire(knights.FameEntry{Retired: now, Adventurer: fullSheet("K-1")})
				a, _ := r.LoadAdventurer("K-1")
				scribble(&a)
				_, _ = r.Fame()
				_, _ = r.KnightNames()
			}
		})
	}
	wg.Wait()
	if fame, err := r.Fame(); err != nil || len(fame) != 200 {
		t.Errorf("fame after the writers: %d entries, %v", len(fame), err)
	}
}

// The keeper in memory keeps the contract every keeper keeps.
func TestTheKeeperContract(t *testing.T) {
	knightstest.RunKeeper(t, func(t *testing.T) knights.Keeper { return memory.NewKeeper() })
}

// The keeper, read as records (its KeyOf its own), keeps the records' contract too.
func TestTheKeeperKeepsTheRecordsContract(t *testing.T) {
	knightstest.Run(t, func(t *testing.T) knightstest.Backend {
		k := memory.NewKeeper()
		b := backend(k.Records)
		b.Records = k
		return b
	})
}
