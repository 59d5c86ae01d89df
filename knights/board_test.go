package knights

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// sheets is a Living of fixed sheets that counts its flushes and scans.
type sheets struct {
	all            []world.Adventurer
	flushes, scans int
}

func (s *sheets) Flush() error { s.flushes++; return nil }
func (s *sheets) Living() ([]world.Adventurer, error) {
	s.scans++
	return s.all, nil
}

// row is a board's row.
func row(rank int, name string, level, value int, yours bool) world.BoardRow {
	return world.BoardRow{Rank: rank, Name: name, Level: level, Value: value, Yours: yours}
}

// A board ranks the living by its tally, most first, equal values sharing a rank in name
// order; the top BoardTop, then the asker's own row; nothing is no rank; a week's board
// counts only tallies of that week, by the server's clock.
func TestABoardRanksTheLiving(t *testing.T) {
	now := time.Date(2026, 12, 7, 15, 0, 0, 0, time.UTC) // 2026-W50
	this, last := world.WeekTally{Name: "2026-W50"}, world.WeekTally{Name: "2026-W49"}
	k := &sheets{}
	for i := range 14 {
		a := world.Adventurer{ID: fmt.Sprintf("K-%02d", i), Name: fmt.Sprintf("Knight %02d", i), Level: 1, Slain: 100 - i, Week: last}
		a.Week.Slain = 50
		k.all = append(k.all, a)
	}
	k.all[3].Slain = k.all[2].Slain                                                                      // a tie: both 3rd
	k.all[13].Week, k.all[13].Week.Slain = this, 2                                                       // slew 2 this week
	k.all[12].Week, k.all[12].Week.Slain, k.all[12].Week.Deepest = this, 5, 4                            // 5 this week
	k.all = append(k.all, world.Adventurer{ID: "K-g", Name: "Guest 1", Guest: true, Slain: 1000})        // never ranked
	k.all = append(k.all, world.Adventurer{ID: "K-d", Name: "Dead", Slain: 1000, Death: &world.Death{}}) // nor the dead
	k.all = append(k.all, world.Adventurer{ID: "K-z", Name: "Zero", Week: this})                         // nothing: no rank
	s := NewStandings(k, func() time.Time { return now })

	p, err := s.Board(world.BoardSlain, false, "K-13")
	if err != nil {
		t.Fatal(err)
	}
	if p.Board != "slain" || p.Title != "Monsters slain" || p.Week != "" || len(p.Rows) != BoardTop+1 {
		t.Fatalf("page: %+v", p)
	}
	if r := p.Rows; r[0] != row(1, "Knight 00", 1, 100, false) || r[2].Rank != 3 || r[3].Rank != 3 || r[3].Value != 98 ||
		r[4].Rank != 5 || r[BoardTop] != row(14, "Knight 13", 1, 87, true) {
		t.Fatalf("rows: %+v", r)
	}
	p, _ = s.Board(world.BoardSlain, true, "")
	if want := []world.BoardRow{row(1, "Knight 12", 1, 5, false), row(2, "Knight 13", 1, 2, false)}; p.Week != "2026-W50" || !reflect.DeepEqual(p.Rows, want) {
		t.Fatalf("this week: %+v", p)
	}
	p, _ = s.Board(world.BoardGold, false, "K-01")
	if p.Board != "gold" || len(p.Rows) != 0 || p.Rows == nil {
		t.Fatalf("no gold won: %+v", p)
	}

	// One scan for all those reads, flushed first; a scan again once it is BoardsStale old.
	if k.scans != 1 || k.flushes != 1 {
		t.Fatalf("%d scans, %d flushes", k.scans, k.flushes)
	}
	k.all[13].Slain = 1000
	now = now.Add(BoardsStale - time.Millisecond)
	if p, _ = s.Board(world.BoardSlain, false, ""); p.Rows[0].Name != "Knight 00" {
		t.Fatalf("a scan within BoardsStale: %+v", p.Rows[0])
	}
	now = now.Add(time.Millisecond)
	if p, _ = s.Board(world.BoardSlain, false, ""); p.Rows[0] != row(1, "Knight 13", 1, 1000, false) || k.scans != 2 || k.flushes != 2 {
		t.Fatalf("after BoardsStale: %+v, %d scans", p.Rows[0], k.scans)
	}
}
