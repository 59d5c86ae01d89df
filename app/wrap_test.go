package app

import "testing"

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
