package world

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Seed 002: "If a monster's attack lowers a hero's HP to 0, that hero will faint.
// Fainted heroes cannot take actions for the remainder of the battle." and, when the
// party wins, the fainted are revived with 1 hit (DESIGN §6).
func TestAFaintedHeroIsRevivedWhenThePartyWins(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a", "b"}, "giant rat")
	a, b := e.players["a"], e.players["b"]
	rat := enc.monsters[0]
	a.rec.Hits = 1
	attackUntil(t, e, enc, rat, "Kay a to faint", func() bool {
		if rat.fight == nil {
			t.Fatal("the battle ended before the rat felled anyone")
		}
		rat.hits = 1000 // the rat cannot die yet
		b.rec.Hits = b.rec.MaxHits
		return a.fainted
	})
	if a.rec.Hits != 0 || a.rec.Death != nil || a.fight != enc {
		t.Fatalf("fainted hero: hits %d, death %v, still in the battle %v", a.rec.Hits, a.rec.Death, a.fight == enc)
	}
	if !strings.Contains(log(enc), "Kay a faints!") {
		t.Fatalf("the log does not say the hero fainted:\n%s", log(enc))
	}
	// A fainted hero takes no actions: its commands do nothing and the battle does not
	// wait for it.
	a.energy = 0
	e.enqueue("a", a.session, Fight{})
	if v := e.view(a); v.Fight.YourMove || !v.Fight.Knights[0].Fainted {
		t.Fatalf("fainted hero's view: %+v", v.Fight)
	}
	// The monsters turn only on the standing: over many attacks b is always the target.
	for range 200 {
		b.rec.Hits = b.rec.MaxHits
		e.monsterAttack(enc, rat)
	}
	if a.rec.Hits != 0 {
		t.Fatal("a monster attacked a fainted hero")
	}
	rat.hits = 1
	b.energy = 0
	b.queue = nil
	b.rec.Dex = 30 // sure to hit
	stepUntil(t, e, "the rat to die", func() bool {
		if b.fight != nil && len(b.queue) == 0 {
			e.enqueue("b", b.session, Fight{})
		}
		return b.fight == nil
	})
	if a.rec.Hits != 1 || a.fainted || a.fight != nil || a.rec.Death != nil {
		t.Fatalf("after the victory the fainted hero has %d hits (fainted %v)", a.rec.Hits, a.fainted)
	}
	if !strings.Contains(strings.Join(a.lastFight, "\n"), "Kay a comes to, with 1 hit.") {
		t.Fatalf("the log does not say the hero came to:\n%s", strings.Join(a.lastFight, "\n"))
	}
}

// Seed 002: "If the monsters win the fight, the game is over": when the last standing
// hero falls it dies as seed 000 says, and the fainted die with it.
func TestWhenTheLastHeroFallsThePartyDies(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a", "b"}, "ogre")
	a, b := e.players["a"], e.players["b"]
	ogre := enc.monsters[0]
	a.fainted, a.rec.Hits = true, 0
	b.rec.Hits = 1
	attackUntil(t, e, enc, ogre, "the last hero to fall", func() bool { return e.players["b"] == nil })
	if b.rec.Death == nil || a.rec.Death == nil || e.players["a"] != nil {
		t.Fatalf("deaths: standing %v, fainted %v", b.rec.Death, a.rec.Death)
	}
	if a.rec.Death.Killer != "an Ogre" || !enc.over || len(e.fights) != 0 {
		t.Fatalf("killer %q, battle over %v, fights %d", a.rec.Death.Killer, enc.over, len(e.fights))
	}
}

// A hero alone falls as Orthanc says: slain, not fainted.
func TestAHeroAloneDies(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a"}, "ogre")
	a := e.players["a"]
	a.rec.Hits = 1
	attackUntil(t, e, enc, enc.monsters[0], "the hero to fall", func() bool { return e.players["a"] == nil })
	if a.rec.Death == nil || a.fainted {
		t.Fatalf("death %v, fainted %v", a.rec.Death, a.fainted)
	}
}

// Seed 002: "At the end of each round (after the monsters' turn), heroes that have not
// fainted regain some of their HP and mana." RoundHits a round, a spell unit every
// SpellRoundEvery rounds, never above the maximum; the fainted regain nothing.
func TestStandingHeroesRecoverAtTheEndOfEachRound(t *testing.T) {
	for _, c := range []struct{ max, want int }{{5, 1}, {13, 1}, {20, 1}, {95, 4}, {400, 20}} {
		if got := RoundHits(c.max); got != c.want {
			t.Errorf("RoundHits(%d) = %d, want %d", c.max, got, c.want)
		}
	}
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a", "b"}, "giant rat")
	a, b := e.players["a"], e.players["b"]
	a.rec.Hits, a.rec.SpellUnits = 10, 0
	b.rec.Hits, b.fainted = 0, true
	for r := 1; r <= SpellRoundEvery; r++ {
		e.endRound(enc)
		if want := min(40, 10+r*RoundHits(40)); a.rec.Hits != want {
			t.Fatalf("round %d: standing hero has %d hits, want %d", r, a.rec.Hits, want)
		}
	}
	if a.rec.SpellUnits != 1 || b.rec.Hits != 0 || b.rec.SpellUnits != 4 {
		t.Fatalf("after %d rounds: spell units %d; fainted hero hits %d, units %d", SpellRoundEvery, a.rec.SpellUnits, b.rec.Hits, b.rec.SpellUnits)
	}
	a.rec.Hits, a.rec.SpellUnits = 40, SpellUnitsForLevel(a.rec.Level)
	for range 3 * SpellRoundEvery {
		e.endRound(enc)
	}
	if a.rec.Hits != 40 || a.rec.SpellUnits != SpellUnitsForLevel(a.rec.Level) {
		t.Fatalf("recovery passed the maximum: %d hits, %d units", a.rec.Hits, a.rec.SpellUnits)
	}
	// In one battle a hero recovers at most half its hits and half its units: a knight
	// that cannot hit, in a room with a monster that cannot outpace its recovery, would
	// otherwise fight for ever.
	a.recovered, a.unitsRecovered = 0, 0
	a.rec.Hits, a.rec.SpellUnits = 1, 0
	for range 50 * SpellRoundEvery {
		e.endRound(enc)
	}
	if a.rec.Hits != 1+RecoveryCap(40) || a.rec.SpellUnits != RecoveryCap(SpellUnitsForLevel(a.rec.Level)) {
		t.Fatalf("after many rounds: %d hits (want %d), %d units (want %d)", a.rec.Hits, 1+RecoveryCap(40),
			a.rec.SpellUnits, RecoveryCap(SpellUnitsForLevel(a.rec.Level)))
	}
	// Rounds come from the battle's clock: TurnsPerRound turns in which nobody chooses.
	enc.rounds = 0
	for range 3 * TurnsPerRound {
		a.energy, b.energy = 100, 100
		for _, m := range enc.monsters {
			m.hits, m.energy = 1000, 100
		}
		e.Step()
	}
	if enc.rounds != 3 {
		t.Fatalf("%d rounds in %d turns", enc.rounds, 3*TurnsPerRound)
	}
}

// Dodging (seed 002), ruled as 2% a point of Dexterity above 10 for heroes and monsters.
func TestDodgePercent(t *testing.T) {
	for _, c := range []struct{ dex, want int }{{3, 0}, {10, 0}, {11, 2}, {15, 10}, {18, 16}, {25, 30}} {
		if got := DodgePercent(c.dex); got != c.want {
			t.Errorf("DodgePercent(%d) = %d, want %d", c.dex, got, c.want)
		}
	}
	e := fightEngine(t, nil)
	const n = 200000
	dodged := 0
	for range n {
		if e.dodges(18) {
			dodged++
		}
	}
	if got := float64(dodged) / n; math.Abs(got-0.16) > 0.005 {
		t.Fatalf("Dex 18 dodged %.4f of %d tries, want 0.16", got, n)
	}
}

// Monsters choose their targets among the standing heroes, evenly.
func TestMonstersChooseAmongTheStandingHeroes(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a", "b", "c"}, "giant rat")
	rat := enc.monsters[0]
	e.players["c"].fainted = true
	e.players["c"].rec.Hits = 1000
	hit := map[string]int{}
	for range 30000 {
		for _, p := range enc.players {
			p.rec.Hits = 1000
		}
		e.monsterAttack(enc, rat)
		for _, p := range enc.players {
			if p.rec.Hits < 1000 {
				hit[p.rec.ID]++
			}
		}
	}
	if hit["c"] != 0 || hit["a"] == 0 || hit["b"] == 0 {
		t.Fatalf("hits taken: %v", hit)
	}
	if r := float64(hit["a"]) / float64(hit["b"]); r < 0.9 || r > 1.1 {
		t.Fatalf("targets are uneven: %v", hit)
	}
}

// Seed 002: choosing or looking never consumes the turn. Target names the monster the
// blows go at, takes effect at once, and the battle still waits for the knight.
func TestTargetTakesNoTime(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a"}, "giant rat", "kobold")
	a := e.players["a"]
	a.energy = 0
	before := a.energy
	e.enqueue("a", a.session, Target{Index: 1})
	if a.target != enc.monsters[1] || a.energy != before || len(a.queue) != 0 {
		t.Fatalf("target %v, energy %v → %v, queue %d", a.target, before, a.energy, len(a.queue))
	}
	if v := e.view(a); v.Fight.Target != 1 || v.Fight.Foe().Name != "Kobold" || len(v.Fight.Monsters) != 2 {
		t.Fatalf("view: target %d, monsters %+v", v.Fight.Target, v.Fight.Monsters)
	} else if !v.Fight.YourMove || !v.Fight.Knights[0].Choosing || v.Fight.GraceTurns != e.cfg.GraceTurns {
		t.Fatalf("the battle waits for the knight, but its view says %+v", v.Fight)
	}
	e.enqueue("a", a.session, Target{Index: 7})
	if !strings.Contains(strings.Join(a.msgs(), "\n"), "not in the fight") || a.target != enc.monsters[1] {
		t.Fatal("a target out of range was not refused")
	}
	// A blow goes at the target; once it is dead the next standing monster is the target.
	kobold := enc.monsters[1]
	kobold.hits = 1
	a.rec.Dex = 40
	stepUntil(t, e, "the kobold to die", func() bool {
		if a.fight != nil && len(a.queue) == 0 {
			e.enqueue("a", a.session, Fight{})
		}
		return kobold.fight == nil
	})
	if enc.monsters[0].hits != enc.monsters[0].maxHits || a.fight != enc {
		t.Fatal("the blow hit the rat, or the battle ended with the rat standing")
	}
	if v := e.view(a); v.Fight.Target != 0 || !v.Fight.Monsters[1].Dead {
		t.Fatalf("after the kobold died: target %d, monsters %+v", v.Fight.Target, v.Fight.Monsters)
	}
}

// Sharing (DESIGN §12): each kill's experience is split equally among the heroes of the
// battle, fainted ones included; a guard's coins too, while its gems, jewelry and magic
// item go to the hero who struck the last blow.
func TestExperienceAndTreasureAreSplit(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a", "b"}, "ogre")
	a, b := e.players["a"], e.players["b"]
	ogre := enc.monsters[0]
	b.fainted, b.rec.Hits = true, 0
	e.takeTreasure(enc, a, Treasure{Lines: []string{"101 gold pieces", "a gem worth 400"}, Value: 501, Coins: 101,
		Valuables: []Item{{Kind: ItemGem, Value: 400}}})
	if a.rec.Gold != 50 || b.rec.Gold != 50 || a.rec.TreasureExperience != 250 || b.rec.TreasureExperience != 250 {
		t.Fatalf("gold %d/%d, treasure experience %d/%d", a.rec.Gold, b.rec.Gold, a.rec.TreasureExperience, b.rec.TreasureExperience)
	}
	if len(a.rec.Items) != 2 || a.rec.Items[1].Kind != ItemGem || a.rec.Items[1].Value != 400 || len(b.rec.Items) != 1 {
		t.Fatalf("items: a %v, b %v", a.rec.Items, b.rec.Items)
	}
	xa, xb := a.rec.Experience, b.rec.Experience
	ogre.room = -1 // no hoard this time
	e.monsterKilled(enc, ogre, a)
	share := ogre.Kind().Experience / 2
	if a.rec.Experience-xa != share || b.rec.Experience-xb != share {
		t.Fatalf("experience gained %d and %d, want %d each", a.rec.Experience-xa, b.rec.Experience-xb, share)
	}
	// Each is told who struck the blow (issue 29: "You killed" when a partner had).
	if !strings.Contains(said(e, "a"), "You killed the Ogre.") || !strings.Contains(said(e, "b"), a.rec.Name+" killed the Ogre.") {
		t.Errorf("the killer told:\n%s\nthe partner told:\n%s", said(e, "a"), said(e, "b"))
	}
	if b.rec.Hits != 1 || a.fight != nil || b.fight != nil {
		t.Fatal("the battle did not end with the fainted hero revived")
	}
}

// Seed 002's party fights together: a member who steps into a battle under way joins it;
// a knight outside the party is turned back and told how to ask. Members standing with
// the knight who meets a monster are in the battle from the start.
func TestAPartyMemberJoinsAFightUnderWay(t *testing.T) {
	e := fightEngine(t, nil)
	for _, fp := range []string{"a", "b", "c", "d"} {
		rec := knight(fp, 12)
		rec.Hits, rec.MaxHits = 500, 500
		e.join(rec, &recorder{})
		e.place(e.players[fp], 1, Pos{1, 0})
	}
	form(t, e, "a", "b", "d")
	a, b, c, d := e.players["a"], e.players["b"], e.players["c"], e.players["d"]
	e.place(d, 1, Pos{0, 0}) // d stays behind
	// A wanderer comes onto the square where a and b stand: both are in the battle.
	bat := e.spawn(1, mustMonster(t, "giant rat"), Pos{1, 0}, -1, e.rng)
	e.startFight(a, bat)
	if a.fight == nil || b.fight != a.fight || len(a.fight.players) != 2 || c.fight != nil {
		t.Fatalf("the party on the square did not meet the wanderer together: a %v, b %v, c %v", a.fight, b.fight, c.fight)
	}
	e.endFight(a.fight)
	e.removeMonster(bat)
	// a opens the guarded room; b, then the stranger c, then d follow it in.
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{3, 1}, 0, e.rng)
	rat.hits = 1000
	a.energy = 0
	do(e, "a", Move{Dir: East, Door: true})
	b.energy = 0
	do(e, "b", Move{Dir: East, Door: true})
	if a.fight == nil || b.fight != a.fight || len(a.fight.players) != 2 {
		t.Fatalf("the party member did not join the guard's battle: a %v, b %v", a.fight, b.fight)
	}
	enc := a.fight
	c.energy = 0
	e.enqueue("c", c.session, Move{Dir: East, Door: true})
	stepUntil(t, e, "the stranger to try the room", func() bool { return len(c.queue) == 0 })
	if c.fight != nil || c.rec.Pos() != (Pos{1, 0}) || !strings.Contains(said(e, "c"), "/ask Kay a") {
		t.Fatalf("the stranger: fight %v, at %v, told:\n%s", c.fight, c.rec.Pos(), said(e, "c"))
	}
	do(e, "d", Move{Dir: East})
	d.energy = 0
	e.enqueue("d", d.session, Move{Dir: East, Door: true})
	stepUntil(t, e, "the member to step in", func() bool { return len(d.queue) == 0 })
	if d.fight != enc || len(enc.players) != 3 || !strings.Contains(log(enc), "Kay b joins the fight!") || !strings.Contains(log(enc), "Kay d joins the fight!") {
		t.Fatalf("the party member did not join the battle: %v\n%s", d.fight, log(enc))
	}
}

// A fainted hero saved mid-battle (a checkpoint, a shutdown) is saved as it would leave
// the battle: with 1 hit, never as a living knight with none.
func TestAFaintedHeroIsSavedWithOneHit(t *testing.T) {
	saver := &recorder{}
	e := fightEngine(t, saver)
	enc := battleOf(t, e, []string{"a", "b"}, "ogre")
	a := e.players["a"]
	a.fainted, a.rec.Hits = true, 0
	e.saveNow(a)
	if got := saver.lastSaved("a"); got.Hits != 1 || got.Death != nil {
		t.Fatalf("saved a fainted hero with %d hits (death %v)", got.Hits, got.Death)
	}
	if a.rec.Hits != 0 || !a.fainted || a.fight != enc {
		t.Fatal("saving changed the live battle")
	}
}

// Seed 002: "The heroes move first in each round." A hero and a monster ready in the
// same turn: the hero's blow is in the log before the monster's attack.
func TestHeroesMoveFirstInARound(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a"}, "ogre")
	a, ogre := e.players["a"], enc.monsters[0]
	ogre.hits = 1000
	a.energy, ogre.energy = 0, 0
	n := len(enc.log)
	e.enqueue("a", a.session, Fight{})
	e.Step()
	lines := enc.log[n:]
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "Kay a ") || !strings.HasPrefix(lines[1], "The Ogre ") {
		t.Fatalf("the turn's log: %q", lines)
	}
}

// actorsOf says which of names ("Kay a", "The Giant Rat") begin a line of lines: who
// acted.
func actorsOf(lines []string, names ...string) map[string]bool {
	out := map[string]bool{}
	for _, l := range lines {
		for _, n := range names {
			if strings.HasPrefix(l, n+" ") {
				out[n] = true
			}
		}
	}
	return out
}

// Seed 000's first swing, then the other side: the side that does not swing first has
// half a turn of debt (TurnEnergy/2), so it acts on the second turn of the battle. Kay (Dex
// 12) strikes a Giant Rat (Dex 10) on the first turn and the rat strikes on the second;
// against Bors (Dex 9) the rat strikes first and Bors on the second turn.
func TestTheOtherSideActsOnTheSecondTurn(t *testing.T) {
	for _, c := range []struct {
		fp         string
		dex        int
		first, sec string
	}{{"a", 12, "Kay a", "The Giant Rat"}, {"b", 9, "The Giant Rat", "Kay b"}} {
		e := fightEngine(t, nil)
		rec := knight(c.fp, 10)
		rec.Dex, rec.Hits, rec.MaxHits = c.dex, 1000, 1000
		e.join(rec, &recorder{})
		p := e.players[c.fp]
		rat := fightWith(t, e, p, "giant rat")
		rat.hits = 1000
		enc := p.fight
		var turns []map[string]bool
		for range 2 {
			n := len(enc.log)
			if len(p.queue) == 0 {
				e.enqueue(c.fp, p.session, Fight{})
			}
			e.Step()
			turns = append(turns, actorsOf(enc.log[n:], c.first, c.sec))
		}
		if !turns[0][c.first] || turns[0][c.sec] || !turns[1][c.sec] || turns[1][c.first] {
			t.Fatalf("Dex %d against a Giant Rat: turn 1 %v, turn 2 %v; want %s, then %s", c.dex, turns[0], turns[1], c.first, c.sec)
		}
	}
}

// A party member who steps into a battle under way joins it with half a turn of debt
// (TurnEnergy/2): with every hero ready with a command, it acts on the second turn of the
// battle's clock after it joined, one after the heroes already in it.
func TestAJoinerActsHalfATurnLater(t *testing.T) {
	e := fightEngine(t, nil)
	for _, fp := range []string{"a", "b"} {
		rec := knight(fp, 12)
		rec.Level, rec.Hits, rec.MaxHits = 28, 1000, 1000 // ten blows a round: ready every turn
		e.join(rec, &recorder{})
		e.place(e.players[fp], 1, Pos{1, 0})
	}
	form(t, e, "a", "b")
	a, b := e.players["a"], e.players["b"]
	rat := e.spawn(1, mustMonster(t, "giant rat"), Pos{3, 1}, 0, e.rng)
	rat.hits = 1 << 20
	a.energy = 0
	do(e, "a", Move{Dir: East, Door: true})
	b.energy = 0
	do(e, "b", Move{Dir: East, Door: true})
	if b.fight != a.fight || b.energy != Energy(TurnEnergy/2) {
		t.Fatalf("Kay b joined with energy %v (fighting %v), want half a turn", b.energy, b.fight != nil)
	}
	enc := a.fight
	var acted []map[string]bool
	for range 2 {
		for _, p := range []*player{a, b} {
			if len(p.queue) == 0 {
				e.enqueue(p.rec.ID, p.session, Fight{})
			}
		}
		n := len(enc.log)
		e.Step()
		acted = append(acted, actorsOf(enc.log[n:], "Kay a", "Kay b"))
	}
	if !acted[0]["Kay a"] || acted[0]["Kay b"] || !acted[1]["Kay b"] {
		t.Fatalf("the turns after Kay b joined: %v, then %v; want Kay a alone, then Kay b", acted[0], acted[1])
	}
}

// Seed 002: the monsters attack the heroes, and a hero's statistics can be looked at
// without spending the turn: a Target beyond the battle's monsters is refused.
func TestATargetMustBeInTheBattle(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a"}, "giant rat", "kobold")
	a := e.players["a"]
	for _, i := range []int{-1, len(enc.monsters)} {
		e.enqueue("a", a.session, Target{Index: i})
		if lastMsg(a) != "That monster is not in the fight." || a.target == enc.monsters[1] {
			t.Fatalf("Target %d: %q", i, lastMsg(a))
		}
	}
	// The first monster and the last may be chosen.
	for _, i := range []int{1, 0} {
		e.enqueue("a", a.session, Target{Index: i})
		if e.targetOf(a, enc) != enc.monsters[i] {
			t.Fatalf("Target %d: the target is %v", i, e.targetOf(a, enc).Kind().Name)
		}
	}
}

// RecoveryCap: half, rounded up.
func TestRecoveryCap(t *testing.T) {
	for _, c := range []struct{ max, want int }{{40, 20}, {41, 21}, {5, 3}, {4, 2}, {1, 1}} {
		if got := RecoveryCap(c.max); got != c.want {
			t.Errorf("RecoveryCap(%d) = %d, want %d", c.max, got, c.want)
		}
	}
}

// A blow or a missile that leaves a monster with no hits kills it: over many fights with
// a monster of 2 hits, every blow and every Magic Missile of exactly 2 is a kill.
func TestABlowThatLeavesNoHitsKills(t *testing.T) {
	for _, spell := range []bool{false, true} {
		e := fightEngine(t, nil)
		rec := knight("a", 10)
		rec.Dex, rec.Int, rec.Hits, rec.MaxHits = 60, 40, 1000, 1000
		e.join(rec, &recorder{})
		p := e.players["a"]
		exact := 0
		for i := 0; exact < 10; i++ {
			if i > 5000 {
				t.Fatalf("spell %v: no blow of exactly 2 in 5000 fights", spell)
			}
			rat := fightWith(t, e, p, "giant rat")
			rat.hits = 2
			p.energy, p.rec.SpellUnits = 0, 10
			var cmd Command = Fight{}
			if spell {
				cmd = Cast{Spell: SpellMagicMissile}
			}
			said := p.said
			do(e, "a", cmd)
			if l := strings.Join(saidSince(p, said), "\n"); strings.Contains(l, " for 2.") {
				exact++
				if rat.fight != nil || e.alive(rat) || !strings.Contains(l, "The Giant Rat is dead!") {
					t.Fatalf("spell %v: a monster left with 0 hits lives on:\n%s", spell, l)
				}
			}
			if p.fight != nil {
				e.leaveFight(p)
			}
			if e.alive(rat) {
				e.removeMonster(rat)
			}
		}
	}
}

// A knight runs from a surface battle: it stays on its square, out of the battle (DESIGN
// §12, "Surface battles").
func TestRunningFromASurfaceBattle(t *testing.T) {
	e := fightEngine(t, nil)
	at := e.outside.grid.Entrance
	p, _ := outsideKnight(t, e, "a", at)
	p.rec.Hits, p.rec.MaxHits = 1000, 1000
	foes := e.ambush([]*player{p}, at)
	foes[0].hits = 1000
	for p.fight != nil {
		p.energy = 0
		do(e, "a", Run{})
	}
	if p.rec.Depth != 0 || p.rec.Pos() != at {
		t.Fatalf("after running from a surface battle: depth %d at %v", p.rec.Depth, p.rec.Pos())
	}
}

// A hoard's lines (DESIGN §12, "Splitting the spoils"): alone, the knight is told what the
// hoard brought it; in a party, its share.
func TestTheHoardIsTold(t *testing.T) {
	tr := Treasure{Lines: []string{"101 gold pieces", "a gem worth 400"}, Value: 501, Coins: 101}
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a"}, "ogre")
	e.takeTreasure(enc, e.players["a"], tr)
	if got := lastMsg(e.players["a"]); got != "You find 101 gold pieces, a gem worth 400. (+501 experience, +101 gold)" {
		t.Fatalf("alone: %q", got)
	}
	e = fightEngine(t, nil)
	enc = battleOf(t, e, []string{"a", "b"}, "ogre")
	e.takeTreasure(enc, e.players["a"], tr)
	if got := lastMsg(e.players["b"]); got != "You find 101 gold pieces, a gem worth 400. Your share is worth 250 experience and 50 gold." {
		t.Fatalf("in a party: %q", got)
	}
}

// Seed 000: arrows of slaying are "found in a quiver, you can have up to 31 arrows at one
// time": arrows found go into the quiver the knight has, up to 31.
func TestArrowsFoundGoIntoTheQuiver(t *testing.T) {
	e, p, _ := inventoryEngine(t, Item{Kind: ItemQuiver, Count: 20})
	e.gain(p, Item{Kind: ItemQuiver, Count: 5})
	if len(p.rec.Items) != 2 || p.rec.Items[1].Count != 25 || lastMsg(p) != "You find arrows of mythical slaying; your quiver holds 25." {
		t.Fatalf("after finding 5 more arrows: %+v, %q", p.rec.Items, lastMsg(p))
	}
	e.gain(p, Item{Kind: ItemQuiver, Count: 20})
	if len(p.rec.Items) != 2 || p.rec.Items[1].Count != MaxArrows {
		t.Fatalf("after finding 20 more: %+v, want one quiver of 31", p.rec.Items)
	}
	e, p, _ = inventoryEngine(t)
	e.gain(p, Item{Kind: ItemQuiver, Count: 40})
	if len(p.rec.Items) != 2 || p.rec.Items[1].Count != MaxArrows {
		t.Fatalf("a first quiver of 40: %+v", p.rec.Items)
	}
}

// Pray "Lasts one full combat"; a spell counted in moves goes on after the fight.
func TestOnlyPrayEndsWithTheFight(t *testing.T) {
	e, p, _ := caster(t, 10)
	do(e, "a", Cast{Spell: SpellProtection})
	rat := fightWith(t, e, p, "giant rat")
	rat.hits = 1000
	p.energy = 0
	do(e, "a", Cast{Spell: SpellPray})
	e.leaveFight(p)
	if p.has(SpellPray) || !p.has(SpellProtection) {
		t.Fatalf("after the fight: effects %v, want Protection on and Pray gone", p.rec.Effects)
	}
	e.removeMonster(rat)
	rat = fightWith(t, e, p, "giant rat")
	rat.hits = 1
	p.energy = 0
	do(e, "a", Cast{Spell: SpellPray})
	p.rec.Dex = 60
	for p.fight != nil {
		p.energy = 0
		do(e, "a", Fight{})
	}
	if p.has(SpellPray) || !p.has(SpellProtection) {
		t.Fatalf("after winning: effects %v, want Protection on and Pray gone", p.rec.Effects)
	}
}

// A fainted hero carried out of a battle (its connection dropped) comes to with 1 hit; a
// slain one does not.
func TestAFaintedHeroCarriedOutComesTo(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a", "b"}, "ogre")
	a := e.players["a"]
	a.fainted, a.rec.Hits = true, 0
	rec, ok := e.leave("a", a.session)
	if !ok || rec.Hits != 1 || a.rec.Hits != 1 || len(enc.players) != 1 {
		t.Fatalf("carried out: saved with %d hits, live %d, %d heroes left", rec.Hits, a.rec.Hits, len(enc.players))
	}
}

// The battle panel says where the battle is and which round it is in.
func TestTheFightViewSaysWhereAndWhen(t *testing.T) {
	e := fightEngine(t, nil)
	battleOf(t, e, []string{"a"}, "ogre")
	a := e.players["a"]
	if v := e.view(a).Fight; v.Surface || v.Round != 1 || v.InRoom {
		t.Fatalf("a corridor battle's view: surface %v, round %d, in a room %v", v.Surface, v.Round, v.InRoom)
	}
	e = fightEngine(t, nil)
	at := e.outside.grid.Entrance
	p, _ := outsideKnight(t, e, "a", at)
	e.ambush([]*player{p}, at)
	p.fight.rounds = 2
	if v := e.view(p).Fight; !v.Surface || v.Round != 3 {
		t.Fatalf("a surface battle's view in its third round: surface %v, round %d", v.Surface, v.Round)
	}
}

// The battle panel's target is a standing monster while one stands, and none (-1) once
// none does, as the battle ends.
func TestTheFightViewsTargetIsAStandingMonster(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a"}, "ogre")
	a := e.players["a"]
	if v := e.view(a).Fight; v.Target != 0 {
		t.Fatalf("the target with the ogre standing: %d, want 0", v.Target)
	}
	enc.gone[0], enc.monsters[0].fight = true, nil // slain, on the turn before the battle ends
	if v := e.view(a).Fight; v.Target != -1 {
		t.Fatalf("the target with no monster standing: %d, want -1", v.Target)
	}
}

// A battle's log keeps its last maxFightLog (40) lines.
func TestTheBattleLogKeepsItsLastFortyLines(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a"}, "ogre")
	for i := range 50 {
		enc.logf("line %d", i)
	}
	if len(enc.log) != maxFightLog || enc.log[0] != "line 10" || enc.log[maxFightLog-1] != "line 49" {
		t.Fatalf("the log keeps %d lines, from %q to %q; want 40, line 10 to line 49", len(enc.log), enc.log[0], enc.log[len(enc.log)-1])
	}
}

// A knight that gets away steps back to the square it came from (DESIGN §12, "Running"):
// through the door it came by, out of a dead end.
func TestRunningBackThroughADoor(t *testing.T) {
	l, err := ParseASCII(1, `
+-+-+
|ED |
+-+-+`)
	if err != nil {
		t.Fatal(err)
	}
	e := newWithLevels(Config{Seed: 3, WanderChance: -1}, []*Level{l})
	rec := knight("a", 10)
	rec.Hits, rec.MaxHits = 1000, 1000
	e.join(rec, &recorder{})
	p := e.players["a"]
	do(e, "a", Move{Dir: East, Door: true})
	rat := fightWith(t, e, p, "giant rat")
	rat.hits = 1000
	for p.fight != nil {
		p.energy = 0
		do(e, "a", Run{})
	}
	if p.rec.Pos() != (Pos{0, 0}) {
		t.Fatalf("after running from the dead end the knight is at %v, want back through the door at 0,0", p.rec.Pos())
	}
}

// A blow that takes a hero's last hits fells it: a knight of 2 hits alone against a
// Giant Ant (1d4) is slain whenever the ant hits it for 2 or more.
func TestAMonstersBlowThatTakesTheLastHitsFells(t *testing.T) {
	slain := 0
	for seed := uint64(0); slain < 10; seed++ {
		if seed > 3000 {
			t.Fatal("no blow of exactly 2 in 3000 fights")
		}
		e := fightEngine(t, nil)
		e.rng = rand.New(rand.NewPCG(seed, 12))
		rec := knight("a", 10)
		rec.Dex, rec.Hits, rec.MaxHits = 3, 2, 2 // the ant (Dex 8) strikes first
		e.join(rec, &recorder{})
		p := e.players["a"]
		ant := fightWith(t, e, p, "giant ant")
		ant.hits = 1000
		for range 3 * TurnsPerRound {
			if p.fight == nil {
				break
			}
			if len(p.queue) == 0 {
				e.enqueue("a", p.session, Fight{})
			}
			e.Step()
		}
		if strings.Contains(strings.Join(p.msgs(), "\n"), "The Giant Ant hits Kay a for 2.") {
			if _, alive := e.players["a"]; alive || p.rec.Death == nil {
				t.Fatalf("a knight hit for its last 2 hits lives on with %d:\n%s", p.rec.Hits, strings.Join(p.msgs(), "\n"))
			}
			slain++
		}
	}
}

// Ruling (issue 31): no fight is farmed. Seed 002's recovery comes "after the monsters'
// turn"; a round in which no monster could strike the hero (every one asleep, charmed or
// held, or the hero invisible) recovers nothing. A knight puts a Giant Rat to sleep and
// strikes it for 30 rounds without killing it: its hits and spell units stay as they were.
// Woken (the spell undone), the rat fights back and the rounds recover again.
func TestASleepingMonsterGivesNoFreeRounds(t *testing.T) {
	e, p, m := duelOf(t, "giant rat", func(r *Adventurer) {
		r.Int, r.Hits, r.MaxHits, r.SpellUnits = 18, 10, 100, 1
	})
	do(e, "a", Cast{Spell: SpellSleep})
	if !m.held {
		t.Fatalf("Sleep did not take: %s", log(p.fight))
	}
	enc := p.fight
	start := enc.rounds
	battleLines(t, e, p, 30*TurnsPerRound, fight, func(string) {})
	if enc.rounds-start < 10 {
		t.Fatalf("only %d rounds went by", enc.rounds-start)
	}
	if p.rec.Hits != 10 || p.rec.SpellUnits != 0 {
		t.Fatalf("after %d rounds at a sleeping rat: %d hits (had 10), %d spell units (had 0)", enc.rounds-start, p.rec.Hits, p.rec.SpellUnits)
	}
	// Invisible, the knight is safe from attack: no recovery either.
	m.held = false
	p.addEffect(SpellInvisibility)
	p.rec.Effects[len(p.rec.Effects)-1].Moves = 1 << 20
	start = enc.rounds
	battleLines(t, e, p, 10*TurnsPerRound, fight, func(string) {})
	if p.rec.Hits != 10 || enc.rounds-start < 3 {
		t.Fatalf("after %d rounds invisible: %d hits (had 10)", enc.rounds-start, p.rec.Hits)
	}
	// A rat that can bite: the rounds recover again (it bites a knight of 10 hits for at
	// most 1d3 now and then; the recovery is 5 a round).
	p.rec.Effects = nil
	start = enc.rounds
	battleLines(t, e, p, 5*TurnsPerRound, fight, func(string) {})
	if p.rec.Hits <= 10 || enc.rounds == start {
		t.Fatalf("after %d rounds awake: %d hits, want more than 10", enc.rounds-start, p.rec.Hits)
	}
}

// Seed 002: "Fainted heroes cannot take actions for the remainder of the battle." A
// fainted hero's commands are refused (it is told), never carried out, not even when it
// comes to after the battle is won; and it never holds up the others: Kay fights on and
// the Ogre's turns come as Kay's alone would bring them, with no one hesitating.
func TestAFaintedHerosCommandsAreRefused(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a", "b"}, "ogre")
	a, b := e.players["a"], e.players["b"]
	ogre := enc.monsters[0]
	a.rec.Hits, a.rec.MaxHits, ogre.hits = 1<<20, 1<<20, 1<<20
	b.rec.Hits, b.fainted = 0, true
	at := b.rec.Pos()
	acted := ogre.acted
	for range 20 * TurnsPerRound {
		if len(a.queue) == 0 {
			e.enqueue("a", a.session, Fight{})
		}
		if len(b.queue) == 0 {
			e.enqueue("b", b.session, Move{Dir: West})
			e.enqueue("b", b.session, Fight{})
		}
		e.Step()
		if len(b.queue) != 0 {
			t.Fatalf("a fainted hero's commands wait in its queue: %v", b.queue)
		}
	}
	if strings.Contains(log(enc), "hesitates") || strings.Contains(log(enc), b.rec.Name+" hits") || strings.Contains(log(enc), b.rec.Name+" misses") {
		t.Fatalf("the fainted hero acted or held the battle up:\n%s", log(enc))
	}
	if ogre.acted-acted < 15 {
		t.Fatalf("the Ogre struck %d times in 20 rounds: the battle waited", ogre.acted-acted)
	}
	if !strings.Contains(said(e, "b"), "You have fainted: you can do nothing until the battle is over.") {
		t.Fatalf("the fainted hero was not told:\n%s", said(e, "b"))
	}
	// Its last command, sent in the turn the battle is won, is dropped too.
	ogre.hits = 1
	stepUntil(t, e, "the battle won", func() bool {
		if len(a.queue) == 0 && a.fight != nil {
			e.enqueue("a", a.session, Fight{})
		}
		if a.energy.Ready() && len(b.queue) == 0 && b.fight != nil {
			e.enqueue("b", b.session, Move{Dir: West})
		}
		return a.fight == nil
	})
	for range 5 * TurnsPerRound {
		e.Step()
	}
	if b.rec.Hits != 1 || b.rec.Pos() != at || len(b.queue) != 0 {
		t.Fatalf("after the battle the fainted hero has %d hits, stands at %v (was %v), queue %v", b.rec.Hits, b.rec.Pos(), at, b.queue)
	}
}
