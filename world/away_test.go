package world

import (
	"strings"
	"testing"
)

// A knight says it is away, with a reason or without; the who-list shows it and how long
// each knight has sent nothing; a whisper to it tells the sender; Back ends it (issue 20).
func TestAwayAndIdle(t *testing.T) {
	e := fixtureEngine(t, nil)
	ctx := running(t, e)
	_ = e.query(ctx, func() {
		e.join(knight("a", 10), &recorder{})
		e.join(knight("b", 10), &recorder{})
		for range 30 {
			e.Step()
		}
		sayAs(e, "b", Chat{Text: "hi"}) // b is active, a has been idle 30 turns
		awayReq{from{"a", e.players["a"].session}, true, "making \x1b[2Jtea\u202e"}.handle(e)
		if !strings.Contains(said(e, "a"), "You are away: making tea. The next key you press brings you back.") || !e.view(e.players["a"]).Self.Away {
			t.Errorf("going away:\n%s", said(e, "a"))
		}
		sayAs(e, "b", Chat{Kind: ChatWhisper, To: "Kay a", Text: "tea?"})
		if !strings.Contains(said(e, "b"), "Kay a is away: making tea.") {
			t.Errorf("the whisperer was not told:\n%s", said(e, "b"))
		}
		e.Step()
	})
	who, err := e.Who(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if w := who[0]; !w.Away || w.AwayReason != "making tea" || w.IdleTurns != 1 { // going away is an action
		t.Fatalf("who: %+v", w)
	}
	if w := who[1]; w.Away || w.IdleTurns != 1 {
		t.Fatalf("who: %+v", w)
	}
	_ = e.query(ctx, func() {
		awayReq{from{"a", e.players["a"].session}, false, ""}.handle(e)
		if !strings.Contains(said(e, "a"), "You are back.") || e.players["a"].soc.away {
			t.Errorf("coming back:\n%s", said(e, "a"))
		}
		n := len(e.players["a"].msgs())
		awayReq{from{"a", e.players["a"].session}, false, ""}.handle(e)
		if len(e.players["a"].msgs()) != n {
			t.Error("a knight that is not away was told it is back")
		}
		awayReq{from{"a", e.players["a"].session}, true, ""}.handle(e)
		if !strings.Contains(said(e, "a"), "You are away. The next key") {
			t.Errorf("away without a reason:\n%s", said(e, "a"))
		}
	})
}
