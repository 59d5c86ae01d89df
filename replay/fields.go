package replay

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// field is how versions 2 and 3 write one part of a view (its bit in Set is its place in
// fields, as in take): put appends it to e if it changed since the writer's last frame,
// or the chunk is new, and says whether it did; get reads it back into st, the state of
// the chunk's reader, over its value before (a part written as its changes needs it).
// Parts that change at every step are written by hand and as changes; parts seen once a
// battle or a life (a battle's panel, a tombstone, the surface, a market) as JSON.
type field struct {
	put func(w *writer, v *world.View, e *enc) bool
	get func(d *dec, st *frame)
}

var fields = []field{
	{putSelf, func(d *dec, st *frame) { st.Self = getSelf(d) }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(v.Level != w.prev.Level) && e.put(func() { w.putLevel(e, levelOf(v)) })
	}, func(d *dec, st *frame) { st.Level = d.bytes() }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(!bytes.Equal(v.Visible, w.prev.Visible)) && e.put(func() { putBits(e, w.prev.Visible, v.Visible) })
	}, func(d *dec, st *frame) { st.Visible = getBits(d, st.Visible) }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(!bytes.Equal(v.Known, w.prev.Known)) && e.put(func() { putBits(e, w.prev.Known, v.Known) })
	}, func(d *dec, st *frame) { st.Known = getBits(d, st.Known) }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(!slices.Equal(v.FoundDoors, w.prev.FoundDoors)) && e.put(func() { e.ints(v.FoundDoors) })
	}, func(d *dec, st *frame) { st.FoundDoors = d.ints() }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(!slices.Equal(v.Traps, w.prev.Traps)) && e.put(func() { putList(e, nil, v.Traps, putPos) })
	}, func(d *dec, st *frame) { st.Traps = getList(d, nil, getPos) }},
	{putOthers, func(d *dec, st *frame) { st.Others = getList(d, st.Others, getOther) }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(!slices.Equal(v.Monsters, w.prev.Monsters)) && e.put(func() { putList(e, w.prev.Monsters, v.Monsters, putMonster) })
	}, func(d *dec, st *frame) { st.Monsters = getList(d, st.Monsters, getMonster) }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(!slices.Equal(v.Shadows, w.prev.Shadows)) && e.put(func() { putList(e, w.prev.Shadows, v.Shadows, putShadow) })
	}, func(d *dec, st *frame) { st.Shadows = getList(d, st.Shadows, getShadow) }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(v.Fight != w.prev.Fight) && w.putJSON(e, v.Fight, &w.fight)
	}, func(d *dec, st *frame) { st.Fight = nil; getJSON(d, &st.Fight) }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(!slices.Equal(v.LastFight, w.prev.LastFight)) && e.put(func() { e.strs(v.LastFight) })
	}, func(d *dec, st *frame) { st.LastFight = d.strs() }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(v.FightSeq != w.prev.FightSeq) && e.put(func() { e.uint(v.FightSeq) })
	}, func(d *dec, st *frame) { st.FightSeq = d.uint() }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(!slices.Equal(v.Watchers, w.prev.Watchers)) && e.put(func() { e.strs(v.Watchers) })
	}, func(d *dec, st *frame) { st.Watchers = d.strs() }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(v.Dead != w.prev.Dead) && w.putJSON(e, v.Dead, nil)
	}, func(d *dec, st *frame) { st.Dead = nil; getJSON(d, &st.Dead) }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(v.Retired != w.prev.Retired) && w.putJSON(e, v.Retired, nil)
	}, func(d *dec, st *frame) { st.Retired = nil; getJSON(d, &st.Retired) }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(!slices.Equal(v.Party, w.prev.Party)) && e.put(func() { putList(e, nil, v.Party, putMember) })
	}, func(d *dec, st *frame) { st.Party = getList(d, nil, getMember) }},
	{func(w *writer, v *world.View, e *enc) bool {
		same := slices.Equal(v.Invites, w.prev.Invites) && slices.Equal(v.Asks, w.prev.Asks)
		return w.changed(!same) && e.put(func() { e.strs(v.Invites); e.strs(v.Asks) })
	}, func(d *dec, st *frame) { st.Invites, st.Asks = d.strs(), d.strs() }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(surfaceMap(v) != w.prev.surface) && w.putJSON(e, surfaceMap(v), nil)
	}, func(d *dec, st *frame) { st.Surface = nil; getJSON(d, &st.Surface) }},
	{func(w *writer, v *world.View, e *enc) bool {
		return w.changed(marketOf(v) != w.prev.market) && w.putJSON(e, marketOf(v), &w.market)
	}, func(d *dec, st *frame) { st.Market = nil; getJSON(d, &st.Market) }},
}

// changed says whether a part is to be written: it changed, or the chunk is new (its
// first frame carries everything, so a chunk is read alone).
func (w *writer) changed(c bool) bool { return c || w.frames == 0 }

// put runs write and says it wrote, to end a field's put in one line.
func (e *enc) put(write func()) bool { write(); return true }

// putJSON writes x as JSON, unless its bytes are last's (a part the world makes anew
// with each view, the same in it: a battle's panel, a market); last becomes them.
func (w *writer) putJSON(e *enc, x any, last *[]byte) bool {
	b := w.sc.json.marshal(x)
	if last != nil {
		if w.frames > 0 && bytes.Equal(b, *last) {
			return false
		}
		*last = refill(*last, b)
	}
	e.bytes(b)
	return true
}

// jsonScratch encodes parts as json.Marshal does, into bytes used again: a writer puts
// five parts as JSON at each chunk's start, and a battle's panel at each view.
type jsonScratch struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// marshal is x's JSON (json.Marshal's bytes, HTML escaped alike), valid until the next
// call.
func (j *jsonScratch) marshal(x any) []byte {
	if j.enc == nil {
		j.enc = json.NewEncoder(&j.buf)
	}
	j.buf.Reset()
	if j.enc.Encode(x) != nil {
		return []byte("null") // the world's types all encode; a replay shows nothing rather than fail
	}
	return bytes.TrimSuffix(j.buf.Bytes(), []byte("\n")) // Encode ends it with a newline
}

func getJSON[T any](d *dec, x *T) {
	if b := d.bytes(); d.err == nil && json.Unmarshal(b, x) != nil {
		d.fail()
	}
}

// putSelf writes the knight's status when its bytes differ from the last frame's.
func putSelf(w *writer, v *world.View, e *enc) bool {
	mark := len(e.b)
	s := &v.Self
	e.str(s.Name)
	e.str(s.ID)
	for _, n := range [...]int{s.Level, s.Experience, s.Hits, s.MaxHits, s.SpellUnits, s.Str, s.Int,
		s.Con, s.Dex, s.Depth, s.Pos.X, s.Pos.Y, int(s.Feature), s.Gold, s.TreasureExperience, s.Unread} {
		e.int(n)
	}
	putList(e, nil, s.Items, putItem)
	e.strs(s.Effects)
	e.strs(s.Status)
	o := &s.Options
	for _, b := range [...]bool{s.Light, s.Away, o.Plain, o.HideKeys, o.NoSpectators, o.PrivateReplays} {
		e.bool(b)
	}
	e.str(o.Theme)
	e.str(o.Colour)
	e.strs(o.Muted)
	if w.frames > 0 && bytes.Equal(e.b[mark:], w.self) {
		e.b = e.b[:mark]
		return false
	}
	w.self = append(w.self[:0], e.b[mark:]...)
	return true
}

func getSelf(d *dec) world.Self {
	s := world.Self{Name: d.str(), ID: d.str()}
	for _, n := range [...]*int{&s.Level, &s.Experience, &s.Hits, &s.MaxHits, &s.SpellUnits, &s.Str, &s.Int,
		&s.Con, &s.Dex, &s.Depth, &s.Pos.X, &s.Pos.Y} {
		*n = d.int()
	}
	s.Feature = world.Feature(d.int())
	s.Gold, s.TreasureExperience, s.Unread = d.int(), d.int(), d.int()
	s.Items = getList(d, nil, getItem)
	s.Effects, s.Status = d.strs(), d.strs()
	o := &s.Options
	for _, b := range [...]*bool{&s.Light, &s.Away, &o.Plain, &o.HideKeys, &o.NoSpectators, &o.PrivateReplays} {
		*b = d.bool()
	}
	o.Theme, o.Colour, o.Muted = d.str(), d.str(), d.strs()
	return s
}

// putOthers writes the knights in sight as their changes from the last frame's: in a
// crowd, one knight's step changes one name's place among many.
func putOthers(w *writer, v *world.View, e *enc) bool {
	in := w.sc.others[:0]
	if v.Surface != nil {
		in = append(in, v.Surface.Others...)
	} else {
		in = v.AppendInSight(in)
	}
	cur := w.sc.seen[:0]
	for _, o := range in {
		cur = append(cur, seenKnight{o.Name, int32(o.Pos.X), int32(o.Pos.Y)})
	}
	w.sc.others, w.sc.seen = in, cur
	if w.frames > 0 && slices.Equal(cur, w.others) {
		return false
	}
	putList(e, w.others, cur, putSeen)
	w.others = refill(w.others, cur)
	return true
}

// seenKnight is a knight in sight as a writer keeps it until its next frame: a
// world.Other in 24 bytes, not 32, for a crowd's 50 in sight are 1.5 KB a knight (a
// square's place fits an int32 many times over). It is written as a world.Other: its
// name, then its place (putPos).
type seenKnight struct {
	name string
	x, y int32
}

func putSeen(e *enc, k seenKnight) { e.str(k.name); putPos(e, world.Pos{X: int(k.x), Y: int(k.y)}) }

// refill is dst holding src's elements, in dst's room when it fits and is not over
// twice what they take: a writer is used again for chunk after chunk, and room grown for
// a crowd or a battle's panel was kept, as much again, after they were gone.
func refill[T any](dst, src []T) []T {
	if n := len(src); cap(dst) < n || cap(dst) > 2*n+8 {
		dst = make([]T, 0, n+n/8)
	}
	return append(dst[:0], src...)
}

func putPos(e *enc, p world.Pos) { e.int(p.X); e.int(p.Y) }
func getPos(d *dec) world.Pos    { return world.Pos{X: d.int(), Y: d.int()} }

func getOther(d *dec) world.Other { return world.Other{Name: d.str(), Pos: getPos(d)} }

func putMonster(e *enc, m world.SeenMonster) {
	e.int(m.ID)
	e.str(m.Name)
	e.str(m.Glyph)
	putPos(e, m.Pos)
}
func getMonster(d *dec) world.SeenMonster {
	return world.SeenMonster{ID: d.int(), Name: d.str(), Glyph: d.str(), Pos: getPos(d)}
}

func putShadow(e *enc, s world.Shadow) { putPos(e, s.Pos); e.str(s.Glyph); e.bool(s.Treasure) }
func getShadow(d *dec) world.Shadow {
	return world.Shadow{Pos: getPos(d), Glyph: d.str(), Treasure: d.bool()}
}

func putItem(e *enc, it world.Item) {
	e.uint(uint64(it.Kind))
	e.int(it.Plus)
	e.int(it.Count)
	e.bool(it.Worn)
	e.int(it.Value)
}

func getItem(d *dec) world.Item {
	return world.Item{Kind: world.ItemKind(d.uint()), Plus: d.int(), Count: d.int(), Worn: d.bool(), Value: d.int()}
}

func putMember(e *enc, m world.PartyMember) {
	e.str(m.Name)
	for _, n := range [...]int{m.Level, m.Hits, m.MaxHits, m.Depth, m.Pos.X, m.Pos.Y} {
		e.int(n)
	}
	e.bool(m.Leader)
	e.bool(m.Fighting)
}

func getMember(d *dec) world.PartyMember {
	m := world.PartyMember{Name: d.str()}
	for _, n := range [...]*int{&m.Level, &m.Hits, &m.MaxHits, &m.Depth, &m.Pos.X, &m.Pos.Y} {
		*n = d.int()
	}
	m.Leader, m.Fighting = d.bool(), d.bool()
	return m
}
