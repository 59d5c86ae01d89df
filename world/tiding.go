package world

// Tidings: the few moments of a knight's life the world tells beyond itself (the
// server's webhook, DESIGN §12 "A bridge out"): a death, a retirement, the first level a
// new knight gains. The world only says what happened and what the knight chose to keep
// private; what leaves the server, and in which words, is the server's to decide.

// TidingKind is what a tiding tells.
type TidingKind uint8

// The kinds of tidings.
const (
	TidingDeath      TidingKind = iota + 1 // a knight has died (its record is now a tombstone)
	TidingRetirement                       // a knight has retired into the hall of fame
	TidingFirstLevel                       // a knight has gained its first level (from level 1)
	TidingDeed                             // a knight has earned a rare deed (Deed names it)
)

// Tiding is one moment told beyond the world: no id, no key, nothing said by anyone.
type Tiding struct {
	Kind TidingKind
	// Knight is the knight's name; Guest is set for a guest's knight (never saved).
	Knight string
	Guest  bool
	// Private is set when the knight keeps its replays private (Options.PrivateReplays).
	Private bool
	// Level and Experience are the knight's at the moment: for a first level, the level
	// reached (a first exit may gain several at once).
	Level      int
	Experience int
	// Depth and Killer are a death's: where (0 the surface) and by what.
	Depth  int
	Killer string
	// Deed is a rare deed's row.
	Deed DeedRow
}

// Herald takes the world's tidings. Proclaim is called from the engine goroutine and must
// not block: a herald without room drops the tiding.
type Herald interface {
	Proclaim(Tiding)
}

// proclaim hands a tiding of p's to the herald, if there is one.
func (e *Engine) proclaim(p *player, kind TidingKind) {
	h := e.cfg.Herald
	if h == nil {
		return
	}
	t := Tiding{Kind: kind, Knight: p.rec.Name, Guest: p.rec.Guest, Private: p.rec.Options.PrivateReplays,
		Level: p.rec.Level, Experience: p.rec.Experience}
	if d := p.rec.Death; kind == TidingDeath && d != nil {
		t.Depth, t.Killer, t.Level = d.Depth, d.Killer, d.Level
	}
	h.Proclaim(t)
}

// proclaimDeed hands p's rare deed to the herald, if there is one.
func (e *Engine) proclaimDeed(p *player, r DeedRow) {
	if h := e.cfg.Herald; h != nil {
		h.Proclaim(Tiding{Kind: TidingDeed, Knight: p.rec.Name, Guest: p.rec.Guest, Private: p.rec.Options.PrivateReplays,
			Level: p.rec.Level, Experience: p.rec.Experience, Deed: r})
	}
}
