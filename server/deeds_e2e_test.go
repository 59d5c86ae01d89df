package server

import (
	"encoding/json"
	"html"
	"slices"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Issue 47, deeds: a knight walks into the nearest guarded room over SSH and fights it
// out. Slaying its first monster of the class is a deed: the knight is told it once (its
// message log holds the line once), whoami --json lists it after the deed of going down,
// and the web page names it among the knight's newest deeds, in its HTML and its JSON.
func TestADeedOfAFightOverSSH(t *testing.T) {
	dir := t.TempDir()
	key := newKey(t)
	in, room := seedAtTheGuardsDoor(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Str, a.Dex, a.Hits, a.MaxHits = "Gawain", 18, 20, 400, 400 // no monster of level 1 kills it
	})
	cfg := testConfig(dir, defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	ts, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()
	tm := openTerminal(t, ts.addr, key, 100, 30, nil)
	tm.waitFor("Welcome back, Gawain")
	tm.press(keyEnter)
	tm.waitFor("Gawain │ Level 1")
	walk(t, tm, ts.addr, key, in, room)
	tm.waitFor("FIGHT")
	var w command.Whoami
	waitUntil(t, "a deed of slaying", func() bool {
		if !strings.Contains(tm.screen(), "LAST FIGHT") {
			tm.press("f")
		}
		w = whoamiJSON(t, ts.addr, key)
		return slices.ContainsFunc(w.Deeds, func(d command.Deed) bool { return strings.HasPrefix(d.ID, "slew-") })
	})
	if len(w.Deeds) < 2 || w.Deeds[0].ID != world.DeedDepth(1) || !strings.HasPrefix(w.Deeds[1].ID, "slew-") {
		t.Fatalf("whoami --json deeds: %+v", w.Deeds)
	}
	slew := w.Deeds[1]
	row, _ := world.DeedByID(slew.ID)
	if slew.Title != row.Title || slew.Words != row.Words {
		t.Fatalf("whoami --json's deed %+v, the table's %+v", slew, row)
	}

	tm.press("M")
	// The log's keys are its last line: with them on the screen the log is drawn whole,
	// and no line of the game's screen under it is left to count.
	log := tm.waitScreen("the deed in the message log", func(s string) bool {
		return strings.Contains(s, "MESSAGES AND CHAT") && strings.Contains(s, "any other key returns") &&
			strings.Contains(screenWords(s), row.Line())
	})
	if n := strings.Count(screenWords(log), row.Line()); n != 1 {
		t.Fatalf("the knight was told %q %d times:\n%s", row.Line(), n, log)
	}

	var who []web.Player
	if err := json.Unmarshal([]byte(httpGet(t, base+"/api/who", 200)), &who); err != nil {
		t.Fatal(err)
	}
	if len(who) != 1 || !slices.Contains(who[0].Deeds, web.Deed{ID: slew.ID, Title: slew.Title}) {
		t.Fatalf("/api/who: %+v", who)
	}
	page := html.UnescapeString(httpGet(t, base+"/", 200))
	if !strings.Contains(page, "the newest: ") || !strings.Contains(page, slew.Title) {
		t.Fatalf("the page does not name the deed %q:\n%s", slew.Title, page)
	}
}

// Issue 47: retiring is a deed kept in the hall of fame. A knight of level 8 retires over
// SSH: the deed is rare, so a new knight on the newbie channel reads it and the webhook
// posts it (kind "deed"); scores (text and JSON), the in-game hall of fame (F) and the web
// page (HTML and JSON) show the retired knight's deeds.
func TestRetirementsDeedInTheHallOfFame(t *testing.T) {
	dir := t.TempDir()
	elder, bors := newKey(t), newKey(t)
	entrance := world.GenerateSurface(defaultSeed, world.DefaultSurfaceSize).Entrance
	seedKnight(t, dir, elder, func(a *world.Adventurer) {
		a.Name, a.Level, a.Experience, a.Depth, a.X, a.Y = "Elder", 8, 70000, 0, entrance.X, entrance.Y
		a.Deeds = []world.Deed{{ID: world.DeedDepth(1), Turn: 1}, {ID: world.DeedDragon, Turn: 2}}
	})
	rc := newHookReceiver(t, false)
	cfg := testConfig(dir, defaultSeed)
	cfg.HTTPAddr = "127.0.0.1:0"
	cfg.Webhook = rc.URL + "/api/webhooks/1234/TOKEN"
	ts, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()

	tb := openTerminal(t, ts.addr, bors, 100, 30, nil)
	tb.enterDungeon("Bors")
	te := openTerminal(t, ts.addr, elder, 100, 30, nil)
	te.waitFor("Welcome back, Elder")
	te.press(keyEnter)
	te.waitFor("Elder │ Level 8")
	te.press("R")
	te.waitFor("(y/n)")
	te.press("y")
	te.waitFor("RETIRED WITH HONOUR", "Elder")

	retired, _ := world.DeedByID(world.DeedRetired(8))
	tb.waitFor("[newbie] Elder earned a rare deed, Honour of level 8")
	if p := rc.waitPost(t, "deed", "Elder"); p.Text != retired.Said("Elder") || p.Fields["deed"] != "retired-8" || p.Fields["title"] != "Honour of level 8" {
		t.Errorf("the deed posted: %+v", p)
	}

	out := mustRun(t, ts.addr, bors, "scores")
	if !strings.Contains(out, "Deeds of Elder (rank 1), newest first:\n  Honour of level 8\n  Dragonslayer\n  Into the labyrinth\n") {
		t.Fatalf("scores:\n%s", out)
	}
	var scores []command.Score
	if err := json.Unmarshal([]byte(mustRun(t, ts.addr, bors, "scores --json")), &scores); err != nil {
		t.Fatal(err)
	}
	if len(scores) != 1 || len(scores[0].Deeds) != 3 || scores[0].Deeds[2].ID != "retired-8" {
		t.Fatalf("scores --json: %+v", scores)
	}
	tb.press("F")
	tb.waitFor("HALL OF FAME", "Deeds of Elder (rank 1)", "Honour of level 8", "Dragonslayer")

	var fame []web.Fame
	if err := json.Unmarshal([]byte(httpGet(t, base+"/api/fame", 200)), &fame); err != nil {
		t.Fatal(err)
	}
	if len(fame) != 1 || len(fame[0].Deeds) != 3 || fame[0].Deeds[2] != (web.Deed{ID: "retired-8", Title: "Honour of level 8"}) {
		t.Fatalf("/api/fame: %+v", fame)
	}
	if page := html.UnescapeString(httpGet(t, base+"/", 200)); !strings.Contains(page, "Deeds (3): Honour of level 8, Dragonslayer, Into the labyrinth") {
		t.Fatalf("the page's hall of fame lacks Elder's deeds:\n%s", page)
	}
}
