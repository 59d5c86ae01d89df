package replay

import (
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Moment is one view of a replay and when it comes, after the replay's first.
type Moment struct {
	At   time.Duration
	View world.View
}

// maxLog is how many lines of the log a replay's views carry, as many as the world's.
const maxLog = 200

// Timeline reads chunks, oldest first, back into the views they kept, each at its time.
// A public timeline is for eyes other than the knight's own: it keeps only the public
// lines of the log (world.MsgKind), and nothing of the knight's own (builder.hide). A
// chunk that cannot be read is left out.
func Timeline(chunks []Chunk, public bool) []Moment {
	b := builder{public: public, log: world.LogWriter{Max: maxLog}}
	var out []Moment
	var t0 time.Time
	var last time.Duration
	for i, c := range chunks {
		if i == 0 {
			t0 = c.Start
		}
		base := c.Start.Sub(t0)
		_ = frames(c.Data, func(h chunkHead, f *frame) {
			b.apply(f)
			at := max(last, base+time.Duration(f.Turn)*h.tick)
			last = at
			out = append(out, Moment{At: at, View: b.view(h.first + f.Turn)})
		})
	}
	return out
}

// IdleCut is the longest stretch a replay holds with nothing happening, over SSH and on
// the web page: a knight that stood still a minute is replayed standing 2 s.
const IdleCut = 2 * time.Second

// CutIdle is ms with every stretch between two moments longer than limit cut to limit
// (0: none cut), the later moments brought forward.
func CutIdle(ms []Moment, limit time.Duration) []Moment {
	if limit <= 0 || len(ms) == 0 {
		return ms
	}
	out := make([]Moment, len(ms))
	var cut time.Duration
	for i, m := range ms {
		if i > 0 {
			cut += max(0, m.At-ms[i-1].At-limit)
		}
		m.At -= cut
		out[i] = m
	}
	return out
}

// Last is the end of a timeline: its moments of the last d, the first of them at 0.
func Last(ms []Moment, d time.Duration) []Moment {
	if len(ms) == 0 {
		return nil
	}
	end := ms[len(ms)-1].At
	i := 0
	for i < len(ms)-1 && ms[i].At < end-d {
		i++
	}
	out := make([]Moment, len(ms)-i)
	for j, m := range ms[i:] {
		m.At -= ms[i].At
		out[j] = m
	}
	return out
}

// builder rebuilds views from frames: st holds every field as the last frame left it.
type builder struct {
	public     bool
	st         frame
	level      *world.Level
	levelBytes []byte
	log        world.LogWriter // the last maxLog lines, shared with the views built
	said       uint64          // lines of the knight's log read so far
	shown      uint64          // lines put in this replay's log
}

// apply takes a frame's fields into the state, and its new lines into the log.
func (b *builder) apply(f *frame) {
	for i, take := range take {
		if f.Set&(1<<uint(i)) != 0 {
			take(&b.st, f)
		}
	}
	if string(b.st.Level) != string(b.levelBytes) {
		b.levelBytes, b.level = b.st.Level, nil
		if len(b.st.Level) > 0 {
			l := new(world.Level)
			if l.UnmarshalBinary(b.st.Level) == nil {
				b.level = l
			}
		}
	}
	b.lines(f)
}

// lines adds the frame's lines that the log does not have yet. A count lower than the
// log's is a new session of the knight, whose log began again.
func (b *builder) lines(f *frame) {
	if f.Said < b.said {
		b.said = f.Said - uint64(len(f.Lines))
	}
	for j, l := range f.Lines {
		if f.Said-uint64(len(f.Lines)-j) < b.said {
			continue // read already, in the chunk before
		}
		k := world.MsgGame
		if j < len(f.Kinds) {
			k = f.Kinds[j]
		}
		if b.public && !k.Public() {
			continue
		}
		b.log.Add(l, k)
		b.shown++
	}
	b.said = max(b.said, f.Said)
}

// view is the state as a view, at turn. Views share what they hold, as the world's do:
// nothing in one is written after it is made.
func (b *builder) view(turn uint64) world.View {
	st := &b.st
	v := world.View{Turn: turn, Self: st.Self, Level: b.level, Visible: st.Visible, Known: st.Known,
		FoundDoors: st.FoundDoors, Traps: st.Traps, Others: st.Others, Monsters: st.Monsters,
		Shadows: st.Shadows, Fight: st.Fight, LastFight: st.LastFight, FightSeq: st.FightSeq,
		Watchers: st.Watchers, Dead: st.Dead, Retired: st.Retired, Party: st.Party,
		Invites: st.Invites, Asks: st.Asks,
		Log: b.log.Log(), Said: b.shown}
	if st.Surface != nil {
		v.Surface = &world.SurfaceView{Map: st.Surface, Others: st.Others, Market: st.Market}
	}
	if b.public {
		b.hide(&v)
	}
	return v
}

// hide takes out of a public view what only the knight's own eyes may see
// (world.View.WithoutOwn); its log holds only public lines already (lines).
// TestAPublicViewHoldsNothingPrivate holds every field of a view to this.
func (b *builder) hide(v *world.View) { *v = v.WithoutOwn() }
