package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The battle panel lists both monsters by letter with their hits and the target marked,
// both heroes (the fainted one said so), the round, whose move it is, the newest log lines
// and the keys, at 80×24 and at 160×50.
func TestBattlePanelListsEveryCombatant(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 50}} {
		m, _ := viewModel(t, twoOnTwo(t), size[0], size[1])
		s := m.Text()
		t.Logf("%d×%d:\n%s", size[0], size[1], s)
		checkFrame(t, s, size[0], size[1])
		for _, want := range []string{
			"FIGHT, ROUND 3", "  a Troll", "17/24", "> b Goblin", "3/7 held",
			"Sir Kay", "12/15", "Gawain", "fainted", "Your move! ██████░░░░ 3 s",
			"The Troll misses Sir Kay.", "t target", "x stats", "i items", "f fight",
			"(no running from a room)", "()",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("%d×%d: the panel lacks %q", size[0], size[1], want)
			}
		}
		if strings.Contains(s, "r run") {
			t.Errorf("%d×%d: running is offered in a room", size[0], size[1])
		}
		// Every monster and hero is on its own line of the panel, in order.
		panel := panelText(s, size[0])
		order := []string{"a Troll", "b Goblin", "Sir Kay", "Gawain"}
		last := -1
		for _, w := range order {
			i := strings.Index(panel, w)
			if i < last {
				t.Errorf("%d×%d: %q is out of order in the panel:\n%s", size[0], size[1], w, panel)
			}
			last = i
		}
	}
}

// panelText is the right-hand battle panel of a frame, line by line.
func panelText(s string, w int) string {
	x := w - fightPanelWidth(w)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		r := []rune(l)
		if len(r) > x {
			out = append(out, string(r[x:]))
		}
	}
	return strings.Join(out, "\n")
}

// A fallen monster is shown dead; the marker is on the target only; when it is not this
// knight's move the panel says so; many monsters still leave room for the log.
func TestBattlePanelFallenAndCrowded(t *testing.T) {
	v := twoOnTwo(t)
	f := *v.Fight
	f.Monsters = append([]world.FightMonster(nil), f.Monsters...)
	f.Monsters[0].Dead, f.Monsters[0].Hits = true, 0
	f.YourMove = false
	v.Fight = &f
	m, _ := viewModel(t, v, 80, 24)
	s := m.Text()
	if !strings.Contains(s, "  a Troll") || !strings.Contains(s, "dead") || strings.Count(s, ">") != 1 {
		t.Fatalf("a dead troll:\n%s", s)
	}
	if !strings.Contains(s, "The battle goes on") {
		t.Fatalf("not the knight's move:\n%s", s)
	}
	// When the battle waits for another hero, the panel names it; the grace bar counts
	// the world's own grace.
	f.Knights = append([]world.FightKnight(nil), f.Knights...)
	f.Knights[1].Choosing = true
	m.view.Fight = &f
	if s := m.Text(); !strings.Contains(s, "Waiting for Gawain...") {
		t.Fatalf("the panel does not say whom the battle waits for:\n%s", s)
	}
	if got := graceBar(500, 1000); got != "█████░░░░░" {
		t.Fatalf("half of a 1000-turn grace draws %q", got)
	}
	// A hero holding up the others is counted down on every hero's panel, in seconds.
	f.Knights[1].GraceLeft = 480
	if s := m.Text(); !strings.Contains(s, "Waiting for Gawain (12 s)...") {
		t.Fatalf("the panel does not count down Gawain's grace:\n%s", s)
	}
	// A knight alone is never hurried: no countdown, and the panel says the battle waits.
	lone := f
	lone.YourMove, lone.GraceLeft = true, 0
	if got := moveLine(&lone, DefaultTick); got != "Your move. The battle waits for you." {
		t.Fatalf("a lone knight's move line: %q", got)
	}
	lone.GraceLeft, lone.GraceTurns = 1199, 1200
	if got := moveLine(&lone, DefaultTick); got != "Your move! ██████████ 30 s" {
		t.Fatalf("a hero holding up others: %q", got)
	}
	if p := m.movePrompt(world.View{Self: m.view.Self, Fight: &lone}, false); !strings.Contains(p, "The others wait for you: you have 30 seconds to choose.") {
		t.Fatalf("screen-reader mode does not tell the grace: %s", p)
	}
	// Eight monsters, six of them fallen, and four heroes at 80×24: the fallen are counted.
	var mons []world.FightMonster
	for i := range 8 {
		mo := f.Monsters[1]
		mo.Dead = i < 6
		mons = append(mons, mo)
	}
	f.Monsters, f.Target = mons, 7
	f.Knights = append(f.Knights, world.FightKnight{Name: "Bors", Hits: 5, MaxHits: 9}, world.FightKnight{Name: "Lionel", Hits: 7, MaxHits: 8})
	m.view.Fight = &f
	s = m.Text()
	checkFrame(t, s, 80, 24)
	if !strings.Contains(s, "and 6 monsters fallen") || !strings.Contains(s, "> h Goblin") || !strings.Contains(s, "Lionel") ||
		!strings.Contains(s, "The Troll misses Sir Kay.") {
		t.Fatalf("a crowded battle:\n%s", s)
	}
}

// t (or Tab) aims at the next standing monster, skipping the fallen and wrapping round;
// a second press before the world answers goes on from the first; shift+Tab goes back.
// Choosing sends world.Target and nothing else.
func TestTargetKeyCyclesStandingMonsters(t *testing.T) {
	v := twoOnTwo(t)
	f := *v.Fight
	f.Monsters = []world.FightMonster{f.Monsters[0], f.Monsters[1], f.Monsters[0], f.Monsters[1]}
	f.Monsters[1].Dead = true
	f.Target = 0
	v.Fight = &f
	m, rec := viewModel(t, v, 80, 24)
	keys(m, "t")
	keys(m, "tab")
	cmds, _ := rec.sent()
	if len(cmds) != 2 || cmds[0] != (world.Target{Index: 2}) || cmds[1] != (world.Target{Index: 3}) {
		t.Fatalf("t, Tab sent %v, want Target 2 then 3", cmds)
	}
	// The world answers: the view shows target 3. t wraps round to the first.
	rec.reset()
	v2 := v
	f2 := f
	f2.Target = 3
	v2.Fight = &f2
	m.Update(viewMsg(v2))
	keys(m, "t")
	if cmds, _ := rec.sent(); len(cmds) != 1 || cmds[0] != (world.Target{Index: 0}) {
		t.Fatalf("t after the world's answer sent %v, want Target 0", cmds)
	}
	rec.reset()
	f3 := f2
	f3.Target = 0
	v2.Fight = &f3
	m.Update(viewMsg(v2))
	keys(m, "shift+tab")
	if cmds, _ := rec.sent(); len(cmds) != 1 || cmds[0] != (world.Target{Index: 3}) {
		t.Fatalf("shift+Tab sent %v, want Target 3", cmds)
	}
	if m.screen != screenPlay {
		t.Fatalf("choosing a target left the screen: %v", m.screen)
	}
	// One monster standing: there is nothing to choose, and nothing is sent.
	rec.reset()
	f4 := f3
	f4.Monsters = []world.FightMonster{f.Monsters[0], f.Monsters[1]}
	v2.Fight = &f4
	m.Update(viewMsg(v2))
	keys(m, "t")
	if cmds, _ := rec.sent(); len(cmds) != 0 {
		t.Fatalf("t with one monster standing sent %v", cmds)
	}
	// Out of a fight, t does nothing.
	v2.Fight = nil
	m.Update(viewMsg(v2))
	keys(m, "t", "x")
	if cmds, _ := rec.sent(); len(cmds) != 0 || m.screen != screenPlay {
		t.Fatalf("t and x out of a fight: %v, screen %v", cmds, m.screen)
	}
}

// x shows every combatant's statistics without sending anything (seed 002: it "will not
// consume the turn"); the screen is drawn from each new view; Esc goes back.
func TestStatsScreenCostsNoTurn(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 50}} {
		m, rec := viewModel(t, twoOnTwo(t), size[0], size[1])
		keys(m, "x")
		if m.screen != screenStats {
			t.Fatalf("x did not open the statistics: %v", m.screen)
		}
		s := m.Text()
		t.Logf("%d×%d:\n%s", size[0], size[1], s)
		checkFrame(t, s, size[0], size[1])
		for _, want := range []string{
			"BATTLE STATISTICS, ROUND 3", "Sir Kay (you)", "Gawain", "fainted", "12/15", "0/11",
			"Troll", "Giant", "17/24", "2d8×2", "d10", "320", "5%", "> b", "Goblin", "held", "+10", "12%",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("%d×%d: the statistics lack %q", size[0], size[1], want)
			}
		}
		if cmds, party := rec.sent(); len(cmds)+len(party) != 0 {
			t.Fatalf("looking sent %v %v", cmds, party)
		}
		// A new view redraws it: the troll has been hit.
		v := twoOnTwo(t)
		v.Fight.Monsters[0].Hits = 9
		m.Update(viewMsg(v))
		if s := m.Text(); !strings.Contains(s, "9/24") || m.screen != screenStats {
			t.Fatalf("the statistics did not follow the view:\n%s", s)
		}
		keys(m, "esc")
		if m.screen != screenPlay {
			t.Fatalf("Esc did not close the statistics: %v", m.screen)
		}
		if cmds, party := rec.sent(); len(cmds)+len(party) != 0 {
			t.Fatalf("looking sent %v %v", cmds, party)
		}
	}
	// On the statistics screen t still chooses, and f fights and goes back.
	m, rec := viewModel(t, twoOnTwo(t), 80, 24)
	keys(m, "x", "t")
	keys(m, "f")
	if cmds, _ := rec.sent(); len(cmds) != 2 || cmds[0] != (world.Target{Index: 0}) || cmds[1] != (world.Fight{}) || m.screen != screenPlay {
		t.Fatalf("t and f on the statistics: %v, screen %v", cmds, m.screen)
	}
	// When the battle ends under it, it says so.
	keys(m, "x")
	v := twoOnTwo(t)
	v.LastFight, v.Fight = v.Fight.Log, nil
	m.Update(viewMsg(v))
	if s := m.Text(); !strings.Contains(s, "The battle is over.") {
		t.Fatalf("after the battle:\n%s", s)
	}
}

// Screen-reader mode says the whole battle: who fights whom, each monster's hits, the
// target, the fainted; the move prompt names the target; the words target, stats and look
// work in a fight and never cost the move.
func TestBattleInWords(t *testing.T) {
	v := twoOnTwo(t)
	s := fightSentence(v)
	for _, want := range []string{"You are in a battle, round 3, against 2 monsters", "1, a Troll (Giant, level 4), 17 of 24 hits",
		"2, a Goblin (Goblin, level 1), held, 3 of 7 hits, your target", "Fainted: Gawain.", "You have 12 of 15 hits."} {
		if !strings.Contains(s, want) {
			t.Errorf("fightSentence lacks %q: %s", want, s)
		}
	}
	p := (&Model{}).movePrompt(v, false)
	if short := (&Model{}).movePrompt(v, true); strings.Contains(short, "Type") || !strings.HasPrefix(short, battleStanding(v)) || !strings.HasPrefix(p, battleStanding(v)) {
		t.Errorf("the short prompt %q is not the full one %q without its actions", short, p)
	}
	for _, want := range []string{"Your move: your target is the Goblin (2), 3 hits, held", "also the Troll (1) 17 hits",
		"Fainted: Gawain.", "no running from a room", "target and a number"} {
		if !strings.Contains(p, want) {
			t.Errorf("movePrompt lacks %q: %s", want, p)
		}
	}
	m, rec := viewModel(t, v, 80, 24)
	m.pl.active = true
	for _, l := range []string{"target 1", "target goblin", "target b", "target 9", "target", "stats", "look", "x"} {
		m.plainLine(l)
	}
	cmds, _ := rec.sent()
	want := []world.Command{world.Target{Index: 0}, world.Target{Index: 0}}
	if len(cmds) != len(want) || cmds[0] != want[0] || cmds[1] != want[1] {
		t.Fatalf("typed targets sent %v, want %v", cmds, want)
	}
	out := strings.Join(m.pl.transcript, "\n")
	for _, w := range []string{"Your target is now 1, a Troll, 17 of 24 hits.", "The Goblin is your target already.",
		`There is no monster "9" in this battle.`, "Battle statistics, round 3.",
		"Sir Kay (you): level 3, 12 of 15 hits, 8 spell units; Strength 14, Intelligence 12, Constitution 11, Dexterity 15; sword +1, shield +0, armour +2; 2 blows a round; dodges 12%.",
		"Gawain: level 2, 0 of 11 hits", "Fainted.",
		"Monster 1, the Troll: a Giant of level 4, 17 of 24 hits; attacks twice a round for 2d8; to-hit die d10; speed +0; dodges 5%; worth 320 experience.",
		"Monster 2, the Goblin: a Goblin of level 1", "Held: it does not fight back. Your target.",
		"You are on level 2, in a room"} {
		if !strings.Contains(out, w) {
			t.Errorf("the transcript lacks %q:\n%s", w, out)
		}
	}
	if n := strings.Count(out, "Battle statistics, round 3."); n != 2 {
		t.Errorf("stats and x said the statistics %d times", n)
	}
	if _, ok := boxDrawing(out); ok {
		t.Errorf("box drawing in the transcript:\n%s", out)
	}
}

// Issue 14: opening the message log, help, statistics, inventory or a spell menu on the
// knight's move never costs the move by itself: each only looks, and sends the world no
// command, so the battle's wait (unlimited for a lone knight) is untouched.
func TestLookingDuringYourMoveSendsNoCommand(t *testing.T) {
	for _, open := range []string{"M", "?", "x", "i", "1", "2", "3", "4", "m", "P", "F"} {
		m, rec := viewModel(t, twoOnTwo(t), 80, 24)
		keys(m, open, "esc")
		rec.mu.Lock()
		cmds := slices.Clone(rec.cmds)
		rec.mu.Unlock()
		if len(cmds) != 0 {
			t.Errorf("opening %q and closing it again sent %v", open, cmds)
		}
	}
}

// Issue 14: s shoot was offered to a knight with no arrows, and in a room the prompt still
// said r runs. The keys under the battle panel and screen-reader mode's move prompt offer
// only what the knight can do: shooting with an arrow of slaying in its quiver, running
// outside a room (in a corridor, on the surface), and walking away from monsters that are
// all held, even in a room (the world allows it). The world's refusals stay as they are.
func TestOnlyPossibleActionsAreOffered(t *testing.T) {
	quiver := []world.Item{{Kind: world.ItemSword}, {Kind: world.ItemQuiver, Count: 3}}
	empty := []world.Item{{Kind: world.ItemSword}, {Kind: world.ItemQuiver, Count: 0}}
	type want struct{ shoot, run, leave, note bool }
	for _, tc := range []struct {
		where  string
		arrows bool
		held   bool
		want   want
	}{
		{"room", true, false, want{shoot: true, note: true}},
		{"room", false, false, want{note: true}},
		{"room", false, true, want{leave: true}},
		{"in a room, met in the corridor", true, false, want{shoot: true, note: true}},
		{"corridor", true, false, want{shoot: true, run: true}},
		{"corridor", false, false, want{run: true}},
		{"surface", true, false, want{shoot: true, run: true}},
		{"surface", false, false, want{run: true}},
	} {
		v := twoOnTwo(t)
		f := *v.Fight
		f.Monsters = append([]world.FightMonster(nil), f.Monsters...)
		f.Monsters[0].Held = tc.held // the goblin is held already
		switch tc.where {
		case "room":
			f.InRoom = true
		case "in a room, met in the corridor":
			f.InRoom = false // the knight stands in the room all the same
		case "corridor":
			f.InRoom, v.Self.Pos = false, world.Pos{X: 3, Y: 0}
		case "surface":
			sv := surfaceView(world.Pos{X: 3, Y: 2})
			f.InRoom, f.Surface = false, true
			v.Surface, v.Self.Depth, v.Self.Pos, v.Level = sv.Surface, 0, sv.Self.Pos, nil
		}
		v.Self.Items = empty
		if tc.arrows {
			v.Self.Items = quiver
		}
		v.Fight = &f
		name := fmt.Sprintf("%s, arrows %v, held %v", tc.where, tc.arrows, tc.held)
		keys := strings.Join(battleKeys(v), "  ")
		prompt := battlePrompt(v)
		has := func(s, sub string) bool { return strings.Contains(s, sub) }
		for _, c := range []struct {
			what      string
			got, want bool
		}{
			{"s shoot", has(keys, "s shoot"), tc.want.shoot},
			{"shoot in the prompt", has(prompt, "shoot"), tc.want.shoot},
			{"r run", has(keys, "r run"), tc.want.run},
			{"r to run", has(prompt, "r to run"), tc.want.run},
			{"r leave", has(keys, "r leave"), tc.want.leave},
			{"walk away", has(prompt, "r to walk away from the held monsters"), tc.want.leave},
			{"the note", has(keys, "(no running from a room)"), tc.want.note},
			{"no running in the prompt", has(prompt, "there is no running from a room"), tc.want.note},
		} {
			if c.got != c.want {
				t.Errorf("%s: %s is %v, want %v:\n  keys %q\n  prompt %q", name, c.what, c.got, c.want, keys, prompt)
			}
		}
		for _, k := range []string{"f fight", "1-4 cast", "i items", "t target", "x stats"} {
			if !has(keys, k) {
				t.Errorf("%s: the keys lack %q: %q", name, k, keys)
			}
		}
		if !has(prompt, "Type f to fight") || !has(prompt, "cast") {
			t.Errorf("%s: the prompt %q", name, prompt)
		}
	}
	// The panel shows the keys the view allows, and one monster standing offers no target.
	v := twoOnTwo(t)
	v.Self.Items = quiver
	f := *v.Fight
	f.Monsters = []world.FightMonster{f.Monsters[0]}
	f.Target = 0
	v.Fight = &f
	m, _ := viewModel(t, v, 80, 24)
	if s := m.Text(); !strings.Contains(s, "s shoot") || strings.Contains(s, "t target") || strings.Contains(s, "r run") {
		t.Errorf("the panel offers what the knight cannot do, or not what it can:\n%s", s)
	}
	if p := battlePrompt(v); strings.Contains(p, "target and a number") {
		t.Errorf("one monster standing, the prompt offers a target: %q", p)
	}
}

// The last fight's panel tells its knight to walk on to close it; a spectator or a
// replay's viewer walks no knight, so it is not told so.
func TestOnlyTheKnightIsToldToWalkOnFromItsLastFight(t *testing.T) {
	v := twoOnTwo(t)
	v.LastFight, v.Fight = v.Fight.Log, nil
	m, _ := viewModel(t, v, 80, 24)
	if s := m.Text(); !strings.Contains(s, "Walk on to close this.") {
		t.Fatalf("the knight's last fight:\n%s", s)
	}
	m.screen, m.watch = screenWatch, watching{seen: new(v)}
	if s := m.Text(); !strings.Contains(s, "LAST FIGHT") || strings.Contains(s, "Walk on") {
		t.Fatalf("a spectator's last fight:\n%s", s)
	}
}

// A frame in a battle lays out its panel once (at each height its layout tries), not again
// to draw it: the second layout was half of a battle frame's allocations (113 → 58 at
// 80×24 in BenchmarkRenderFrame80x24/step), and the panel drawn is the one laid out.
func TestABattleFrameLaysOutItsPanelOnce(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 50}, {40, 20}} {
		m, _ := viewModel(t, twoOnTwo(t), size[0], size[1])
		before := m.dun.panels
		whole := m.Text()
		if n := m.dun.panels - before; n != 1 {
			t.Errorf("%dx%d: a frame laid out the battle panel %d times", size[0], size[1], n)
		}
		if !strings.Contains(whole, "FIGHT") {
			t.Fatalf("%dx%d: no battle panel:\n%s", size[0], size[1], whole)
		}
	}
}

// The battle box's title is the widest of its four forms that fits the room, the last
// when none does, made one at a time (it is drawn every frame of a battle).
func TestFightTitleIsTheWidestFormThatFits(t *testing.T) {
	for _, surface := range []bool{false, true} {
		kind := "FIGHT"
		if surface {
			kind = "BATTLE"
		}
		for _, round := range []int{0, 1, 9, 10, 123} {
			r := max(1, round)
			forms := []string{fmt.Sprintf(" %s, ROUND %d ", kind, r), fmt.Sprintf(" %s ROUND %d ", kind, r),
				fmt.Sprintf(" %s, RND %d ", kind, r), fmt.Sprintf(" %s %d ", kind, r)}
			for room := range 30 {
				if got, want := fightTitle(&world.FightView{Round: round, Surface: surface}, room), fit(room, forms...); got != want {
					t.Errorf("fightTitle(round %d, surface %v, room %d) = %q, want %q", round, surface, room, got, want)
				}
			}
		}
	}
	f := &world.FightView{Round: 3}
	if allocs := testing.AllocsPerRun(20, func() { benchTextSink = fightTitle(f, 40) }); allocs > 1 {
		t.Errorf("a battle's title makes %.0f allocations, want 1 at most", allocs)
	}
}

// Beside the battle panel the messages leave out the fight's own lines, with one slice
// made for what is left (a set of the log's lines was made for every layout, two or
// three a frame).
func TestMessagesBesideTheBattleLeaveOutItsLog(t *testing.T) {
	log := []string{"You hit the troll.", "The troll misses you.", "You hit the troll."}
	msgs := world.LogOf([]string{"A troll guards this room!", "Gawain says: at last", "You hit the troll.", "Lis arrives.", "The troll misses you.", "You hit the troll."}, nil)
	if got, want := withoutLines(msgs, log, 3), []string{"A troll guards this room!", "Gawain says: at last", "Lis arrives."}; !slices.Equal(got, want) {
		t.Errorf("withoutLines = %q, want %q", got, want)
	}
	if got := withoutLines(msgs, log, 1); !slices.Equal(got, []string{"Lis arrives."}) {
		t.Errorf("the newest message not in the log is %q", got)
	}
	if allocs := testing.AllocsPerRun(20, func() { _ = withoutLines(msgs, log, 3) }); allocs > 1 {
		t.Errorf("leaving out a battle's lines makes %.0f allocations, want 1", allocs)
	}
}
