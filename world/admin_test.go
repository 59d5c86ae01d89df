package world

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// marshal is the level's bytes, for comparing levels.
func marshal(t *testing.T, l *Level) []byte {
	t.Helper()
	b, err := l.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An admin regenerates the level two knights are on, one of them in a fight: both land on
// the new level's up stairs with nothing lost, the fight ends with the old monster gone,
// their maps of the level start afresh, and the new level is saved at once.
func TestRegenerateMovesKnightsToTheStairsAndEndsFights(t *testing.T) {
	saver := &recorder{}
	e := New(Config{Seed: 1977, Saver: saver, WanderChance: -1})
	ctx := running(t, e)
	subB := &recorder{}
	before := knightsOneFighting(t, e, subB)
	if t.Failed() {
		return
	}
	const newSeed = 42
	infos, err := e.Regenerate(ctx, 1, newSeed)
	if err != nil {
		t.Fatal(err)
	}
	want := LevelSeed(newSeed, 1)
	if len(infos) != 1 || infos[0].Depth != 1 || infos[0].Seed != want || infos[0].Original || infos[0].Players != 2 {
		t.Fatalf("infos %+v, want level 1 with seed %d", infos, want)
	}
	fresh := Generate(1, want, false)
	on(t, e, func() {
		checkRegeneratedLevel(t, e, saver, fresh, want)
		for i, id := range []string{"a", "b"} {
			checkKnightOnTheNewStairs(t, e, id, before[i], want)
		}
	})
	if v := subB.last(); v.Fight != nil || v.Self.Pos != fresh.Up || !strings.Contains(strings.Join(v.LastFight, "\n"), "The dungeon shifts") {
		t.Fatalf("the fighting knight's view: fight %v at %v, last fight %q", v.Fight, v.Self.Pos, v.LastFight)
	}
}

// knightsOneFighting joins knights a and b (b's views to subB) on level 1, b fighting a
// guard with a sword +2 in hand, and returns their records as they were.
func knightsOneFighting(t *testing.T, e *Engine, subB *recorder) (before []Adventurer) {
	t.Helper()
	on(t, e, func() {
		e.join(knight("a", 10), &recorder{})
		e.join(knight("b", 10), subB)
		b := e.players["b"]
		var guard *monster
		for _, m := range e.state[0].monsters {
			if m.room >= 0 {
				guard = m
				break
			}
		}
		if guard == nil {
			t.Error("no guard on level 1 of the default dungeon")
			return
		}
		b.rec.X, b.rec.Y = guard.pos.X, guard.pos.Y
		e.look(b)
		e.startFight(b, guard)
		b.rec.Items = append(b.rec.Items, Item{Kind: ItemSword, Plus: 2})
		before = []Adventurer{e.record(e.players["a"]), e.record(b)}
	})
	return before
}

// checkRegeneratedLevel checks level 1 after its regen with the level seed want: it is
// fresh, byte for byte, with no fight left and its own guards, level 2 is as it was, and
// the saver has the new level and the knight moved out of its fight.
func checkRegeneratedLevel(t *testing.T, e *Engine, saver *recorder, fresh *Level, want uint64) {
	t.Helper()
	l := e.levels[0]
	if !slices.Equal(marshal(t, l), marshal(t, fresh)) {
		t.Error("level 1 is not Generate(1, LevelSeed(42, 1), false)")
	}
	if len(e.fights) != 0 {
		t.Errorf("%d fights still under way", len(e.fights))
	}
	for _, m := range e.state[0].monsters {
		if l.Terrain(m.pos) != Room || m.room < 0 {
			t.Errorf("monster %s at %v is not a guard of the new level", m.Kind().Name, m.pos)
		}
	}
	if e.levels[1].Seed != LevelSeed(1977, 2) {
		t.Error("level 2 changed too")
	}
	var saved *LevelState
	for i := range saver.levels {
		if saver.levels[i].Depth == 1 {
			saved = &saver.levels[i]
		}
	}
	if saved == nil || saved.Seed != want || len(saved.Monsters) != len(e.state[0].monsters) {
		t.Errorf("the new level 1 was not handed to the saver: %+v", saved)
	}
	if r := saver.lastSaved("b"); r.X != l.Up.X || r.Y != l.Up.Y {
		t.Errorf("the moved knight was not saved on the stairs: %+v", r)
	}
}

// checkKnightOnTheNewStairs checks a knight after its level's regen with the level seed
// want: on the new up stairs, out of any fight and alive, with all it had before, a map of
// the level started afresh, and told why.
func checkKnightOnTheNewStairs(t *testing.T, e *Engine, id string, before Adventurer, want uint64) {
	t.Helper()
	l := e.levels[0]
	p := e.players[id]
	if p == nil {
		t.Errorf("knight %s left the world", id)
		return
	}
	if p.rec.Pos() != l.Up || p.rec.Depth != 1 || l.Terrain(p.rec.Pos()) == Rock {
		t.Errorf("knight %s at %v on depth %d, want the up stairs %v", id, p.rec.Pos(), p.rec.Depth, l.Up)
	}
	if p.fight != nil || p.rec.Death != nil {
		t.Errorf("knight %s still fighting or dead", id)
	}
	if p.rec.Hits != before.Hits || !slices.Equal(p.rec.Items, before.Items) || p.rec.Experience != before.Experience {
		t.Errorf("knight %s lost something: %+v, before %+v", id, p.rec, before)
	}
	m := p.rec.Maps[p.mapIdx]
	if m.Seed != want || len(m.Doors) != 0 || !slices.Equal(m.Seen, p.visible) {
		t.Errorf("knight %s's map of level 1 was not started afresh: seed %d", id, m.Seed)
	}
	if msg := lastMsg(p); !strings.Contains(msg, "level 1 is remade") {
		t.Errorf("knight %s was told %q", id, msg)
	}
}

// Revert rebuilds the original dungeon byte for byte, with the original guards, after a
// regen of every level and a broken door.
func TestRevertRestoresTheOriginalDungeonByteForByte(t *testing.T) {
	original := New(Config{Seed: 1977})
	e := New(Config{Seed: 1977, Saver: &recorder{}})
	ctx := running(t, e)
	if _, err := e.Regenerate(ctx, 0, 12345); err != nil {
		t.Fatal(err)
	}
	infos, err := e.LevelsInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if in.Original || in.Seed != LevelSeed(12345, in.Depth) {
			t.Fatalf("after regen all: %+v", in)
		}
	}
	on(t, e, func() {
		if e.levels[len(e.levels)-1].HasDown {
			t.Error("the regenerated bottom level has stairs down")
		}
	})
	infos, err = e.Revert(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != original.Levels() {
		t.Fatalf("revert rebuilt %d levels, want %d", len(infos), original.Levels())
	}
	on(t, e, func() {
		for d := 1; d <= original.Levels(); d++ {
			if !slices.Equal(marshal(t, e.levels[d-1]), marshal(t, original.Level(d))) {
				t.Errorf("level %d differs from the original after revert", d)
			}
			if !slices.Equal(e.Monsters(d), original.Monsters(d)) {
				t.Errorf("level %d's monsters differ from the original's after revert", d)
			}
			if !infos[d-1].Original {
				t.Errorf("level %d not reported original", d)
			}
		}
	})
	if _, err := e.Revert(ctx, 11); !errors.Is(err, ErrNoSuchLevel) {
		t.Fatalf("revert 11: %v, want ErrNoSuchLevel", err)
	}
	if _, err := e.Regenerate(ctx, -1, 1); !errors.Is(err, ErrNoSuchLevel) {
		t.Fatalf("regen -1: %v, want ErrNoSuchLevel", err)
	}
}

// A regenerated level comes back after a restart: the saved state's seed rebuilds it, the
// bottom level as the bottom.
func TestRegeneratedLevelsSurviveARestart(t *testing.T) {
	saver := &recorder{}
	e := New(Config{Seed: 1977, Saver: saver})
	ctx := running(t, e)
	if _, err := e.Regenerate(ctx, 3, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Regenerate(ctx, DefaultDepth, 6); err != nil {
		t.Fatal(err)
	}
	var states []LevelState
	var monsters3 []SeenMonster
	on(t, e, func() {
		states = slices.Clone(saver.levels)
		monsters3 = e.Monsters(3)
	})
	again := New(Config{Seed: 1977, Levels: states})
	for _, tc := range []struct {
		depth  int
		seed   uint64
		bottom bool
	}{{3, LevelSeed(5, 3), false}, {DefaultDepth, LevelSeed(6, DefaultDepth), true}, {1, LevelSeed(1977, 1), false}} {
		want := Generate(tc.depth, tc.seed, tc.bottom)
		if !slices.Equal(marshal(t, again.Level(tc.depth)), marshal(t, want)) {
			t.Errorf("level %d after the restart is not the one seed %d builds", tc.depth, tc.seed)
		}
	}
	if !slices.Equal(again.Monsters(3), monsters3) {
		t.Errorf("level 3's monsters after the restart: %v, before %v", again.Monsters(3), monsters3)
	}
}

func TestKickRemovesAndSavesTheKnight(t *testing.T) {
	saver := &recorder{}
	e := New(Config{Seed: 1977, Saver: saver, WanderChance: -1})
	ctx := running(t, e)
	sub := &recorder{}
	on(t, e, func() {
		rec := knight("a", 10)
		rec.Name = "Sir Kay"
		e.join(rec, sub)
		e.join(knight("b", 10), &recorder{})
		e.join(knight("c", 10), &recorder{}) // "Kay b" and "Kay c" share no name with "Sir Kay"
	})
	ok, err := e.Kick(ctx, "sir KAY", "")
	if err != nil || !ok {
		t.Fatalf("kick by name: %v, %v", ok, err)
	}
	on(t, e, func() {
		if _, in := e.players["a"]; in {
			t.Error("the kicked knight is still in the world")
		}
		if v := sub.last(); v.Ended != KickedMessage {
			t.Errorf("the kicked session's last view: %+v", v)
		}
		if r := saver.lastSaved("a"); r.Name != "Sir Kay" {
			t.Errorf("the kicked knight was not saved: %+v", r)
		}
	})
	if ok, err := e.Kick(ctx, "Sir Kay", ""); ok || err != nil {
		t.Fatalf("kicking a knight that is gone: %v, %v", ok, err)
	}
	on(t, e, func() { e.players["c"].rec.Name = "Kay b" })
	if _, err := e.Kick(ctx, "kay B", ""); !errors.Is(err, ErrAmbiguousName) {
		t.Fatalf("kicking a shared name: %v, want ErrAmbiguousName", err)
	}
	if ok, err := e.Kick(ctx, "c", ""); !ok || err != nil {
		t.Fatalf("kick by fingerprint: %v, %v", ok, err)
	}
	who, _ := e.Who(ctx)
	if len(who) != 1 || who[0].ID != "b" {
		t.Fatalf("who after the kicks: %+v", who)
	}
}

// Issue 32: kick --reason; the kicked knight's last view says why, the reason cleaned of
// what could reach its terminal as a command.
func TestKickSaysTheReasonCleaned(t *testing.T) {
	e := New(Config{Seed: 1977, WanderChance: -1})
	ctx := running(t, e)
	sub := &recorder{}
	on(t, e, func() { e.join(knight("a", 10), sub) })
	if ok, err := e.Kick(ctx, "a", "spamming\x1b[2J the\nchannel"); !ok || err != nil {
		t.Fatalf("kick: %v, %v", ok, err)
	}
	on(t, e, func() {
		if v := sub.last(); v.Ended != KickedMessage+" Reason: spamming the channel" {
			t.Errorf("the kicked session's last view: %q", v.Ended)
		}
	})
}

// Issue 32: Tell reaches the knights named that are online, and no other.
func TestTellReachesOnlyTheKnightsNamed(t *testing.T) {
	e := New(Config{Seed: 1977, WanderChance: -1})
	ctx := running(t, e)
	subs := []*recorder{{}, {}}
	on(t, e, func() {
		e.join(knight("a", 10), subs[0])
		e.join(knight("b", 10), subs[1])
	})
	n, err := e.Tell(ctx, []string{"a", "gone"}, "[report] one\x1b[31m line")
	if err != nil || n != 1 {
		t.Fatalf("Tell: %d, %v", n, err)
	}
	on(t, e, func() {
		if log := subs[0].last().Log.Lines(); len(log) == 0 || log[len(log)-1] != "[report] one line" {
			t.Errorf("the knight named was not told: %q", log)
		}
		if log := subs[1].last().Log.Lines(); slices.Contains(log, "[report] one line") {
			t.Errorf("a knight not named was told: %q", log)
		}
	})
}

func TestBroadcastReachesEveryoneCleaned(t *testing.T) {
	e := New(Config{Seed: 1977, WanderChance: -1})
	ctx := running(t, e)
	subs := []*recorder{{}, {}}
	on(t, e, func() {
		e.join(knight("a", 10), subs[0])
		e.join(knight("b", 10), subs[1])
	})
	n, err := e.Broadcast(ctx, "The \x1b[31mking\x1b[0m is\u202e coming\x07")
	if err != nil || n != 2 {
		t.Fatalf("broadcast: %d, %v", n, err)
	}
	on(t, e, func() {
		for i, s := range subs {
			if got := s.lastMessage(); got != "[admin] The king is coming" {
				t.Errorf("knight %d saw %q", i, got)
			}
		}
	})
	if _, err := e.Broadcast(ctx, "\x1b]0;title\x07 \u200b"); !errors.Is(err, ErrEmptyText) {
		t.Fatalf("an empty broadcast: %v", err)
	}
}

func TestCensusAndTick(t *testing.T) {
	e := New(Config{Seed: 1977, WanderChance: -1})
	ctx := running(t, e)
	on(t, e, func() { e.join(knight("a", 10), &recorder{}) })
	steps := 0
	for range 3 {
		if err := e.Tick(ctx, func(step func()) { step(); steps++ }); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Tick(ctx, nil); err != nil {
		t.Fatal(err)
	}
	c, err := e.Census(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fresh := New(Config{Seed: 1977})
	if c.Turn != 4 || steps != 3 || c.Players != 1 || c.Fights != 0 || len(c.Levels) != DefaultDepth || c.Levels[0].Players != 1 {
		t.Fatalf("census %+v after %d wrapped steps", c, steps)
	}
	total := 0
	for d := 1; d <= DefaultDepth; d++ {
		total += len(fresh.Monsters(d))
	}
	if c.Monsters() != total {
		t.Fatalf("census counts %d monsters, the dungeon has %d", c.Monsters(), total)
	}
}

// Issue 32: an admin renames a knight online (it is told, saved under the new name, and
// letters find it by the new name only) and one offline (its stored record renamed, and
// its next join takes the name even from a record read before, and tells it).
func TestRenameOnlineAndOffline(t *testing.T) {
	saver := &recorder{}
	e := New(Config{Seed: 1977, Saver: saver, WanderChance: -1})
	ctx := running(t, e)
	sub := &recorder{}
	on(t, e, func() {
		rec := knight("a", 10)
		rec.Name = "Rude Name"
		e.join(rec, sub)
	})
	done, err := e.Rename(ctx, "a", "Kay", nil)
	if err != nil || !done.Online || done.Old != "Rude Name" {
		t.Fatalf("rename online: %+v, %v", done, err)
	}
	on(t, e, func() {
		if log := sub.last().Log.Lines(); log[len(log)-1] != RenamedNote("Rude Name", "Kay") {
			t.Errorf("the knight was not told: %q", log)
		}
		if r := saver.lastSaved("a"); r.Name != "Kay" {
			t.Errorf("saved as %q", r.Name)
		}
		if _, old := e.soc.known[NameKey("Rude Name")]; old || e.soc.known[NameKey("Kay")].ID != "a" {
			t.Errorf("letters' book of knights: %+v", e.soc.known)
		}
	})

	stale := knight("b", 10)
	stale.Name = "Other Rude"
	done, err = e.Rename(ctx, "b", "Bors", &stale)
	if err != nil || done.Online || done.Old != "Other Rude" {
		t.Fatalf("rename offline: %+v, %v", done, err)
	}
	if r := saver.lastSaved("b"); r.ID != "" {
		t.Fatalf("the world saved a knight it does not hold, over what the server keeps: %+v", r)
	}
	later := &recorder{}
	on(t, e, func() { e.join(stale, later) }) // a record its session read before
	who, _ := e.Who(ctx)
	if len(who) != 2 || who[1].Name != "Bors" {
		t.Fatalf("who after the join: %+v", who)
	}
	on(t, e, func() {
		if !slices.Contains(later.last().Log.Lines(), RenamedNote("Other Rude", "Bors")) {
			t.Errorf("the knight joining was not told: %q", later.last().Log.Lines())
		}
	})
}

// A knight that plays in another realm, renamed there or by an admin here, is listed and
// found by its new name at once, not at its realm's next word; letters reach it by the
// new name only.
func TestRenameOfAKnightOfAnotherRealm(t *testing.T) {
	e := New(Config{Seed: 1977, WanderChance: -1})
	ctx := running(t, e)
	if err := e.SetPresence(ctx, "north", []FarKnight{{Name: "Kay", ID: "K-KAY", Level: 2}, {Name: "Bors", ID: "K-BORS"}}); err != nil {
		t.Fatal(err)
	}
	done, err := e.Rename(ctx, "K-KAY", "Kaye", nil)
	if err != nil || done.Online {
		t.Fatalf("rename of another realm's knight: %+v, %v", done, err)
	}
	far, err := e.FarWho(ctx)
	if err != nil || len(far) != 2 || far[0].Name != "Kaye" || far[0].ID != "K-KAY" || far[1].Name != "Bors" {
		t.Fatalf("the other realms' knights after the rename: %+v, %v", far, err)
	}
	on(t, e, func() {
		if _, old := e.soc.known[NameKey("Kay")]; old || e.soc.known[NameKey("Kaye")].ID != "K-KAY" {
			t.Errorf("letters' book of knights: %+v", e.soc.known)
		}
	})
}
