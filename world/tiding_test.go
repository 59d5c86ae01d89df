package world

import (
	"slices"
	"testing"
)

// heraldBox keeps the tidings proclaimed, in order.
type heraldBox struct{ got []Tiding }

func (h *heraldBox) Proclaim(t Tiding) { h.got = append(h.got, t) }

// Issue 47: the world tells its herald of a knight's death (what slew it, where, its
// level), its first level gained (once, however many a first exit gains, never for an
// exit that gains none, and never for a later one) and its retirement, with the knight's privacy and guesthood as they stand.
func TestTheWorldProclaimsDeathsFirstLevelsAndRetirements(t *testing.T) {
	t.Run("death", func(t *testing.T) {
		e := fixtureEngine(t, nil)
		h := &heraldBox{}
		e.cfg.Herald = h
		e.levels[0].SetFeature(Pos{1, 0}, FeatPit)
		rec := knight("a", 10)
		rec.Hits, rec.Options.PrivateReplays = 1, true
		e.join(rec, &recorder{})
		do(e, "a", Move{Dir: East})
		want := []Tiding{{Kind: TidingDeath, Knight: "Kay a", Private: true, Level: 1, Depth: 2, Killer: "a fall into a pit"}} // it fell to level 2
		if !slices.Equal(h.got, want) {
			t.Fatalf("tidings %+v, want %+v", h.got, want)
		}
	})
	t.Run("first level and retirement", func(t *testing.T) {
		e := fixtureEngine(t, nil)
		h := &heraldBox{}
		e.cfg.Herald = h
		rec := knight("a", 10)
		rec.Guest = true
		e.join(rec, &recorder{})
		p := e.players["a"]
		// An exit that gains no level tells nothing, and earns no deed.
		e.place(p, 1, e.levels[0].Up)
		p.energy = 0
		do(e, "a", Climb{})
		if len(h.got) != 0 || p.rec.Level != 1 || p.rec.HasDeed(DeedFirstLevel) {
			t.Fatalf("an exit at level 1 with no experience: tidings %+v, level %d, first level's deed %v", h.got, p.rec.Level, p.rec.HasDeed(DeedFirstLevel))
		}
		p.rec.Experience = 4000 // seed 000: level 3 at 4000, both gained at the next exit
		e.place(p, 1, e.levels[0].Up)
		p.energy = 0
		do(e, "a", Climb{})
		if p.rec.Level != 3 {
			t.Fatalf("after the exit: level %d, want 3", p.rec.Level)
		}
		p.rec.Experience = 8000 // level 4 at the next exit: no tiding, it is not the first
		e.place(p, 1, e.levels[0].Up)
		p.energy = 0
		do(e, "a", Climb{})
		if p.rec.Level != 4 {
			t.Fatalf("after the second exit: level %d, want 4", p.rec.Level)
		}
		p.energy = 0
		do(e, "a", Retire{})
		want := []Tiding{
			{Kind: TidingFirstLevel, Knight: "Kay a", Guest: true, Level: 3, Experience: 4000},
			{Kind: TidingRetirement, Knight: "Kay a", Guest: true, Level: 4, Experience: 8000},
		}
		if !slices.Equal(h.got, want) {
			t.Fatalf("tidings %+v, want %+v", h.got, want)
		}
	})
}
