package world

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// kindOf is the kind of the knight's newest line that holds text.
func kindOf(e *Engine, id, text string) (MsgKind, bool) {
	p := e.players[id]
	for i := len(p.msgs()) - 1; i >= 0; i-- {
		if strings.Contains(p.msgs()[i], text) {
			return p.kinds()[i], true
		}
	}
	return 0, false
}

// What a knight is told of its own affairs is no public line: its unread letters and its
// channels on arriving, a whisper it could not send, a rename, so a public replay of it
// never shows them.
func TestTheKnightsOwnAffairsAreNoPublicLines(t *testing.T) {
	e, _ := mailEngine(t, []KnownKnight{{ID: "bors", Name: "Bors the Bold"}, {ID: "a", Name: "Kay a"}}, nil)
	e.join(knight("a", 10), &recorder{})
	mailAs(e, "a", "", "bors the bold meet me at the exit")
	e.join(NewAdventurer("bors", "Bors the Bold", Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 10), &recorder{})
	sayAs(e, "bors", Chat{Kind: ChatWhisper, To: "Nobody", Text: "psst"})
	for _, tc := range []struct {
		text string
		want MsgKind
	}{
		{"You have 1 unread letter", MsgLetter},
		{"You are on the newbie channel", MsgChannel},
		{"Nobody", MsgOwn},
	} {
		if k, ok := kindOf(e, "bors", tc.text); !ok || k != tc.want {
			t.Errorf("%q: kind %d (found %v), want %d:\n%s", tc.text, k, ok, tc.want, said(e, "bors"))
		}
	}
}

// A knight watched from two sessions of one spectator is watched by one knight: its name
// is listed once.
func TestAWatcherIsNamedOnce(t *testing.T) {
	e := fixtureEngine(t, nil)
	a := &recorder{}
	e.join(knight("a", 10), a)
	e.join(knight("b", 10), &recorder{})
	for range 2 {
		if _, err := e.watch(watchReq{target: "Kay a", name: "Kay b", sub: &recorder{}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := a.last().Watchers; !slices.Equal(got, []string{"Kay b"}) {
		t.Fatalf("the watched knight's view lists %q", got)
	}
}

// A query its caller gave up on before the engine took it never runs, so it never writes
// what its caller has gone on to read (a letter list read by a session that closed); one
// the engine has begun is waited for.
func TestAnAbandonedQueryNeverRuns(t *testing.T) {
	e := New(Config{Seed: 1977, WanderChance: -1})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go e.Run(ctx, nil)
	hold, held := make(chan struct{}), make(chan struct{})
	go func() { _ = e.query(context.Background(), func() { close(held); <-hold }) }()
	<-held // the engine is busy with the first query
	gaveUp, cancel := context.WithCancel(context.Background())
	ran := false
	errc := make(chan error, 1)
	go func() { errc <- e.query(gaveUp, func() { ran = true }) }()
	for len(e.inbox) == 0 { // given to the engine, which has not taken it yet
		runtime.Gosched()
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the abandoned query: %v, want context.Canceled", err)
	}
	close(hold)
	if err := e.query(context.Background(), func() {}); err != nil {
		t.Fatal(err)
	}
	if ran {
		t.Fatal("a query its caller gave up on ran after all")
	}
}

// Another knight joining or leaving the game is a line of its own kind, public as the
// world's lines are, so screen-reader mode's movements filter quiets it without reading
// its words; a death is the world's news, said as ever.
func TestComingsAndGoingsAreTheirOwnKind(t *testing.T) {
	e := fixtureEngine(t, nil)
	e.join(knight("a", 10), &recorder{})
	e.join(knight("b", 10), &recorder{})
	e.join(knight("c", 10), &recorder{})
	e.remove(e.players["b"])
	e.players["c"].rec.Death = &Death{Killer: "a Troll", Depth: 1}
	e.remove(e.players["c"])
	for _, tc := range []struct {
		text string
		want MsgKind
	}{
		{"Kay b joins the game.", MsgComing},
		{"Kay b leaves the game.", MsgComing},
		{"Kay c has been slain", MsgGame},
	} {
		if k, ok := kindOf(e, "a", tc.text); !ok || k != tc.want || !k.Public() {
			t.Errorf("%q: kind %d (found %v, public %v), want %d:\n%s", tc.text, k, ok, k.Public(), tc.want, said(e, "a"))
		}
	}
}

// What a spectator sees of a knight (Public, WithoutOwn) leaves out its own: the last
// lines of its death (they may hold a whisper) and its watchers' names, counted; its
// private lines go and Said counts the public ones. The knight's own view is untouched,
// and a knight no one watches is not shown "0 spectators".
func TestAPublicViewLeavesOutTheKnightsOwn(t *testing.T) {
	own := View{
		Self:       Self{Name: "Kay", ID: "K-kay", Unread: 2},
		Dead:       &Death{Killer: "a Wraith", LastLines: []string{"The last moments of Kay:", "Bors whispers: the gold is under the stairs"}},
		Watchers:   []string{"Bors", "Gawain"},
		Log:        LogOf([]string{"You enter.", "Bors whispers: psst", "Kay says: hello"}, []MsgKind{MsgGame, MsgWhisper, MsgGame}),
		Said:       3,
		publicSaid: 2,
	}
	pub := own.Public()
	if pub.Dead == nil || pub.Dead.Killer != "a Wraith" || len(pub.Dead.LastLines) != 0 {
		t.Errorf("a public view's death: %+v", pub.Dead)
	}
	if len(own.Dead.LastLines) != 2 {
		t.Error("the knight's own view lost its last lines")
	}
	if !slices.Equal(pub.Watchers, []string{"2 spectators"}) || pub.Self.ID != "" || pub.Self.Unread != 0 {
		t.Errorf("a public view's watchers %q, id %q, unread %d", pub.Watchers, pub.Self.ID, pub.Self.Unread)
	}
	if !slices.Equal(pub.Log.Lines(), []string{"You enter.", "Kay says: hello"}) || pub.Said != 2 {
		t.Errorf("a public view's log %q, said %d", pub.Log.Lines(), pub.Said)
	}
	own.Watchers, own.Dead = nil, nil
	if w := own.Public().Watchers; len(w) != 0 {
		t.Errorf("a knight no one watches is shown watched by %q", w)
	}
}
