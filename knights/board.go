package knights

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The boards of the living (world.Boards): the living knights ranked by a tally, for all
// time or for the week, read from their last sheets.

// Tuning of the boards:
//
//	constant       value   effect
//	BoardTop       10      knights a board shows, and the asker's own row beside them
//	BoardsStale    5 s     how old a board may be: every read in that time ranks the one scan
const (
	BoardTop    = 10
	BoardsStale = 5 * time.Second
)

// Living is what the boards read: the knights' records, flushed first so a knight
// playing now counts (Keeper).
type Living interface {
	Flush() error
	Living() ([]world.Adventurer, error)
}

// SheetWithoutMaps decodes a knight's sheet from JSON but its maps, which are most of it,
// and its things, options and channels, which no board reads: Hall.Living's reading.
type SheetWithoutMaps struct {
	world.Adventurer
	// These shadow Adventurer's: their JSON is passed over.
	Maps     passedOver `json:"maps,omitempty"`
	Items    passedOver `json:"items,omitempty"`
	Effects  passedOver `json:"effects,omitempty"`
	Status   passedOver `json:"status,omitempty"`
	Options  passedOver `json:"options,omitzero"`
	Channels passedOver `json:"channels,omitempty"`
}

// passedOver is JSON read past, not kept.
type passedOver struct{}

// UnmarshalJSON keeps nothing.
func (*passedOver) UnmarshalJSON([]byte) error { return nil }

// standing is what a board needs of one living knight's sheet.
type standing struct {
	id, name string
	level    int
	ever     [world.NumBoards]int
	week     [world.NumBoards]int
	weekName string
}

// Standings reads the boards from the living knights' sheets, one scan for every board
// and both periods, kept BoardsStale by the server's clock: a scan reads every knight
// (at 10 000 knights a few hundred milliseconds: docs/PERFORMANCE.md). Safe for use by many
// goroutines.
type Standings struct {
	k   Living
	now func() time.Time

	mu   sync.Mutex
	read time.Time // when all was scanned; zero for never
	all  []standing
}

// NewStandings reads the boards from k; now is the server's clock, which says the week
// and how old a scan is.
func NewStandings(k Living, now func() time.Time) *Standings {
	return &Standings{k: k, now: now}
}

// Board is board b as knight (an id, "" for none) sees it, for the week it is now by the
// server's clock when week is set, else for all time. Knights with nothing on it are
// not ranked; equal values share a rank, in name order.
func (s *Standings) Board(b world.BoardID, week bool, knight string) (world.BoardPage, error) {
	now := s.now()
	all, err := s.scan(now)
	if err != nil {
		return world.BoardPage{}, err
	}
	bd := world.Boards[b]
	page := world.BoardPage{Board: bd.Name, Title: bd.Title, Rows: []world.BoardRow{}}
	if week {
		page.Week = world.WeekOf(now)
	}
	type ranked struct {
		*standing
		value int
	}
	var list []ranked
	for i := range all {
		st := &all[i]
		v := st.ever[b]
		if week {
			v = 0
			if st.weekName == page.Week {
				v = st.week[b]
			}
		}
		if v > 0 {
			list = append(list, ranked{st, v})
		}
	}
	slices.SortFunc(list, func(x, y ranked) int {
		return cmp.Or(cmp.Compare(y.value, x.value), cmp.Compare(x.name, y.name), cmp.Compare(x.id, y.id))
	})
	rank := 0
	for i, r := range list {
		if i == 0 || r.value != list[i-1].value {
			rank = i + 1
		}
		mine := knight != "" && r.id == knight
		if i < BoardTop || mine {
			page.Rows = append(page.Rows, world.BoardRow{Rank: rank, Name: r.name, Level: r.level, Value: r.value, Yours: mine})
		}
	}
	return page, nil
}

// scan is the living knights' standings, scanned again when the last scan is older than
// BoardsStale (or from a clock set back).
func (s *Standings) scan(now time.Time) ([]standing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.read.IsZero() && !now.Before(s.read) && now.Sub(s.read) < BoardsStale {
		return s.all, nil
	}
	if err := s.k.Flush(); err != nil {
		return nil, fmt.Errorf("read the boards: %w", err)
	}
	living, err := s.k.Living()
	if err != nil {
		return nil, fmt.Errorf("read the boards: %w", err)
	}
	all := make([]standing, 0, len(living))
	for i := range living {
		a := &living[i]
		if !a.Ranked() {
			continue
		}
		st := standing{id: a.ID, name: a.Name, level: a.Level, weekName: a.Week.Name}
		for b, bd := range world.Boards {
			st.ever[b], st.week[b] = bd.Ever(a), bd.InWeek(&a.Week)
		}
		all = append(all, st)
	}
	s.all, s.read = all, now
	return all, nil
}
