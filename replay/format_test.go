package replay

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// differ names the first part a replay shows in which two views differ ("" if none).
// unrecorded is s without what a replay does not record: its deeds, which no screen a
// replay draws shows (the character sheet is the knight's own, not the watching screen's).
func unrecorded(s world.Self) world.Self {
	s.Deeds = nil
	return s
}

func differ(got, want world.View) string {
	parts := []struct {
		name string
		a, b any
	}{
		{"self", unrecorded(got.Self), unrecorded(want.Self)},
		{"sight", string(got.Visible), string(want.Visible)},
		{"map", string(got.Known), string(want.Known)},
		{"doors", got.FoundDoors, want.FoundDoors},
		{"traps", got.Traps, want.Traps},
		{"in sight", got.InSight(), want.InSight()},
		{"monsters", got.Monsters, want.Monsters},
		{"shadows", got.Shadows, want.Shadows},
		{"fight", got.Fight, want.Fight},
		{"last fight", got.LastFight, want.LastFight},
		{"fight seq", got.FightSeq, want.FightSeq},
		{"watchers", got.Watchers, want.Watchers},
		{"dead", got.Dead, want.Dead},
		{"retired", got.Retired, want.Retired},
		{"party", got.Party, want.Party},
		{"invites", got.Invites, want.Invites},
		{"asks", got.Asks, want.Asks},
		{"surface", surfaceMap(&got), surfaceMap(&want)},
		{"market", marketOf(&got), marketOf(&want)},
	}
	for _, p := range parts {
		if !reflect.DeepEqual(p.a, p.b) && !(isEmpty(p.a) && isEmpty(p.b)) {
			return fmt.Sprintf("%s: %+v, want %+v", p.name, p.a, p.b)
		}
	}
	return ""
}

// isEmpty: a nil slice and an empty one show the same.
func isEmpty(x any) bool {
	v := reflect.ValueOf(x)
	return !v.IsValid() || v.Kind() == reflect.Slice && v.Len() == 0 || v.Kind() == reflect.Pointer && v.IsNil()
}

// madeViews are views made by hand with every part a replay keeps, changing one after
// another: a battle, a party, shadows, the surface and its market, a death.
func madeViews() []world.View {
	self := world.Self{Name: "Kay", ID: "K-kay", Level: 3, Hits: 12, MaxHits: 13, Depth: 2, Pos: world.Pos{X: 4, Y: 5},
		Items: []world.Item{{Kind: 1, Plus: 2}, {Kind: 3, Count: 20, Worn: true, Value: -1}}, Effects: []string{"Light (24 moves)"},
		Options: world.Options{Theme: "contrast", Muted: []string{"Mordred"}, PrivateReplays: true}, Unread: 2}
	fight := &world.FightView{Monsters: []world.FightMonster{{Name: "Orc", Glyph: "o", Hits: 4, MaxHits: 6, Attack: world.Dice{N: 1, Sides: 6}}},
		Knights: []world.FightKnight{{Name: "Kay", Hits: 12, Choosing: true, GraceLeft: 3}}, Log: []string{"The Orc hits you for 1."}, Round: 2, YourMove: true}
	base := world.View{Turn: 100, Self: self, Visible: []byte{1, 2, 3, 0, 0, 0, 0, 9}, Known: []byte{1, 2, 3, 4, 5, 6, 7, 9},
		FoundDoors: []int{7, 11}, Traps: []world.Pos{{X: 1, Y: -1}},
		Monsters: []world.SeenMonster{{ID: 3, Name: "Orc", Glyph: "o", Pos: world.Pos{X: 5, Y: 5}}},
		Shadows:  []world.Shadow{{Pos: world.Pos{X: 9, Y: 9}, Glyph: "D"}, {Pos: world.Pos{X: 2, Y: 8}, Treasure: true}},
		Party:    []world.PartyMember{{Name: "Kay", Leader: true, Level: 3, Depth: 2, Pos: world.Pos{X: 4, Y: 5}}, {Name: "Bors", Fighting: true}},
		Watchers: []string{"Gawain"}, Invites: []string{"Lancelot"}, Asks: []string{"Tristan"},
		Others: []world.Other{{Name: "Bors", Pos: world.Pos{X: 4, Y: 6}}},
		Log:    world.LogOf([]string{"You enter."}, []world.MsgKind{world.MsgGame}), Said: 1}
	surface := &world.Surface{W: 3, H: 2, Cells: []world.SurfaceKind{0, 1, 2, 1, 0, 3}, Entrance: world.Pos{X: 1, Y: 1}, Markets: map[int]string{2: "the Market of the Golden Lamb"}}
	steps := []func(v *world.View){
		func(v *world.View) { v.Self.Pos.X++; v.Visible = []byte{1, 2, 3, 0, 0, 0, 4, 9} },
		func(v *world.View) { v.Fight, v.FightSeq = fight, 1 },
		func(v *world.View) { f := *fight; f.Round, f.GraceLeft = 3, 2; v.Fight, v.FightSeq = &f, 2 },
		func(v *world.View) { v.Fight, v.LastFight = nil, []string{"The Orc dies."} },
		func(v *world.View) { v.Monsters, v.Party, v.Shadows = nil, v.Party[:1], v.Shadows[1:] },
		func(v *world.View) {
			v.Others = append(slices.Clone(v.Others), world.Other{Name: "Gareth"})
			v.Log = world.LogOf(append(v.Log.Lines(), "Bors whispers: here"), append(v.Log.Kinds(), world.MsgWhisper))
			v.Said = 2
		},
		func(v *world.View) {
			v.Self.Depth, v.Visible, v.Known, v.Traps, v.FoundDoors = 0, nil, nil, nil, nil
			v.Others = []world.Other{{Name: "Percival", Pos: world.Pos{X: 2}}} // outside, everyone there is in sight
			v.Surface = &world.SurfaceView{Map: surface, Others: v.Others}
		},
		func(v *world.View) {
			s := *v.Surface
			s.Market = &world.MarketView{Name: "the Market", Wares: []world.Ware{{Item: world.Item{Kind: 2}, Price: 30, Count: 5}}}
			v.Surface = &s
		},
		func(v *world.View) {
			v.Dead = &world.Death{Killer: "an Orc", LastBlows: []world.Blow{{By: "an Orc", Damage: 3}}, Hints: []string{"Run."}}
		},
	}
	vs := []world.View{base}
	for _, step := range steps {
		v := vs[len(vs)-1]
		v.Turn += 4
		step(&v)
		vs = append(vs, v)
	}
	return vs
}

// Every part of every view comes back from its chunk as it went in, in chunks of any
// length: the parts written as changes, those written by hand and those as JSON.
func TestEveryPartComesBack(t *testing.T) {
	w := newTestWorld(t, nil)
	w.walk(world.East, world.South, world.West, world.North)
	sets := map[string][]world.View{"made": madeViews(), "walked": w.kayViews.list()}
	crowd := crowdViews(t, 300, 200)
	for _, it := range crowd {
		if it.knight == "K-7" {
			sets["crowd"] = append(sets["crowd"], it.view)
		}
	}
	if len(sets["crowd"]) < 20 {
		t.Fatalf("%d views of a knight in the crowd", len(sets["crowd"]))
	}
	for name, vs := range sets {
		for _, per := range []int{1, 4, 1000} {
			ms := Timeline(encode(t, vs, per), false)
			// What the replay shows at a view's turn, the last of its turn, is that view.
			j := 0
			for i, want := range vs {
				if i+1 < len(vs) && vs[i+1].Turn == want.Turn {
					continue
				}
				for j+1 < len(ms) && ms[j+1].View.Turn <= want.Turn {
					j++
				}
				if d := differ(ms[j].View, want); d != "" {
					t.Fatalf("%s, chunks of %d, turn %d: %s", name, per, want.Turn, d)
				}
			}
		}
	}
}

// A list written as its changes from another comes back, whatever the two are.
func TestListChangesComeBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	list := func() []int {
		out := make([]int, rng.IntN(40))
		for i := range out {
			out[i] = rng.IntN(30)
		}
		return out
	}
	for range 2000 {
		old, cur := list(), list()
		if rng.IntN(2) == 0 { // most often: a few changes
			cur = slices.Clone(old)
			for range rng.IntN(4) {
				if i := rng.IntN(len(cur) + 1); i < len(cur) && rng.IntN(2) == 0 {
					cur = slices.Delete(cur, i, i+1)
				} else {
					cur = slices.Insert(cur, i, rng.IntN(30))
				}
			}
		}
		var e enc
		putList(&e, old, cur, func(e *enc, n int) { e.int(n) })
		d := dec{b: e.b}
		got := getList(&d, old, func(d *dec) int { return d.int() })
		if d.err != nil || len(d.b) != 0 || !slices.Equal(got, cur) && len(got)+len(cur) > 0 {
			t.Fatalf("old %v cur %v: got %v (%v, %d left)", old, cur, got, d.err, len(d.b))
		}
		bo, bc := []byte(fmt.Sprint(old)), []byte(fmt.Sprint(cur))
		if rng.IntN(2) == 0 && len(bo) > 0 {
			bc = slices.Clone(bo)
			bc[rng.IntN(len(bc))] ^= 0x55
		}
		e.b = e.b[:0]
		putBits(&e, bo, bc)
		d = dec{b: e.b}
		if got := getBits(&d, bo); d.err != nil || len(d.b) != 0 || !bytes.Equal(got, bc) {
			t.Fatalf("bits %q from %q: got %q (%v)", bc, bo, got, d.err)
		}
	}
}

// A chunk of version 1 (gob-encoded frames) still plays.
func TestVersion1ChunksStillPlay(t *testing.T) {
	var raw bytes.Buffer
	enc := gob.NewEncoder(&raw)
	frames := []frame{
		{Set: 1<<len(take) - 1, Self: world.Self{Name: "Kay", Pos: world.Pos{X: 3}}, Lines: []string{"You enter."}, Said: 1},
		{Turn: 4, Set: 1, Self: world.Self{Name: "Kay", Pos: world.Pos{X: 4}}, Lines: []string{"Bors says: hi"}, Said: 2},
	}
	for i := range frames {
		if err := enc.Encode(&frames[i]); err != nil {
			t.Fatal(err)
		}
	}
	data := binary.AppendUvarint(binary.AppendUvarint([]byte{1}, 100), uint64(25*time.Millisecond))
	out := bytes.NewBuffer(data)
	zw, _ := flate.NewWriter(out, flate.BestSpeed)
	_, _ = zw.Write(raw.Bytes())
	_ = zw.Close()
	ms := Timeline([]Chunk{{Data: out.Bytes()}}, false)
	if len(ms) != 2 || ms[1].View.Self.Pos.X != 4 || ms[1].View.Turn != 104 || ms[1].At != 100*time.Millisecond ||
		!slices.Equal(ms[1].View.Log.Lines(), []string{"You enter.", "Bors says: hi"}) {
		t.Fatalf("moments %+v", ms)
	}
}

// chunkOf makes a chunk of the given frames' bytes, as one piece.
func chunkOf(frames []byte) Chunk {
	data := binary.AppendUvarint(binary.AppendUvarint([]byte{chunkVersion}, 100), uint64(25*time.Millisecond))
	return Chunk{Data: appendPiece(data, s2.Encode(nil, frames))}
}

// chunkV2Of makes a version 2 chunk of the given frames' bytes: one flate stream.
func chunkV2Of(frames []byte) Chunk {
	out := bytes.NewBuffer(binary.AppendUvarint(binary.AppendUvarint([]byte{2}, 100), uint64(25*time.Millisecond)))
	zw, _ := flate.NewWriter(out, flate.BestSpeed)
	_, _ = zw.Write(frames)
	_ = zw.Close()
	return Chunk{Data: out.Bytes()}
}

// rawFrames are the frames' bytes of a chunk of the made views.
func rawFrames(t testing.TB) []byte {
	_, raw, cut, err := rawOf(encode(t, madeViews(), 1000)[0].Data)
	if err != nil || cut {
		t.Fatalf("the chunk's frames: %v (cut: %v)", err, cut)
	}
	return raw
}

// Version 2 chunks (one flate stream, the replays kept before version 3) play as the
// same frames in version 3's pieces do, and a piece cut short ends the chunk early.
func TestVersion2ChunksStillPlay(t *testing.T) {
	raw := rawFrames(t)
	v2, v3 := Timeline([]Chunk{chunkV2Of(raw)}, false), Timeline([]Chunk{chunkOf(raw)}, false)
	if len(v3) < 10 || !reflect.DeepEqual(v2, v3) {
		t.Fatalf("version 2 read back %d moments, version 3 %d, or they differ", len(v2), len(v3))
	}
	c := chunkOf(raw)
	c.Data = c.Data[:len(c.Data)-3]
	if cut := Timeline([]Chunk{c}, false); len(cut) != 0 {
		t.Errorf("a chunk whose only piece is cut short read back %d moments", len(cut))
	}
}

// Frames changed at random bytes make a chunk end early or show something else, never
// a reader fail (FuzzChunkFrames searches further).
func TestChangedFramesAreReadSafely(t *testing.T) {
	raw := rawFrames(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		b := bytes.Clone(raw[:rng.IntN(len(raw)+1)])
		for range 1 + rng.IntN(3) {
			if len(b) > 0 {
				b[rng.IntN(len(b))] = byte(rng.Uint32())
			}
		}
		_ = Timeline([]Chunk{chunkOf(b)}, true)
	}
}

// Bytes that are not frames, cut short or changed anywhere, make a chunk end early,
// never a reader fail.
func FuzzChunkFrames(f *testing.F) {
	raw := rawFrames(f)
	f.Add(raw)
	for _, n := range []int{1, 7, 50, 300} {
		f.Add(raw[:len(raw)-n])
		b := bytes.Clone(raw)
		b[n] ^= 0xff
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, frames []byte) {
		_ = Timeline([]Chunk{chunkOf(frames)}, true)
	})
}
