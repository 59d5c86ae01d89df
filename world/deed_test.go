package world

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// deedIDs are the ids of the knight's deeds, in the order earned.
func deedIDs(a Adventurer) []string {
	ids := make([]string, len(a.Deeds))
	for i, d := range a.Deeds {
		ids[i] = d.ID
	}
	return ids
}

// mustEarn fails the test unless the knight has earned the deed and was told it once.
func mustEarn(t *testing.T, p *player, id string) {
	t.Helper()
	r, ok := DeedByID(id)
	if !ok {
		t.Fatalf("no deed %q in the table", id)
	}
	if !p.rec.HasDeed(id) {
		t.Fatalf("%s did not earn %q; its deeds %v:\n%s", p.rec.Name, id, deedIDs(p.rec), strings.Join(p.msgs(), "\n"))
	}
	n := 0
	for i, m := range p.msgs() {
		if m == r.Line() {
			n++
			if p.kinds()[i] != MsgDeed {
				t.Fatalf("%q told as kind %d, want MsgDeed", m, p.kinds()[i])
			}
		}
	}
	if n != 1 {
		t.Fatalf("%s was told %q %d times:\n%s", p.rec.Name, r.Line(), n, strings.Join(p.msgs(), "\n"))
	}
}

// The table: ids unique and stable in form, every row with its words; the series cover
// every dungeon level, every monster class and every retirement level; the fortune is the
// dearest ware's price.
func TestDeedTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range DeedTable {
		if r.ID == "" || r.Title == "" || r.Words == "" || seen[r.ID] || strings.ToLower(r.ID) != r.ID || strings.ContainsAny(r.ID, " _") {
			t.Fatalf("row %+v (a repeated or ill-formed id, or no words)", r)
		}
		seen[r.ID] = true
		if got, ok := DeedByID(r.ID); !ok || got != r {
			t.Fatalf("DeedByID(%q) = %+v, %v", r.ID, got, ok)
		}
		if r.Words != strings.TrimRight(r.Words, ".") || strings.Contains(r.Words, "your") {
			t.Fatalf("row %q's words %q do not follow a name", r.ID, r.Words)
		}
		if strings.Contains(r.Said("Kay"), ":") || strings.Contains(r.Line(), ": ") != strings.HasPrefix(r.Line(), "Deed: ") {
			t.Fatalf("row %q is told as %q, %q: a colon would read as a knight speaking", r.ID, r.Said("Kay"), r.Line())
		}
	}
	var want []string
	want = append(want, DeedFirstLevel, DeedDragon, DeedUnscathed, DeedChute, DeedPartyVictory, DeedFortune)
	for d := 1; d <= DefaultDepth; d++ {
		want = append(want, DeedDepth(d))
	}
	for c := range NumMonsterClasses {
		want = append(want, DeedSlew(c))
	}
	for l := 1; l <= RetirementDeedLevels; l++ {
		want = append(want, DeedRetired(l))
	}
	if len(want) != len(DeedTable) {
		t.Fatalf("%d rows, want %d", len(DeedTable), len(want))
	}
	for _, id := range want {
		if !seen[id] {
			t.Fatalf("no row %q", id)
		}
	}
	if DeedSlew(MagicUser) != "slew-magic-user" || DeedRetired(25) != "retired-10" || DeedRetired(0) != "retired-1" {
		t.Fatalf("ids %q %q %q", DeedSlew(MagicUser), DeedRetired(25), DeedRetired(0))
	}
	var rare []string
	for _, r := range DeedTable {
		if r.Rare {
			rare = append(rare, r.ID)
		}
	}
	if w := []string{DeedDepth(DefaultDepth), DeedDragon, "retired-8", "retired-9", "retired-10"}; !slices.Equal(rare, w) {
		t.Fatalf("rare deeds %v, want %v", rare, w)
	}
	dearest := 0
	for _, l := range MarketPrices {
		dearest = max(dearest, l.Price)
	}
	if FortuneGold != dearest {
		t.Fatalf("FortuneGold %d, the dearest ware %d", FortuneGold, dearest)
	}
	if _, ok := MonsterByName(dragonName); !ok {
		t.Fatalf("no monster %q", dragonName)
	}
	r, _ := DeedByID(DeedDragon)
	if r.Line() != "Deed: Dragonslayer — you slew the Dragon." || r.Said("Kay") != "Kay earned a rare deed, Dragonslayer — Kay slew the Dragon." {
		t.Fatalf("the dragon's lines %q, %q", r.Line(), r.Said("Kay"))
	}
}

// Each level of the dungeon, reached by its stairs down, is a deed once; the first by
// joining.
func TestDeedsOfEveryDungeonLevel(t *testing.T) {
	e := newWithLevels(Config{Seed: 5, WanderChance: -1, SafeTurns: 1 << 30}, GenerateDungeon(5, DefaultDepth))
	rec := knight("a", 10)
	rec.Hits, rec.MaxHits = 1<<20, 1<<20
	e.join(rec, &recorder{})
	p := e.players["a"]
	mustEarn(t, p, DeedDepth(1))
	for d := 1; d < DefaultDepth; d++ {
		l := e.levels[d-1]
		p.rec.X, p.rec.Y, p.energy = l.Down.X, l.Down.Y, 0
		do(e, "a", Climb{Down: true})
		if p.rec.Depth != d+1 {
			t.Fatalf("after > on level %d's stairs: on level %d", d, p.rec.Depth)
		}
		mustEarn(t, p, DeedDepth(d+1))
		if len(p.rec.Deeds) != d+1 {
			t.Fatalf("on level %d: deeds %v", d+1, deedIDs(p.rec))
		}
	}
	// Up and down again: earned once.
	l := e.levels[DefaultDepth-1]
	p.rec.X, p.rec.Y, p.energy = l.Up.X, l.Up.Y, 0
	do(e, "a", Climb{})
	l = e.levels[DefaultDepth-2]
	p.rec.X, p.rec.Y, p.energy = l.Down.X, l.Down.Y, 0
	do(e, "a", Climb{Down: true})
	mustEarn(t, p, DeedDepth(DefaultDepth))
	if len(p.rec.Deeds) != DefaultDepth || p.rec.Week.Deeds != DefaultDepth { // the week's board counts each
		t.Fatalf("deeds %v, the week's count %d", deedIDs(p.rec), p.rec.Week.Deeds)
	}
}

// winDuel has knight "a" fight m (brought to hits) until the fight is over.
func winDuel(t *testing.T, e *Engine, p *player) {
	t.Helper()
	stepUntil(t, e, "the knight to win its fight", func() bool {
		if p.fight != nil && len(p.queue) == 0 {
			e.enqueue("a", p.session, Fight{})
		}
		return p.fight == nil
	})
}

// The first monster of each class slain is a deed, once; the Dragon a deed of its own.
func TestDeedsOfTheFirstOfEachClassSlain(t *testing.T) {
	for c := range NumMonsterClasses {
		t.Run(c.String(), func(t *testing.T) {
			i := slices.IndexFunc(Monsters[:], func(k MonsterKind) bool { return k.Class == c })
			e, p, m := duelOf(t, Monsters[i].Name, func(a *Adventurer) { a.Str, a.Dex = 18, 20 })
			m.hits = 1
			winDuel(t, e, p)
			mustEarn(t, p, DeedSlew(c))
			if p.rec.HasDeed(DeedDragon) {
				t.Fatalf("%s is not the dragon", Monsters[i].Name)
			}
			m = fightWith(t, e, p, Monsters[i].Name)
			m.hits = 1
			winDuel(t, e, p)
			mustEarn(t, p, DeedSlew(c)) // told once, after two
		})
	}
	t.Run("dragon", func(t *testing.T) {
		e, p, m := duelOf(t, "Dragon", func(a *Adventurer) { a.Str, a.Dex = 18, 20 })
		m.hits = 1
		winDuel(t, e, p)
		mustEarn(t, p, DeedDragon)
		mustEarn(t, p, DeedSlew(Mythical))
	})
}

// A fight won without a hit lost is a deed; one in which a monster drew blood is not.
func TestDeedOfAFightWonUnscathed(t *testing.T) {
	e, p, m := duelOf(t, "giant rat", func(a *Adventurer) { a.Str, a.Dex = 18, 20 })
	attackUntil(t, e, p.fight, m, "the rat to bite", func() bool { return p.rec.Hits < p.rec.MaxHits })
	m.hits = 1
	winDuel(t, e, p)
	if p.rec.HasDeed(DeedUnscathed) || p.rec.HasDeed(DeedPartyVictory) {
		t.Fatalf("bitten, alone: deeds %v", deedIDs(p.rec))
	}
	m = fightWith(t, e, p, "giant rat")
	m.hits, m.held = 1, true
	winDuel(t, e, p)
	mustEarn(t, p, DeedUnscathed)
}

// A battle won by two heroes is a deed for both; the unscathed deed is each hero's own:
// the one a monster struck does not earn it, the other does.
func TestDeedsOfAPartyVictory(t *testing.T) {
	e := fightEngine(t, nil)
	enc := battleOf(t, e, []string{"a", "b"}, "giant rat")
	m := enc.monsters[0]
	attackUntil(t, e, enc, m, "the rat to bite someone", func() bool { return len(enc.struck) > 0 })
	struck, spared := enc.struck[0], e.players["a"]
	if struck == spared {
		spared = e.players["b"]
	}
	m.hits, m.held = 1, true
	stepUntil(t, e, "the battle to be won", func() bool {
		for _, p := range []*player{struck, spared} {
			if p.fight != nil && len(p.queue) == 0 {
				e.enqueue(p.rec.ID, p.session, Fight{})
			}
		}
		return struck.fight == nil && spared.fight == nil
	})
	mustEarn(t, struck, DeedPartyVictory)
	mustEarn(t, spared, DeedPartyVictory)
	mustEarn(t, spared, DeedUnscathed)
	if struck.rec.HasDeed(DeedUnscathed) {
		t.Fatalf("%s was bitten and is unscathed: %v", struck.rec.Name, deedIDs(struck.rec))
	}
}

// A chute slid down is a deed (and the level it lands on); a pit is no chute.
func TestDeedOfAChute(t *testing.T) {
	for _, f := range []Feature{FeatChute, FeatPit} {
		e := fixtureEngine(t, nil)
		e.levels[0].SetFeature(Pos{1, 0}, f)
		e.join(knight("a", 10), &recorder{})
		do(e, "a", Move{Dir: East})
		p := e.players["a"]
		mustEarn(t, p, DeedDepth(2))
		if f == FeatChute {
			mustEarn(t, p, DeedChute)
		} else if p.rec.HasDeed(DeedChute) {
			t.Fatalf("a fall into a pit: deeds %v", deedIDs(p.rec))
		}
	}
}

// A purse of FortuneGold at a market is a deed: made by a sale there, or brought there.
func TestDeedOfAMarketFortune(t *testing.T) {
	shield := Item{Kind: ItemShield, Plus: 1}
	price, _ := SellPrice(shield)
	e, p, _, _ := atMarket(t, FortuneGold-price-1, shield, shield)
	do(e, "a", Sell{Index: 1})
	if p.rec.HasDeed(DeedFortune) {
		t.Fatalf("a fortune with %d gold", p.rec.Gold)
	}
	do(e, "a", Sell{Index: 1})
	mustEarn(t, p, DeedFortune)

	e = fightEngine(t, nil)
	at, d := findStep(t, e.outside.grid, SurfaceCommon, SurfaceMarket)
	p, _ = outsideKnight(t, e, "a", at)
	p.rec.Gold = FortuneGold
	do(e, "a", Move{Dir: d})
	mustEarn(t, p, DeedFortune)
}

// The first level gained is a deed, at the exit; later ones are not deeds again.
func TestDeedOfTheFirstLevel(t *testing.T) {
	e := fixtureEngine(t, nil)
	rec := knight("a", 10)
	rec.Experience = 2000 // level 2 at 2000 (LevelForExperience)
	e.join(rec, &recorder{})
	p := e.players["a"]
	p.energy = 0
	do(e, "a", Climb{})
	mustEarn(t, p, DeedFirstLevel)
	p.rec.Experience = 8000
	e.place(p, 1, e.levels[0].Up)
	p.energy = 0
	do(e, "a", Climb{})
	mustEarn(t, p, DeedFirstLevel)
}

// Retiring is a deed of the level retired at, kept on the record the hall of fame keeps.
func TestDeedsOfRetirement(t *testing.T) {
	for level := 1; level <= RetirementDeedLevels+2; level++ {
		t.Run(fmt.Sprint(level), func(t *testing.T) {
			saver := &recorder{}
			e := fightEngine(t, saver)
			rec := knight("a", 10)
			rec.Depth, rec.Level = 0, level
			e.join(rec, &recorder{})
			p := e.players["a"]
			do(e, "a", Retire{})
			got := saver.lastSaved("a")
			if got.Retirement == nil || !got.HasDeed(DeedRetired(level)) {
				t.Fatalf("saved %+v, deeds %v", got.Retirement, deedIDs(got))
			}
			mustEarn(t, p, DeedRetired(level))
		})
	}
}

// A rare deed is told to the knights on newbie (the knight itself once, in its own
// words) and to the herald; a guest's rare deed to no one else; a common deed to no one.
func TestRareDeedsAreToldToNewbieAndTheHerald(t *testing.T) {
	for _, guest := range []bool{false, true} {
		t.Run(fmt.Sprint("guest ", guest), func(t *testing.T) {
			e, _ := chatters(t, map[string]where{"a": {1, Pos{0, 0}}, "b": {1, Pos{2, 0}}, "c": {1, Pos{4, 0}}})
			h := &heraldBox{}
			e.cfg.Herald = h
			a, b, c := e.players["a"], e.players["b"], e.players["c"]
			a.rec.Guest, a.rec.Hits, a.rec.MaxHits, a.rec.Str, a.rec.Dex = guest, 1<<20, 1<<20, 18, 20
			c.rec.Channels = map[string]bool{"newbie": false}
			m := fightWith(t, e, a, "Dragon")
			m.hits = 1
			winDuel(t, e, a)
			mustEarn(t, a, DeedDragon)
			r, _ := DeedByID(DeedDragon)
			line := "[newbie] " + r.Said("A")
			heard := slices.Contains(b.msgs(), line)
			if heard == guest || slices.Contains(c.msgs(), line) || slices.Contains(a.msgs(), line) {
				t.Fatalf("b heard it %v, c (off newbie) %v, a %v", heard, slices.Contains(c.msgs(), line), slices.Contains(a.msgs(), line))
			}
			if slices.ContainsFunc(b.msgs(), func(s string) bool { return strings.Contains(s, "Stuff of legend") }) {
				t.Fatal("a common deed was told to others")
			}
			var want []Tiding
			if !guest {
				want = []Tiding{{Kind: TidingDeed, Knight: "A", Level: 1, Experience: a.rec.Experience, Deed: r}}
			}
			if !slices.Equal(h.got, want) {
				t.Fatalf("tidings %+v, want %+v", h.got, want)
			}
		})
	}
}

// TestDeedsMarkdownInDesign keeps docs/DESIGN.md's deeds table in step with DeedTable.
// Run with UPDATE_DEEDS_MD=1 to rewrite it (between its two markers).
func TestDeedsMarkdownInDesign(t *testing.T) {
	const (
		begin = "<!-- BEGIN generated by world.DeedsMarkdown; edit world/deed.go, not this table -->\n"
		end   = "<!-- END generated deeds -->\n"
	)
	path := filepath.Join("..", "docs", "DESIGN.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := DeedsMarkdown()
	if os.Getenv("UPDATE_DEEDS_MD") != "" {
		s := string(doc)
		i, j := strings.Index(s, begin), strings.Index(s, end)
		if i < 0 || j < i {
			t.Fatalf("%s lacks the deeds table's markers", path)
		}
		s = s[:i+len(begin)] + "\n" + md + "\n" + s[j:]
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		doc = []byte(s)
	}
	if !strings.Contains(string(doc), md) {
		t.Errorf("%s's deeds table is out of date; run UPDATE_DEEDS_MD=1 go test ./world -run DeedsMarkdown", path)
	}
}
