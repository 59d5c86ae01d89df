package replay

import (
	"sync/atomic"

	"github.com/klauspost/compress/s2"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// frame is one view as what changed since the view before it in its chunk: Set says which
// fields it carries, and a field it carries empty was emptied (Set tells "unchanged"
// from "now empty"). The first frame of a chunk carries everything, so a chunk is read
// alone. Version 1 chunks were frames gob-encoded (chunkv1.go); versions 2 and 3 write
// them by hand (fields.go), and read them back into the same struct.
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

// take copies each part of a view a frame may carry from a frame into the state a
// player builds views from (timeline.go): a part's bit in Set is its place here. The
// parts are the same in every version of the format; versions 2 and 3 write them as fields
// (fields.go) says.
var take = []func(st, f *frame){
	func(st, f *frame) { st.Self = f.Self },
	func(st, f *frame) { st.Level = f.Level },
	func(st, f *frame) { st.Visible = f.Visible },
	func(st, f *frame) { st.Known = f.Known },
	func(st, f *frame) { st.FoundDoors = f.FoundDoors },
	func(st, f *frame) { st.Traps = f.Traps },
	func(st, f *frame) { st.Others = f.Others },
	func(st, f *frame) { st.Monsters = f.Monsters },
	func(st, f *frame) { st.Shadows = f.Shadows },
	func(st, f *frame) { st.Fight = f.Fight },
	func(st, f *frame) { st.LastFight = f.LastFight },
	func(st, f *frame) { st.FightSeq = f.FightSeq },
	func(st, f *frame) { st.Watchers = f.Watchers },
	func(st, f *frame) { st.Dead = f.Dead },
	func(st, f *frame) { st.Retired = f.Retired },
	func(st, f *frame) { st.Party = f.Party },
	func(st, f *frame) { st.Invites, st.Asks = f.Invites, f.Asks },
	func(st, f *frame) { st.Surface = f.Surface },
	func(st, f *frame) { st.Market = f.Market },
}

// levelOf is the level's snapshot and its bytes (a level is a few hundred bytes once
// compressed, and a chunk keeps it once), nil outside. A level's snapshot is shared by
// every view of it until it changes, so its bytes are made once a snapshot, not once a
// knight's chunk, and compressed once too (levelMemo.compressed).
func levelOf(v *world.View) *levelMemo {
	if v.Level == nil {
		return nil
	}
	slot := &levelBytes[uint(v.Level.Depth)%uint(len(levelBytes))]
	if m := slot.Load(); m != nil && m.l == v.Level {
		return m
	}
	b, _ := v.Level.MarshalBinary() // writes to memory: it does not fail
	m := &levelMemo{l: v.Level, b: b}
	slot.Store(m)
	return m
}

// levelMemo is a level's snapshot, its bytes, and them compressed as an S2 block (made
// at the first chunk's finish); levelBytes keeps the last of each depth (safe from any
// goroutine: a recorder's, a test's).
type levelMemo struct {
	l *world.Level
	b []byte
	z atomic.Pointer[[]byte]
}

// compressed is the level's bytes as an S2 block, a piece of every chunk of the snapshot.
func (m *levelMemo) compressed() []byte {
	if z := m.z.Load(); z != nil {
		return *z
	}
	z := s2.Encode(nil, m.b)
	m.z.Store(&z)
	return z
}

var levelBytes [32]atomic.Pointer[levelMemo]

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
