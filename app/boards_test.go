package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// boardOf is a board of n rows with long names, the asker's ranked 4711th, as the server
// would answer; asked records what the game asked for.
func boardOf(n int, asked *[]string) BoardFunc {
	return func(b world.BoardID, week bool) (world.BoardPage, error) {
		*asked = append(*asked, fmt.Sprintf("%s %v", world.Boards[b].Name, week))
		p := world.BoardPage{Board: world.Boards[b].Name, Title: world.Boards[b].Title}
		if week {
			p.Week = "2026-W50"
		}
		for i := range n {
			p.Rows = append(p.Rows, world.BoardRow{Rank: i + 1, Name: fmt.Sprintf("%s %d", longName[:17], i), Level: 12, Value: 1234567 - i})
		}
		p.Rows = append(p.Rows, world.BoardRow{Rank: 4711, Name: longName, Level: 3, Value: 12, Yours: true})
		return p, nil
	}
}

// The F screen's pages: the hall of fame, then each board; h/l and the arrows turn them
// (round), w turns a board to this week and back, reading it again; every row is whole at
// every size, a phone's included; any other key returns.
func TestTheBoardsArePagesOfTheFameScreen(t *testing.T) {
	for _, sz := range append(phoneSizes, [2]int{40, 20}) {
		w, h := sz[0], sz[1]
		var asked []string
		m, _ := viewModel(t, crowdedView(t), w, h)
		m.p.Fame = func() []string { return []string{"No knight has retired yet."} }
		m.p.Board = boardOf(10, &asked)
		keys(m, "F")
		s := frameOf(t, "fame", m)
		checkWhole(t, "fame", s, 0, w, "HALL OF FAME", "No knight has retired yet.")
		keys(m, "l")
		s = frameOf(t, "deepest", m)
		what := fmt.Sprintf("the deepest board at %d×%d", w, h)
		checkWhole(t, what, s, 0, w, "DEEPEST LEVEL REACHED", "[deepest]", longName[:17]+" 0", "1234567", longName, "4711")
		if !strings.Contains(s, "The living") || !strings.Contains(s, "all time") {
			t.Errorf("%s: not said to be the living's for all time:\n%s", what, s)
		}
		if w >= 60 && !strings.Contains(s, "(yours)") || !strings.Contains(s, "*") && !strings.Contains(s, "(yours)") {
			t.Errorf("%s: the asker's row is not marked:\n%s", what, s)
		}
		keys(m, "w")
		s = frameOf(t, "deepest this week", m)
		if !strings.Contains(s, "this week") {
			t.Errorf("%s: w did not turn it to the week:\n%s", what, s)
		}
		keys(m, "right", "l")
		s = frameOf(t, "gold this week", m)
		checkWhole(t, what, s, 0, w, "GOLD WON", "[gold]")
		keys(m, "l")
		checkWhole(t, what, frameOf(t, "deeds this week", m), 0, w, "DEEDS EARNED", "[deeds]", "fame", "deepest", "slain", "gold")
		keys(m, "l")
		checkWhole(t, what, frameOf(t, "fame again", m), 0, w, "HALL OF FAME")
		keys(m, "left", "h", "w")
		if want := "deepest false,deepest true,slain true,gold true,deeds true,deeds true,gold true,gold false"; strings.Join(asked, ",") != want {
			t.Errorf("%s: the boards asked for: %s, want %s", what, strings.Join(asked, ","), want)
		}
		keys(m, "x")
		if m.screen != screenPlay {
			t.Errorf("%s: x did not return to the game", what)
		}
	}
}

// A board with nobody on it, and one that cannot be read, say so.
func TestAnEmptyBoardSaysSo(t *testing.T) {
	m, _ := viewModel(t, crowdedView(t), 40, 20)
	m.p.Board = func(b world.BoardID, week bool) (world.BoardPage, error) {
		return world.BoardPage{Board: world.Boards[b].Name, Title: world.Boards[b].Title, Rows: []world.BoardRow{}}, nil
	}
	keys(m, "F", "l", "l", "w")
	checkWhole(t, "an empty board", frameOf(t, "empty", m), 0, 40, "No knight on it this week yet.")
	m.p.Board = func(world.BoardID, bool) (world.BoardPage, error) {
		return world.BoardPage{}, errors.New("etcd is away")
	}
	keys(m, "l")
	checkWhole(t, "an unread board", frameOf(t, "unread", m), 0, 40, "Not read just now; try again.")
}

// Screen-reader mode says a board as sentences: board alone names the boards; board
// NAME week says this week's; a name not known is answered with the names.
func TestABoardIsSaidAsSentences(t *testing.T) {
	m, _ := viewModel(t, twoOnTwo(t), 80, 24)
	m.pl.active = true
	var asked []string
	m.p.Board = boardOf(2, &asked)
	m.plainLine("board")
	if s := m.plainText(); !strings.Contains(s, "The boards of the living: deepest, slain, gold, deeds.") {
		t.Fatalf("board alone said %q", s)
	}
	m.plainLine("board slain week")
	want := "Monsters slain, this week:\n" +
		"1. " + longName[:17] + " 0, level 12: 1234567 monsters slain.\n" +
		"2. " + longName[:17] + " 1, level 12: 1234566 monsters slain.\n" +
		"4711. " + longName + ", level 3: 12 monsters slain (yours)."
	if s := m.plainText(); !strings.Contains(s, want) || strings.Join(asked, ",") != "slain true" {
		t.Fatalf("board slain week said:\n%s\nwant:\n%s\n(asked %v)", s, want, asked)
	}
	m.plainLine("board kills")
	if s := m.plainText(); !strings.Contains(s, "There is no board kills; the boards are deepest, slain, gold, deeds.") {
		t.Fatalf("board kills said %q", s)
	}
}
