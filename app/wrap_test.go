package app

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A pager moves by its own keys only, stays within its lines, and a tailing one shows the
// newest lines until it is scrolled up, and again once scrolled to the end.
func TestPager(t *testing.T) {
	var p pager
	for _, tc := range []struct {
		key  string
		ok   bool
		want int
	}{{"down", true, 1}, {"space", true, 6}, {"end", true, 15}, {"down", true, 15}, {"j", false, 15}, {"pgup", true, 10}, {"home", true, 0}, {"up", true, 0}} {
		if ok := p.scrollBy(tc.key, 20, 5); ok != tc.ok || p.top != tc.want {
			t.Fatalf("%s: %v, top %d; want %v, %d", tc.key, ok, p.top, tc.ok, tc.want)
		}
	}
	if from, to := p.span(20, 5); from != 1 || to != 5 {
		t.Fatalf("span %d-%d", from, to)
	}
	log := pager{keys: letterKeys, tail: true}
	log.home()
	if log.first(20, 5) != 15 {
		t.Fatal("a tailing pager does not show the newest lines")
	}
	if log.scrollBy("k", 20, 5); log.follow || log.first(30, 5) != 14 {
		t.Fatalf("scrolled up, it follows still (top %d)", log.top)
	}
	if log.scrollBy("G", 30, 5); !log.follow || log.first(40, 5) != 35 {
		t.Fatal("scrolled to the end, it does not follow the newest again")
	}
	// A pager whose keys come before its lines are measured (a battle's statistics)
	// pages by the page it was last drawn with.
	stats := pager{keys: lineKeys}
	for range 3 {
		stats.scrollBy("down", unmeasured, stats.shown)
	}
	if stats.scrollBy("home", unmeasured, stats.shown) || stats.first(10, 4) != 3 {
		t.Fatalf("a line pager: top %d", stats.top)
	}
	if stats.scrollBy("-", unmeasured, stats.shown); stats.first(10, 4) != 0 {
		t.Fatalf("- pages up a line pager by %d: top %d", stats.shown, stats.top)
	}
	if stats.scrollBy("space", unmeasured, stats.shown); stats.first(10, 4) != 4 {
		t.Fatalf("space pages down a line pager by %d: top %d", stats.shown, stats.top)
	}
}

// packJoined is packSep as it was first written, each item joined to the line as a new
// string: what packSep must lay out.
func packJoined(items []string, w int, sep string) []string {
	var out []string
	cur := ""
	for _, it := range items {
		switch {
		case cur == "":
		case textWidth(cur)+textWidth(sep)+textWidth(it) <= w:
			cur += sep + it
			continue
		default:
			out = append(out, cur)
		}
		lines := wrap(it, w)
		out = append(out, lines[:len(lines)-1]...)
		cur = lines[len(lines)-1]
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

// Items are packed as they were when each was joined to its line as a new string (over
// seeded lists of short and long items, wide runes, empty ones, at every width), and a
// status line of one line makes two allocations: the lines' slice and the line.
func TestPackSepLaysOutAsJoined(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"Level 3", "Hits 12/15", "", "Sir Kay", "世界の竜", "a very long item that will not fit on one narrow line at all", "x", "Spells 8", "On the stairs down", "  ", "e\u0301"}
	for range 2000 {
		items := make([]string, r.IntN(9))
		for i := range items {
			items[i] = words[r.IntN(len(words))]
		}
		sep := []string{" │ ", "  ", "   "}[r.IntN(3)]
		w := 1 + r.IntN(60)
		if got, want := packSep(items, w, sep), packJoined(items, w, sep); !slices.Equal(got, want) {
			t.Fatalf("packSep(%q, %d, %q) = %q, want %q", items, w, sep, got, want)
		}
	}
	fields := []string{"Sir Kay", "Level 3", "Hits 12/15", "Spells 8", "Exp 1234", "Depth 2"}
	if allocs := testing.AllocsPerRun(20, func() { benchTextSink = packSep(fields, 80, statusSep)[0] }); allocs > 2 {
		t.Errorf("packing a status line of one line makes %.0f allocations, want 2", allocs)
	}
}
