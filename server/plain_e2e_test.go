package server

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Screen-reader mode over SSH, read from the raw bytes (issue 29).

// noEscape fails the test if screen-reader mode's bytes hold an escape sequence.
func noEscape(t *testing.T, raw string) {
	t.Helper()
	if i := strings.IndexByte(raw, 0x1b); i >= 0 {
		t.Fatalf("screen-reader mode sent an escape sequence at byte %d: %q", i, raw[max(0, i-80):min(len(raw), i+40)])
	}
}

// fiveMinutes is five minutes of play in turns of the default 25 ms tick; the session
// below runs them at a 1 ms tick, in about 12 s.
const fiveMinutes = 5 * time.Minute / world.DefaultTick

// plainTrapAndGuard finds a dungeon whose level 1 has, near its entrance, a trap that
// only wounds (a spear, a pendulum, a needle: none holds, moves or puts to sleep a knight
// that must walk on) and a guarded room. It returns the way from the entrance to the
// square before the trap and back (keys[i] leads to squares[i]), the keys onto the trap
// and off it, the trap's square, and the way from the entrance to the guard.
func plainTrapAndGuard(t *testing.T) (seed uint64, there, again []string, thereSq, againSq []world.Pos, on, off string, trapSq world.Pos, trap world.TrapKind, guard []string, guardSq []world.Pos) {
	t.Helper()
	wounds := map[world.TrapKind]bool{world.TrapFlyingSpear: true, world.TrapPendulum: true, world.TrapPoisonNeedle: true}
	for seed = 1; seed < 500; seed++ {
		keys, squares, ok := findPath(seed, func(_ *world.Engine, l *world.Level, q world.Pos) bool {
			trap = l.Trap(q)
			return wounds[trap]
		})
		var gok bool
		if guard, guardSq, gok = findPath(seed, guarded); !ok || !gok || len(squares) < 2 {
			continue
		}
		n := len(squares) - 1 // the trap's square
		there, thereSq = keys[:n], squares[:n]
		on, off, trapSq = keys[n], reverse(keys[n]), squares[n]
		up := world.New(world.Config{Seed: seed}).Level(1).Up
		for i := n - 1; i >= 0; i-- {
			again = append(again, reverse(keys[i]))
			if i > 0 {
				againSq = append(againSq, squares[i-1])
			} else {
				againSq = append(againSq, up)
			}
		}
		return
	}
	t.Fatal("no dungeon with a wounding trap and a guard near the entrance")
	return
}

// reverse is the key that steps back over the step k made, a door's shift kept.
func reverse(k string) string { o := opposite(k); return k[:len(k)-1] + o[len(o)-1:] }

// Five minutes of play in screen-reader mode (issue 29), read from the raw bytes: a
// knight asks for help, talks, steps on a trap until it goes off, walks on to a guarded
// room, breaks in and fights, then listens while the rest of the five minutes of turns
// pass (12000 turns of the default 25 ms tick, run at a 1 ms tick). Not one escape
// sequence is sent: no colours, no cursor moves, no line erased and written again, no
// bracketed paste; and once the session is still, the prompt is the last thing said.
func TestScreenReaderModeWritesNoEscape(t *testing.T) {
	t.Parallel()
	seed, there, again, thereSq, againSq, on, off, trapSq, trap, guard, guardSq := plainTrapAndGuard(t)
	dir := t.TempDir()
	key := newKey(t)
	seedKnight(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Hits, a.MaxHits, a.Str, a.Dex = "Percival", 300, 300, 18, 18
		a.Depth, a.X, a.Y = 1, againSq[len(againSq)-1].X, againSq[len(againSq)-1].Y // the entrance
		a.Options.Plain = true
	})
	cfg := testConfig(dir, seed)
	cfg.Tick = time.Millisecond
	srv, game := startConfigured(t, cfg)
	turn := func() uint64 { return turnOf(t, game) }
	start := turn()
	p := openTerminalCmd(t, srv.addr, key, 80, 24, "play --plain")
	p.waitRaw("Screen-reader mode is on", "Welcome back, Percival")
	p.press(keyEnter)
	p.waitRaw("on level 1")

	p.press("help", keyEnter)
	p.waitRaw("> help\r\n", "Type help and a topic")
	p.press("help fighting", keyEnter)
	p.waitRaw("rolls over 6")
	p.press("say well met", keyEnter)
	p.waitRaw("well met")

	// Walk to the trap, onto its square and off until it goes off (each step seen taken,
	// so a step refused in a wanderer's fight is taken again), back to the entrance, and
	// on to the guard.
	plainWalk(t, p, srv.addr, key, there, thereSq)
	want := trapMessages[trap]
	by := thereSq[len(thereSq)-1]
	if !poll(30*time.Second, 0, func() bool {
		if strings.Contains(p.rawOutput(), want) {
			return true
		}
		plainWalk(t, p, srv.addr, key, []string{on, off}, []world.Pos{trapSq, by})
		return false
	}) {
		t.Fatalf("the %v never went off:\n%s", trap, p.rawOutput())
	}
	plainWalk(t, p, srv.addr, key, append([]string{off}, again...), append([]world.Pos{by}, againSq...))
	plainWalk(t, p, srv.addr, key, guard, guardSq)

	// The guard: a few blows, each answered with the next move or the guard's end.
	p.waitRaw("guards this room!", "Your move")
	told := len(p.rawOutput())
	over := func() bool { return strings.Contains(p.rawOutput()[told:], "You killed") }
	for i := 0; i < 3 && !over(); i++ {
		p.press("fight", keyEnter)
		waitUntil(t, "the next move", func() bool { return strings.Count(p.rawOutput()[told:], "Your move") > i || over() })
	}
	if !strings.Contains(p.rawOutput()[told:], "Percival ") {
		t.Fatalf("no blow was told:\n%s", p.rawOutput()[told:])
	}
	// The rest of the five minutes, listening.
	if !poll(60*time.Second, 100*time.Millisecond, func() bool { return turn() >= start+uint64(fiveMinutes) }) {
		t.Fatalf("the world ran %d turns of %d", turn()-start, fiveMinutes)
	}
	p.press("look", keyEnter)
	p.press("map", keyEnter)
	raw := p.waitRaw("Your map of level 1")
	noEscape(t, raw)
	// The prompt is the last thing said: once the session is still, it ends the bytes.
	waitUntil(t, "the prompt after the map", func() bool { return strings.HasSuffix(p.rawOutput(), "\r\n> ") })
	noEscape(t, p.rawOutput())
}

// plainWalk walks a screen-reader session along a way: keys[i] leads to squares[i], and
// is pressed (again, at a locked door) until whoami shows the knight there. A knight
// already there skips it. A fight met on the way (a wanderer) is fought until it is over:
// one that starts as the knight steps may be told after whoami shows the step, so a fight
// is known by its words (plainFightBack), not by when they came. The last step's own
// fight (the guard's) is left to the caller.
func plainWalk(t *testing.T, p *terminal, addr string, key gossh.Signer, keys []string, squares []world.Pos) {
	t.Helper()
	at := func() world.Pos { w := whoamiJSON(t, addr, key); return world.Pos{X: w.X, Y: w.Y} }
	for i, k := range keys {
		want := squares[i]
		for tries, blows := 0, 0; at() != want; tries++ {
			if tries > 15 || blows > 60 {
				t.Fatalf("step %d: stuck at %v on the way to %v:\n%s", i, at(), want, p.rawOutput())
			}
			from, seen, fought := at(), len(p.rawOutput()), false
			p.press(k)
			poll(2*time.Second, pollEvery, func() bool {
				if plainFightBack(p, &seen, fought || i < len(keys)-1) {
					fought = true
					blows++
				}
				return at() != from
			})
			if fought {
				tries-- // a fight is no try at the step
			}
		}
	}
}

// plainFightBack presses fight when the lines told since *seen show the knight in a
// fight: a key answered with "You are in a fight!" (a fight that began before the key was
// pressed, whenever it was told), or, if orMove, a new "Your move". It moves *seen past
// the whole lines it read (a line still arriving is read again) and reports whether it
// pressed.
func plainFightBack(p *terminal, seen *int, orMove bool) bool {
	out := p.rawOutput()
	told := out[*seen:]
	told = told[:strings.LastIndexByte(told, '\n')+1]
	*seen += len(told)
	if strings.Contains(told, "You are in a fight!") || orMove && strings.Contains(told, "Your move") {
		p.press("fight", keyEnter)
		return true
	}
	return false
}

// play --plain is for its connection, through real SSH: a phone that once needed it,
// connecting again with an ordinary ssh, has the drawn screen, whose title asks the
// screen-reader question again. Asked to keep it (set plain on), the key's next ordinary
// ssh speaks in lines.
func TestPlayPlainIsForItsConnection(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	key := newKey(t)
	leave := func(tm *terminal) {
		t.Helper()
		tm.press("quit", keyEnter)
		tm.waitRaw("Type yes to leave")
		tm.press("yes", keyEnter)
		if !tm.ended(10 * time.Second) {
			t.Fatalf("the session did not end:\n%s", tm.rawOutput())
		}
	}

	p := openTerminalCmd(t, srv.addr, key, 80, 24, "play --plain")
	p.waitRaw("Screen-reader mode is on", "This connection only: type set plain on to keep screen-reader mode for your key.")
	p.enterPlain("Percival")
	leave(p)

	tm := openTerminal(t, srv.addr, key, 80, 24, nil)
	tm.waitFor("Do you use a screen reader? y/N", "Press Enter to continue your adventure")
	tm.continueKnight()
	tm.press("q", "y")
	if !tm.ended(10 * time.Second) {
		t.Fatalf("the session did not end:\n%s", tm.screen())
	}

	p = openTerminalCmd(t, srv.addr, key, 80, 24, "play --plain")
	p.waitRaw("This connection only", "Welcome back, Percival")
	p.press(keyEnter)
	p.waitRaw("on level 1")
	p.press("set plain on", keyEnter)
	p.waitRaw("Done: every connection of your key starts in screen-reader mode.")
	leave(p)

	kept := openTerminal(t, srv.addr, key, 80, 24, nil)
	raw := kept.waitRaw("Screen-reader mode is on", "Welcome back, Percival")
	if strings.Contains(raw, "This connection only") {
		t.Fatalf("a kept screen-reader mode is said to be this connection's only:\n%s", raw)
	}
	noEscape(t, raw)
}

// Slain on the surface, then replay, then stop, in screen-reader mode (issue 44): the
// tombstone says where the knight fell ("on the surface", not "on level 0"); stop brings
// the player back to the tombstone, said so with its way on, instead of the surface
// described as if the knight lived and no answer to anything after; Enter then rolls a
// new knight.
func TestASurfaceDeathReplayedAndStoppedComesBackToTheTombstone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	market, common, there, back := firstMarket(t, defaultSeed)
	key := newKey(t)
	seedKnight(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Hits, a.MaxHits, a.Dex, a.Str = "Doomed", 2, 2, 3, 3
		a.Depth, a.X, a.Y = 0, market.X, market.Y
		a.Options.Plain = true
	})
	srv := startServer(t, dir)
	p := openTerminalCmd(t, srv.addr, key, 80, 24, "play --plain")
	p.waitRaw("Welcome back, Doomed")
	p.press(keyEnter)
	p.waitRaw("outside the dungeon")

	// Off the market onto common ground and back until a band meets the knight, then
	// fight until it falls.
	if !poll(60*time.Second, 0, func() bool {
		out := p.rawOutput()
		switch {
		case strings.Contains(out, "R.I.P."):
			return true
		case strings.Contains(out, "Your move"):
			seen := len(out)
			p.press("fight", keyEnter)
			poll(2*time.Second, pollEvery, func() bool { return len(p.rawOutput()) > seen })
			return false
		}
		at := whereIs(t, srv.addr, key)
		k, to := there, common
		if at == common {
			k, to = back, market
		}
		p.press(k)
		poll(2*time.Second, pollEvery, func() bool {
			return whereIs(t, srv.addr, key) == to || strings.Contains(p.rawOutput(), "Your move")
		})
		return false
	}) {
		t.Fatalf("the knight never fell:\n%s", p.rawOutput())
	}
	rip := p.waitRaw("R.I.P. Doomed", "Type replay to hear how you fell")
	if !strings.Contains(rip, "on the surface") || strings.Contains(rip, "level 0") {
		t.Fatalf("the tombstone does not say the knight fell on the surface:\n%s", rip)
	}

	p.press("replay", keyEnter)
	p.waitRaw("How you fell, the last minute told again.")
	told := len(p.rawOutput())
	p.press("stop", keyEnter)
	after := p.waitRaw("You stop the replay.", "You are back at your knight's tombstone.", "Press Enter to roll a new knight, or type quit to leave.")[told:]
	// From the stop's answer on: the replay's own lines, told until stop is taken (a
	// busy machine takes it later), say the surface as it was while the knight lived.
	after = after[strings.Index(after, "You stop the replay."):]
	for _, wrong := range []string{"You stop watching.", "outside the dungeon", "You are at"} {
		if strings.Contains(after, wrong) {
			t.Fatalf("stop said %q, as if the knight lived:\n%s", wrong, after)
		}
	}
	p.press(keyEnter)
	p.waitRaw("The dice have spoken")
	noEscape(t, p.rawOutput())
}

// seedWanderers writes level depth's state before the server starts: no guards, and a
// wanderer of kind name on each square of at.
func seedWanderers(t *testing.T, dir string, seed uint64, depth int, name string, at ...world.Pos) {
	t.Helper()
	kind, ok := world.MonsterByName(name)
	if !ok {
		t.Fatalf("no monster %q", name)
	}
	ls := world.LevelState{Depth: depth, Seed: world.New(world.Config{Seed: seed}).Level(depth).Seed}
	for _, q := range at {
		ls.Monsters = append(ls.Monsters, world.MonsterState{Kind: kind, X: q.X, Y: q.Y, Hits: 500, MaxHits: 500, Room: -1})
	}
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Save(store.Batch{Levels: []world.LevelState{ls}}); err != nil {
		t.Fatal(err)
	}
}

// plainWords counts the words of screen-reader mode's bytes, as a screen reader speaks them.
func plainWords(raw string) int { return len(strings.Fields(raw)) }

// Issue 44, every timer at least its speech, over SSH in screen-reader mode: going down
// from the surface is a safe arrival (a Centipede attacked 8.6 s after the 10.2 s answer
// began), here with two wanderers of 500 hits beside the exit of level 1 left alone for
// as long as the knight does not act; and once the knight has run from one, the respite
// lasts its answer's speech (at 175 words a minute, the pace) and 10 s more
// before a wanderer comes again (it came 5.8 s after "runs away", within a 12.6 to
// 14.9 s answer). Timed in the world's turns at a 1 ms tick.
func TestScreenReaderTimersLastTheirSpeech(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const seed = defaultSeed
	exit := world.New(world.Config{Seed: seed}).Level(1).Up
	var beside []world.Pos
	var out string // the key that steps from the exit to beside[0]
	l := world.New(world.Config{Seed: seed}).Level(1)
	dirKeys := map[world.Dir]string{world.North: keyUp, world.South: keyDown, world.East: keyRight, world.West: keyLeft}
	for _, d := range world.Dirs {
		if q := exit.Step(d); l.In(q) && l.Terrain(q) == world.Corridor && l.Edge(exit, d) == world.EdgeOpen {
			beside = append(beside, q)
			if out == "" {
				out = dirKeys[d]
			}
		}
	}
	if len(beside) == 0 {
		t.Fatal("no corridor beside the exit")
	}
	seedWanderers(t, dir, seed, 1, "giant rat", beside...)
	key := newKey(t)
	entrance := world.GenerateSurface(seed, world.DefaultSurfaceSize).Entrance
	seedKnight(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Hits, a.MaxHits, a.Dex = "Percival", 500, 500, 18
		a.Depth, a.X, a.Y = 0, entrance.X, entrance.Y
		a.Options.Plain = true
	})
	cfg := testConfig(dir, seed)
	cfg.Tick = time.Millisecond
	srv, game := startConfigured(t, cfg)
	turn := func() uint64 { return turnOf(t, game) }
	safe := uint64(10 * time.Second / cfg.Tick) // the safe arrival's and the respite's 10 s
	fight := func(s string) bool {
		return strings.Contains(s, "Your move") || strings.Contains(s, "You are in a fight")
	}

	p := openTerminalCmd(t, srv.addr, key, 80, 24, "play --plain")
	p.waitRaw("Welcome back, Percival")
	p.press(keyEnter)
	p.waitRaw("outside the dungeon")
	p.press("down", keyEnter)
	p.waitRaw("You climb back down into the dungeon.")
	from, told := turn(), len(p.rawOutput())
	// Past the 10 s a sighted knight has: a listener that has not acted is still safe.
	if !poll(60*time.Second, pollEvery, func() bool { return turn() >= from+safe+safe/2 }) {
		t.Fatalf("the world ran %d turns", turn()-from)
	}
	if after := p.rawOutput()[told:]; fight(after) {
		t.Fatalf("a wanderer attacked a knight that came down from the surface and had not acted:\n%s", after)
	}

	// Act (a step; look is the session's own), to and fro beside the exit until a rat
	// meets the knight, and run.
	if !poll(60*time.Second, 0, func() bool {
		said := p.rawOutput()[told:]
		if strings.Contains(said, "runs away from") {
			return true
		}
		if fight(said) {
			told += len(said)
			p.press("run", keyEnter)
			// The run's outcome, before anything else is pressed: a key pressed after a
			// run that got away is a step, perhaps onto a wanderer.
			poll(5*time.Second, pollEvery, func() bool {
				out := p.rawOutput()[told:]
				return strings.Contains(out, "runs away from") || strings.Contains(out, "tries to run") || strings.Contains(out, "may not run")
			})
			return false
		}
		k, to := out, beside[0]
		if whereIs(t, srv.addr, key) == beside[0] {
			k, to = opposite(out), exit
		}
		p.press(k)
		poll(time.Second, pollEvery, func() bool { return whereIs(t, srv.addr, key) == to || fight(p.rawOutput()[told:]) })
		return false
	}) {
		t.Fatalf("the knight never got away from a rat:\n%s", p.rawOutput())
	}
	ran := turn()
	raw := p.rawOutput()
	answerAt := strings.LastIndex(raw, "runs away from")
	answerAt = strings.LastIndex(raw[:answerAt], "\n") + 1
	// The answer: what was said for the run until the prompt came back.
	waitUntil(t, "the prompt after the run", func() bool { return strings.Contains(p.rawOutput()[answerAt:], "\r\n> ") })
	answer := p.rawOutput()[answerAt:]
	answer = answer[:strings.Index(answer, "\r\n> ")]
	heard := time.Duration(plainWords(answer)) * time.Minute / 175
	if n := plainWords(answer); n > 10+world.PlainPlaceWords {
		t.Fatalf("the run's answer is %d words, more than the world allows for it (%d):\n%s", n, 10+world.PlainPlaceWords, answer)
	}
	t.Logf("the run's answer: %d words, %.1f s at 175 words a minute:\n%s", plainWords(answer), heard.Seconds(), answer)
	until := ran + uint64(heard/cfg.Tick) + safe
	if !poll(90*time.Second, pollEvery, func() bool {
		return turn() >= until || fight(p.rawOutput()[answerAt+len(answer):])
	}) {
		t.Fatalf("the world ran %d turns of %d", turn()-ran, until-ran)
	}
	if at := turn(); at < until && fight(p.rawOutput()[answerAt+len(answer):]) {
		t.Fatalf("a wanderer attacked %.1f s after the run, before its answer (%.1f s at 175 words a minute) and 10 s had passed:\n%s",
			float64(at-ran)*cfg.Tick.Seconds(), heard.Seconds(), p.rawOutput()[answerAt:])
	}
	noEscape(t, p.rawOutput())
}

// Issue 44: a fainted hero heard "The battle waits for Lis." 9 times, a line for every
// round it could do nothing in. Over SSH in screen-reader mode, Kay and Bors walk the
// surface as a party until a band meets them; Bors (1 hit) faints, and Kay fights on for
// several rounds: Bors is told once whom the battle waits for.
func TestAFaintedHeroIsToldTheWaitOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	market, common, there, back := firstMarket(t, defaultSeed)
	kay, bors := newKey(t), newKey(t)
	seedKnight(t, dir, kay, func(a *world.Adventurer) {
		a.Name, a.Str, a.Dex, a.Hits, a.MaxHits = "Kay", 3, 10, 400, 400 // long battles: it hits softly
		a.Depth, a.X, a.Y = 0, market.X, market.Y
		a.Options.Plain = true
	})
	seedKnight(t, dir, bors, func(a *world.Adventurer) {
		a.Name, a.Str, a.Dex, a.Hits, a.MaxHits = "Bors", 3, 3, 1, 1 // faints at the first blow
		a.Depth, a.X, a.Y = 0, market.X, market.Y
		a.Options.Plain = true
	})
	srv, game := startConfigured(t, testConfig(dir, defaultSeed))
	turn := func() uint64 { return turnOf(t, game) }
	tk := openTerminalCmd(t, srv.addr, kay, 80, 24, "play --plain")
	tb := openTerminalCmd(t, srv.addr, bors, 80, 24, "play --plain")
	for _, tm := range []*terminal{tk, tb} {
		tm.waitRaw("Welcome back")
		tm.press(keyEnter)
		tm.waitRaw("You are on the surface")
	}
	tk.press("invite Bors", keyEnter)
	tb.waitRaw("Kay invites you to join the party.")
	tb.press("accept", keyEnter)
	tk.waitRaw("Bors joins the party.")

	fainted := func() int { return strings.Index(tb.rawOutput(), "Bors faints!") }
	// pending reports whether the session was asked for its move and has not answered.
	pending := func(tm *terminal) bool {
		out := tm.rawOutput()
		return strings.LastIndex(out, "Your move") > strings.LastIndex(out, "> fight")
	}
	at := market
	if !poll(90*time.Second, 0, func() bool {
		if fainted() >= 0 {
			return true
		}
		told := len(tk.rawOutput()) + len(tb.rawOutput())
		news := func() bool { return len(tk.rawOutput())+len(tb.rawOutput()) > told || fainted() >= 0 }
		switch {
		case pending(tk) || pending(tb):
			for _, tm := range []*terminal{tk, tb} {
				if pending(tm) {
					tm.press("fight", keyEnter)
				}
			}
			poll(5*time.Second, pollEvery, news)
		default: // walk, off the market and back, until a band meets the party
			k, to := there, common
			if at == common {
				k, to = back, market
			}
			tk.press(k)
			poll(2*time.Second, pollEvery, func() bool { return whereIs(t, srv.addr, kay) == to || news() })
			at = whereIs(t, srv.addr, kay)
		}
		return false
	}) {
		t.Fatalf("Bors never fainted:\n%s", tb.rawOutput())
	}
	from := fainted()
	// Kay fights on, thinking 40 turns over each move as a player does (Bors's screen is
	// refreshed within 4): every one of its moves is a round the fainted Bors cannot act in.
	rounds := 0
	for range 6 {
		if !poll(3*time.Second, pollEvery, func() bool { return pending(tk) }) {
			break // the battle is over
		}
		asked := turn()
		poll(5*time.Second, pollEvery, func() bool { return turn() >= asked+40 })
		tk.press("fight", keyEnter)
		rounds++
	}
	if rounds < 2 {
		t.Fatalf("Kay fought only %d rounds after Bors fainted, too few to tell:\n%s", rounds, tk.rawOutput())
	}
	heard := strings.Count(tb.rawOutput()[from:], "The battle waits for Kay.")
	if heard > 1 {
		t.Fatalf("fainted Bors was told the battle waits for Kay %d times in Kay's %d rounds:\n%s", heard, rounds, tb.rawOutput()[from:])
	}
	noEscape(t, tb.rawOutput())
}

// Issue 44: standing still 60 s, one Animated Broom got 7 lines in 28 s ("comes into
// sight" three times, "goes out of sight" three times); DESIGN claims at most 3 a minute.
// Over SSH in screen-reader mode, a knight stands at the exit of level 1, a dead end, for
// a minute of the world's clock (60000 turns of a 1 ms tick) with three wanderers of three
// kinds pacing the corridors beside it (none attacks: the knight has not acted since it
// came, a safe arrival): at most 3 lines are about each.
func TestWanderersBesideAStillKnightAreAFewLinesAMinute(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const seed = defaultSeed
	l := world.New(world.Config{Seed: seed}).Level(1)
	exit := l.Up
	// The corridor squares nearest the exit, by a walk out from it.
	near, seen := []world.Pos{exit}, map[world.Pos]bool{exit: true}
	for i := 0; i < len(near) && len(near) < 4; i++ {
		for _, d := range world.Dirs {
			if q := near[i].Step(d); l.In(q) && !seen[q] && l.Terrain(q) == world.Corridor && l.Edge(near[i], d) == world.EdgeOpen {
				seen[q] = true
				near = append(near, q)
			}
		}
	}
	kinds := []string{"Ogre", "Giant Rat", "Centipede"}
	for i, k := range kinds {
		seedWanderers(t, dir, seed, 1, k, near[1+i])
	}
	key := newKey(t)
	seedKnight(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Depth, a.X, a.Y = "Percival", 1, exit.X, exit.Y
		a.Options.Plain = true
	})
	cfg := testConfig(dir, seed)
	cfg.Tick = time.Millisecond
	srv, game := startConfigured(t, cfg)
	turn := func() uint64 { return turnOf(t, game) }
	p := openTerminalCmd(t, srv.addr, key, 80, 24, "play --plain")
	p.waitRaw("Welcome back, Percival")
	p.press(keyEnter)
	p.waitRaw("on level 1")
	waitUntil(t, "the prompt after the first look", func() bool { return strings.HasSuffix(p.rawOutput(), "\r\n> ") })
	from, told := turn(), len(p.rawOutput())
	minute := uint64(time.Minute / cfg.Tick)
	if !poll(3*time.Minute, 100*time.Millisecond, func() bool { return turn() >= from+minute }) {
		t.Fatalf("the world ran %d turns of %d", turn()-from, minute)
	}
	said := p.rawOutput()[told:]
	for _, k := range kinds {
		var about []string
		for _, line := range strings.Split(said, "\n") {
			if strings.Contains(line, k) {
				about = append(about, strings.TrimSpace(line))
			}
		}
		if len(about) > 3 {
			t.Errorf("a minute standing beside a wandering %s told %d lines about it:\n%s", k, len(about), strings.Join(about, "\n"))
		}
	}
	t.Logf("a minute beside three wanderers:\n%s", said)
	noEscape(t, p.rawOutput())
}

// Issue 44's words, over SSH in screen-reader mode. In the dungeon, d alone (down, as in
// a MUD) says where to look for the stairs rather than only that there are none here, and
// walking into the guarded room's door names the plain word and the way ("Type open
// east"), not "Shift+arrow (or d, then a direction)". On the surface, an invitation is
// answered with words, not "/accept Kay"; a step onto the dungeon entrance says the place
// once, not twice; after a sale the knight is told its things are numbered anew; and
// help outside tells the surface, not only its market.
func TestScreenReaderWordsAreWordsItTakes(t *testing.T) {
	dir := t.TempDir()
	percival := newKey(t)
	_, room := seedAtTheGuardsDoor(t, dir, percival, func(a *world.Adventurer) {
		a.Name, a.Options.Plain = "Percival", true
	})
	market, _, _, _ := firstMarket(t, defaultSeed)
	g := world.GenerateSurface(defaultSeed, world.DefaultSurfaceSize)
	var nextTo world.Pos
	var onto string
	for _, s := range []struct {
		dx, dy int
		key    string
	}{{1, 0, keyLeft}, {-1, 0, keyRight}, {0, 1, keyUp}, {0, -1, keyDown}} {
		if q := (world.Pos{X: g.Entrance.X + s.dx, Y: g.Entrance.Y + s.dy}); g.At(q) == world.SurfaceCommon || g.At(q) == world.SurfaceMarket {
			nextTo, onto = q, s.key
		}
	}
	if onto == "" {
		t.Fatal("nothing walkable beside the dungeon entrance")
	}
	kay, bors := newKey(t), newKey(t)
	seedKnight(t, dir, kay, func(a *world.Adventurer) {
		a.Name, a.Depth, a.X, a.Y = "Kay", 0, market.X, market.Y
		a.Items = append(a.Items, world.Item{Kind: world.ItemGem, Value: 40}, world.Item{Kind: world.ItemGem, Value: 60})
		a.Options.Plain = true
	})
	seedKnight(t, dir, bors, func(a *world.Adventurer) {
		a.Name, a.Depth, a.X, a.Y = "Bors", 0, nextTo.X, nextTo.Y
		a.Options.Plain = true
	})
	srv := startServer(t, dir)
	enter := func(key gossh.Signer, name string) *terminal {
		tm := openTerminalCmd(t, srv.addr, key, 80, 24, "play --plain")
		tm.waitRaw("Welcome back, " + name)
		tm.press(keyEnter)
		tm.waitRaw("Welcome, " + name)
		waitUntil(t, name+"'s prompt", func() bool { return strings.HasSuffix(tm.rawOutput(), "\r\n> ") })
		return tm
	}

	p := enter(percival, "Percival")
	p.press("d", keyEnter)
	p.waitRaw("There are no stairs down here: way down says the way to the stairs you know.")
	door := whereIs(t, srv.addr, percival)
	way := map[world.Pos]string{{X: 1}: "east", {X: -1}: "west", {Y: 1}: "south", {Y: -1}: "north"}[world.Pos{X: room[0].X - door.X, Y: room[0].Y - door.Y}]
	told := len(p.rawOutput())
	p.press(way, keyEnter)
	hint := p.waitRawFor("the door's hint", func(s string) bool { return strings.Contains(s[told:], "door blocks the way "+way) })[told:]
	if !strings.Contains(hint, "Type open "+way+" to ") || strings.Contains(hint, "Shift+arrow") || strings.Contains(hint, "then a direction") {
		t.Fatalf("the door's hint names keys, or not the word and the way:\n%s", hint)
	}

	k, b := enter(kay, "Kay"), enter(bors, "Bors")
	k.press("invite Bors", keyEnter)
	inv := b.waitRaw("Kay invites you to join the party.")
	if !strings.Contains(inv, "(accept Kay or decline Kay)") || strings.Contains(inv, "/accept") {
		t.Fatalf("the invitation is answered with slash forms:\n%s", inv)
	}

	told = len(b.rawOutput())
	b.press(onto)
	b.waitRaw("at the dungeon entrance: type down to go down.")
	waitUntil(t, "the prompt after the step", func() bool { return strings.HasSuffix(b.rawOutput(), "\r\n> ") })
	if step := b.rawOutput()[told:]; strings.Contains(step, "You are at the entrance of the dungeon (EX)") {
		t.Fatalf("the step onto the entrance says the place twice:\n%s", step)
	}

	v := whoamiJSON(t, srv.addr, kay)
	first := len(v.Equipment) - 1 // the first of the two gems, counting from 1
	k.press("sell "+strconv.Itoa(first), keyEnter)
	// The other gem is said at its new number, the one the sold gem had.
	k.waitRawFor("the things numbered anew", func(s string) bool {
		i := strings.LastIndex(s, "Your things are numbered anew:")
		return i >= 0 && strings.Contains(s[i:], strconv.Itoa(first)+", gem worth 60")
	})
	k.press("help outside", keyEnter)
	k.waitRaw("Outside the dungeon is the surface", "Common ground is dangerous", "down at the entrance goes back into the dungeon")
	for _, tm := range []*terminal{p, k, b} {
		noEscape(t, tm.rawOutput())
	}
}

// Exploring by ear through real SSH (issue 44: 16 commands on a level without finding
// its stairs, one square a command): a knight at the top of level 1 of the default seed
// reaches the stairs down by explore and way down alone, each way followed as it is said
// (a door on it opened), in a bounded number of lines. A wanderer met on the way is
// fought until it is over.
func TestExploreAndWayReachTheStairsDown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const seed = defaultSeed
	l := world.New(world.Config{Seed: seed}).Level(1)
	key := newKey(t)
	seedKnight(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Hits, a.MaxHits, a.Str, a.Dex = "Percival", 900, 900, 18, 18
		a.Depth, a.X, a.Y = 1, l.Up.X, l.Up.Y
		a.Options.Plain = true
	})
	cfg := testConfig(dir, seed)
	cfg.Tick = time.Millisecond
	srv, _ := startConfigured(t, cfg)
	p := openTerminalCmd(t, srv.addr, key, 200, 24, "play --plain")
	p.waitRaw("Welcome back, Percival")
	p.press(keyEnter)
	p.waitRaw("on level 1")
	waitUntil(t, "the first prompt", func() bool { return strings.HasSuffix(p.rawOutput(), "\r\n> ") })

	// say types a line and returns its answer: what is told until the prompt ends the
	// output again, a fight on the way fought out first.
	lines := 0
	say := func(line string) string {
		t.Helper()
		lines++
		from := len(p.rawOutput())
		seen := from
		p.press(line, keyEnter)
		if !poll(20*time.Second, pollEvery, func() bool {
			plainFightBack(p, &seen, true)
			out := p.rawOutput()[from:]
			_, after, echoed := strings.Cut(out, line+"\r\n")
			return echoed && after != "> " && strings.HasSuffix(after, "\r\n> ")
		}) {
			t.Fatalf("no answer to %q:\n%s", line, p.rawOutput()[from:])
		}
		return strings.Join(strings.Fields(p.rawOutput()[from:]), " ")
	}
	leg := regexp.MustCompile(`^(north|south|east|west) (\d+)( through the (door|locked door|secret door))?`)
	const most = 60
	for !strings.Contains(p.rawOutput(), "You stand on the stairs down") {
		if lines > most {
			t.Fatalf("not at the stairs down after %d lines:\n%s", lines, p.rawOutput())
		}
		way := say("way down")
		_, route, ok := strings.Cut(way, "The way to the stairs down: ")
		if !ok {
			say("explore")
			continue
		}
		route, _, _ = strings.Cut(route, ".")
		for _, part := range strings.Split(route, ", ") {
			m := leg.FindStringSubmatch(strings.ToLower(part))
			if m == nil {
				t.Fatalf("a leg of the way is %q, in %q", part, route)
			}
			n, _ := strconv.Atoi(m[2])
			if m[3] != "" {
				if n > 1 {
					say(fmt.Sprintf("%s %d", m[1], n-1))
				}
				say("open " + m[1])
				continue
			}
			if said := say(fmt.Sprintf("%s %d", m[1], n)); strings.Contains(said, "You stop after") {
				break // the walk stopped short (a side way, a wanderer): ask the way again
			}
		}
	}
	t.Logf("the stairs down reached in %d lines", lines)
	if raw := strings.Join(strings.Fields(p.rawOutput()), " "); !strings.Contains(raw, "You stop after exploring") || !strings.Contains(raw, "A passage opens") {
		t.Fatalf("no explore stopped at a side passage and named it:\n%s", p.rawOutput())
	}
	noEscape(t, p.rawOutput())
}

// The pace of speech through real SSH (issue 44: a step 11.6 s of speech, help monsters
// 664 words): a step that changes little is its way and where the passage goes on;
// verbose says it in full, and is kept with the key with set sightings off, as the next
// connection's options say; help monsters is short and help monster NAME gives one.
func TestScreenReaderPaceOverSSH(t *testing.T) {
	dir := t.TempDir()
	const seed = defaultSeed
	l := world.New(world.Config{Seed: seed}).Level(1)
	key := newKey(t)
	seedKnight(t, dir, key, func(a *world.Adventurer) {
		a.Name, a.Hits, a.MaxHits = "Percival", 900, 900
		a.Depth, a.X, a.Y = 1, l.Up.X, l.Up.Y
		a.Options.Plain = true
	})
	srv, _ := startConfigured(t, testConfig(dir, seed))
	var out world.Dir
	for _, d := range world.Dirs {
		if l.Edge(l.Up, d) == world.EdgeOpen {
			out = d
		}
	}
	p := openTerminalCmd(t, srv.addr, key, 200, 24, "play --plain")
	p.waitRaw("Welcome back, Percival")
	p.press(keyEnter)
	p.waitRaw("on level 1")
	// answer types a line and returns what is told after it once want is.
	answer := func(line string, want ...string) string {
		t.Helper()
		from := len(p.rawOutput())
		p.press(line, keyEnter)
		var said string
		waitUntil(t, fmt.Sprintf("the answer to %q", line), func() bool {
			said = strings.Join(strings.Fields(p.rawOutput()[from:]), " ")
			return containsAll(said, want)
		})
		return said
	}
	name := english.Capital(out.String())
	if said := answer(out.String(), name+". Passage goes on"); strings.Contains(said, "You are on level 1") {
		t.Fatalf("a brief step said it in full: %s", said)
	}
	answer("verbose", "every step is said in full")
	answer(out.Opposite().String(), "You are on level 1")
	answer("set sightings off", "Done.")
	if said := answer("help monsters", "Eight classes of monsters", "help monster and a name"); len(strings.Fields(said)) > 100 {
		t.Fatalf("help monsters is %d words: %s", len(strings.Fields(said)), said)
	}
	answer("help monster giant ant", "Giant Ant, Insect: level 1, hit dice 1d8")
	answer("quit", "Type yes to leave")
	p.press("yes", keyEnter)
	if !p.ended(10 * time.Second) {
		t.Fatalf("the session did not end:\n%s", p.rawOutput())
	}

	p = openTerminalCmd(t, srv.addr, key, 200, 24, "play --plain")
	p.waitRaw("Welcome back, Percival")
	p.press(keyEnter)
	p.waitRaw("on level 1")
	answer("options", "Steps: in full; Sightings: not said; Others' movements: said; Party chatter: said.")
	noEscape(t, p.rawOutput())
}

// A line typed in one burst in screen-reader mode over SSH (a paste, a fast typist, a
// screen reader's own echo; issue 44), read from the raw bytes: "north 9" and Enter in one
// write are echoed once, as typed, and the line is not written again over the prompt
// ("\r> north 9"), which a screen reader reads a second time. Typed a key a write, each
// waited for, each key is echoed once, as it comes.
func TestScreenReaderEchoesABurstOnce(t *testing.T) {
	srv := startServer(t, t.TempDir())
	p := openTerminalCmd(t, srv.addr, newKey(t), 80, 24, "play --plain")
	p.enterPlain("Percival")
	prompted := func() int {
		t.Helper()
		return len(p.waitRawFor("the prompt", func(s string) bool { return strings.HasSuffix(s, "\r\n"+"> ") }))
	}
	// echoed waits for the line typed since mark to end, and checks it was echoed once.
	echoed := func(how string, mark int) {
		t.Helper()
		raw := p.waitRawFor("the typed line ended", func(s string) bool { return strings.Contains(s[mark:], "north 9\r\n") })
		echo := raw[mark:]
		echo = echo[:strings.Index(echo, "north 9\r\n")+len("north 9\r\n")]
		if strings.Count(echo, "north 9") != 1 || strings.Contains(echo, "\r> n") {
			t.Fatalf("north 9 %s was echoed as %q, want each key once and no line written over the prompt", how, echo)
		}
	}

	mark := prompted()
	p.press("north 9" + keyEnter)
	echoed("in one write", mark)
	noEscape(t, p.rawOutput())

	mark = prompted()
	typed := ""
	for _, r := range "north 9" {
		typed += string(r)
		p.press(string(r))
		p.waitRawFor(fmt.Sprintf("the echo of %q", r), func(s string) bool { return strings.HasSuffix(s, typed) })
	}
	p.press(keyEnter)
	echoed("a key a write", mark)
	noEscape(t, p.rawOutput())
}
