package world

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// levelsOf groups the monster table by level for the tests below.
func levelsOf(t *testing.T) [MaxMonsterLevel][]*MonsterKind {
	t.Helper()
	var by [MaxMonsterLevel][]*MonsterKind
	for i := range Monsters {
		k := &Monsters[i]
		if k.Level < 1 || k.Level > MaxMonsterLevel {
			t.Fatalf("%s: level %d outside 1..%d", k.Name, k.Level, MaxMonsterLevel)
		}
		by[k.Level-1] = append(by[k.Level-1], k)
	}
	return by
}

func TestMonsterTableShape(t *testing.T) {
	if len(Monsters) < 60 {
		t.Errorf("%d monsters, want at least 60", len(Monsters))
	}
	by := levelsOf(t)
	for l, ks := range by {
		if len(ks) < 3 {
			t.Errorf("monster level %d has %d monsters, want at least 3 so PickMonster has a choice", l+1, len(ks))
		}
	}
	// Seed 000: "Eight classes of monsters reside in the dungeon". Each must appear, and at
	// several levels so that no class is a one-off.
	var levels [NumMonsterClasses]map[int]bool
	for _, k := range Monsters {
		if k.Class >= NumMonsterClasses {
			t.Fatalf("%s: class %d is not one of the eight", k.Name, k.Class)
		}
		if levels[k.Class] == nil {
			levels[k.Class] = map[int]bool{}
		}
		levels[k.Class][k.Level] = true
	}
	for c := range NumMonsterClasses {
		if len(levels[c]) < 4 {
			t.Errorf("class %s appears at %d levels, want at least 4", c, len(levels[c]))
		}
	}
}

func TestMonsterBounds(t *testing.T) {
	for _, k := range Monsters {
		if k.Name == "" || strings.TrimSpace(k.Name) != k.Name || strings.ContainsAny(k.Name, "|`") {
			t.Errorf("%q: a name must be non-empty, trimmed and free of Markdown table characters", k.Name)
		}
		for what, d := range map[string]Dice{"hit": k.HitDice, "attack": k.AttackDice} {
			if d.N < 1 || d.N > 20 || d.Sides < 2 || d.Sides > 100 {
				t.Errorf("%s: %s dice %s out of bounds", k.Name, what, d)
			}
		}
		// Dex is on a knight's 3d6 scale, and the monster hits on a roll "greater than 6"
		// (seed 000), so a die of six sides or fewer could never hit: 7 is the floor.
		if k.Dex < 7 || k.Dex > 20 {
			t.Errorf("%s: Dex %d outside 7..20", k.Name, k.Dex)
		}
		if k.Speed < -10 || k.Speed > 30 {
			t.Errorf("%s: speed %d outside -10..+30", k.Name, k.Speed)
		}
		if k.AttacksPerRound < 1 || k.AttacksPerRound > 4 {
			t.Errorf("%s: %d attacks per round, want 1..4", k.Name, k.AttacksPerRound)
		}
		l2 := k.Level * k.Level
		if k.Experience < 20*l2 || k.Experience > 60*l2 {
			t.Errorf("%s: experience %d outside level² × 20..60 = %d..%d", k.Name, k.Experience, 20*l2, 60*l2)
		}
	}
}

func TestMonsterNamesAndGlyphsUnique(t *testing.T) {
	names, glyphs := map[string]string{}, map[string]string{}
	for _, k := range Monsters {
		if prev, dup := names[strings.ToLower(k.Name)]; dup {
			t.Errorf("name %q used twice (%s)", k.Name, prev)
		}
		names[strings.ToLower(k.Name)] = k.Name
		// Exactly two bytes, each printable ASCII and not a space, so the glyph is exactly
		// two terminal columns and can always be seen. '|' and '`' would break the
		// Markdown tables. Glyphs differing only in case would be too easy to misread.
		if len(k.Glyph) != 2 {
			t.Errorf("%s: glyph %q is not two characters", k.Name, k.Glyph)
		}
		for i := range len(k.Glyph) {
			if c := k.Glyph[i]; c <= ' ' || c > '~' || c == '|' || c == '`' {
				t.Errorf("%s: glyph %q has %q, not a visible ASCII character", k.Name, k.Glyph, c)
			}
		}
		if prev, dup := glyphs[strings.ToLower(k.Glyph)]; dup {
			t.Errorf("%s: glyph %q already used by %s", k.Name, k.Glyph, prev)
		}
		glyphs[strings.ToLower(k.Glyph)] = k.Name
	}
}

func TestNamedMonsters(t *testing.T) {
	mustFind := func(name string) *MonsterKind {
		t.Helper()
		id, ok := MonsterByName(name)
		if !ok {
			t.Fatalf("%s is missing", name)
		}
		return id.Kind()
	}
	// The brief's great Mythicals live mostly at monster levels 9 and 10.
	deep := 0
	great := []string{"Balrog", "Dragon", "Griffin", "Lammasu", "Purple Worm", "Umber Hulk", "Wyvern"}
	for _, name := range great {
		k := mustFind(name)
		if k.Class != Mythical {
			t.Errorf("%s is %s, want Mythical", name, k.Class)
		}
		if k.Level >= 9 {
			deep++
		}
		if k.Level < 7 {
			t.Errorf("%s is level %d; a great Mythical should not be met so shallow", name, k.Level)
		}
	}
	if deep*2 <= len(great) {
		t.Errorf("only %d of %d great Mythicals are at levels 9–10", deep, len(great))
	}
	if k := mustFind("Evil High Priest"); k.Class != MagicUser || k.Level != 10 {
		t.Errorf("Evil High Priest is a level-%d %s, want a level-10 Magic User", k.Level, k.Class)
	}
	if k := mustFind("the Programmer"); k.Level != 10 {
		t.Errorf("the Programmer is level %d, want 10", k.Level)
	}
	for class, names := range map[MonsterClass][]string{
		Insect:    {"Giant Ant", "Killer Bee", "Giant Spider"},
		Man:       {"Bandit", "Berserker", "Assassin"},
		Goblin:    {"Kobold", "Goblin", "Orc", "Hobgoblin", "Ogre", "Troll"},
		Animal:    {"Giant Rat", "Wolf", "Cave Bear"},
		Undead:    {"Skeleton", "Zombie", "Ghoul", "Wight", "Wraith", "Vampire", "Lich"},
		MagicUser: {"Apprentice", "Illusionist", "Sorcerer", "Necromancer"},
		Animated:  {"Animated Armour", "Gargoyle", "Iron Golem"},
	} {
		for _, name := range names {
			if k := mustFind(name); k.Class != class {
				t.Errorf("%s is %s, want %s", name, k.Class, class)
			}
		}
	}
}

func TestMonsterByNameAndKind(t *testing.T) {
	for i := range Monsters {
		id := MonsterID(i)
		for _, name := range []string{Monsters[i].Name, strings.ToUpper(Monsters[i].Name), " the " + strings.ToLower(Monsters[i].Name) + " "} {
			if got, ok := MonsterByName(name); !ok || got != id {
				t.Errorf("MonsterByName(%q) = %d, %v; want %d", name, got, ok, id)
			}
		}
		if id.Kind() != &Monsters[i] {
			t.Errorf("MonsterID(%d).Kind() is not Monsters[%d]", i, i)
		}
	}
	for _, name := range []string{"", "the", "Tarrasque", "dragonn"} {
		if _, ok := MonsterByName(name); ok {
			t.Errorf("MonsterByName(%q) found a monster", name)
		}
	}
	if k := MonsterID(len(Monsters)).Kind(); k != nil {
		t.Errorf("an ID past the table has kind %q", k.Name)
	}
}

// TestMonstersGrowWithLevel checks that, level by level, the average monster is harder to
// kill, hits harder and is worth more, and that Mythicals and Magic Users are worth the
// most at their level.
func TestMonstersGrowWithLevel(t *testing.T) {
	by := levelsOf(t)
	avg := func(d Dice) float64 { return float64(d.N) * float64(d.Sides+1) / 2 }
	var prevHits, prevAttack, prevExp float64
	for l, ks := range by {
		var hits, attack, exp float64
		for _, k := range ks {
			hits += avg(k.HitDice)
			attack += avg(k.AttackDice) * float64(k.AttacksPerRound)
			exp += float64(k.Experience)
		}
		n := float64(len(ks))
		hits, attack, exp = hits/n, attack/n, exp/n
		t.Logf("level %2d: %2d monsters, mean hits %5.1f, mean attack/round %5.1f, mean experience %6.0f", l+1, len(ks), hits, attack, exp)
		if l > 0 && (hits <= prevHits || attack <= prevAttack || exp <= prevExp) {
			t.Errorf("level %d does not outgrow level %d: hits %.1f/%.1f, attack %.1f/%.1f, experience %.0f/%.0f",
				l+1, l, hits, prevHits, attack, prevAttack, exp, prevExp)
		}
		prevHits, prevAttack, prevExp = hits, attack, exp
		top, rest := 1<<30, 0
		for _, k := range ks {
			if k.Class == Mythical || k.Class == MagicUser {
				top = min(top, k.Experience)
			} else {
				rest = max(rest, k.Experience)
			}
		}
		if top < rest {
			t.Errorf("level %d: a Mythical or Magic User is worth %d, less than another class's %d", l+1, top, rest)
		}
	}
}

// Seed 000 warns that its table's "columns might not add to exactly 100 percent due to
// rounding". Ours do, so PickMonster's single d100 roll matches the table exactly.
func TestMonsterLevelOdds(t *testing.T) {
	prevMean := 0.0
	for d, row := range MonsterLevelOdds {
		sum, mean := 0, 0.0
		for m, pct := range row {
			if pct < 0 {
				t.Errorf("dungeon level %d, monster level %d: negative chance %d", d+1, m+1, pct)
			}
			sum += pct
			mean += float64((m+1)*pct) / 100
		}
		if sum != 100 {
			t.Errorf("dungeon level %d: chances sum to %d, want 100", d+1, sum)
		}
		if mean <= prevMean {
			t.Errorf("dungeon level %d: mean monster level %.2f is not above the level above's %.2f", d+1, mean, prevMean)
		}
		prevMean = mean
	}
	if shallow := MonsterLevelOdds[0][0] + MonsterLevelOdds[0][1]; shallow < 75 {
		t.Errorf("dungeon level 1 meets monster levels 1–2 only %d%% of the time", shallow)
	}
	if deep := MonsterLevelOdds[9][7] + MonsterLevelOdds[9][8] + MonsterLevelOdds[9][9]; deep < 75 {
		t.Errorf("dungeon level 10 meets monster levels 8–10 only %d%% of the time", deep)
	}
}

func TestPickMonsterMatchesOdds(t *testing.T) {
	const draws = 100_000
	by := levelsOf(t)
	for depth := 1; depth <= MaxMonsterLevel; depth++ {
		r := rand.New(rand.NewPCG(uint64(depth), 0x6d6f6e73))
		var levelCount [MaxMonsterLevel]int
		kindCount := map[MonsterID]int{}
		for range draws {
			id := PickMonster(r, depth)
			k := id.Kind()
			if k == nil {
				t.Fatalf("depth %d: PickMonster returned %d, outside the table", depth, id)
			}
			levelCount[k.Level-1]++
			kindCount[id]++
		}
		for m, n := range levelCount {
			got := 100 * float64(n) / draws
			want := float64(MonsterLevelOdds[depth-1][m])
			if got < want-1 || got > want+1 {
				t.Errorf("depth %d, monster level %d: %.2f%% of draws, want %.0f%% ± 1", depth, m+1, got, want)
			}
			if want == 0 && n != 0 {
				t.Errorf("depth %d: met %d monsters of level %d, which has no chance there", depth, n, m+1)
			}
			// Within a level every monster is equally likely: each gets its share
			// within 25% once the level is drawn at least 5000 times.
			if n >= 5000 {
				share := float64(n) / float64(len(by[m]))
				for i := range Monsters {
					if Monsters[i].Level == m+1 {
						if c := float64(kindCount[MonsterID(i)]); c < share*0.75 || c > share*1.25 {
							t.Errorf("depth %d: %s drawn %.0f times, want about %.0f", depth, Monsters[i].Name, c, share)
						}
					}
				}
			}
		}
	}
}

func TestPickMonsterDeterministic(t *testing.T) {
	picks := func(seed uint64, depth int) []MonsterID {
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		out := make([]MonsterID, 200)
		for i := range out {
			out[i] = PickMonster(r, depth)
		}
		return out
	}
	for depth := 1; depth <= MaxMonsterLevel; depth++ {
		a, b := picks(42, depth), picks(42, depth)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("depth %d: same seed, different pick %d: %d vs %d", depth, i, a[i], b[i])
			}
		}
	}
	// Depths beyond the table use its nearest row.
	for _, tc := range []struct{ depth, as int }{{0, 1}, {-5, 1}, {11, 10}, {1000, 10}} {
		a, b := picks(7, tc.depth), picks(7, tc.as)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("depth %d does not pick as depth %d", tc.depth, tc.as)
			}
		}
	}
}

// duel fights one first-level knight against one monster under seed 000's rules, with
// turns taken as the engine takes them (seed 003's energy: the knight spends a blow's
// cost, the monster makes all its attacks of a round at once and spends the round). No spells, no running, a plain sword and no
// armour: the worst case a new knight walks into. It reports whether the knight won.
func duel(r *rand.Rand, k *MonsterKind) bool {
	s := RollStats(r)
	hits := StartHits(r, s.Con)
	mhits := max(1, k.HitDice.Roll(r))
	var pe, me Energy
	if SwingsFirst(false, s.Dex, k.Dex) {
		me = Energy(TurnEnergy / 2)
	} else {
		pe = Energy(TurnEnergy / 2)
	}
	acted := 0
	for range 100_000 {
		if pe.Ready() {
			if PlayerHits(r, s.Dex, false, k.Class) {
				if mhits -= PlayerDamage(r, 1, 0, s.Str); mhits <= 0 {
					return true
				}
			}
			pe.Spend(BlowCost(Blows(s.Dex, 1)))
		}
		if me.Ready() {
			for range k.AttacksPerRound { // seed 003: its attacks "at the same time"
				first := acted < k.AttacksPerRound
				acted++
				if MonsterHits(r, k.Dex, false, k.Class) {
					if hits -= MonsterDamage(r, k.AttackDice, k.Class, first, 0, 0); hits <= 0 {
						return false
					}
				}
			}
			me.Spend(monsterVolleyCost)
		}
		pe.EndTurn(false)
		me.EndTurn(false)
	}
	return false // a fight nobody can win (neither side can hit) counts as a loss
}

// TestFirstLevelKnight checks the design note in docs/MONSTERS.md: a first-level knight
// beats most level-1 monsters and dies to most monsters of level 4 and up. It is a coarse
// check of the table's shape, not the balance run.
func TestFirstLevelKnight(t *testing.T) {
	const fights = 2000
	r := rand.New(rand.NewPCG(1979, 6400))
	var wins [MaxMonsterLevel]float64
	var count, beaten, deadly [MaxMonsterLevel]int
	for i := range Monsters {
		k := &Monsters[i]
		won := 0
		for range fights {
			if duel(r, k) {
				won++
			}
		}
		p := float64(won) / fights
		t.Logf("%-18s level %2d: knight wins %3.0f%%", k.Name, k.Level, 100*p)
		l := k.Level - 1
		wins[l] += p
		count[l]++
		if p > 0.5 {
			beaten[l]++
		} else {
			deadly[l]++
		}
	}
	for l := range MaxMonsterLevel {
		t.Logf("level %2d: knight wins %3.0f%% on average; beats %d of %d", l+1, 100*wins[l]/float64(count[l]), beaten[l], count[l])
	}
	if beaten[0]*3 < count[0]*2 {
		t.Errorf("a first-level knight beats only %d of %d level-1 monsters", beaten[0], count[0])
	}
	for l := 3; l < MaxMonsterLevel; l++ {
		if deadly[l]*4 < count[l]*3 {
			t.Errorf("a first-level knight beats %d of %d level-%d monsters", beaten[l], count[l], l+1)
		}
	}
}

// TestMonstersMarkdownInDocs keeps docs/MONSTERS.md in step with the tables: the doc must
// contain MonstersMarkdown's text verbatim. Run with UPDATE_MONSTERS_MD=1 to rewrite the
// generated part of the doc (between the two markers) after changing the tables.
func TestMonstersMarkdownInDocs(t *testing.T) {
	const (
		begin = "<!-- BEGIN generated by world.MonstersMarkdown; edit world/monster.go, not this table -->\n"
		end   = "<!-- END generated -->\n"
	)
	path := filepath.Join("..", "docs", "MONSTERS.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := MonstersMarkdown()
	if os.Getenv("UPDATE_MONSTERS_MD") != "" {
		s := string(doc)
		i, j := strings.Index(s, begin), strings.Index(s, end)
		if i < 0 || j < i {
			t.Fatalf("%s lacks the generated-section markers", path)
		}
		s = s[:i+len(begin)] + "\n" + md + "\n" + s[j:]
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		doc = []byte(s)
	}
	if !strings.Contains(string(doc), md) {
		t.Errorf("%s is out of date with the monster tables; run UPDATE_MONSTERS_MD=1 go test ./world -run MonstersMarkdown", path)
	}
	for _, k := range Monsters {
		if !strings.Contains(md, "| "+k.Name+" |") {
			t.Errorf("the Markdown has no row for %s", k.Name)
		}
	}
}

// A class is named as the seed names it, and one past the table (a record of a newer
// server) as unknown, not read past the names.
func TestMonsterClassNames(t *testing.T) {
	if got := Undead.String(); got != "Undead" {
		t.Errorf("Undead is named %q", got)
	}
	if got := MonsterClass(NumMonsterClasses).String(); got != "class?" {
		t.Errorf("a class past the table is named %q, want class?", got)
	}
}
