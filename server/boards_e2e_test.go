package server

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// boardOver is scores --board NAME [--week] --json of key, over SSH.
func boardOver(t *testing.T, addr string, key gossh.Signer, args string) world.BoardPage {
	t.Helper()
	out, errOut, code := runCmd(t, addr, key, "scores --board "+args+" --json")
	var p world.BoardPage
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("scores --board %s: %d %q %q", args, code, out, errOut)
	}
	return p
}

// ranked is a board's rows as "name value" lines, the asker's marked.
func ranked(p world.BoardPage) string {
	var b strings.Builder
	for _, r := range p.Rows {
		b.WriteString(r.Name + " " + strconv.Itoa(r.Value))
		if r.Yours {
			b.WriteString(" (yours)")
		}
		b.WriteString("; ")
	}
	return b.String()
}

// The boards of the living over real SSH: a knight's descent, counted by the engine,
// ranks it above a knight less deep in scores --board --json, on the F pages (at 80×24
// and a phone's 40×20) and on the web page and its JSON; a board of the week counts only
// the week's tallies, and turns with the server's clock; a guest is never ranked; a
// knight entombed (its key taken to another knight with link --replace) leaves the board.
func TestTheBoardsOfTheLiving(t *testing.T) {
	cfg, _, clock := clockedConfig(t) // 2025-06-01 14:00 UTC, a Sunday: 2025-W22
	cfg.HTTPAddr = "127.0.0.1:0"
	arthur, kay, mordred := newKey(t), newKey(t), newKey(t)
	level3 := world.New(world.Config{Seed: cfg.Seed}).Level(3)
	seedKnight(t, cfg.Data, arthur, func(a *world.Adventurer) {
		a.Name, a.Level, a.Deepest, a.Slain = "Arthur", 2, 3, 5
		a.Week = world.WeekTally{Name: "2025-W21", Deepest: 3, Slain: 5} // last week's
	})
	seedKnight(t, cfg.Data, kay, func(a *world.Adventurer) {
		a.Name, a.Slain = "Kay", 2
		a.Depth, a.X, a.Y = 3, level3.Down.X, level3.Down.Y // on the stairs down of level 3
	})
	seedKnight(t, cfg.Data, mordred, func(a *world.Adventurer) {
		a.Name, a.Deepest = "Mordred", 9
		a.Week = world.WeekTally{Name: "2025-W22", Deepest: 9}
	})
	ts, srv := startConfigured(t, cfg)
	base := "http://" + srv.httpLn.Addr().String()

	g, err := dialGuest(ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	guest := terminalOn(t, g, 80, 24, nil, "")
	guest.enterDungeon("Tom")
	k := openTerminal(t, ts.addr, kay, 80, 24, nil)
	k.continueKnight()
	k.press(">")
	k.waitFor("Depth 4")

	// A board may be knights.BoardsStale old: the clock moves on past it between reads.
	board := func(key gossh.Signer, args string) world.BoardPage {
		t.Helper()
		clock.add(knights.BoardsStale)
		return boardOver(t, ts.addr, key, args)
	}
	var p world.BoardPage
	waitUntil(t, "Kay's descent on the board", func() bool {
		p = board(arthur, "deepest")
		return ranked(p) == "Mordred 9; Kay 4; Arthur 3 (yours); "
	})
	if p.Title != "Deepest level reached" || p.Week != "" || p.Rows[1].Rank != 2 || p.Rows[1].Level != 1 {
		t.Fatalf("the deepest board: %+v", p)
	}
	if got := ranked(board(kay, "slain")); got != "Arthur 5; Kay 2 (yours); " {
		t.Fatalf("the slain board as Kay reads it: %s", got)
	}
	// This week: Kay's descent and Mordred's week, not Arthur's last week.
	if p = board(arthur, "deepest --week"); p.Week != "2025-W22" || ranked(p) != "Mordred 9; Kay 4; " {
		t.Fatalf("the deepest board of 2025-W22: %+v", p)
	}
	if got := ranked(board(arthur, "slain --week")); got != "" {
		t.Fatalf("the slain board of 2025-W22: %s", got)
	}

	// The F pages: the hall of fame, then the deepest board; w turns it to the week.
	k.press("F")
	k.waitFor("HALL OF FAME")
	k.press("l")
	k.waitWhole(0, 80, "DEEPEST LEVEL REACHED", "[deepest]", "1     Mordred  1      9", "2     Kay      1      4        (yours)", "3     Arthur   2      3")
	k.press("w")
	k.waitFor("this week")
	k.press("q")
	a := openTerminal(t, ts.addr, arthur, 40, 20, nil)
	a.waitWords("Press Enter to continue your adventure")
	a.press(keyEnter)
	a.waitFor("Depth 1")
	a.press("F", "l")
	a.waitWhole(0, 40, "DEEPEST LEVEL REACHED", "1    Mordred 9", "2    Kay     4", "3    Arthur  3  (yours)")

	// The web page and its JSON.
	var boards []web.Board
	waitUntil(t, "the boards on the web page", func() bool {
		getJSON(t, base+"/api/boards", &boards)
		return len(boards) == int(world.NumBoards) && len(boards[0].AllTime) == 3 && boards[0].AllTime[1].Name == "Kay"
	})
	if b := boards[0]; b.Name != "deepest" || b.Week != "2025-W22" || len(b.ThisWeek) != 2 || b.ThisWeek[1] != (web.BoardRow{Rank: 2, Name: "Kay", Level: 1, Value: 4}) {
		t.Fatalf("/api/boards' deepest: %+v", b)
	}
	page := html.UnescapeString(getBody(t, base+"/"))
	for _, want := range []string{`<section id="board-deepest" class="board">`, "<h2>Deepest level reached</h2>", "<td>Kay</td>",
		`<section id="board-slain" class="board">`, "<h2>Gold won</h2>", "This week (2025-W22)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the web page lacks %q", want)
		}
	}

	// A guest is never ranked, on any board.
	for _, b := range world.BoardNames() {
		for _, args := range []string{b, b + " --week"} {
			if got := ranked(board(arthur, args)); strings.Contains(got, "Guest") {
				t.Errorf("a guest on %s: %s", args, got)
			}
		}
	}
	if slices.ContainsFunc(boards[0].AllTime, func(r web.BoardRow) bool { return strings.HasPrefix(r.Name, "Guest") }) {
		t.Errorf("a guest on the web page's board: %+v", boards[0].AllTime)
	}

	// The week turns by the server's clock: the boards of 2025-W23 hold what was done in
	// it, the levels Kay and Arthur, playing, stand on; Mordred's week is gone.
	clock.add(7 * 24 * time.Hour)
	waitUntil(t, "the week to turn", func() bool {
		p = board(arthur, "deepest --week")
		return p.Week == "2025-W23" && ranked(p) == "Kay 4; Arthur 1 (yours); "
	})

	// Mordred's key is taken to Kay's knight, and Mordred to a tombstone: it leaves the board.
	code := keysAdd(t, ts.addr, kay)
	if out, errOut, c := runCmd(t, ts.addr, mordred, "link "+code+" --replace"); c != 0 {
		t.Fatalf("link --replace: %d %q %q", c, out, errOut)
	}
	if got := ranked(board(arthur, "deepest")); got != "Kay 4; Arthur 3 (yours); " {
		t.Fatalf("the deepest board after Mordred's end: %s", got)
	}
}

// getBody is what url answers.
func getBody(t *testing.T, url string) string {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
