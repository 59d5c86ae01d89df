package world

import (
	"fmt"
	"slices"
	"strings"
)

// Deeds: the moments of a knight's life it keeps, drawn from Orthanc's own (seed 000's
// levels, monster classes, chutes and retiring; seed 002's parties and markets). Each is
// a row of DeedTable, earned once, where the thing happens in the engine, kept in the
// order earned on the knight's record (Adventurer.Deeds), and told to the knight in a
// line of its own kind (MsgDeed); a rare one is told to the newbie channel and to the
// herald too, unless the knight is a guest (DESIGN §12, "Deeds").

// DeedRow is one deed of DeedTable.
type DeedRow struct {
	// ID names the deed in saved records and in JSON: it never changes once a knight may
	// have earned it.
	ID string
	// Title is the deed's short name ("Dragonslayer").
	Title string
	// Words say what was done, as a phrase that follows any knight's name or "you"
	// ("slew the Dragon").
	Words string
	// Rare deeds are told beyond the knight: to the newbie channel and to the herald.
	Rare bool
}

// Deed is a deed a knight earned: the row's ID and the engine turn it was earned at.
type Deed struct {
	ID   string `json:"id"`
	Turn uint64 `json:"turn"`
}

// dragonName is the monster whose slaying is DeedDragon (Monsters' one dragon).
const dragonName = "Dragon"

// FortuneGold is the purse that earns the market fortune: the price of the dearest ware
// of MarketPrices (a +3 sword, 3000 gold), held at a market. A first hoard is about 220
// gold, so it takes many trips, or a deep one, and the sale of what they found.
const FortuneGold = 3000

// RareRetirementLevel is the lowest level a retirement is a rare deed at: level 8 is
// 64000 experience, the last doubling before seed 000's rule for 128000 and more.
const RareRetirementLevel = 8

// RetirementDeedLevels is how many levels have a retirement deed: a knight retiring
// above the last earns the last ("at level 10 or more").
const RetirementDeedLevels = MaxMonsterLevel

// The deeds' ids that are not counted in a series.
const (
	DeedFirstLevel   = "first-level"
	DeedDragon       = "dragon"
	DeedUnscathed    = "unscathed"
	DeedChute        = "chute"
	DeedPartyVictory = "party-victory"
	DeedFortune      = "fortune"
)

// DeedDepth is the id of the deed for reaching dungeon level depth.
func DeedDepth(depth int) string { return fmt.Sprintf("depth-%d", depth) }

// DeedSlew is the id of the deed for slaying a first monster of class c.
func DeedSlew(c MonsterClass) string {
	return "slew-" + strings.ReplaceAll(strings.ToLower(c.String()), " ", "-")
}

// DeedRetired is the id of the deed for retiring at level (the last of
// RetirementDeedLevels for any level above it).
func DeedRetired(level int) string {
	return fmt.Sprintf("retired-%d", min(max(level, 1), RetirementDeedLevels))
}

// classDeeds are the words of the first slaying of each class: a title and an
// indefinite article with the class's noun.
var classDeeds = [NumMonsterClasses]struct{ title, what string }{
	Insect:    {"Exterminator", "an insect"},
	Man:       {"Man against man", "a man"},
	Goblin:    {"Goblin bane", "a goblin"},
	Animal:    {"Hunter", "an animal"},
	Undead:    {"Laid to rest", "one of the undead"},
	Mythical:  {"Stuff of legend", "a mythical monster"},
	MagicUser: {"Spellbreaker", "a magic user"},
	Animated:  {"Unmade", "an animated thing"},
}

// DeedTable is every deed, in the order the character sheet names them.
var DeedTable = deedTable()

func deedTable() []DeedRow {
	rows := []DeedRow{{ID: DeedFirstLevel, Title: "Risen", Words: "gained a first level on a safe return from the dungeon"}}
	for d := 1; d <= DefaultDepth; d++ {
		r := DeedRow{ID: DeedDepth(d), Title: fmt.Sprintf("Down to level %d", d), Words: fmt.Sprintf("reached level %d of the dungeon", d)}
		switch d {
		case 1:
			r.Title, r.Words = "Into the labyrinth", "went down into the dungeon"
		case DefaultDepth:
			r.Title, r.Words, r.Rare = "The depths", fmt.Sprintf("reached level %d, the deepest of the dungeon", d), true
		}
		rows = append(rows, r)
	}
	for c := range NumMonsterClasses {
		rows = append(rows, DeedRow{ID: DeedSlew(c), Title: classDeeds[c].title, Words: "slew " + classDeeds[c].what + " for the first time"})
	}
	rows = append(rows,
		DeedRow{ID: DeedDragon, Title: "Dragonslayer", Words: "slew the Dragon", Rare: true},
		DeedRow{ID: DeedUnscathed, Title: "Unscathed", Words: "won a fight without losing a hit"},
		DeedRow{ID: DeedChute, Title: "Down the chute", Words: "slid down a chute and lived"},
		DeedRow{ID: DeedPartyVictory, Title: "Shoulder to shoulder", Words: "won a battle beside another knight"},
		DeedRow{ID: DeedFortune, Title: "A market fortune", Words: fmt.Sprintf("stood at a market with %d gold, the price of a +3 sword", FortuneGold)},
	)
	for l := 1; l <= RetirementDeedLevels; l++ {
		words := fmt.Sprintf("retired with honour at level %d", l)
		if l == RetirementDeedLevels {
			words = fmt.Sprintf("retired with honour at level %d or more", l)
		}
		rows = append(rows, DeedRow{ID: DeedRetired(l), Title: fmt.Sprintf("Honour of level %d", l), Words: words, Rare: l >= RareRetirementLevel})
	}
	return rows
}

// DeedByID is the row of the deed with the id, or false when no deed has it (a record
// from a newer server).
func DeedByID(id string) (DeedRow, bool) {
	i := slices.IndexFunc(DeedTable, func(r DeedRow) bool { return r.ID == id })
	if i < 0 {
		return DeedRow{}, false
	}
	return DeedTable[i], true
}

// Line is the deed as its knight is told it: "Deed: Dragonslayer — you slew the Dragon."
func (r DeedRow) Line() string { return "Deed: " + r.Title + " — you " + r.Words + "." }

// Said is the deed as others are told it: "Kay earned a rare deed, Dragonslayer — Kay
// slew the Dragon." It has no ": ", so no session takes it for a line a knight said
// (app's callIn: "[newbie] NAME: TEXT"), which would ring the bell of "all".
func (r DeedRow) Said(name string) string { return r.saidOf(name, name) }

// saidOf is Said with the knight first named as who ("Kay (in Avalon)"), then by name.
func (r DeedRow) saidOf(who, name string) string {
	return who + " earned a rare deed, " + r.Title + " — " + name + " " + r.Words + "."
}

// DeedRows are the rows of the deeds, in their order (a deed a newer server wrote, which
// this one does not know, is left out).
func DeedRows(deeds []Deed) []DeedRow {
	out := make([]DeedRow, 0, len(deeds))
	for _, d := range deeds {
		if r, ok := DeedByID(d.ID); ok {
			out = append(out, r)
		}
	}
	return out
}

// HasDeed reports whether the knight has earned the deed.
func (a Adventurer) HasDeed(id string) bool {
	return slices.ContainsFunc(a.Deeds, func(d Deed) bool { return d.ID == id })
}

// earn gives p the deed, once: it is kept on the record, told to the knight, and a rare
// one told to the newbie channel, in every realm, and the herald (a guest's to no one
// else).
func (e *Engine) earn(p *player, id string) {
	r, ok := DeedByID(id)
	if !ok || p.rec.HasDeed(id) {
		return
	}
	p.rec.Deeds = append(p.rec.Deeds, Deed{ID: id, Turn: e.turn})
	p.rec.NoteDeed() // the week's board of deeds
	p.changed = true
	e.tell(p, MsgDeed, r.Line())
	if !r.Rare || p.rec.Guest {
		return
	}
	newbie := &Channels[0]
	said := r.Said(p.rec.Name)
	e.hearOnChannel(newbie, p, p.rec.Name, "["+newbie.Name+"] "+said)
	e.sendAbroad(p, FarLine{Kind: ChatChannel, To: newbie.Name, Text: said, Deed: r.ID})
	e.proclaimDeed(p, r)
}

// earnDepth gives p the deed of the dungeon level it stands on.
func (e *Engine) earnDepth(p *player) {
	if p.rec.Depth > 0 {
		e.earn(p, DeedDepth(p.rec.Depth))
	}
}

// earnFortune gives p the market fortune when it holds FortuneGold at a market.
func (e *Engine) earnFortune(p *player) {
	if p.rec.Gold >= FortuneGold && p.rec.Depth == 0 && e.marketAt(p.rec.Pos()) != nil {
		e.earn(p, DeedFortune)
	}
}

// DeedsMarkdown is DeedTable as a Markdown table, for docs/DESIGN.md ("Deeds").
func DeedsMarkdown() string {
	var b strings.Builder
	b.WriteString("| id | title | what was done | rare |\n|---|---|---|---|\n")
	for _, r := range DeedTable {
		rare := ""
		if r.Rare {
			rare = "rare"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.ID, r.Title, r.Words, rare)
	}
	return b.String()
}
