package world

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// A spectator gets every view of the knight it watches; the knight's views name the
// spectator; stopping tells the knight.
func TestWatchDeliversTheWatchedKnightsViews(t *testing.T) {
	e := fixtureEngine(t, nil)
	a, b := &recorder{}, &recorder{}
	e.join(knight("a", 10), a)
	e.join(knight("b", 10), b)
	spy := &recorder{}
	w, err := e.watch(watchReq{target: "KAY A", name: "Kay b", sub: spy})
	if err != nil {
		t.Fatal(err)
	}
	if w.Name() != "Kay a" || len(spy.views) != 1 || spy.last().Self.Name != "Kay a" {
		t.Fatalf("the first view: %d views, watching %q", len(spy.views), w.Name())
	}
	if got := a.last().Watchers; !slices.Equal(got, []string{"Kay b"}) {
		t.Fatalf("the watched knight's view lists %q", got)
	}
	if !strings.Contains(a.lastMessage(), "Kay b is watching you.") {
		t.Fatalf("the watched knight was not told: %q", a.lastMessage())
	}
	do(e, "a", Move{Dir: East})
	if got := spy.last().Self.Pos; got != (Pos{1, 0}) {
		t.Fatalf("the spectator sees the knight at %v, want 1,0", got)
	}
	unwatchReq{w.knight, w.id}.handle(e)
	if a.last().Watchers != nil || !strings.Contains(a.lastMessage(), "Kay b stopped watching you.") {
		t.Fatalf("after stop: watchers %q, %q", a.last().Watchers, a.lastMessage())
	}
	n := len(spy.views)
	do(e, "a", Move{Dir: West})
	if len(spy.views) != n {
		t.Fatal("views still reach a spectator who stopped")
	}
	unwatchReq{w.knight, w.id}.handle(e) // twice is harmless
}

// Turning spectators off ends every watch with a reason and refuses new ones; unknown
// names are refused; a knight's leaving ends the watch.
func TestSpectatingOffAndLeaving(t *testing.T) {
	e := fixtureEngine(t, nil)
	a := &recorder{}
	e.join(knight("a", 10), a)
	if _, err := e.watch(watchReq{target: "Nobody", name: "x", sub: &recorder{}}); !errors.Is(err, ErrNotOnline) {
		t.Fatalf("an unknown name: %v", err)
	}
	spy := &recorder{}
	if _, err := e.watch(watchReq{target: "kay a", name: "Spy", sub: spy}); err != nil {
		t.Fatal(err)
	}
	optionsReq{from{"a", e.players["a"].session}, Options{NoSpectators: true}}.handle(e)
	if got := spy.last().Ended; got != "Kay a has turned spectating off." {
		t.Fatalf("the spectator was told %q", got)
	}
	if !strings.Contains(a.lastMessage(), "Spy stopped watching") || a.last().Watchers != nil {
		t.Fatalf("the knight: %q, watchers %q", a.lastMessage(), a.last().Watchers)
	}
	if _, err := e.watch(watchReq{target: "Kay a", name: "Spy", sub: &recorder{}}); !errors.Is(err, ErrNoSpectators) {
		t.Fatalf("watching a knight who refuses spectators: %v", err)
	}
	optionsReq{from{"a", e.players["a"].session}, Options{}}.handle(e)
	spy = &recorder{}
	if _, err := e.watch(watchReq{target: "Kay a", name: "Spy", sub: spy}); err != nil {
		t.Fatal(err)
	}
	e.leave("a", e.players["a"].session)
	if got := spy.last().Ended; got != "Kay a leaves the game." {
		t.Fatalf("the spectator of a knight who left was told %q", got)
	}
}

// Options are kept with the knight and saved; a new knight is not needed to keep them.
func TestOptionsAreSavedWithTheKnight(t *testing.T) {
	saver := &recorder{}
	e := fixtureEngine(t, saver)
	e.join(knight("a", 10), &recorder{})
	o := Options{Plain: true, Theme: "contrast", Colour: "16", HideKeys: true, Muted: []string{"Bors"}}
	optionsReq{from{"a", e.players["a"].session}, o}.handle(e)
	rec, _ := e.leave("a", e.players["a"].session)
	if got := rec.Options; !got.Plain || got.Theme != "contrast" || got.Colour != "16" || !got.HideKeys || !slices.Equal(got.Muted, []string{"Bors"}) {
		t.Fatalf("saved options %+v", got)
	}
	if got := saver.lastSaved("a").Options; !got.Plain {
		t.Fatalf("the saver got %+v", got)
	}
}

// Regression: a knight whose energy came back in a fight was not sent a new view, so its
// session (and screen-reader mode, which says "Your move") did not learn that the fight was
// waiting for it until something else happened.
func TestAKnightIsToldWhenItIsItsMove(t *testing.T) {
	e := fightEngine(t, nil)
	sub := &recorder{}
	rec := knight("a", 10)
	rec.Hits, rec.MaxHits = 1<<30, 1<<30 // neither side can end the fight
	e.join(rec, sub)
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{3, 1}, 0, e.rng)
	rat.hits = 1 << 30
	do(e, "a", Move{Dir: East})
	do(e, "a", Move{Dir: East, Door: true})
	p := e.players["a"]
	if p.fight == nil {
		t.Fatal("no fight on entering the guarded room")
	}
	for i := range 3 { // a blow, then wait until the knight may strike again
		e.enqueue("a", p.session, Fight{})
		stepUntil(t, e, "the blow", func() bool { return len(p.queue) == 0 && !p.asked })
		n := len(sub.views)
		stepUntil(t, e, "the knight's move", func() bool { return p.asked })
		if p.fight == nil {
			t.Fatal("the fight ended")
		}
		if f := sub.last().Fight; len(sub.views) == n || f == nil || !f.YourMove {
			t.Fatalf("blow %d: the knight's move came, and its last view does not say so", i+1)
		}
	}
}

// A spectator sees what anyone nearby may: a whisper to the knight it watches, or from
// it, never reaches its screen, nor the knight's options, letters or the spectators'
// names (a count); its Said counts the lines it is shown, so a screen reader says each
// once.
func TestASpectatorSeesNoWhisper(t *testing.T) {
	e := fixtureEngine(t, nil)
	a := &recorder{}
	e.join(knight("a", 10), a)
	e.join(knight("b", 10), &recorder{})
	spy := &recorder{}
	if _, err := e.watch(watchReq{target: "Kay a", name: "Kay b", sub: spy}); err != nil {
		t.Fatal(err)
	}
	said := spy.last().Said
	sayAs(e, "b", Chat{Kind: ChatWhisper, To: "Kay a", Text: "the secret is under the stairs"})
	sayAs(e, "a", Chat{Kind: ChatWhisper, To: "Kay b", Text: "my secret answer"})
	sayAs(e, "a", Chat{Kind: ChatSay, Text: "hello all"})
	if !strings.Contains(strings.Join(a.last().Log.Lines(), "\n"), "the secret is under the stairs") {
		t.Fatalf("the knight did not get the whisper:\n%s", strings.Join(a.last().Log.Lines(), "\n"))
	}
	v := spy.last()
	log := strings.Join(v.Log.Lines(), "\n")
	if strings.Contains(log, "secret") || !strings.Contains(log, "hello all") {
		t.Fatalf("the spectator's log:\n%s", log)
	}
	if v.Said != said+1 || !slices.Equal(v.Watchers, []string{"1 spectator"}) || v.Self.ID != "" {
		t.Fatalf("the spectator's view: said %d (was %d), watchers %q, id %q", v.Said, said, v.Watchers, v.Self.ID)
	}
}

// Screen-reader mode for one connection (play --plain) gives the knight a listener's
// time as the kept mode does (a safe arrival until it acts, three times the grace), and
// is not saved: the knight's record, as the store and the realm write it, does not have
// it.
func TestAConnectionsOwnScreenReaderModeIsNotSaved(t *testing.T) {
	e := fixtureEngine(t, nil)
	rec := knight("a", 10)
	rec.Options.PlainHere = true
	e.join(rec, &recorder{})
	p := e.players["a"]
	if p.safeUntil != math.MaxUint64 || e.graceOf(p) != e.cfg.GraceTurns*PlainGraceFactor {
		t.Fatalf("this connection's screen-reader mode: safe until %d, grace %d turns; want until it acts, %d", p.safeUntil, e.graceOf(p), e.cfg.GraceTurns*PlainGraceFactor)
	}
	left, _ := e.leave("a", p.session)
	b, err := json.Marshal(left)
	if err != nil {
		t.Fatal(err)
	}
	var back Adventurer
	if err := json.Unmarshal(b, &back); err != nil || back.Options.ScreenReader() {
		t.Fatalf("saved %s: screen-reader mode %v (%v)", b, back.Options.ScreenReader(), err)
	}
}
