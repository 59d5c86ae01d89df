package server

import (
	"strconv"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// End-to-end tests of issue 6 (many players, every terminal): chat between real SSH
// clients, spectating, screen-reader mode and names, each through the real server.

// Escape sequences an attacker might put in chat: a window title, a clipboard write
// (OSC 52), a screen clear, an 8-bit CSI, a right-to-left override.
var injections = []string{"\x1b]0;", "\x1b]2;", "\x1b]52", "\x1b[2J", "\u009b", "\u009d", "\u202e"}

// Players talk: a taken name is refused at the prompt; a line with escape sequences in it
// reaches the knight who sees the speaker without any of them; a whisper reaches only its
// knight; a shout reaches a knight on another level, a plain line does not; a flood is
// slowed with a note to the sender.
func TestChatBetweenPlayers(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	ka, kb, kc := newKey(t), newKey(t), newKey(t)
	a := openTerminal(t, srv.addr, ka, 100, 30, nil)
	a.enterDungeon("Gawain")

	// A name another key's knight has, even spelled with look-alikes, is refused.
	b := openTerminal(t, srv.addr, kb, 100, 30, nil)
	b.waitFor("Press Enter to begin")
	b.press(keyEnter)
	b.waitFor("Press r to roll again")
	b.press(keyEnter)
	b.waitFor("Name your knight")
	b.press("GAWA1N", keyEnter)
	b.waitFor("That name is taken")
	b.press(strings.Repeat("\x7f", 6), "Bors", keyEnter)
	b.waitFor("level 1 of the dungeon", "Depth 1")

	// Cai goes down to level 2.
	c := openTerminal(t, srv.addr, kc, 100, 30, nil)
	c.enterDungeon("Cai")
	keys, squares := pathTo(t, defaultSeed, func(_ *world.Engine, l *world.Level, q world.Pos) bool { return l.Feature(q) == world.FeatStairsDown })
	walkSurely(t, c, srv.addr, kc, keys, squares)
	c.press(">")
	waitUntil(t, "Cai to reach level 2", func() bool { return whoamiJSON(t, srv.addr, kc).Depth == 2 })

	b.waitFor("With you: Gawain")
	mark := len(b.rawOutput())
	a.press(keyEnter, "hi \x1b]0;pwned\x07\x1b[2J\x1b]52;c;Zm9vYmFy\x07there")
	a.press("\x1b[200~ and\x1b]2;x\x07 \u202emore\u009b2J\x1b[201~") // pasted, controls and all
	a.press(keyEnter)
	b.waitFor("Gawain says: hi there and")
	a.waitFor("You say: hi there and")
	raw := b.rawOutput()[mark:]
	for _, bad := range injections {
		if strings.Contains(raw, bad) {
			t.Fatalf("the listener's terminal received %q:\n%q", bad, raw)
		}
	}

	a.chat("/w bors psst, secret")
	b.waitFor("Gawain whispers: psst, secret")
	a.waitFor("You whisper to Bors: psst, secret")
	a.chat("/shout to arms")
	c.waitFor("Gawain shouts: to arms")
	for _, s := range []string{"psst", "says: hi"} {
		if strings.Contains(c.rawOutput(), s) {
			t.Fatalf("a knight on another level received %q", s)
		}
	}

	// Six lines at once use up the flood allowance (five lines in ten seconds, with the
	// three above counted if they are that recent): the sixth at least is dropped.
	for i := 1; i <= 6; i++ {
		a.chat("/shout flood " + string(rune('0'+i)))
	}
	a.waitFor("You are talking too fast")
	// The world hears lines in order: once another knight's shout, said after the
	// flood's last line was refused, reaches Bors, any flood line that got through has too.
	c.chat("/shout all clear")
	b.press("M")
	s := b.waitFor("MESSAGES AND CHAT", "shouts: flood 1", "shouts: all clear")
	if strings.Contains(s, "flood 6") || strings.Contains(s, "talking too fast") {
		t.Fatalf("the flood reached another knight:\n%s", s)
	}
}

// Spectating: ssh -t host watch NAME shows a knight's screen live, at the watcher's size;
// the knight sees it is watched; the who-list in the game watches too; turning spectators
// off tells the watchers and refuses new ones; an unknown name gets a clear line and
// status 1.
func TestSpectating(t *testing.T) {
	srv := startServer(t, t.TempDir())
	ka, kb := newKey(t), newKey(t)
	a := openTerminal(t, srv.addr, ka, 80, 24, nil)
	a.enterDungeon("Gawain")

	w := openTerminalCmd(t, srv.addr, kb, 120, 40, "watch gawain")
	w.waitFor("WATCHING Gawain", "Gawain │ Level 1", "On the exit")
	a.waitFor("Watched by a visitor")
	_, k := openDir(t)
	a.press(k)
	waitUntil(t, "the watcher to see the move", func() bool {
		s := w.screen()
		return strings.Contains(s, "Gawain │ Level 1") && !strings.Contains(s, "On the exit")
	})
	if lines := strings.Split(strings.TrimRight(w.screen(), "\n"), "\n"); len(lines) < 30 {
		t.Fatalf("the watcher's 120×40 screen drew %d lines", len(lines))
	}

	b := openTerminal(t, srv.addr, kb, 100, 30, nil)
	b.enterDungeon("Bors")
	b.press("w")
	b.waitFor("WHO IS IN THE GAME", "a  Gawain")
	b.press("a")
	b.waitFor("WATCHING Gawain")
	a.waitFor("Watched by a visitor, Bors")

	a.press("o")
	a.waitFor("OPTIONS", "Spectators")
	a.press("e")
	w.waitFor("Gawain has turned spectating off.")
	if code := w.exitStatus(); code != 0 {
		t.Fatalf("a watch ended by the knight: status %d", code)
	}
	b.waitFor("Gawain has turned spectating off.", "Bors │ Level 1")

	refused := openTerminalCmd(t, srv.addr, kb, 80, 24, "watch Gawain")
	refused.waitFor("Gawain does not allow spectators.")
	if code := refused.exitStatus(); code != 1 {
		t.Fatalf("a refused watch: status %d", code)
	}
	unknown := openTerminalCmd(t, srv.addr, kb, 80, 24, "watch Nobody")
	unknown.waitFor("No knight named Nobody is in the game now.")
	if code := unknown.exitStatus(); code != 1 {
		t.Fatalf("watching an unknown name: status %d", code)
	}
	if _, errOut, code := runCmd(t, srv.addr, kb, "watch Gawain"); code != 1 || !strings.Contains(errOut, "needs a terminal") {
		t.Fatalf("watch without a terminal: status %d, %q", code, errOut)
	}
}

// Screen-reader mode: play --plain speaks the game as lines, with no box drawing and no
// alternate screen, and answers look with a sentence. Answering the title's question with
// y turns it on, and the next connection starts in it.
func TestScreenReaderMode(t *testing.T) {
	srv := startServer(t, t.TempDir())
	p := openTerminalCmd(t, srv.addr, newKey(t), 80, 24, "play --plain")
	p.waitRaw("Screen-reader mode is on", "Press Enter to begin.")
	p.press(keyEnter)
	p.waitRaw("The dice have spoken")
	p.press(keyEnter)
	p.waitRaw("Name your knight")
	p.press("Gawain", keyEnter)
	// A newcomer is told where to ask in the words it types, not the chat line's keys.
	raw := p.waitRaw("Welcome, Gawain.", "You are on level 1, ", "newbie channel, where questions are welcome: type newbie and your question")
	if strings.Contains(raw, "/newbie") || strings.Contains(raw, "Enter, then") {
		t.Fatalf("a newcomer in screen-reader mode was told a key of the chat line:\n%s", raw)
	}
	p.press("look", keyEnter)
	p.waitRaw("> look")
	p.waitRawFor("look answered with a sentence", func(s string) bool { return strings.Count(s, "You are on level 1, ") >= 2 })
	_, k := openDir(t)
	p.press(k, "status", keyEnter, "map", keyEnter)
	raw = p.waitRaw("Gawain, a level 1 knight", "Your map of level 1")
	for _, r := range raw {
		if r >= 0x2500 && r <= 0x257f {
			t.Fatalf("screen-reader mode sent box drawing %q:\n%s", r, raw)
		}
	}
	if strings.Contains(raw, "\x1b[?1049h") {
		t.Fatal("screen-reader mode switched to the alternate screen")
	}

	key := newKey(t)
	q := openTerminalCmd(t, srv.addr, key, 80, 24, "")
	q.waitFor("Do you use a screen reader? y/N")
	q.press("y")
	q.waitRaw("Screen-reader mode is on")
	q.press(keyEnter)
	q.waitRaw("The dice have spoken")
	q.press(keyEnter)
	q.waitRaw("Name your knight")
	q.press(keyEnter)
	q.waitRaw("Welcome, ")
	q.press("quit", keyEnter)
	q.waitRaw("Leave the game for now? Your knight is saved where it stands.")
	q.press("yes", keyEnter)
	q.waitRaw("Your knight is saved where it stands. Farewell.")
	q.exitStatus()

	again := openTerminalCmd(t, srv.addr, key, 80, 24, "")
	raw = again.waitRaw("Screen-reader mode is on", "Welcome back, ")
	if strings.Contains(raw, "\x1b[?1049h") || strings.Contains(raw, "Do you use a screen reader") {
		t.Fatalf("the next connection did not start in screen-reader mode:\n%q", raw)
	}
}

// Issue 14, read from the bytes the client receives in screen-reader mode: typed
// characters come back as they are (no rewritten line for a screen reader to read out
// again), a backspace as backspace-space-backspace, and Enter keeps the typed line; the
// fight is told line by line, and `messages` repeats it with everything else; a knight
// fighting alone is never hurried; shutdown tells the player.
func TestScreenReaderFightOverSSH(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	key := newKey(t)
	in, _ := seedAtTheGuardsDoor(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Hits, a.MaxHits, a.Str, a.Dex = "Lancelot", 300, 300, 18, 6 // a die of 6 never hits: the fight goes on
		a.Options.Plain = true
	})
	srv, game := startConfigured(t, testConfig(dir, defaultSeed))
	turn := func() uint64 { return turnOf(t, game) }
	p := openTerminalCmd(t, srv.addr, key, 80, 24, "")
	p.waitRaw("Screen-reader mode is on", "Welcome back, Lancelot")
	p.press(keyEnter)
	p.waitRaw("You stand on level 1")

	// Echo, byte for byte.
	typed := func(k, want string) {
		t.Helper()
		before := len(p.rawOutput())
		p.press(k)
		waitUntil(t, "the echo of "+strconv.Quote(k), func() bool { return len(p.rawOutput()) >= before+len(want) })
		if got := p.rawOutput()[before:]; got != want {
			t.Fatalf("typing %q sent back %q, want %q", k, got, want)
		}
	}
	typed("l", "l")
	typed("o", "o")
	typed("x", "x")
	typed("\x7f", "\b \b") // backspace
	typed("o", "o")
	typed("k", "k")
	before := len(p.rawOutput())
	p.press(keyEnter)
	waitUntil(t, "the answer to look", func() bool { return strings.Contains(p.rawOutput()[before:], "You are on level 1, ") })
	if got := p.rawOutput()[before:]; !strings.HasPrefix(got, "\r\n") {
		t.Fatalf("Enter did not keep the typed line: %q", got[:min(len(got), 40)])
	}

	// Into the guarded room: the fight is told, and it waits for the knight.
	waitUntil(t, "the knight to break the door and meet the guard", func() bool {
		if strings.Contains(p.rawOutput(), "guards this room!") {
			return true
		}
		if strings.Count(p.rawOutput(), "It holds.") == strings.Count(p.rawOutput(), "You throw yourself") {
			p.press(in[0]) // a locked door: Strength breaks it, in a few tries
		}
		return false
	})
	p.waitRaw("guards this room!", "Your move")
	told, from := len(p.rawOutput()), turn()
	waitUntil(t, "a thousand turns", func() bool { return turn() > from+1000 })
	if tail := p.rawOutput()[told:]; strings.Contains(tail, "hesitates") || strings.Contains(tail, " hits Lancelot") {
		t.Fatalf("a knight fighting alone was hurried:\n%s", tail)
	}
	// A blow a prompt: each round's prompt says how the battle stands, and the commands
	// are said only in the first.
	for i := range 3 {
		p.press("fight", keyEnter)
		waitUntil(t, "the next move", func() bool { return strings.Count(p.rawOutput()[told:], "Your move") > i })
	}
	if !strings.Contains(p.rawOutput()[told:], "Lancelot misses the") {
		t.Fatalf("no blow was told:\n%s", p.rawOutput()[told:])
	}
	if n := strings.Count(p.rawOutput()[told:], "Type f to fight"); n != 0 {
		t.Fatalf("the commands were said %d times more after the first prompt:\n%s", n, p.rawOutput()[told:])
	}
	p.press("messages 40", keyEnter)
	raw := p.waitRaw("The last ")
	msgs := raw[strings.LastIndex(raw, "The last "):]
	for _, want := range []string{"guards this room!", "Lancelot "} {
		if !strings.Contains(msgs, want) {
			t.Fatalf("messages leaves out the fight (%q):\n%s", want, msgs)
		}
	}
	noEscape(t, p.rawOutput()) // the fight, told without one escape sequence (issue 29)
	if err := srv.stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.finalOutput(), farewellMessage) {
		t.Fatal("the player was not told the server is going down")
	}
}
