package world

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkSurface checks one generated grid: seed 002's shares (rounded), the entrance on a
// middle square, every accessible space reachable from it, every market named, the names
// distinct.
func checkSurface(t *testing.T, seed uint64, size int) *Surface {
	t.Helper()
	s := GenerateSurface(seed, size)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d size %d: %s\n%s", seed, size, fmt.Sprintf(format, args...), surfaceASCII(s))
	}
	if s.W != size || s.H != size || len(s.Cells) != size*size {
		fail("grid %dx%d with %d cells", s.W, s.H, len(s.Cells))
	}
	n := size * size
	var count [4]int
	for _, k := range s.Cells {
		count[k]++
	}
	// Seed 002: "20% inaccessible spaces, 30% market spaces, and 50% common spaces".
	wantInacc, wantMarkets := int(float64(n)*0.2+0.5), int(float64(n)*0.3+0.5)
	if count[SurfaceInaccessible] != wantInacc || count[SurfaceMarket] != wantMarkets ||
		count[SurfaceEntrance] != 1 || count[SurfaceCommon]+1 != n-wantInacc-wantMarkets {
		fail("counts inaccessible %d market %d common %d entrance %d; want %d, %d, %d and 1",
			count[SurfaceInaccessible], count[SurfaceMarket], count[SurfaceCommon], count[SurfaceEntrance],
			wantInacc, wantMarkets, n-wantInacc-wantMarkets-1)
	}
	lo, hi := (size-1)/2, size/2
	if en := s.Entrance; en.X < lo || en.X > hi || en.Y < lo || en.Y > hi || s.At(en) != SurfaceEntrance {
		fail("entrance at %v, want a middle square", en)
	}
	// Connected: a flood from the entrance reaches every accessible space.
	seen := map[Pos]bool{s.Entrance: true}
	for stack := []Pos{s.Entrance}; len(stack) > 0; {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range Dirs {
			if q := p.Step(d); s.Accessible(q) && !seen[q] {
				seen[q] = true
				stack = append(stack, q)
			}
		}
	}
	if len(seen) != n-wantInacc {
		fail("%d of %d accessible spaces reachable from the entrance", len(seen), n-wantInacc)
	}
	names := map[string]bool{}
	for i, k := range s.Cells {
		name, ok := s.Markets[i]
		if (k == SurfaceMarket) != ok {
			fail("cell %d (%v) has name %q", i, k, name)
		}
		if ok && (!strings.HasPrefix(name, "the Market of the ") || names[name] || len(name) > 40) {
			fail("market name %q", name)
		}
		names[name] = true
	}
	return s
}

func TestGenerateSurfaceProportionsAndConnection(t *testing.T) {
	for seed := range uint64(1000) {
		s := checkSurface(t, seed, DefaultSurfaceSize)
		if seed == 0 {
			t.Logf("seed 0:\n%s", surfaceASCII(s))
		}
	}
}

// Seed 002: "An example world size is 8 spaces by 8 spaces"; other sizes work too.
func TestGenerateSurfaceSizes(t *testing.T) {
	for size := MinSurfaceSize; size <= 20; size++ {
		for seed := range uint64(60) {
			checkSurface(t, seed*7919+uint64(size), size)
		}
	}
	for _, c := range []struct{ ask, want int }{{0, 8}, {-3, 8}, {1, MinSurfaceSize}, {2, MinSurfaceSize}, {1000, MaxSurfaceSize}} {
		if s := GenerateSurface(5, c.ask); s.W != c.want || s.H != c.want {
			t.Errorf("size %d gave %dx%d, want %d", c.ask, s.W, s.H, c.want)
		}
	}
	checkSurface(t, 5, MaxSurfaceSize)
}

func TestGenerateSurfaceIsReproducible(t *testing.T) {
	differ := 0
	for seed := range uint64(50) {
		a, _ := json.Marshal(GenerateSurface(seed, 8))
		b, _ := json.Marshal(GenerateSurface(seed, 8))
		if !bytes.Equal(a, b) {
			t.Fatalf("seed %d: two grids\n%s\n%s", seed, a, b)
		}
		c, _ := json.Marshal(GenerateSurface(seed+1, 8))
		if !bytes.Equal(a, c) {
			differ++
		}
	}
	if differ < 49 {
		t.Fatalf("only %d of 50 neighbouring seeds give different grids", differ)
	}
}

// Seed 002: "Their levels should be scaled to the levels of the heroes. There will be as
// many monsters as there are heroes."
func TestSurfaceFoes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	if SurfaceFoes(r, nil) != nil {
		t.Fatal("monsters for no heroes")
	}
	for _, c := range []struct {
		heroes []int
		avg    int
	}{
		{[]int{1}, 1}, {[]int{1, 2}, 2}, {[]int{3, 3, 4}, 3}, {[]int{5, 6}, 6}, {[]int{9, 10, 10}, 10},
		{[]int{14}, 14}, {[]int{0, -2}, 1},
	} {
		offsets, total := map[int]int{}, 0
		for range 3000 {
			foes := SurfaceFoes(r, c.heroes)
			if len(foes) != len(c.heroes) {
				t.Fatalf("%v: %d monsters", c.heroes, len(foes))
			}
			for _, id := range foes {
				lvl := id.Kind().Level
				want := func(off int) int { return min(max(c.avg+off, 1), MaxMonsterLevel) }
				if lvl != want(-1) && lvl != want(0) && lvl != want(1) {
					t.Fatalf("heroes %v (average %d): a level-%d %s", c.heroes, c.avg, lvl, id.Kind().Name)
				}
				offsets[lvl-c.avg]++
				total++
			}
		}
		if c.avg >= 2 && c.avg <= MaxMonsterLevel-1 {
			for off := -1; off <= 1; off++ {
				if n := offsets[off]; n < total*28/100 || n > total*38/100 {
					t.Errorf("heroes %v: level %+d drawn %d times in %d, want about a third", c.heroes, off, n, total)
				}
			}
		}
	}
	// The same stream gives the same monsters.
	a := SurfaceFoes(rand.New(rand.NewPCG(9, 9)), []int{2, 4, 5})
	b := SurfaceFoes(rand.New(rand.NewPCG(9, 9)), []int{2, 4, 5})
	if len(a) != 3 || a[0] != b[0] || a[1] != b[1] || a[2] != b[2] {
		t.Fatalf("%v then %v", a, b)
	}
}

// The map marks a market by its name's initials, so on a grid of the default size no two
// markets share them.
func TestMarketsHaveMarksOfTheirOwn(t *testing.T) {
	for seed := uint64(0); seed < 300; seed++ {
		s := GenerateSurface(seed, DefaultSurfaceSize)
		seen := map[string]string{}
		for _, name := range s.Markets {
			var adj, noun string
			if _, err := fmt.Sscanf(name, "the Market of the %s %s", &adj, &noun); err != nil {
				t.Fatalf("seed %d: market name %q", seed, name)
			}
			in := adj[:1] + noun[:1]
			if other, ok := seen[in]; ok {
				t.Fatalf("seed %d: %q and %q share the mark %s", seed, other, name, in)
			}
			seen[in] = name
		}
	}
}
