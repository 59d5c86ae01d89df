package replay

import (
	"bytes"
	"reflect"
	"slices"
	"sync/atomic"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// frame is one view as what changed since the view before it in its chunk: Set says which
// fields it carries, and a field it carries empty was emptied (gob leaves empty fields
// out, so Set tells "unchanged" from "now empty"). The first frame of a chunk carries
// everything, so a chunk is read alone.
type frame struct {
	Turn uint64 // turns after the chunk's first view
	Set  uint32

	Self       world.Self
	Level      []byte // the level's bytes (Level.MarshalBinary); empty outside
	Visible    []byte
	Known      []byte
	FoundDoors []int
	Traps      []world.Pos
	Others     []world.Other // in the dungeon, those in sight; outside, everyone there
	Monsters   []world.SeenMonster
	Shadows    []world.Shadow
	Fight      *world.FightView
	LastFight  []string
	FightSeq   uint64
	Watchers   []string
	Dead       *world.Death
	Retired    *world.Retirement
	Party      []world.PartyMember
	Invites    []string
	Asks       []string
	Surface    *world.Surface // the surface's grid, once a chunk, while outside
	Market     *world.MarketView

	// Lines are the log's lines said since the frame before, with their kinds, and Said
	// the count of lines ever said with the last of them: a chunk's first frame carries
	// the last keyLines lines, which a player of the chunk before has seen already.
	Lines []string
	Kinds []world.MsgKind
	Said  uint64
}

// keyLines is how many lines of the log a chunk's first frame carries: enough for the
// tallest message panel, so a replay that starts there has its log.
const keyLines = 24

// field is one part of a view a frame may carry: its bit in Set is its place in fields.
// same says whether two views differ in it, put copies it from a view into a frame, and
// take copies it from a frame into the state a player builds views from (state.go).
type field struct {
	same func(a, b *world.View) bool
	put  func(f *frame, v *world.View)
	take func(st, f *frame)
}

// fields are the parts of a view a replay keeps. The chat line being typed and the
// screens a session opens itself (options, letters, help) are not in views, so no
// replay ever has them.
var fields = []field{
	{func(a, b *world.View) bool { return reflect.DeepEqual(a.Self, b.Self) },
		func(f *frame, v *world.View) { f.Self = v.Self }, func(st, f *frame) { st.Self = f.Self }},
	{func(a, b *world.View) bool { return a.Level == b.Level }, putLevel, func(st, f *frame) { st.Level = f.Level }},
	{func(a, b *world.View) bool { return bytes.Equal(a.Visible, b.Visible) },
		func(f *frame, v *world.View) { f.Visible = v.Visible }, func(st, f *frame) { st.Visible = f.Visible }},
	{func(a, b *world.View) bool { return bytes.Equal(a.Known, b.Known) },
		func(f *frame, v *world.View) { f.Known = v.Known }, func(st, f *frame) { st.Known = f.Known }},
	{func(a, b *world.View) bool { return slices.Equal(a.FoundDoors, b.FoundDoors) },
		func(f *frame, v *world.View) { f.FoundDoors = v.FoundDoors }, func(st, f *frame) { st.FoundDoors = f.FoundDoors }},
	{func(a, b *world.View) bool { return slices.Equal(a.Traps, b.Traps) },
		func(f *frame, v *world.View) { f.Traps = v.Traps }, func(st, f *frame) { st.Traps = f.Traps }},
	{sameOthers, putOthers, func(st, f *frame) { st.Others = f.Others }},
	{func(a, b *world.View) bool { return slices.Equal(a.Monsters, b.Monsters) },
		func(f *frame, v *world.View) { f.Monsters = v.Monsters }, func(st, f *frame) { st.Monsters = f.Monsters }},
	{func(a, b *world.View) bool { return slices.Equal(a.Shadows, b.Shadows) },
		func(f *frame, v *world.View) { f.Shadows = v.Shadows }, func(st, f *frame) { st.Shadows = f.Shadows }},
	{func(a, b *world.View) bool { return a.Fight == b.Fight || reflect.DeepEqual(a.Fight, b.Fight) },
		func(f *frame, v *world.View) { f.Fight = v.Fight }, func(st, f *frame) { st.Fight = f.Fight }},
	{func(a, b *world.View) bool { return slices.Equal(a.LastFight, b.LastFight) },
		func(f *frame, v *world.View) { f.LastFight = v.LastFight }, func(st, f *frame) { st.LastFight = f.LastFight }},
	{func(a, b *world.View) bool { return a.FightSeq == b.FightSeq },
		func(f *frame, v *world.View) { f.FightSeq = v.FightSeq }, func(st, f *frame) { st.FightSeq = f.FightSeq }},
	{func(a, b *world.View) bool { return slices.Equal(a.Watchers, b.Watchers) },
		func(f *frame, v *world.View) { f.Watchers = v.Watchers }, func(st, f *frame) { st.Watchers = f.Watchers }},
	{func(a, b *world.View) bool { return a.Dead == b.Dead },
		func(f *frame, v *world.View) { f.Dead = v.Dead }, func(st, f *frame) { st.Dead = f.Dead }},
	{func(a, b *world.View) bool { return a.Retired == b.Retired },
		func(f *frame, v *world.View) { f.Retired = v.Retired }, func(st, f *frame) { st.Retired = f.Retired }},
	{func(a, b *world.View) bool { return slices.Equal(a.Party, b.Party) },
		func(f *frame, v *world.View) { f.Party = v.Party }, func(st, f *frame) { st.Party = f.Party }},
	{func(a, b *world.View) bool { return slices.Equal(a.Invites, b.Invites) && slices.Equal(a.Asks, b.Asks) },
		func(f *frame, v *world.View) { f.Invites, f.Asks = v.Invites, v.Asks },
		func(st, f *frame) { st.Invites, st.Asks = f.Invites, f.Asks }},
	{func(a, b *world.View) bool { return surfaceMap(a) == surfaceMap(b) },
		func(f *frame, v *world.View) { f.Surface = surfaceMap(v) }, func(st, f *frame) { st.Surface = f.Surface }},
	{func(a, b *world.View) bool { return reflect.DeepEqual(marketOf(a), marketOf(b)) },
		func(f *frame, v *world.View) { f.Market = marketOf(v) }, func(st, f *frame) { st.Market = f.Market }},
}

// putLevel keeps the level's bytes (a level is a few hundred bytes once compressed, and
// a chunk keeps it once). A level's snapshot is shared by every view of it until it
// changes, so its bytes are made once a snapshot, not once a knight's chunk.
func putLevel(f *frame, v *world.View) {
	f.Level = nil
	if v.Level == nil {
		return
	}
	slot := &levelBytes[uint(v.Level.Depth)%uint(len(levelBytes))]
	if m := slot.Load(); m != nil && m.l == v.Level {
		f.Level = m.b
		return
	}
	f.Level, _ = v.Level.MarshalBinary() // writes to memory: it does not fail
	slot.Store(&levelMemo{v.Level, f.Level})
}

// levelMemo is a level's snapshot and its bytes; levelBytes keeps the last of each depth
// (safe from any goroutine: a recorder's, a test's).
type levelMemo struct {
	l *world.Level
	b []byte
}

var levelBytes [32]atomic.Pointer[levelMemo]

// Others are those in sight: a dungeon view names them through its level's crowd, which
// a view read back does not have, so the replay keeps them by name.
func sameOthers(a, b *world.View) bool {
	var x, y [16]world.Other
	return slices.Equal(a.AppendInSight(x[:0]), b.AppendInSight(y[:0]))
}

func putOthers(f *frame, v *world.View) {
	if v.Surface != nil {
		f.Others = v.Surface.Others
		return
	}
	f.Others = v.InSight()
}

func surfaceMap(v *world.View) *world.Surface {
	if v.Surface == nil {
		return nil
	}
	return v.Surface.Map
}

func marketOf(v *world.View) *world.MarketView {
	if v.Surface == nil {
		return nil
	}
	return v.Surface.Market
}
