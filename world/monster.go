package world

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// This file holds seed 000's monster tables ("Monsters") and its "Where are the monsters?"
// table. The seed's help lesson kept only the tables' headings, so every number here is a
// ruling; docs/MONSTERS.md shows them and explains how they were chosen. The tables are
// data that tests read: code elsewhere must look a monster up here rather than repeat it.

// MonsterClass is one of the seed's eight kinds of monster ("Eight classes of monsters
// reside in the dungeon: Insect, Man, Goblin, Animal, Undead, Mythical, Magic User, and
// Animated.").
type MonsterClass uint8

// The eight classes, in the seed's order.
const (
	Insect MonsterClass = iota
	Man
	Goblin
	Animal
	Undead
	Mythical
	MagicUser
	Animated
	NumMonsterClasses
)

var classNames = [NumMonsterClasses]string{"Insect", "Man", "Goblin", "Animal", "Undead", "Mythical", "Magic User", "Animated"}

// String is the class as the seed names it.
func (c MonsterClass) String() string {
	if c < NumMonsterClasses {
		return classNames[c]
	}
	return "class?"
}

// MonsterKind is one line of the monster tables: what every monster of that kind shares.
// A live monster rolls its own hit points from HitDice when it appears.
type MonsterKind struct {
	// Name is how the battle log names it ("the Troll"), unique among all kinds.
	Name string
	// Class is one of seed 000's eight classes; spells and arrows of slaying depend on it.
	Class MonsterClass
	// Level is the monster's level, 1..MaxMonsterLevel, the column of MonsterLevelOdds.
	Level int
	// HitDice are rolled once when the monster appears to give its hit points (seed 000:
	// "'Hit Dice' is how many dice are used for its hit points").
	HitDice Dice
	// AttackDice are rolled for the damage of each attack that hits (seed 000: "'Attack
	// Dice' is how many dice are used for its attack").
	AttackDice Dice
	// Dex is the number of sides of the monster's to-hit die: it hits on a roll above 6,
	// and a knight whose Dexterity is at least this swings first (seed 000).
	Dex int
	// Experience is what killing it is worth (seed 000: "how much experience you will
	// receive if you kill that monster").
	Experience int
	// Speed is seed 003's movement speed: 0 moves one square a round, +10 two, −10 half
	// a square (see MoveCost).
	Speed int
	// AttacksPerRound is seed 003's attack speed: how many attacks it makes in one round,
	// each rolled to hit and for damage on its own.
	AttacksPerRound int
	// Glyph is how the monster is drawn: exactly two printable ASCII characters, one
	// square's width, unique among all kinds.
	Glyph string
}

// MonsterID indexes Monsters. Live monsters record their kind by it, so an ID must keep
// meaning the same monster: new kinds are appended to Monsters, never inserted.
type MonsterID uint16

// MaxMonsterLevel is the highest monster level, and the number of dungeon levels that
// MonsterLevelOdds describes; deeper levels use its last row.
const MaxMonsterLevel = 10

// Monsters is the monster table. It starts out grouped by class and ordered by level within
// a class; MonstersMarkdown sorts for display, so later additions can simply go at the end.
//
// The numbers follow one scale so that classes can differ in character without one being
// simply better: a level-L monster has about L hit dice (d6 for frail spell-casters, d8
// for most, d10 for the brawny), attack dice whose average grows from about 2.5 at level 1
// to about 30 per round at level 10, and experience of L² × 20 (bugs and beasts) up to
// L² × 60 (Mythicals and Magic Users, which are the hardest to kill or the most dangerous
// in the first round). Several attacks per round come with smaller dice, so a monster's
// total damage per round stays on the scale of its level.
var Monsters = [...]MonsterKind{
	// Insects: nasty bugs. Fast, many-legged and cheap; few hits for their level.
	{Name: "Giant Ant", Class: Insect, Level: 1, HitDice: D(1, 8), AttackDice: D(1, 4), Dex: 8, Experience: 25, Speed: 0, AttacksPerRound: 1, Glyph: "An"},
	{Name: "Centipede", Class: Insect, Level: 1, HitDice: D(1, 6), AttackDice: D(1, 3), Dex: 10, Experience: 20, Speed: 10, AttacksPerRound: 1, Glyph: "Ce"},
	{Name: "Rot Grub", Class: Insect, Level: 1, HitDice: D(1, 4), AttackDice: D(1, 6), Dex: 7, Experience: 20, Speed: -10, AttacksPerRound: 1, Glyph: "Rg"},
	{Name: "Killer Bee", Class: Insect, Level: 2, HitDice: D(2, 4), AttackDice: D(1, 6), Dex: 14, Experience: 100, Speed: 20, AttacksPerRound: 1, Glyph: "Kb"},
	{Name: "Fire Beetle", Class: Insect, Level: 2, HitDice: D(2, 8), AttackDice: D(2, 4), Dex: 8, Experience: 80, Speed: 0, AttacksPerRound: 1, Glyph: "Fb"},
	{Name: "Giant Tick", Class: Insect, Level: 3, HitDice: D(3, 6), AttackDice: D(1, 8), Dex: 9, Experience: 200, Speed: -10, AttacksPerRound: 1, Glyph: "Tk"},
	{Name: "Giant Spider", Class: Insect, Level: 3, HitDice: D(3, 8), AttackDice: D(2, 4), Dex: 13, Experience: 250, Speed: 10, AttacksPerRound: 1, Glyph: "Sp"},
	{Name: "Giant Scorpion", Class: Insect, Level: 4, HitDice: D(4, 8), AttackDice: D(1, 10), Dex: 12, Experience: 400, Speed: 0, AttacksPerRound: 2, Glyph: "Sc"},
	{Name: "Giant Wasp", Class: Insect, Level: 5, HitDice: D(4, 8), AttackDice: D(2, 6), Dex: 16, Experience: 650, Speed: 20, AttacksPerRound: 1, Glyph: "Ws"},
	{Name: "Carrion Crawler", Class: Insect, Level: 6, HitDice: D(6, 8), AttackDice: D(1, 6), Dex: 11, Experience: 1000, Speed: 0, AttacksPerRound: 3, Glyph: "Cc"},
	{Name: "Ankheg", Class: Insect, Level: 7, HitDice: D(7, 8), AttackDice: D(3, 6), Dex: 12, Experience: 1300, Speed: 0, AttacksPerRound: 1, Glyph: "Ak"},
	{Name: "Giant Mantis", Class: Insect, Level: 8, HitDice: D(8, 8), AttackDice: D(2, 8), Dex: 17, Experience: 1600, Speed: 10, AttacksPerRound: 2, Glyph: "Mn"},

	// Man: evil fighters and thieves. Thieves are quick (high Dex, so they often strike
	// first); fighters are tough.
	{Name: "Bandit", Class: Man, Level: 1, HitDice: D(1, 8), AttackDice: D(1, 6), Dex: 9, Experience: 35, Speed: 0, AttacksPerRound: 1, Glyph: "Bn"},
	{Name: "Cutpurse", Class: Man, Level: 1, HitDice: D(1, 6), AttackDice: D(1, 4), Dex: 12, Experience: 30, Speed: 10, AttacksPerRound: 1, Glyph: "Cp"},
	{Name: "Brigand", Class: Man, Level: 2, HitDice: D(2, 8), AttackDice: D(1, 8), Dex: 10, Experience: 140, Speed: 0, AttacksPerRound: 1, Glyph: "Bg"},
	{Name: "Mercenary", Class: Man, Level: 3, HitDice: D(3, 8), AttackDice: D(1, 10), Dex: 11, Experience: 300, Speed: 0, AttacksPerRound: 1, Glyph: "Me"},
	{Name: "Berserker", Class: Man, Level: 3, HitDice: D(3, 8), AttackDice: D(2, 6), Dex: 10, Experience: 320, Speed: 10, AttacksPerRound: 1, Glyph: "Bs"},
	{Name: "Swordsman", Class: Man, Level: 4, HitDice: D(4, 8), AttackDice: D(1, 10), Dex: 13, Experience: 560, Speed: 0, AttacksPerRound: 2, Glyph: "Sw"},
	{Name: "Assassin", Class: Man, Level: 5, HitDice: D(4, 8), AttackDice: D(2, 8), Dex: 17, Experience: 950, Speed: 10, AttacksPerRound: 1, Glyph: "As"},
	{Name: "Black Knight", Class: Man, Level: 6, HitDice: D(6, 10), AttackDice: D(2, 8), Dex: 12, Experience: 1300, Speed: 0, AttacksPerRound: 2, Glyph: "Bk"},
	{Name: "Warlord", Class: Man, Level: 7, HitDice: D(7, 10), AttackDice: D(2, 10), Dex: 14, Experience: 1750, Speed: 0, AttacksPerRound: 2, Glyph: "Wl"},
	{Name: "Master Thief", Class: Man, Level: 8, HitDice: D(6, 8), AttackDice: D(3, 6), Dex: 19, Experience: 2250, Speed: 20, AttacksPerRound: 2, Glyph: "Mt"},
	{Name: "Assassin Lord", Class: Man, Level: 9, HitDice: D(8, 10), AttackDice: D(3, 8), Dex: 19, Experience: 3100, Speed: 10, AttacksPerRound: 2, Glyph: "Al"},
	{Name: "Anti-Paladin", Class: Man, Level: 10, HitDice: D(10, 10), AttackDice: D(3, 10), Dex: 15, Experience: 3800, Speed: 0, AttacksPerRound: 2, Glyph: "Pa"},
	// The Programmer is a nod to the PLATO authors who haunted their own dungeon. He is
	// only a man (so Charm and Hold Person work on him), types faster than anyone (Dex
	// 20: he swings first against any knight without Speed, and hits 70% of the time), never leaves his terminal
	// (speed −10, so a knight can walk away), and has not slept in days (few hits for
	// level 10). His one attack is a bug: a single die with 60 sides, one per bit of the
	// CDC word PLATO ran on, so it does anything from a scratch to a level-10 blow. His
	// experience is 2^12.
	{Name: "Programmer", Class: Man, Level: 10, HitDice: D(5, 10), AttackDice: D(1, 60), Dex: 20, Experience: 4096, Speed: -10, AttacksPerRound: 1, Glyph: "{}"},

	// Goblin: goblins and other miscellaneous humanoids, from kobolds up to the giants.
	// Slow-witted (low Dex) but with many hits.
	{Name: "Kobold", Class: Goblin, Level: 1, HitDice: D(1, 6), AttackDice: D(1, 4), Dex: 8, Experience: 30, Speed: 0, AttacksPerRound: 1, Glyph: "Ko"},
	{Name: "Goblin", Class: Goblin, Level: 1, HitDice: D(1, 8), AttackDice: D(1, 6), Dex: 9, Experience: 35, Speed: 0, AttacksPerRound: 1, Glyph: "Gb"},
	{Name: "Orc", Class: Goblin, Level: 2, HitDice: D(2, 8), AttackDice: D(1, 8), Dex: 9, Experience: 130, Speed: 0, AttacksPerRound: 1, Glyph: "Or"},
	{Name: "Hobgoblin", Class: Goblin, Level: 2, HitDice: D(2, 8), AttackDice: D(1, 10), Dex: 9, Experience: 140, Speed: 0, AttacksPerRound: 1, Glyph: "Hb"},
	{Name: "Gnoll", Class: Goblin, Level: 3, HitDice: D(3, 8), AttackDice: D(2, 4), Dex: 9, Experience: 300, Speed: 0, AttacksPerRound: 1, Glyph: "Gn"},
	{Name: "Bugbear", Class: Goblin, Level: 3, HitDice: D(3, 10), AttackDice: D(2, 4), Dex: 11, Experience: 330, Speed: 0, AttacksPerRound: 1, Glyph: "Bb"},
	{Name: "Lizard Man", Class: Goblin, Level: 4, HitDice: D(4, 8), AttackDice: D(1, 8), Dex: 10, Experience: 500, Speed: 0, AttacksPerRound: 2, Glyph: "Lz"},
	{Name: "Ogre", Class: Goblin, Level: 5, HitDice: D(5, 10), AttackDice: D(2, 8), Dex: 8, Experience: 850, Speed: 0, AttacksPerRound: 1, Glyph: "Og"},
	{Name: "Troll", Class: Goblin, Level: 6, HitDice: D(6, 10), AttackDice: D(1, 8), Dex: 12, Experience: 1350, Speed: 0, AttacksPerRound: 3, Glyph: "Tr"},
	{Name: "Ettin", Class: Goblin, Level: 7, HitDice: D(8, 10), AttackDice: D(2, 8), Dex: 9, Experience: 1650, Speed: 0, AttacksPerRound: 2, Glyph: "Et"},
	{Name: "Hill Giant", Class: Goblin, Level: 8, HitDice: D(9, 10), AttackDice: D(3, 8), Dex: 10, Experience: 2100, Speed: 0, AttacksPerRound: 1, Glyph: "Hg"},
	{Name: "Fire Giant", Class: Goblin, Level: 9, HitDice: D(10, 10), AttackDice: D(4, 8), Dex: 11, Experience: 2850, Speed: 0, AttacksPerRound: 1, Glyph: "Fg"},
	{Name: "Storm Giant", Class: Goblin, Level: 10, HitDice: D(12, 10), AttackDice: D(5, 8), Dex: 13, Experience: 3600, Speed: 10, AttacksPerRound: 1, Glyph: "Sg"},

	// Animals. Beasts of the dungeon: honest fighters, worth little experience.
	{Name: "Giant Rat", Class: Animal, Level: 1, HitDice: D(1, 4), AttackDice: D(1, 3), Dex: 10, Experience: 20, Speed: 10, AttacksPerRound: 1, Glyph: "Rt"},
	{Name: "Giant Bat", Class: Animal, Level: 1, HitDice: D(1, 6), AttackDice: D(1, 4), Dex: 13, Experience: 25, Speed: 20, AttacksPerRound: 1, Glyph: "Bt"},
	{Name: "Jackal", Class: Animal, Level: 1, HitDice: D(1, 6), AttackDice: D(1, 4), Dex: 10, Experience: 20, Speed: 10, AttacksPerRound: 1, Glyph: "Jk"},
	{Name: "Wild Boar", Class: Animal, Level: 2, HitDice: D(2, 8), AttackDice: D(1, 8), Dex: 8, Experience: 100, Speed: 0, AttacksPerRound: 1, Glyph: "Bo"},
	{Name: "Wolf", Class: Animal, Level: 2, HitDice: D(2, 8), AttackDice: D(1, 6), Dex: 12, Experience: 90, Speed: 10, AttacksPerRound: 1, Glyph: "Wf"},
	{Name: "Giant Snake", Class: Animal, Level: 3, HitDice: D(3, 8), AttackDice: D(1, 8), Dex: 10, Experience: 220, Speed: 0, AttacksPerRound: 1, Glyph: "Sn"},
	{Name: "Wolverine", Class: Animal, Level: 3, HitDice: D(3, 8), AttackDice: D(1, 4), Dex: 14, Experience: 240, Speed: 10, AttacksPerRound: 2, Glyph: "Wv"},
	{Name: "Dire Wolf", Class: Animal, Level: 4, HitDice: D(4, 8), AttackDice: D(2, 4), Dex: 12, Experience: 400, Speed: 10, AttacksPerRound: 1, Glyph: "Dw"},
	{Name: "Cave Bear", Class: Animal, Level: 5, HitDice: D(5, 10), AttackDice: D(1, 8), Dex: 10, Experience: 650, Speed: 0, AttacksPerRound: 3, Glyph: "Be"},
	{Name: "Giant Crocodile", Class: Animal, Level: 6, HitDice: D(6, 10), AttackDice: D(3, 6), Dex: 8, Experience: 900, Speed: 0, AttacksPerRound: 1, Glyph: "Cr"},
	{Name: "Sabre-tooth Tiger", Class: Animal, Level: 7, HitDice: D(7, 8), AttackDice: D(1, 10), Dex: 15, Experience: 1250, Speed: 10, AttacksPerRound: 3, Glyph: "Ti"},
	{Name: "Mastodon", Class: Animal, Level: 8, HitDice: D(10, 8), AttackDice: D(4, 6), Dex: 8, Experience: 1500, Speed: 0, AttacksPerRound: 1, Glyph: "Md"},

	// Undead. Pray always hits them and Protection counts double against them (seed 000),
	// so they are worth a little more than the living of their level.
	{Name: "Skeleton", Class: Undead, Level: 1, HitDice: D(1, 8), AttackDice: D(1, 6), Dex: 8, Experience: 40, Speed: 0, AttacksPerRound: 1, Glyph: "Sk"},
	{Name: "Zombie", Class: Undead, Level: 2, HitDice: D(2, 8), AttackDice: D(1, 8), Dex: 7, Experience: 160, Speed: -10, AttacksPerRound: 1, Glyph: "Zo"},
	{Name: "Ghoul", Class: Undead, Level: 3, HitDice: D(3, 8), AttackDice: D(1, 4), Dex: 10, Experience: 380, Speed: 0, AttacksPerRound: 3, Glyph: "Gh"},
	{Name: "Shadow", Class: Undead, Level: 4, HitDice: D(3, 8), AttackDice: D(2, 4), Dex: 13, Experience: 680, Speed: 0, AttacksPerRound: 1, Glyph: "Sh"},
	{Name: "Wight", Class: Undead, Level: 5, HitDice: D(5, 8), AttackDice: D(2, 4), Dex: 12, Experience: 1100, Speed: 0, AttacksPerRound: 2, Glyph: "Wi"},
	{Name: "Wraith", Class: Undead, Level: 6, HitDice: D(6, 8), AttackDice: D(2, 6), Dex: 14, Experience: 1600, Speed: 10, AttacksPerRound: 2, Glyph: "Wr"},
	{Name: "Mummy", Class: Undead, Level: 7, HitDice: D(7, 10), AttackDice: D(2, 10), Dex: 8, Experience: 2050, Speed: -10, AttacksPerRound: 1, Glyph: "Mu"},
	{Name: "Spectre", Class: Undead, Level: 8, HitDice: D(8, 8), AttackDice: D(2, 8), Dex: 16, Experience: 2800, Speed: 20, AttacksPerRound: 2, Glyph: "Se"},
	{Name: "Vampire", Class: Undead, Level: 9, HitDice: D(9, 10), AttackDice: D(3, 8), Dex: 17, Experience: 3600, Speed: 10, AttacksPerRound: 2, Glyph: "Va"},
	{Name: "Lich", Class: Undead, Level: 10, HitDice: D(10, 10), AttackDice: D(4, 10), Dex: 17, Experience: 4800, Speed: 0, AttacksPerRound: 1, Glyph: "Li"},

	// Mythicals. The great monsters of the deep levels; an arrow of mythical slaying kills
	// any of them outright (seed 000), which is why they may be so strong.
	{Name: "Imp", Class: Mythical, Level: 2, HitDice: D(2, 6), AttackDice: D(1, 4), Dex: 15, Experience: 200, Speed: 10, AttacksPerRound: 1, Glyph: "Im"},
	{Name: "Harpy", Class: Mythical, Level: 3, HitDice: D(3, 8), AttackDice: D(1, 4), Dex: 12, Experience: 470, Speed: 10, AttacksPerRound: 2, Glyph: "Ha"},
	{Name: "Hippogriff", Class: Mythical, Level: 4, HitDice: D(4, 8), AttackDice: D(1, 8), Dex: 13, Experience: 830, Speed: 20, AttacksPerRound: 2, Glyph: "Hf"},
	{Name: "Cockatrice", Class: Mythical, Level: 5, HitDice: D(5, 8), AttackDice: D(1, 6), Dex: 12, Experience: 1375, Speed: 0, AttacksPerRound: 2, Glyph: "Ck"},
	{Name: "Minotaur", Class: Mythical, Level: 6, HitDice: D(6, 10), AttackDice: D(2, 8), Dex: 11, Experience: 1980, Speed: 0, AttacksPerRound: 2, Glyph: "Mi"},
	{Name: "Manticore", Class: Mythical, Level: 7, HitDice: D(7, 10), AttackDice: D(1, 8), Dex: 14, Experience: 2750, Speed: 10, AttacksPerRound: 3, Glyph: "Mc"},
	{Name: "Griffin", Class: Mythical, Level: 8, HitDice: D(8, 10), AttackDice: D(2, 8), Dex: 15, Experience: 3500, Speed: 20, AttacksPerRound: 2, Glyph: "Gf"},
	{Name: "Chimera", Class: Mythical, Level: 8, HitDice: D(9, 10), AttackDice: D(2, 6), Dex: 13, Experience: 3700, Speed: 10, AttacksPerRound: 3, Glyph: "Ch"},
	{Name: "Wyvern", Class: Mythical, Level: 9, HitDice: D(9, 10), AttackDice: D(3, 8), Dex: 14, Experience: 4450, Speed: 20, AttacksPerRound: 2, Glyph: "Wy"},
	{Name: "Lammasu", Class: Mythical, Level: 9, HitDice: D(9, 10), AttackDice: D(2, 8), Dex: 16, Experience: 4550, Speed: 10, AttacksPerRound: 2, Glyph: "La"},
	{Name: "Umber Hulk", Class: Mythical, Level: 9, HitDice: D(10, 10), AttackDice: D(2, 8), Dex: 12, Experience: 4700, Speed: 0, AttacksPerRound: 3, Glyph: "Uh"},
	{Name: "Purple Worm", Class: Mythical, Level: 10, HitDice: D(15, 10), AttackDice: D(4, 10), Dex: 8, Experience: 5500, Speed: -10, AttacksPerRound: 1, Glyph: "Pw"},
	{Name: "Dragon", Class: Mythical, Level: 10, HitDice: D(12, 10), AttackDice: D(3, 10), Dex: 16, Experience: 5900, Speed: 10, AttacksPerRound: 3, Glyph: "Dr"},
	{Name: "Balrog", Class: Mythical, Level: 10, HitDice: D(13, 10), AttackDice: D(4, 8), Dex: 18, Experience: 6000, Speed: 10, AttacksPerRound: 2, Glyph: "Ba"},

	// Magic Users and Clerics. Few hits, but their first round's damage is doubled "to
	// simulate the use of magic" (seed 000), so the top experience goes to them.
	{Name: "Apprentice", Class: MagicUser, Level: 1, HitDice: D(1, 6), AttackDice: D(1, 4), Dex: 10, Experience: 50, Speed: 0, AttacksPerRound: 1, Glyph: "Ap"},
	{Name: "Acolyte", Class: MagicUser, Level: 2, HitDice: D(2, 6), AttackDice: D(1, 6), Dex: 10, Experience: 200, Speed: 0, AttacksPerRound: 1, Glyph: "Ac"},
	{Name: "Illusionist", Class: MagicUser, Level: 3, HitDice: D(3, 6), AttackDice: D(1, 8), Dex: 13, Experience: 500, Speed: 0, AttacksPerRound: 1, Glyph: "Il"},
	{Name: "Enchanter", Class: MagicUser, Level: 4, HitDice: D(4, 6), AttackDice: D(2, 4), Dex: 12, Experience: 880, Speed: 0, AttacksPerRound: 1, Glyph: "En"},
	{Name: "Sorcerer", Class: MagicUser, Level: 5, HitDice: D(5, 6), AttackDice: D(2, 6), Dex: 14, Experience: 1450, Speed: 0, AttacksPerRound: 1, Glyph: "So"},
	{Name: "Evil Priest", Class: MagicUser, Level: 6, HitDice: D(6, 8), AttackDice: D(2, 6), Dex: 12, Experience: 2000, Speed: 0, AttacksPerRound: 1, Glyph: "Ep"},
	{Name: "Necromancer", Class: MagicUser, Level: 7, HitDice: D(7, 6), AttackDice: D(3, 6), Dex: 14, Experience: 2850, Speed: 0, AttacksPerRound: 1, Glyph: "Nc"},
	{Name: "Warlock", Class: MagicUser, Level: 8, HitDice: D(8, 6), AttackDice: D(3, 8), Dex: 15, Experience: 3700, Speed: 0, AttacksPerRound: 1, Glyph: "Wk"},
	{Name: "Archmage", Class: MagicUser, Level: 9, HitDice: D(9, 6), AttackDice: D(3, 10), Dex: 17, Experience: 4700, Speed: 0, AttacksPerRound: 1, Glyph: "Am"},
	{Name: "Evil High Priest", Class: MagicUser, Level: 10, HitDice: D(10, 8), AttackDice: D(4, 8), Dex: 16, Experience: 5800, Speed: 0, AttacksPerRound: 1, Glyph: "Eh"},

	// Animated monsters. Only level 4 spells affect them (seed 000), so they are slow and
	// clumsy to make up for it, with many hits and heavy blows.
	{Name: "Animated Broom", Class: Animated, Level: 1, HitDice: D(1, 6), AttackDice: D(1, 4), Dex: 9, Experience: 40, Speed: 10, AttacksPerRound: 1, Glyph: "Bm"},
	{Name: "Animated Armour", Class: Animated, Level: 2, HitDice: D(2, 10), AttackDice: D(1, 8), Dex: 7, Experience: 170, Speed: -10, AttacksPerRound: 1, Glyph: "Aa"},
	{Name: "Wood Golem", Class: Animated, Level: 3, HitDice: D(3, 10), AttackDice: D(1, 10), Dex: 8, Experience: 380, Speed: -10, AttacksPerRound: 1, Glyph: "Wg"},
	{Name: "Gargoyle", Class: Animated, Level: 4, HitDice: D(4, 8), AttackDice: D(1, 6), Dex: 10, Experience: 680, Speed: 10, AttacksPerRound: 2, Glyph: "Ga"},
	{Name: "Flesh Golem", Class: Animated, Level: 5, HitDice: D(5, 10), AttackDice: D(2, 8), Dex: 8, Experience: 1050, Speed: -10, AttacksPerRound: 2, Glyph: "Fl"},
	{Name: "Clay Golem", Class: Animated, Level: 6, HitDice: D(6, 10), AttackDice: D(3, 10), Dex: 8, Experience: 1550, Speed: -10, AttacksPerRound: 1, Glyph: "Cl"},
	{Name: "Stone Golem", Class: Animated, Level: 7, HitDice: D(8, 10), AttackDice: D(3, 8), Dex: 8, Experience: 2100, Speed: -10, AttacksPerRound: 1, Glyph: "St"},
	{Name: "Juggernaut", Class: Animated, Level: 8, HitDice: D(10, 10), AttackDice: D(4, 8), Dex: 8, Experience: 2750, Speed: -10, AttacksPerRound: 1, Glyph: "Ju"},
	{Name: "Iron Golem", Class: Animated, Level: 9, HitDice: D(12, 10), AttackDice: D(4, 10), Dex: 9, Experience: 3600, Speed: -10, AttacksPerRound: 1, Glyph: "Ig"},
	{Name: "Colossus", Class: Animated, Level: 10, HitDice: D(15, 10), AttackDice: D(5, 10), Dex: 9, Experience: 4400, Speed: -10, AttacksPerRound: 1, Glyph: "Co"},
}

// MonsterLevelOdds is seed 000's "Where are the monsters?": "the chance of meeting a
// certain level monster on each dungeon level". MonsterLevelOdds[d-1][m-1] is the chance in
// whole percent that a monster met on dungeon level d is of monster level m. Every row sums
// to exactly 100, so PickMonster can roll a single d100 against it.
//
// Each level's most likely monster level is its own depth, with odds falling away on both
// sides (leaning deeper below level 5), so going down always raises the stakes: level 1 is
// 95% monster levels 1–2 (tuned by the balance run, docs/MONSTERS.md), and level 10 is 85%
// monster levels 8–10.
var MonsterLevelOdds = [MaxMonsterLevel][MaxMonsterLevel]int{
	// Columns are monster levels 1..10.
	{70, 25, 4, 1, 0, 0, 0, 0, 0, 0},   // dungeon level 1
	{35, 40, 17, 6, 2, 0, 0, 0, 0, 0},  // dungeon level 2
	{18, 30, 32, 14, 5, 1, 0, 0, 0, 0}, // dungeon level 3
	{8, 17, 27, 30, 13, 4, 1, 0, 0, 0}, // dungeon level 4
	{3, 9, 17, 24, 30, 12, 4, 1, 0, 0}, // dungeon level 5
	{1, 4, 8, 15, 22, 27, 15, 6, 2, 0}, // dungeon level 6
	{0, 2, 4, 8, 15, 23, 27, 14, 5, 2}, // dungeon level 7
	{0, 1, 2, 4, 8, 15, 23, 27, 14, 6}, // dungeon level 8
	{0, 0, 1, 2, 4, 8, 15, 25, 27, 18}, // dungeon level 9
	{0, 0, 0, 1, 2, 4, 8, 20, 30, 35},  // dungeon level 10
}

// monstersOfLevel lists the monsters of each level in table order, so PickMonster need not
// scan the table on every draw.
var monstersOfLevel = func() (by [MaxMonsterLevel][]MonsterID) {
	for i, k := range Monsters {
		if k.Level >= 1 && k.Level <= MaxMonsterLevel {
			by[k.Level-1] = append(by[k.Level-1], MonsterID(i))
		}
	}
	return by
}()

// PickMonster chooses the kind of a monster met on dungeon level depth: a monster level
// from that level's row of MonsterLevelOdds, then any monster of that level with equal
// chance. Depths outside 1..MaxMonsterLevel count as the nearest of them, so a dungeon
// deeper than the table keeps meeting level-10 company. The result depends only on r.
func PickMonster(r *rand.Rand, depth int) MonsterID {
	row := &MonsterLevelOdds[min(max(depth, 1), MaxMonsterLevel)-1]
	roll := r.IntN(100)
	level := MaxMonsterLevel
	for i, pct := range row {
		if roll < pct {
			level = i + 1
			break
		}
		roll -= pct
	}
	// The rows sum to 100 and every level has monsters (tests check both); this only
	// guards an edited table, so a draw on an empty level falls to the nearest shallower
	// level with monsters instead of indexing an empty list.
	for level > 1 && len(monstersOfLevel[level-1]) == 0 {
		level--
	}
	ids := monstersOfLevel[level-1]
	return ids[r.IntN(len(ids))]
}

// Kind is the monster's line in Monsters, or nil for an ID outside the table (such as one
// read from a database written by a newer version).
func (id MonsterID) Kind() *MonsterKind {
	if int(id) >= len(Monsters) {
		return nil
	}
	return &Monsters[id]
}

// monsterByLowerName maps lower-cased names to IDs for MonsterByName.
var monsterByLowerName = func() map[string]MonsterID {
	m := make(map[string]MonsterID, len(Monsters))
	for i, k := range Monsters {
		m[strings.ToLower(k.Name)] = MonsterID(i)
	}
	return m
}()

// MonsterByName finds a monster by name, ignoring case and surrounding spaces. A leading
// "the " is also ignored, so a name copied from a battle log ("the Programmer") or typed
// by an admin finds its monster.
func MonsterByName(name string) (MonsterID, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	id, ok := monsterByLowerName[name]
	if !ok {
		if rest, cut := strings.CutPrefix(name, "the "); cut {
			id, ok = monsterByLowerName[strings.TrimSpace(rest)]
		}
	}
	return id, ok
}

// monsterClassHeadings are the seed's headings of its eight monster tables, in class order.
var monsterClassHeadings = [NumMonsterClasses]string{
	Insect:    "Insects: Nasty bugs",
	Man:       "Man: Evil fighters and thieves",
	Goblin:    "Goblin: Goblins and other miscellaneous Humanoids",
	Animal:    "Animals",
	Undead:    "Undead",
	Mythical:  "Mythicals",
	MagicUser: "Magic Users and Clerics",
	Animated:  "Animated Monsters",
}

// MonstersMarkdown renders the monster tables (one per class, by level) and the "Where are
// the monsters?" table as Markdown. docs/MONSTERS.md contains this text verbatim, and a
// test keeps it so; `help monsters` can print the same text.
func MonstersMarkdown() string {
	var b strings.Builder
	for c := range NumMonsterClasses {
		fmt.Fprintf(&b, "### %s\n\n", monsterClassHeadings[c])
		b.WriteString("| Monster | Level | Hit dice | Attack dice | Dex | Experience | Speed | Attacks/round | Glyph |\n")
		b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|:-:|\n")
		var ids []MonsterID
		for i := range Monsters {
			if Monsters[i].Class == c {
				ids = append(ids, MonsterID(i))
			}
		}
		// Stable, so monsters of one level keep the table's order.
		slices.SortStableFunc(ids, func(a, b MonsterID) int { return Monsters[a].Level - Monsters[b].Level })
		for _, id := range ids {
			k := &Monsters[id]
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %d | %d | %s | %d | `%s` |\n",
				k.Name, k.Level, k.HitDice, k.AttackDice, k.Dex, k.Experience, signed(k.Speed), k.AttacksPerRound, k.Glyph)
		}
		b.WriteString("\n")
	}

	// Seed 000 lays this table out with "the dungeon level across the top", reading "down
	// to find the chance for each monster level", so it is the transpose of the Go table.
	b.WriteString("### Where are the monsters?\n\n")
	b.WriteString("Chance in percent of meeting a monster of each level (down) on each dungeon level (across).\n\n")
	b.WriteString("| Monster level |")
	for d := 1; d <= MaxMonsterLevel; d++ {
		fmt.Fprintf(&b, " DL %d |", d)
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("--:|", MaxMonsterLevel))
	b.WriteString("\n")
	for m := range MaxMonsterLevel {
		fmt.Fprintf(&b, "| %d |", m+1)
		for d := range MaxMonsterLevel {
			fmt.Fprintf(&b, " %d |", MonsterLevelOdds[d][m])
		}
		b.WriteString("\n")
	}
	b.WriteString("| **Total** |")
	for d := range MaxMonsterLevel {
		sum := 0
		for _, pct := range MonsterLevelOdds[d] {
			sum += pct
		}
		fmt.Fprintf(&b, " **%d** |", sum)
	}
	b.WriteString("\n")
	return b.String()
}

// signed writes a speed the way seed 003 does: "+10", "0", "-10".
func signed(n int) string {
	if n > 0 {
		return fmt.Sprintf("+%d", n)
	}
	return fmt.Sprint(n)
}
