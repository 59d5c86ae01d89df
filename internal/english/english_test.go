package english_test

import (
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// monsterArticles is every monster of world.Monsters as a sentence names it. A new monster
// must be added here, so its article is read once by a person.
var monsterArticles = map[string]string{
	"Giant Ant":         "a Giant Ant",
	"Centipede":         "a Centipede",
	"Rot Grub":          "a Rot Grub",
	"Killer Bee":        "a Killer Bee",
	"Fire Beetle":       "a Fire Beetle",
	"Giant Tick":        "a Giant Tick",
	"Giant Spider":      "a Giant Spider",
	"Giant Scorpion":    "a Giant Scorpion",
	"Giant Wasp":        "a Giant Wasp",
	"Carrion Crawler":   "a Carrion Crawler",
	"Ankheg":            "an Ankheg",
	"Giant Mantis":      "a Giant Mantis",
	"Bandit":            "a Bandit",
	"Cutpurse":          "a Cutpurse",
	"Brigand":           "a Brigand",
	"Mercenary":         "a Mercenary",
	"Berserker":         "a Berserker",
	"Swordsman":         "a Swordsman",
	"Assassin":          "an Assassin",
	"Black Knight":      "a Black Knight",
	"Warlord":           "a Warlord",
	"Master Thief":      "a Master Thief",
	"Assassin Lord":     "an Assassin Lord",
	"Anti-Paladin":      "an Anti-Paladin",
	"Programmer":        "a Programmer",
	"Kobold":            "a Kobold",
	"Goblin":            "a Goblin",
	"Orc":               "an Orc",
	"Hobgoblin":         "a Hobgoblin",
	"Gnoll":             "a Gnoll",
	"Bugbear":           "a Bugbear",
	"Lizard Man":        "a Lizard Man",
	"Ogre":              "an Ogre",
	"Troll":             "a Troll",
	"Ettin":             "an Ettin",
	"Hill Giant":        "a Hill Giant",
	"Fire Giant":        "a Fire Giant",
	"Storm Giant":       "a Storm Giant",
	"Giant Rat":         "a Giant Rat",
	"Giant Bat":         "a Giant Bat",
	"Jackal":            "a Jackal",
	"Wild Boar":         "a Wild Boar",
	"Wolf":              "a Wolf",
	"Giant Snake":       "a Giant Snake",
	"Wolverine":         "a Wolverine",
	"Dire Wolf":         "a Dire Wolf",
	"Cave Bear":         "a Cave Bear",
	"Giant Crocodile":   "a Giant Crocodile",
	"Sabre-tooth Tiger": "a Sabre-tooth Tiger",
	"Mastodon":          "a Mastodon",
	"Skeleton":          "a Skeleton",
	"Zombie":            "a Zombie",
	"Ghoul":             "a Ghoul",
	"Shadow":            "a Shadow",
	"Wight":             "a Wight",
	"Wraith":            "a Wraith",
	"Mummy":             "a Mummy",
	"Spectre":           "a Spectre",
	"Vampire":           "a Vampire",
	"Lich":              "a Lich",
	"Imp":               "an Imp",
	"Harpy":             "a Harpy",
	"Hippogriff":        "a Hippogriff",
	"Cockatrice":        "a Cockatrice",
	"Minotaur":          "a Minotaur",
	"Manticore":         "a Manticore",
	"Griffin":           "a Griffin",
	"Chimera":           "a Chimera",
	"Wyvern":            "a Wyvern",
	"Lammasu":           "a Lammasu",
	"Umber Hulk":        "an Umber Hulk",
	"Purple Worm":       "a Purple Worm",
	"Dragon":            "a Dragon",
	"Balrog":            "a Balrog",
	"Apprentice":        "an Apprentice",
	"Acolyte":           "an Acolyte",
	"Illusionist":       "an Illusionist",
	"Enchanter":         "an Enchanter",
	"Sorcerer":          "a Sorcerer",
	"Evil Priest":       "an Evil Priest",
	"Necromancer":       "a Necromancer",
	"Warlock":           "a Warlock",
	"Archmage":          "an Archmage",
	"Evil High Priest":  "an Evil High Priest",
	"Animated Broom":    "an Animated Broom",
	"Animated Armour":   "an Animated Armour",
	"Wood Golem":        "a Wood Golem",
	"Gargoyle":          "a Gargoyle",
	"Flesh Golem":       "a Flesh Golem",
	"Clay Golem":        "a Clay Golem",
	"Stone Golem":       "a Stone Golem",
	"Juggernaut":        "a Juggernaut",
	"Iron Golem":        "an Iron Golem",
	"Colossus":          "a Colossus",
}

func TestEveryMonsterHasItsArticle(t *testing.T) {
	for _, k := range world.Monsters {
		want, ok := monsterArticles[k.Name]
		if !ok {
			t.Errorf("monster %q is not in monsterArticles: add it with its article", k.Name)
			continue
		}
		if got := english.A(k.Name); got != want {
			t.Errorf("A(%q) = %q, want %q", k.Name, got, want)
		}
		if got, want := english.The(k.Name), "the "+k.Name; got != want {
			t.Errorf("The(%q) = %q, want %q", k.Name, got, want)
		}
	}
	if len(monsterArticles) != len(world.Monsters) {
		t.Errorf("monsterArticles has %d names, world.Monsters %d", len(monsterArticles), len(world.Monsters))
	}
}

// itemArticles is every kind of item as "You find ...!" names it, with the pluses,
// counts and worths items carry.
var itemArticles = map[world.ItemKind][]struct {
	item world.Item
	want string
}{
	world.ItemSword:                   {{world.Item{Kind: world.ItemSword}, "a sword"}, {world.Item{Kind: world.ItemSword, Plus: 2}, "a sword +2"}},
	world.ItemShield:                  {{world.Item{Kind: world.ItemShield, Plus: 1}, "a shield +1"}},
	world.ItemArmour:                  {{world.Item{Kind: world.ItemArmour, Plus: 1}, "armour +1"}, {world.Item{Kind: world.ItemArmour, Plus: 3}, "armour +3"}},
	world.ItemBootsOfSpeed:            {{world.Item{Kind: world.ItemBootsOfSpeed}, "boots of speed"}},
	world.ItemBootsOfLevitation:       {{world.Item{Kind: world.ItemBootsOfLevitation}, "boots of levitation"}},
	world.ItemRingOfLight:             {{world.Item{Kind: world.ItemRingOfLight}, "a ring of light"}},
	world.ItemRingOfProtection:        {{world.Item{Kind: world.ItemRingOfProtection}, "a ring of protection"}},
	world.ItemRingOfInvisibility:      {{world.Item{Kind: world.ItemRingOfInvisibility}, "a ring of invisibility"}},
	world.ItemRingOfRegeneration:      {{world.Item{Kind: world.ItemRingOfRegeneration}, "a ring of regeneration"}},
	world.ItemRingOfFreeAction:        {{world.Item{Kind: world.ItemRingOfFreeAction}, "a ring of free action"}},
	world.ItemRingOfSustainStrength:   {{world.Item{Kind: world.ItemRingOfSustainStrength}, "a ring of sustain strength"}},
	world.ItemQuiver:                  {{world.Item{Kind: world.ItemQuiver, Count: 12}, "a quiver of 12 arrows of mythical slaying"}},
	world.ItemManualOfBodilyHealth:    {{world.Item{Kind: world.ItemManualOfBodilyHealth}, "a manual of bodily health"}},
	world.ItemManualOfGainfulExercise: {{world.Item{Kind: world.ItemManualOfGainfulExercise}, "a manual of gainful exercise"}},
	world.ItemManualOfQuickness:       {{world.Item{Kind: world.ItemManualOfQuickness}, "a manual of quickness of action"}},
	world.ItemManualOfPhilosophy:      {{world.Item{Kind: world.ItemManualOfPhilosophy}, "a manual of philosophy"}},
	world.ItemManualOfVileDarkness:    {{world.Item{Kind: world.ItemManualOfVileDarkness}, "a manual of vile darkness"}},
	world.ItemPotionHealing:           {{world.Item{Kind: world.ItemPotionHealing}, "a potion of healing"}},
	world.ItemPotionSpellUnits:        {{world.Item{Kind: world.ItemPotionSpellUnits}, "a potion of spell units"}},
	world.ItemGem:                     {{world.Item{Kind: world.ItemGem, Value: 80}, "a gem worth 80"}},
	world.ItemJewelry:                 {{world.Item{Kind: world.ItemJewelry, Value: 400}, "a piece of jewelry worth 400"}},
}

func TestEveryItemHasItsArticle(t *testing.T) {
	for k := range world.NumItemKinds {
		cases, ok := itemArticles[k]
		if !ok {
			t.Errorf("item kind %d (%s) is not in itemArticles: add it with its article", k, world.Items[k].Name)
		}
		for _, c := range cases {
			if got := english.A(c.item.Name()); got != c.want {
				t.Errorf("A(%q) = %q, want %q", c.item.Name(), got, c.want)
			}
		}
	}
}

func TestArticles(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "something"},
		{"the Programmer", "the Programmer"},
		{"The Balrog of Moria", "The Balrog of Moria"},
		{"hour glass", "an hour glass"},
		{"unicorn", "a unicorn"},
		{"Umber Hulk", "an Umber Hulk"},
		{"one-eyed giant", "a one-eyed giant"},
		{"European", "a European"},
		{"Ettin", "an Ettin"},
		{"Élan", "a Élan"}, // only ASCII vowels: accented letters read as consonants
	} {
		if got := english.A(c.in); got != c.want {
			t.Errorf("A(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := english.The("the Programmer"); got != "the Programmer" {
		t.Errorf("The keeps a name's own article: got %q", got)
	}
}

func TestCapitalCountList(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""}, {"a troll", "A troll"}, {"élan", "Élan"}, {"Already", "Already"}, {"\xff bad", "\xff bad"},
	} {
		if got := english.Capital(c.in); got != c.want {
			t.Errorf("Capital(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		n    int
		one  string
		many []string
		want string
	}{
		{1, "hit", nil, "1 hit"}, {0, "hit", nil, "0 hits"}, {12, "hit", nil, "12 hits"},
		{2, "pair of boots", []string{"pairs of boots"}, "2 pairs of boots"}, {1, "pair of boots", []string{"pairs of boots"}, "1 pair of boots"},
	} {
		if got := english.Count(c.n, c.one, c.many...); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.one, got, c.want)
		}
	}
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a and b"}, {[]string{"a", "b", "c"}, "a, b and c"},
	} {
		if got := english.List(c.in); got != c.want {
			t.Errorf("List(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
