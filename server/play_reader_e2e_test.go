package server

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// axNode is a node of Chromium's accessibility tree, as a screen reader is given it.
type axNode struct {
	role, name string
	props      map[string]string
	children   []*axNode
}

// text is the names of n and everything under it, a line each.
func (n *axNode) text() string {
	var b strings.Builder
	var walk func(*axNode)
	walk = func(n *axNode) {
		if n.name != "" {
			b.WriteString(n.name + "\n")
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// axTree is the page's accessibility tree, without the nodes it ignores (those a
// screen reader is not given), listed whole.
func (p browserPage) axTree() []*axNode {
	p.t.Helper()
	res, err := chromedp.Call(p.ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		p.t.Fatalf("the accessibility tree: %v", err)
	}
	str := func(v *accessibility.Value) string {
		if v == nil || len(v.Value) == 0 {
			return ""
		}
		var s any
		if err := json.Unmarshal(v.Value, &s); err != nil {
			return string(v.Value)
		}
		return fmt.Sprint(s)
	}
	byID := map[accessibility.NodeID]*axNode{}
	for _, n := range res.Nodes {
		a := &axNode{role: str(n.Role), name: str(n.Name), props: map[string]string{}}
		for _, pr := range n.Properties {
			a.props[string(pr.Name)] = str(pr.Value)
		}
		byID[n.NodeID] = a
	}
	var out []*axNode
	for _, n := range res.Nodes {
		a := byID[n.NodeID]
		for _, c := range n.ChildIDs {
			if ch, ok := byID[c]; ok {
				a.children = append(a.children, ch)
			}
		}
		if !n.Ignored {
			out = append(out, a)
		}
	}
	return out
}

// find is the first node of tree with role (and name, unless empty), or nil.
func find(tree []*axNode, role, name string) *axNode {
	for _, n := range tree {
		if n.role == role && (name == "" || n.name == name) {
			return n
		}
	}
	return nil
}

// The play page's screen-reader mode, as a screen reader is given it: with the switch
// on (?plain=1, then remembered), the game's lines come into a log (role log, polite
// live region) that holds them as lines, with no escape byte; the words are typed in a
// labelled box and sent with Enter; the grid is out of the accessibility tree. East, in
// the box, answers with the walk. The switch turns the grid back mid-game, and the
// mode again.
func TestTheScreenReaderModeInTheBrowser(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	_, _, base := webServer(t)
	p := browserPage{t: t, ctx: headless(t, exe, 90*time.Second)}
	const logJS = `document.getElementById("log").innerText`
	const blankGrid = `(() => { document.querySelectorAll("#screen > div").forEach(d => d.replaceChildren()); return true; })()`
	say := func(words string) {
		t.Helper()
		if err := chromedp.Do(p.ctx, chromedp.Focus("#words"), chromedp.KeyEvent(words+kb.Enter)); err != nil {
			t.Fatalf("type %q: %v", words, err)
		}
	}

	if err := chromedp.Do(p.ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(p.ctx, chromedp.Navigate(base+web.PlayPath+"?plain=1")); err != nil {
		t.Fatalf("open the play page: %v", err)
	}
	p.waitText(logJS, "Press Enter to begin")
	tree := p.axTree()
	log := find(tree, "log", "")
	switch {
	case log == nil:
		t.Fatal("the page has no log in its accessibility tree")
	case log.props["live"] != "polite":
		t.Errorf("the log's live region is %q, want polite", log.props["live"])
	case !strings.Contains(log.text(), "Press Enter to begin"):
		t.Errorf("the log holds no line of the game's:\n%s", log.text())
	}
	if n := find(tree, "image", ""); n != nil {
		t.Errorf("the grid is in the accessibility tree in screen-reader mode: %q", n.name)
	}
	if n := find(tree, "textbox", "Command"); n == nil {
		t.Error("no text box labelled Command in the accessibility tree")
	}
	say("")
	p.waitText(logJS, "The dice have spoken")
	say("")
	p.waitText(logJS, "Name your knight")
	say("Bors")
	p.waitText(logJS, "Welcome, Guest Bors.")
	say("east")
	p.waitText(logJS, "> east", "A wall blocks the way east")
	say("north")
	p.waitText(logJS, "> north", "North.", "The exit is 1 square south")
	if strings.Contains(eval[string](p, logJS), "\x1b") {
		t.Error("an escape byte reached the log")
	}

	// The log keeps its last 500 lines: sixty "help all" (ten lines each) go past them.
	const count = `document.getElementById("log").childElementCount`
	const helpAll = `(() => { document.getElementById("words").value = "help all"; document.getElementById("say").requestSubmit();
	  return true; })()`
	last := func() string { return eval[string](p, `document.getElementById("log").lastElementChild.textContent`) }
	for i := range 60 {
		eval[bool](p, helpAll)
		// Its answer's last line, before the next: a line at a time, as typed.
		if !poll(10*time.Second, pollEvery, func() bool { return strings.HasSuffix(last(), "help all says all this.") }) {
			t.Fatalf("help all %d was not answered: the log ends %q", i+1, last())
		}
		eval[bool](p, `(() => { document.getElementById("log").lastElementChild.textContent += " (read)"; return true; })()`)
	}
	s := p.waitText(logJS, "> help all")
	if n := eval[int](p, count); n != 500 || strings.Contains(s, "Press Enter to begin") {
		t.Errorf("the log holds %d lines, the first ones too; want its last 500", n)
	}

	// The switch off shows the grid, in the tree and drawn at the page's size; on again,
	// the log, which the game speaks to again.
	eval[bool](p, blankGrid) // what the grid shows from here, the game drew after
	if err := chromedp.Do(p.ctx, chromedp.Click("#reader")); err != nil {
		t.Fatal(err)
	}
	p.waitText(`document.getElementById("screen").innerText`, "Depth 1")
	tree = p.axTree()
	if find(tree, "image", "the game's screen") == nil || find(tree, "log", "") != nil {
		t.Error("with the switch off, the tree has no grid, or still the log")
	}
	desktop := shotAs(t, p.ctx, 1280, 800)
	if err := chromedp.Do(p.ctx, chromedp.Click("#reader")); err != nil {
		t.Fatal(err)
	}
	eval[bool](p, `(() => { document.getElementById("log").replaceChildren(); return true; })()`)
	say("look")
	p.waitText(logJS, "> look", "You are on level 1")
	reader := shotAs(t, p.ctx, 1280, 800)

	// Screen-reader mode turned off in the game (set plain off) turns the switch off: the
	// page shows the grid the game draws again.
	eval[bool](p, blankGrid)
	say("set plain off")
	p.waitText(logJS, "Type yes to turn it off")
	say("yes")
	if !poll(10*time.Second, pollEvery, func() bool {
		return eval[bool](p, `!document.getElementById("reader").checked && document.getElementById("listen").hidden && !document.getElementById("screen").hidden`)
	}) {
		t.Fatal("set plain off in the game left the page's switch on")
	}
	p.waitText(`document.getElementById("screen").innerText`, "Depth 1")
	if err := chromedp.Do(p.ctx, chromedp.Click("#reader")); err != nil {
		t.Fatal(err)
	}

	// Remembered: the page opened again, with no ?plain, is in screen-reader mode, and
	// (a reload in its tab) takes its game up in it: the game speaks to its log.
	const tokenJS = `sessionStorage.getItem("orthanc.play.resume") || ""`
	before := eval[string](p, tokenJS)
	if _, err := chromedp.Run(p.ctx, chromedp.Navigate(base+web.PlayPath)); err != nil {
		t.Fatalf("open the play page again: %v", err)
	}
	if !poll(20*time.Second, pollEvery, func() bool { s := eval[string](p, tokenJS); return s != "" && s != before }) {
		t.Fatal("the page opened again did not take its game up")
	}
	say("look")
	p.waitText(logJS, "> look", "You are on level 1")
	if !eval[bool](p, `document.getElementById("reader").checked && document.getElementById("screen").hidden`) {
		t.Error("the page opened again forgot the screen-reader switch")
	}
	keepShots(t, map[string][]byte{"play-reader-1280x800.png": reader, "play-grid-1280x800.png": desktop})
}

// A player who answers the title's "Do you use a screen reader?" with y in the page (its
// switch off) is read the game from then on: the game's turn of the mode shows the page's
// log, the grid leaves the accessibility tree, the words box takes the keys, and the
// switch is left on for the next visit.
func TestTheTitlesQuestionAnsweredInThePageShowsTheLog(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	_, _, base := webServer(t)
	p := browserPage{t: t, ctx: headless(t, exe, 60*time.Second)}
	const logJS = `document.getElementById("log").innerText`
	if err := chromedp.Do(p.ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(p.ctx, chromedp.Navigate(base+web.PlayPath+"?plain=0")); err != nil {
		t.Fatalf("open the play page: %v", err)
	}
	p.waitText(`document.getElementById("screen").innerText`, "Do you use a screen reader?")
	if err := chromedp.Do(p.ctx, chromedp.Focus("#screen"), chromedp.KeyEvent("y")); err != nil {
		t.Fatal(err)
	}
	if !poll(10*time.Second, pollEvery, func() bool {
		return eval[bool](p, `document.getElementById("reader").checked && !document.getElementById("listen").hidden && document.getElementById("screen").hidden`)
	}) {
		t.Fatal("the game's screen-reader mode, turned on at its title, left the page showing the grid")
	}
	p.waitText(logJS, "Screen-reader mode is on")
	if n := find(p.axTree(), "image", ""); n != nil {
		t.Errorf("the grid is in the accessibility tree in screen-reader mode: %q", n.name)
	}
	if !eval[bool](p, `document.activeElement === document.getElementById("words")`) {
		t.Error("the words box does not have the focus")
	}
	// chromedp sends a key's character apart from its keydown: when the game's turn of the
	// mode came between the two, the y was typed into the box the focus had moved to (a
	// browser does both in one task). Emptied, the box sends what Enter sends.
	eval[bool](p, `(() => { document.getElementById("words").value = ""; return true; })()`)
	if err := chromedp.Do(p.ctx, chromedp.KeyEvent(kb.Enter)); err != nil { // typed into the focused box
		t.Fatal(err)
	}
	p.waitText(logJS, "The dice have spoken")
	if v := eval[string](p, `localStorage.getItem("orthanc.plain") || ""`); v != "1" {
		t.Errorf("the page's switch is kept as %q, want 1", v)
	}
}
