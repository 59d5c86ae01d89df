package world

import (
	"context"
	"fmt"
	"time"
)

// The boards of the living: what a knight has done, for all time and for the week,
// counted by the engine where it happens (the deepest level stood on, in place; a
// monster slain, in monsterKilled; gold won, in takeTreasure and takePurse) and read by
// whoever ranks the knights' sheets (the table Boards).

// WeekTally is what a knight did in one week, the week named in it: the engine counts
// into the week it was told (Config.Week, SetWeek), and starts a knight's tally afresh
// when the knight's week is not that one.
type WeekTally struct {
	// Name is the week counted, as WeekOf names it.
	Name    string `json:"name,omitempty"`
	Deepest int    `json:"deepest,omitempty"`
	Slain   int    `json:"slain,omitempty"`
	GoldWon int    `json:"gold_won,omitempty"`
	// Deeds counts the deeds earned in the week (NoteDeed).
	Deeds int `json:"deeds,omitempty"`
}

// WeekOf names the week t is in: its ISO 8601 week in UTC, as "2026-W49". Every realm
// names a moment's week alike, so the weeks' tallies agree across realms.
func WeekOf(t time.Time) string {
	y, w := t.UTC().ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, w)
}

// inWeek is a's tally of week, started afresh when a's is of another week.
func (a *Adventurer) inWeek(week string) *WeekTally {
	if a.Week.Name != week {
		a.Week = WeekTally{Name: week}
	}
	return &a.Week
}

// NoteDeed counts a deed the knight has earned into its week's tally. Call it on the
// engine's goroutine, on a knight in the world, whose tally is always of the engine's
// week (join and SetWeek see to that).
func (a *Adventurer) NoteDeed() { a.Week.Deeds++ }

// reached notes that the knight stands on dungeon level depth (the surface is 0), in
// the week named.
func (a *Adventurer) reached(depth int, week string) {
	a.Deepest = max(a.Deepest, depth)
	t := a.inWeek(week)
	t.Deepest = max(t.Deepest, depth)
}

// slew counts a monster the knight killed, in the week named.
func (a *Adventurer) slew(week string) {
	a.Slain++
	a.inWeek(week).Slain++
}

// won counts gold the knight won, in the week named.
func (a *Adventurer) won(gold int, week string) {
	if gold <= 0 {
		return
	}
	a.GoldWon += gold
	a.inWeek(week).GoldWon += gold
}

// Ranked reports whether a is ranked on the boards: a living knight (not dead, not
// retired), never a guest.
func (a *Adventurer) Ranked() bool { return !a.Guest && !a.Ended() }

// BoardID names a board of Boards.
type BoardID int

// The boards, in the order the game's pages and the web page show them.
const (
	BoardDeepest BoardID = iota
	BoardSlain
	BoardGold
	BoardDeeds
	NumBoards
)

// Board is one board of the living: its name (the word players type), its title, the
// heading of its value, and how a knight's value is read, for all time and for a week.
type Board struct {
	Name   string
	Title  string
	Column string
	// Say is a value in words, for screen-reader mode: "%d monsters slain".
	Say    string
	Ever   func(a *Adventurer) int
	InWeek func(t *WeekTally) int
}

// Boards is the table of boards. A knight's value for a week is InWeek of its tally when
// the tally is of that week, and 0 when not (Value).
var Boards = [NumBoards]Board{
	BoardDeepest: {Name: "deepest", Title: "Deepest level reached", Column: "DEEPEST", Say: "deepest level %d",
		Ever: func(a *Adventurer) int { return a.Deepest }, InWeek: func(t *WeekTally) int { return t.Deepest }},
	BoardSlain: {Name: "slain", Title: "Monsters slain", Column: "SLAIN", Say: "%d monsters slain",
		Ever: func(a *Adventurer) int { return a.Slain }, InWeek: func(t *WeekTally) int { return t.Slain }},
	BoardGold: {Name: "gold", Title: "Gold won", Column: "GOLD", Say: "%d gold won",
		Ever: func(a *Adventurer) int { return a.GoldWon }, InWeek: func(t *WeekTally) int { return t.GoldWon }},
	BoardDeeds: {Name: "deeds", Title: "Deeds earned", Column: "DEEDS", Say: "%d deeds",
		Ever: func(a *Adventurer) int { return len(a.Deeds) }, InWeek: func(t *WeekTally) int { return t.Deeds }},
}

// BoardByName is the board of that name.
func BoardByName(name string) (BoardID, bool) {
	for i, b := range Boards {
		if b.Name == name {
			return BoardID(i), true
		}
	}
	return 0, false
}

// BoardNames is every board's name, in the table's order.
func BoardNames() []string {
	out := make([]string, len(Boards))
	for i, b := range Boards {
		out[i] = b.Name
	}
	return out
}

// Value is a's value on board b: for all time when week is "", else in that week (0
// when a's tally is of another week).
func (b Board) Value(a *Adventurer, week string) int {
	if week == "" {
		return b.Ever(a)
	}
	if a.Week.Name != week {
		return 0
	}
	return b.InWeek(&a.Week)
}

// BoardRow is one knight's row of a board.
type BoardRow struct {
	Rank  int    `json:"rank"`
	Name  string `json:"name"`
	Level int    `json:"level"`
	Value int    `json:"value"`
	Yours bool   `json:"yours"`
}

// BoardPage is one board as a knight sees it: the top of it, then its own row when it is
// ranked below them (knights.Standings). Week names the week it counts ("" for all time).
type BoardPage struct {
	Board string     `json:"board"`
	Title string     `json:"title"`
	Week  string     `json:"week,omitempty"`
	Rows  []BoardRow `json:"rows"`
}

// weekReq tells the engine the week it is now.
type weekReq struct{ week string }

// SetWeek tells the engine which week it is (WeekOf the server's clock): the server
// sends it when the week turns. Every knight in the world starts the week's tally then.
func (e *Engine) SetWeek(ctx context.Context, week string) error {
	return e.send(ctx, weekReq{week})
}

func (m weekReq) handle(e *Engine) { e.setWeek(m.week) }

func (e *Engine) setWeek(week string) {
	if week == e.cfg.Week {
		return
	}
	e.cfg.Week = week
	for _, p := range e.order {
		e.beginWeek(p)
	}
}

// beginWeek brings a knight's tallies to the engine's week as it joins or the week
// turns: the level it stands on is reached, this week and for all time (a knight saved
// before the tallies were kept has its Deepest from where it stands).
func (e *Engine) beginWeek(p *player) {
	p.rec.reached(p.rec.Depth, e.cfg.Week)
	p.changed = true
}
