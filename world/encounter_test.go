package world

import (
	"maps"
	"strings"
	"testing"
	"time"
)

func TestEnteringAGuardedRoomStartsAFight(t *testing.T) {
	e := fightEngine(t, nil)
	sub := &recorder{}
	e.join(knight("a", 10), sub)
	p := e.players["a"]
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{3, 1}, 0, e.rng)
	do(e, "a", Move{Dir: East})
	do(e, "a", Move{Dir: East, Door: true}) // through the door into the room
	if p.fight == nil || p.fight.monsters[0] != rat {
		t.Fatalf("no fight on entering the guarded room: %q", sub.lastMessage())
	}
	v := e.view(p)
	if v.Fight == nil || !strings.Contains(v.Fight.Log[0], "guards this room") || !v.Fight.InRoom {
		t.Fatalf("fight view: %+v", v.Fight)
	}
	// Seed 000: "If you are in a room, you may not run."
	e.enqueue("a", p.session, Run{})
	stepUntil(t, e, "the run to be refused", func() bool { return strings.Contains(strings.Join(p.msgs(), "\n"), "may not run") })
	if p.fight == nil {
		t.Fatal("ran from a room")
	}
}

// Seed 000's "If you are in a room, you may not run" holds for the room the knight stands
// in, whoever it fights: a wanderer that caught it in the fixture's room 0 is no way out.
func TestNoRunningFromAWandererInARoom(t *testing.T) {
	e := fightEngine(t, nil)
	e.join(knight("a", 10), &recorder{})
	p := e.players["a"]
	e.place(p, 1, Pos{2, 0})
	if e.levels[0].RoomAt(p.rec.Pos()) != 0 {
		t.Fatal("the knight is not in room 0")
	}
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{3, 0}, -1, e.rng)
	e.startFight(p, rat)
	if p.fight == nil || p.fight.inRoom {
		t.Fatal("want a fight with a wanderer, not a guard")
	}
	e.enqueue("a", p.session, Run{})
	stepUntil(t, e, "the run to be refused", func() bool { return strings.Contains(strings.Join(p.msgs(), "\n"), "may not run") })
	if p.fight == nil {
		t.Fatal("ran from a fight in a room")
	}
}

// A strong knight kills a giant rat: the monster leaves the level, its experience is the
// knight's, and the room is clear for the next knight.
func TestWinningAFight(t *testing.T) {
	e := fightEngine(t, nil)
	rec := knight("a", 18)
	rec.Dex, rec.Hits, rec.MaxHits = 18, 500, 500
	e.join(rec, &recorder{})
	p := e.players["a"]
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{2, 0}, 0, e.rng)
	e.place(p, 1, Pos{2, 0})
	e.startFight(p, rat)
	stepUntil(t, e, "the rat to die", func() bool {
		if p.fight != nil && len(p.queue) == 0 {
			e.enqueue("a", p.session, Fight{})
		}
		return p.fight == nil
	})
	// The message log tells the story (issue 14): the blows, the kill, the loot, in order.
	story := strings.Join(p.msgs(), "\n")
	blow, kill, loot := strings.Index(story, "hits the Giant Rat for"), strings.Index(story, "You killed the Giant Rat."), strings.Index(story, "You find ")
	if blow < 0 || kill < blow || loot < kill || !strings.Contains(story, "The Giant Rat is dead!") {
		t.Fatalf("the message log does not tell the fight:\n%s", story)
	}
	// Seed 000: experience from the kill, and from "the treasures the monsters have".
	if p.rec.Experience != rat.Kind().Experience+p.rec.TreasureExperience || p.rec.TreasureExperience == 0 {
		t.Fatalf("experience %d (treasure %d), want the rat's %d plus its hoard", p.rec.Experience, p.rec.TreasureExperience, rat.Kind().Experience)
	}
	// The coins are gold at once; gems and jewelry are carried, to be sold at a market.
	worth := p.rec.Gold
	for _, it := range p.rec.Items {
		worth += it.Value
	}
	if p.rec.Gold == 0 || worth != p.rec.TreasureExperience {
		t.Fatalf("gold %d and valuables make %d, want the hoard's worth %d", p.rec.Gold, worth, p.rec.TreasureExperience)
	}
	if e.roomGuard(1, 0) != nil || len(e.state[0].monsters) != 0 {
		t.Fatal("the dead rat still guards the room")
	}
	if log := strings.Join(p.lastFight, "\n"); !strings.Contains(log, "is dead!") {
		t.Fatalf("log does not say the rat died:\n%s", log)
	}
}

// Orthanc was turn-based: the monster waits for the knight. A knight fighting alone is
// never hurried, however long it takes to choose: ten minutes of turns pass and the ogre
// has not swung, and the knight's view still says it is its move, with no countdown.
func TestALoneKnightIsNeverHurried(t *testing.T) {
	e := fightEngine(t, nil)
	rec := knight("a", 10)
	rec.Dex, rec.Hits, rec.MaxHits = 20, 500, 500 // swings first
	sub := &recorder{}
	e.join(rec, sub)
	p := e.players["a"]
	ogre := e.spawn(1, mustMonster(t, "ogre"), Pos{2, 0}, 0, e.rng)
	e.place(p, 1, Pos{2, 0})
	e.startFight(p, ogre)
	const tenMinutes = 10 * 60 * 40 // turns of 25 ms
	for range tenMinutes {
		e.Step()
	}
	if ogre.acted != 0 || p.rec.Hits != 500 {
		t.Fatalf("the ogre acted %d times while the lone knight was choosing", ogre.acted)
	}
	if strings.Contains(log(ogre.fight), "hesitates") {
		t.Fatal("a lone knight hesitated")
	}
	f := sub.last().Fight
	if f == nil || !f.YourMove || f.GraceLeft != 0 || f.Knights[0].GraceLeft != 0 {
		t.Fatalf("the view after ten minutes: %+v", f)
	}
	do(e, "a", Fight{}) // the choice, when it comes, is the knight's move as ever
	stepUntil(t, e, "the ogre to strike back", func() bool { return ogre.acted > 0 || ogre.fight == nil })
}

// In a battle of several heroes, one who has not chosen holds up the others for the
// battle grace at most, shown to every hero as a countdown; then it hesitates and the
// battle goes on. A screen-reader player's grace is PlainGraceFactor times as long, and
// at least 90 s: with a short grace the 90 s count (long false), with a long one the
// three times (long true).
func TestASilentHeroIsSkippedAfterTheGrace(t *testing.T) {
	for _, c := range []struct{ plain, long bool }{{false, false}, {true, false}, {true, true}} {
		plain := c.plain
		e := fightEngine(t, nil)
		enc := battleOf(t, e, []string{"kay", "bors"}, "ogre")
		kay, bors := e.players["kay"], e.players["bors"]
		bors.rec.Options.Plain = plain
		for _, p := range enc.players {
			p.rec.Hits, p.rec.MaxHits, p.energy = 500, 500, 0
		}
		enc.monsters[0].energy = 0
		grace := e.cfg.GraceTurns
		if plain {
			// A screen-reader player's grace is at least 90 s (TestTimersGiveAScreenReaderPlayerTime
			// checks its rule): at a turn a second, 90 turns and more.
			e.cfg.Tick = time.Second
			if c.long {
				e.cfg.GraceTurns = 40 // 40 s: three times it is past the 90 s
			}
			grace = e.graceOf(bors)
		}
		// Both choose nothing: neither holds up the other, and the battle waits.
		for range 5 * grace {
			e.Step()
		}
		if enc.monsters[0].acted != 0 || strings.Contains(log(enc), "hesitates") {
			t.Fatalf("plain %v: the battle moved on while every hero was choosing:\n%s", plain, log(enc))
		}
		// Kay strikes; Bors now holds Kay up, and its countdown starts.
		do(e, "kay", Fight{})
		stepUntil(t, e, "Kay's blow", func() bool { return len(kay.queue) == 0 && !kay.energy.Ready() })
		e.Step()
		if plain {
			grace = e.graceOf(bors) // what Bors has heard of Kay's blow counts
			if want := max(90, PlainGraceFactor*e.cfg.GraceTurns); grace < want {
				t.Fatalf("a screen-reader player's grace is %d turns of a second, want %d at least", grace, want)
			}
		}
		v := e.view(kay)
		if v.Fight.Knights[1].GraceLeft <= 0 || v.Fight.Knights[1].GraceLeft > grace {
			t.Fatalf("plain %v: Kay sees Bors's countdown as %d of %d", plain, v.Fight.Knights[1].GraceLeft, grace)
		}
		if bv := e.view(bors); !bv.Fight.YourMove || bv.Fight.GraceLeft != bv.Fight.Knights[1].GraceLeft || bv.Fight.GraceTurns != grace {
			t.Fatalf("plain %v: Bors's own view: %+v", plain, bv.Fight)
		}
		// Bors has held Kay up since the turn of Kay's blow and the one after: it hesitates
		// on the turn its grace runs out, exactly.
		waited := 2
		for !strings.Contains(log(enc), bors.rec.Name+" hesitates") {
			e.Step()
			waited++
			if waited > 2*grace {
				t.Fatalf("plain %v: Bors never hesitated", plain)
			}
		}
		if waited != grace {
			t.Fatalf("plain %v: Bors hesitated on the %dth turn it held Kay up, want its grace %d", plain, waited, grace)
		}
	}
}

// Seed 000: "Running is not always successful, and its chances of failure increase each
// time you try to run." In a corridor a knight gets away sooner or later and ends up back
// where it came from.
func TestRunningFromAWanderer(t *testing.T) {
	e, p, bat := runFromARat(t)
	if p.rec.Pos() != (Pos{0, 0}) {
		t.Fatalf("after running the knight is at %v, want back at 0,0", p.rec.Pos())
	}
	if bat.fight != nil || e.monsterAt(1, Pos{1, 0}) != bat {
		t.Fatal("the wanderer did not stay behind")
	}
}

// Seed 000: death is permanent. The knight's last record carries its death and goes to
// the saver (the store writes the tombstone); the session gets the tombstone.
func TestDeathIsFinal(t *testing.T) {
	saver := &recorder{}
	e := fightEngine(t, saver)
	sub := &recorder{}
	rec := knight("a", 3)
	rec.Dex, rec.Hits, rec.MaxHits = 3, 1, 1
	e.join(rec, sub)
	p := e.players["a"]
	priest := e.spawn(1, mustMonster(t, "evil high priest"), Pos{2, 0}, 0, e.rng)
	e.place(p, 1, Pos{2, 0})
	e.startFight(p, priest)
	stepUntil(t, e, "the knight to die", func() bool {
		if p.fight != nil && len(p.queue) == 0 {
			e.enqueue("a", p.session, Fight{})
		}
		return len(e.players) == 0
	})
	last := sub.last()
	if last.Dead == nil || !strings.Contains(last.Dead.Killer, "Evil High Priest") || last.Dead.Depth != 1 {
		t.Fatalf("last view: %+v", last.Dead)
	}
	if got := saver.lastSaved("a"); got.Death == nil || got.Hits != 0 {
		t.Fatalf("saved record has no death: %+v", got)
	}
	if priest.fight != nil {
		t.Fatal("the fight outlived the only knight in it")
	}
	if _, ok := e.leave("a", p.session); ok {
		t.Fatal("a dead knight could still leave the world")
	}
}

// Seed 000: "Level only increases on successful exit from the dungeon. When your level
// increases, spells and hits also increase." and units = (level+1)×2.
func TestSuccessfulExitRaisesTheLevel(t *testing.T) {
	e := fightEngine(t, nil)
	rec := knight("a", 10)
	rec.Experience, rec.Hits, rec.SpellUnits = 33260, 3, 0 // seed 000: 33260 is level 6
	e.join(rec, &recorder{})
	p := e.players["a"]
	do(e, "a", Move{Dir: East}) // walking does not raise the level
	if p.rec.Level != 1 {
		t.Fatal("level rose inside the dungeon")
	}
	do(e, "a", Move{Dir: West})
	do(e, "a", Climb{})
	if p.rec.Depth != 0 || p.rec.Level != 6 {
		t.Fatalf("after the exit: depth %d level %d, want outside at level 6", p.rec.Depth, p.rec.Level)
	}
	if p.rec.SpellUnits != 14 || p.rec.MaxHits < 10+5 || p.rec.Hits != p.rec.MaxHits {
		t.Fatalf("after the exit: spells %d hits %d/%d", p.rec.SpellUnits, p.rec.Hits, p.rec.MaxHits)
	}
}

// Seed 000: "monsters respawn if most are killed on a level".
func TestLevelRestocksWhenMostGuardsAreDead(t *testing.T) {
	e := New(Config{Seed: 1977, Depth: 1})
	st := &e.state[0]
	placed := st.guards
	if placed < 3 || len(st.monsters) != placed {
		t.Fatalf("level 1 has %d guards (%d monsters)", placed, len(st.monsters))
	}
	killed := 0
	for len(st.monsters) > 0 && killed < placed {
		before := len(st.monsters)
		e.removeMonster(st.monsters[0])
		killed++
		if len(st.monsters) >= before {
			break // restocked
		}
	}
	if killed*respawnBelow < placed || len(st.monsters) == 0 {
		t.Fatalf("after %d of %d guards died the level has %d monsters", killed, placed, len(st.monsters))
	}
	if killed > placed-placed/respawnBelow {
		t.Fatalf("restocked only after %d of %d guards died", killed, placed)
	}
}

// Seed 000: "there is a chance that a monster may spontaneously appear!" — on a level with
// a knight on it, wanderers appear over time and move about; on an empty level nothing stirs.
func TestWanderersAppearWhereKnightsAre(t *testing.T) {
	e := New(Config{Seed: 5, Depth: 2})
	wanderers := func(depth int) int {
		n := 0
		for _, m := range e.state[depth-1].monsters {
			if m.room < 0 {
				n++
			}
		}
		return n
	}
	rec := knight("a", 10)
	rec.Hits, rec.MaxHits = 1000, 1000
	e.join(rec, &recorder{})
	for range 40000 {
		e.Step()
	}
	if n := wanderers(1); n == 0 || n > maxWanderers {
		t.Fatalf("%d wanderers on the knight's level after 40000 turns", n)
	}
	if n := wanderers(2); n != 0 {
		t.Fatalf("%d wanderers on a level no knight visited", n)
	}
}

// Seed 000: "You can 'retire'. ... When you retire, you start again with a new adventurer."
// Retiring is done outside the dungeon; the record goes to the saver with its retirement.
func TestRetiring(t *testing.T) {
	saver := &recorder{}
	e := fightEngine(t, saver)
	sub := &recorder{}
	rec := knight("a", 10)
	rec.Experience, rec.TreasureExperience = 4000, 1000
	e.join(rec, sub)
	do(e, "a", Retire{})
	if len(e.players) != 1 || !strings.Contains(sub.lastMessage(), "only outside") {
		t.Fatalf("retired inside the dungeon: %q", sub.lastMessage())
	}
	do(e, "a", Climb{}) // out through the exit: level 3 for 4000 experience
	do(e, "a", Retire{})
	if len(e.players) != 0 {
		t.Fatal("the retired knight is still in the world")
	}
	r := sub.last().Retired
	if r == nil || r.Level != 3 || r.Experience != 4000 || r.PercentKills != 75 {
		t.Fatalf("retirement %+v", r)
	}
	if got := saver.lastSaved("a"); got.Retirement == nil || !got.Ended() {
		t.Fatalf("saved record %+v", got)
	}
}

// Seed 000: a knight with the higher Dexterity "gets first choice" — also when the fight
// starts with its step into a guarded room (the step's time does not hand the monster the
// first blow).
func TestQuickerKnightStrikesFirstInARoom(t *testing.T) {
	e := fightEngine(t, nil)
	rec := knight("a", 10)
	rec.Dex, rec.Hits, rec.MaxHits = 20, 500, 500
	e.join(rec, &recorder{})
	p := e.players["a"]
	e.spawn(1, mustMonster(t, "giant rat"), Pos{3, 1}, 0, e.rng)
	do(e, "a", Move{Dir: East})
	e.enqueue("a", p.session, Move{Dir: East, Door: true})
	for p.fight == nil {
		e.Step()
	}
	for range 5 {
		e.Step()
	}
	if p.fight.monsters[0].acted != 0 || !e.view(p).Fight.YourMove {
		t.Fatalf("the rat acted first (%d attacks) though the knight is quicker", p.fight.monsters[0].acted)
	}
}

// wandererComes joins the knights of heroes (a party when there are two or more) to the
// fight level, walks each to the corridor's dead end at 0,1, and lets a wanderer of the
// named kind, set down at 1,1, take the one step it has: onto them, which starts the
// fight as a wandering monster's step does.
func wandererComes(t *testing.T, name string, heroes ...Adventurer) (*Engine, []*player, *monster) {
	t.Helper()
	e := fightEngine(t, nil)
	var ps []*player
	for _, rec := range heroes {
		e.join(rec, &recorder{})
		ps = append(ps, e.players[rec.ID])
	}
	if len(ps) > 1 {
		var others []string
		for _, p := range ps[1:] {
			others = append(others, p.rec.ID)
		}
		form(t, e, ps[0].rec.ID, others...)
	}
	for _, p := range ps {
		do(e, p.rec.ID, Move{Dir: South}) // acting ends its safe arrival
	}
	m := e.spawn(1, mustMonster(t, name), Pos{1, 1}, -1, e.rng)
	stepUntil(t, e, "the "+name+" to come", func() bool { return m.fight != nil })
	for _, p := range ps {
		if p.fight != m.fight {
			t.Fatalf("%s is not in the fight with the %s", p.rec.Name, name)
		}
	}
	return e, ps, m
}

// The quicker one strikes first, whatever the slower side does first (DESIGN §12, "Who
// swings first"). Seed 000: with Speed "you will have the choice of what you want to do
// first", and without it the knight gets that first choice only when its Dexterity is at
// least the monster's; Dexterity rules "your speed and reactions in fighting and/or
// conjuring". So a slower knight's first move, whichever of the moves the seeds give it
// (a blow, a spell, an arrow, a potion, running), comes after the quicker monster's whole
// first volley. The fights start with a wanderer's step onto the knights, whose time
// once handed them the first move: Samwise's Sleep landed before the Wolf's first bite.
func TestTheQuickerMonsterStrikesBeforeAnyFirstMove(t *testing.T) {
	samwise := func(fp string, items ...Item) Adventurer {
		rec := knight(fp, 10)
		rec.Name = "Samwise " + fp
		rec.Dex, rec.Int, rec.SpellUnits = 8, 18, 4 // slower than the Wolf (12) and the Hippogriff (13)
		rec.Hits, rec.MaxHits = 1000, 1000
		rec.Items = append(rec.Items, items...)
		return rec
	}
	wounded := func(rec Adventurer) Adventurer { rec.Hits = 900; return rec }
	for _, c := range []struct {
		what    string
		monster string
		heroes  []Adventurer
		first   Command
		line    string // how the knight's first move begins in the battle's log, after its name
	}{
		{"a blow", "wolf", []Adventurer{samwise("a")}, Fight{}, ""},
		{"Sleep", "wolf", []Adventurer{samwise("a")}, Cast{Spell: SpellSleep}, "casts Sleep"},
		{"Magic Missile", "wolf", []Adventurer{samwise("a")}, Cast{Spell: SpellMagicMissile}, "casts Magic Missile"},
		{"an arrow", "hippogriff", []Adventurer{samwise("a", Item{Kind: ItemQuiver, Count: 3})}, Shoot{}, "shoots"},
		{"a potion", "wolf", []Adventurer{wounded(samwise("a", Item{Kind: ItemPotionHealing}))}, UseItem{Index: 1}, "drinks"},
		{"running", "wolf", []Adventurer{samwise("a")}, Run{}, ""},
		{"a party's blows", "hippogriff", []Adventurer{samwise("a"), samwise("b")}, Fight{}, ""},
		{"a party's Sleep", "hippogriff", []Adventurer{samwise("a"), samwise("b")}, Cast{Spell: SpellSleep}, "casts Sleep"},
	} {
		t.Run(c.what, func(t *testing.T) {
			e, ps, m := wandererComes(t, c.monster, c.heroes...)
			enc := m.fight
			k := m.Kind()
			for _, p := range ps {
				if v := e.view(p); v.Fight == nil || v.Fight.YourMove {
					t.Fatalf("%s is told it is its move before the %s has struck:\n%s", p.rec.Name, k.Name, log(enc))
				}
				e.enqueue(p.rec.ID, p.session, c.first) // at once, as a player who presses its key on seeing the fight
			}
			moved := func() bool {
				for _, p := range ps {
					if len(p.queue) > 0 {
						return false
					}
				}
				return true
			}
			stepUntil(t, e, "the knights' first moves", moved)
			volley, firstMove := -1, -1
			attacks := 0
			for i, l := range enc.log {
				for _, p := range ps {
					if strings.HasPrefix(l, p.rec.Name+" "+c.line) && !strings.HasPrefix(l, p.rec.Name+" is ") && firstMove < 0 {
						firstMove = i
					}
				}
				if strings.HasPrefix(l, "The "+k.Name+" ") && !strings.HasPrefix(l, "The "+k.Name+" is quicker") {
					if attacks++; attacks == k.AttacksPerRound {
						volley = i
					}
				}
			}
			if !strings.Contains(log(enc), "The "+k.Name+" is quicker than "+ps[0].rec.Name+"!") {
				t.Fatalf("the battle's opening does not say the %s is quicker:\n%s", k.Name, log(enc))
			}
			if firstMove < 0 || volley < 0 || volley > firstMove {
				t.Fatalf("the knights' first move (line %d) came before the %s's first volley of %d attacks (line %d):\n%s",
					firstMove, k.Name, k.AttacksPerRound, volley, log(enc))
			}
		})
	}
}

// A charmed, held or sleeping monster lets a knight walk away, even from a room.
func TestWalkingAwayFromAHeldMonster(t *testing.T) {
	e := fightEngine(t, nil)
	e.join(knight("a", 10), &recorder{})
	p := e.players["a"]
	do(e, "a", Move{Dir: East})
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{2, 0}, 0, e.rng)
	e.place(p, 1, Pos{2, 0})
	p.prev = Pos{1, 0}
	e.startFight(p, rat)
	rat.held = true
	e.enqueue("a", p.session, Run{})
	stepUntil(t, e, "the knight to walk away", func() bool { return p.fight == nil })
	if p.rec.Pos() != (Pos{1, 0}) {
		t.Fatalf("at %v after walking away", p.rec.Pos())
	}
}

// Spells that last a number of moves also run out in a fight: each action counts.
// Seed 000, Invisibility: "You are safe from attack ... Lasts 36 turns." Cast in a fight
// with an Ogre, it lasts the cast and 35 blows more, and until then the Ogre swings
// wildly and never hurts the knight; after it, the Ogre finds the knight again.
func TestInvisibilityRunsOutInAFight(t *testing.T) {
	e := fightEngine(t, nil)
	rec := knight("a", 10)
	rec.Hits, rec.MaxHits, rec.Int, rec.SpellUnits = 5000, 5000, 18, 8
	e.join(rec, &recorder{})
	p := e.players["a"]
	ogre := e.spawn(1, mustMonster(t, "ogre"), Pos{0, 0}, -1, e.rng)
	ogre.hits = 1 << 20
	e.startFight(p, ogre)
	p.energy = 0
	do(e, "a", Cast{Spell: SpellInvisibility})
	if !p.has(SpellInvisibility) {
		t.Fatal("Invisibility did not take")
	}
	blows, wild := 0, 0
	for p.has(SpellInvisibility) {
		battleLines(t, e, p, 1, fight, func(l string) {
			switch {
			case strings.HasPrefix(l, "Kay a "):
				blows++
			case strings.Contains(l, "swings wildly but cannot find Kay a"):
				wild++
			}
		})
		if p.rec.Hits != 5000 {
			t.Fatalf("an invisible knight was hurt: %d hits", p.rec.Hits)
		}
	}
	if blows != 35 || wild == 0 {
		t.Fatalf("Invisibility lasted the cast and %d blows (want 35); the Ogre swung wildly %d times", blows, wild)
	}
	stepUntil(t, e, "the Ogre to find the knight", func() bool {
		if len(p.queue) == 0 {
			e.enqueue("a", p.session, Fight{})
		}
		return strings.Contains(log(p.fight), "The Ogre hits Kay a") || strings.Contains(log(p.fight), "The Ogre misses Kay a")
	})
}

// Seed 003: "The exceptions are dropping an item ..., which take 50% of a turn"; a knight
// keeps one sword, and trying to drop it costs nothing.
func TestDropping(t *testing.T) {
	e, p, sub := inventoryEngine(t, Item{Kind: ItemArmour, Plus: 1})
	do(e, "a", Drop{Index: 0})
	if len(p.rec.Items) != 2 || !strings.Contains(sub.lastMessage(), "keeps at least one sword") || p.energy != 0 {
		t.Fatalf("dropping the only sword: items %+v, energy %v", p.rec.Items, p.energy)
	}
	if got := costOf(t, e, "a", Drop{Index: 1}); got != 50 || len(p.rec.Items) != 1 || p.rec.Items[0].Kind != ItemSword {
		t.Fatalf("dropping the armour cost %v%% of a round, want 50%%; items %+v", got, p.rec.Items)
	}
}

// Who swings first against several monsters (DESIGN §12): a hero swings first when seed
// 000 says it would against the quickest monster ("If you don't have 'speed' on, but
// your dexterity is greater than or equal to the monster's dexterity, then you get first
// choice"), and a monster swings first when some hero is slower than it. Kay (Dex 12) and
// Bors (Dex 9) meet a Giant Rat (Dex 10) and a Killer Bee (Dex 14): the bee is quicker
// than both, the rat than Bors only, so on the first turn both monsters strike and
// neither hero; with Speed, Kay strikes first whatever their Dexterity.
func TestWhoSwingsFirstAgainstSeveralMonsters(t *testing.T) {
	for _, speed := range []bool{false, true} {
		e := fightEngine(t, nil)
		var heroes []*player
		for _, h := range []struct {
			fp  string
			dex int
		}{{"kay", 12}, {"bors", 9}} {
			rec := knight(h.fp, 10)
			rec.Dex, rec.Hits, rec.MaxHits, rec.SpellUnits = h.dex, 1000, 1000, 2
			e.join(rec, &recorder{})
			p := e.players[h.fp]
			e.place(p, 1, Pos{1, 0})
			heroes = append(heroes, p)
		}
		kay := heroes[0]
		if speed {
			do(e, "kay", Cast{Spell: SpellSpeed})
		}
		rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{1, 0}, -1, e.rng)
		bee := e.spawn(1, mustMonster(t, "killer bee"), Pos{1, 0}, -1, e.rng)
		e.startBattle(heroes, []*monster{bee, rat}, false) // the quickest first: each monster counts
		enc := kay.fight
		for _, p := range heroes {
			e.enqueue(p.rec.ID, p.session, Fight{})
		}
		n := len(enc.log)
		e.Step()
		first := map[string]bool{}
		for _, l := range enc.log[n:] {
			for _, who := range []string{"Kay kay ", "Kay bors ", "The Giant Rat ", "The Killer Bee "} {
				if strings.HasPrefix(l, who) {
					first[strings.TrimSpace(who)] = true
				}
			}
		}
		want := map[string]bool{"The Giant Rat": true, "The Killer Bee": true}
		if speed {
			want["Kay kay"] = true
		}
		if !maps.Equal(first, want) {
			t.Fatalf("speed %v: on the first turn %v acted, want %v:\n%s", speed, first, want, log(enc))
		}
		if strings.Contains(log(enc), "Kay bors is quicker") || strings.Contains(log(enc), "Kay kay is quicker") != speed {
			t.Fatalf("speed %v: the battle's opening says\n%s", speed, log(enc))
		}
	}
}

// Seed 000, ring of invisibility: "You are safe from attack", and DESIGN §12 "When a fight
// starts": an invisible knight is not noticed. Invisible, a knight walks into a guarded
// room and about it without a fight, told the guard cannot see it; with the ring off,
// its next step in the room starts the fight.
func TestAnInvisibleKnightEntersAGuardedRoomUnnoticed(t *testing.T) {
	e, p, sub := inventoryEngine(t, Item{Kind: ItemRingOfInvisibility, Worn: true})
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{3, 1}, 0, e.rng)
	do(e, "a", Move{Dir: East})
	if strings.Contains(said(e, "a"), "cannot see you") {
		t.Fatalf("in the corridor, with no guard, the knight was told a guard cannot see it:\n%s", said(e, "a"))
	}
	do(e, "a", Move{Dir: East, Door: true})
	if p.rec.Pos() != (Pos{2, 0}) || p.fight != nil || !strings.Contains(sub.lastMessage(), "cannot see you") {
		t.Fatalf("an invisible knight entering the room: at %v, fighting %v, told %q", p.rec.Pos(), p.fight != nil, sub.lastMessage())
	}
	for _, d := range []Dir{South, East, North, West} {
		do(e, "a", Move{Dir: d})
		if p.fight != nil {
			t.Fatalf("the guard noticed the invisible knight at %v", p.rec.Pos())
		}
	}
	do(e, "a", UseItem{Index: 1})
	do(e, "a", Move{Dir: East})
	if p.fight == nil || rat.fight != p.fight {
		t.Fatal("with the ring off the guard did not notice the knight stepping about its room")
	}
}

// A hero's countdown (DESIGN §12, "How long a battle waits") refreshes every hero's panel
// graceSteps (30) times over the grace, not on every turn: with a grace of 300 turns, Kay,
// waiting for Bors, is sent 29 views before Bors hesitates (after 10, 20, ... 290 turns;
// the first came with Kay's own blow) and one when it does.
func TestTheCountdownRefreshesThirtyTimes(t *testing.T) {
	l, err := ParseASCII(1, fightLevel)
	if err != nil {
		t.Fatal(err)
	}
	e := newWithLevels(Config{Seed: 3, GraceTurns: 300, WanderChance: -1, ActiveRefreshTurns: 1}, []*Level{l})
	e.state[0].monsters, e.state[0].guards = nil, 0
	enc := battleOf(t, e, []string{"kay", "bors"}, "ogre")
	kay, bors := e.players["kay"], e.players["bors"]
	for _, p := range enc.players {
		p.rec.Hits, p.rec.MaxHits, p.energy = 500, 500, 0
	}
	enc.monsters[0].energy = 0
	do(e, "kay", Fight{})
	views := kay.sub.(*recorder)
	n := len(views.views)
	for !strings.Contains(log(enc), bors.rec.Name+" hesitates") {
		e.Step()
		if e.turn > 1000 {
			t.Fatal("Bors never hesitated")
		}
	}
	if got := len(views.views) - n; got != 30 {
		t.Fatalf("Kay was sent %d views while Bors's grace ran, want 29 and one for the hesitation", got)
	}
}

// Issue 29: a screen-reader player's grace in a battle of several heroes is at least 90 s,
// and at least the time to hear what it was told since its last move at 150 words a minute
// plus a minute; a sighted hero's is the server's grace. Each is checked by the turn the
// hero hesitates on, at the default tick.
func TestAScreenReaderPlayersGraceFollowsItsRule(t *testing.T) {
	turns := func(d time.Duration) int { return int((d + DefaultTick - 1) / DefaultTick) }
	long := strings.TrimSpace(strings.Repeat("word ", 300)) // two minutes to hear at 150 a minute
	for _, c := range []struct {
		name  string
		plain bool
		told  string
	}{{"sighted", false, long}, {"a short round", true, ""}, {"a long round", true, long}} {
		e := fightEngine(t, nil)
		var heroes []*player
		for _, fp := range []string{"kay", "bors"} {
			rec := knight(fp, 12)
			rec.Hits, rec.MaxHits = 500, 500
			rec.Options.Plain = fp == "bors" && c.plain
			e.join(rec, &recorder{})
			heroes = append(heroes, e.players[fp])
			e.place(heroes[len(heroes)-1], 1, Pos{1, 1})
		}
		kay, bors := heroes[0], heroes[1]
		before := len(bors.msgs())
		e.startBattle(heroes, []*monster{e.spawn(1, mustMonster(t, "ogre"), Pos{1, 1}, -1, e.rng)}, false)
		enc := kay.fight
		enc.monsters[0].energy = 0
		kay.energy, bors.energy = 0, 0
		do(e, "kay", Fight{})
		stepUntil(t, e, "Kay's blow", func() bool { return len(kay.queue) == 0 && !kay.energy.Ready() })
		if c.told != "" {
			e.say(bors, c.told)
		}
		heard := 0
		for _, l := range bors.msgs()[before:] {
			heard += len(strings.Fields(l))
		}
		want := e.cfg.GraceTurns
		if c.plain {
			want = max(turns(90*time.Second), turns(time.Duration(heard)*time.Minute/150+time.Minute))
		}
		if c.name == "a long round" && want <= turns(90*time.Second) {
			t.Fatalf("%s: %d words heard make a grace of %d turns, no longer than 90 s", c.name, heard, want)
		}
		if got := e.view(bors).Fight.GraceTurns; got != want {
			t.Fatalf("%s: %d words heard, a grace of %d turns, want %d", c.name, heard, got, want)
		}
		waited := 1 // the turn of Kay's blow
		for !strings.Contains(log(enc), bors.rec.Name+" hesitates") {
			e.Step()
			if waited++; waited > 2*want {
				t.Fatalf("%s: Bors never hesitated", c.name)
			}
		}
		if waited != want {
			t.Fatalf("%s: Bors hesitated on the %dth turn it held Kay up, want %d", c.name, waited, want)
		}
	}
}
