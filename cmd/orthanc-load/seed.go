package main

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The seed command writes a data folder of returning players: a store the server opens
// as it opens its own, holding the dungeon as a first start makes it (every level
// generated from the dungeon's seed and stocked with its guards, as the engine saves it
// when it stops) and N knights standing in it, each with a key of its own in the keys
// index; and beside the store the keys file, which the load tool's -keys reads.

// keysFileName is the keys file in a seeded folder.
const keysFileName = "load-keys"

// serverDefaultSeed is the server's default -seed (the "original" dungeon). A seeded folder
// keeps each level's seed in its saved state, so a server started with another -seed
// still rebuilds the seeded levels from it.
const serverDefaultSeed = 1977

// seedAdded is when every seeded key was "added": a fixed time, so that two folders made
// from one seed hold the same records.
var seedAdded = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Placements of seeded knights.
const (
	placeFloor = "floor" // a corridor square, on no stairs, hazard or trap
	placeDoors = "doors" // the corridor square outside a door of a guarded room
)

// seedConfig is one seed command.
type seedConfig struct {
	Dir         string
	N           int
	Seed        uint64 // seeds the keys, names, stats and squares
	DungeonSeed uint64
	Levels      int    // knights go on levels 1..Levels, evenly
	Place       string // placeFloor or placeDoors
	Kept        int    // deaths kept with their replays (castseed.go)
}

// loadKey is one line of the keys file: a knight's key and where it was seeded.
type loadKey struct {
	priv  ed25519.PrivateKey
	depth int
	x, y  int
	name  string
}

func (k loadKey) signer() (gossh.Signer, error) { return gossh.NewSignerFromKey(k.priv) }

// runSeed is the seed command: orthanc-load seed -data DIR -n N.
func runSeed(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("orthanc-load seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c seedConfig
	fs.StringVar(&c.Dir, "data", "", "data folder to create for the server (-data of orthanc-ssh); must hold no orthanc.db yet")
	fs.IntVar(&c.N, "n", 1000, "knights to write")
	fs.Uint64Var(&c.Seed, "seed", 1, "seed of the knights: their keys, names, characteristics and squares")
	fs.Uint64Var(&c.DungeonSeed, "dungeon-seed", serverDefaultSeed, "seed of the dungeon (the server's -seed; its default)")
	fs.IntVar(&c.Levels, "levels", world.DefaultDepth, "spread the knights evenly over levels 1 to this")
	fs.StringVar(&c.Place, "place", placeFloor, "floor: each on a corridor square; doors: each outside a door of a guarded room")
	fs.IntVar(&c.Kept, "kept", 0, "also keep this many deaths with their last 5 minutes (one walk recorded), for the web page's casts; their ids go to DIR/"+castsFileName)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: orthanc-load seed -data DIR [-n 1000] [-seed 1] [-place floor|doors] [-levels 10] [-kept 0]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "orthanc-load seed: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if err := c.check(); err != nil {
		fmt.Fprintln(stderr, "orthanc-load seed:", err)
		return 2
	}
	ks, err := seedFolder(c)
	if err != nil {
		fmt.Fprintln(stderr, "orthanc-load seed:", err)
		return 1
	}
	perLevel := map[int]int{}
	for _, k := range ks {
		perLevel[k.depth]++
	}
	var parts []string
	for d := 1; d <= c.Levels; d++ {
		parts = append(parts, fmt.Sprintf("%d:%d", d, perLevel[d]))
	}
	fmt.Fprintf(stdout, "wrote %d knights (%s) to %s and their keys to %s\nknights by level: %s\n",
		len(ks), c.Place, filepath.Join(c.Dir, "orthanc.db"), filepath.Join(c.Dir, keysFileName), strings.Join(parts, " "))
	if c.Kept > 0 {
		if err := seedKept(filepath.Join(c.Dir, "orthanc.db"), filepath.Join(c.Dir, castsFileName), c.DungeonSeed, c.Kept); err != nil {
			fmt.Fprintln(stderr, "orthanc-load seed:", err)
			return 1
		}
		fmt.Fprintf(stdout, "kept %d deaths' replays, their ids in %s\n", c.Kept, filepath.Join(c.Dir, castsFileName))
	}
	return 0
}

// levelCollector is the engine's Saver while the seed command builds the dungeon: it keeps
// the level states the engine saves as it stops.
type levelCollector struct{ levels []world.LevelState }

func (*levelCollector) Put(...world.Adventurer) {}
func (c *levelCollector) PutLevels(states ...world.LevelState) {
	c.levels = append(c.levels, states...)
}

func (c seedConfig) check() error {
	switch {
	case c.Dir == "":
		return errors.New("-data: need a folder")
	case c.N < 1:
		return fmt.Errorf("-n %d: need at least one knight", c.N)
	case c.Levels < 1 || c.Levels > world.DefaultDepth:
		return fmt.Errorf("-levels %d: must be between 1 and %d", c.Levels, world.DefaultDepth)
	case c.Place != placeFloor && c.Place != placeDoors:
		return fmt.Errorf("-place %q: must be %s or %s", c.Place, placeFloor, placeDoors)
	case c.Kept < 0:
		return fmt.Errorf("-kept %d: must be 0 or more", c.Kept)
	}
	return nil
}

// seedFolder writes the folder and returns its keys, in the keys file's order.
func seedFolder(c seedConfig) ([]loadKey, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	dbPath, keysPath := filepath.Join(c.Dir, "orthanc.db"), filepath.Join(c.Dir, keysFileName)
	for _, p := range []string{dbPath, keysPath} {
		if _, err := os.Stat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s exists already: seed a new folder", p)
		}
	}

	// The dungeon as a server's first start makes it: generated from the seed and stocked,
	// and saved whole as the engine saves it when it stops (here at once: its context has
	// ended before it runs).
	col := &levelCollector{}
	eng := world.New(world.Config{Seed: c.DungeonSeed, Saver: col})
	stopped, stop := context.WithCancel(context.Background())
	stop()
	eng.Run(stopped, nil)
	levels := world.GenerateDungeon(c.DungeonSeed, world.DefaultDepth)
	spots := make([][]spot, c.Levels)
	for d := 1; d <= c.Levels; d++ {
		l := levels[d-1]
		if c.Place == placeDoors {
			spots[d-1] = doorSpots(l, guardedRooms(col.levels, d))
		}
		if len(spots[d-1]) == 0 { // floor, or a level with no guarded room's door to stand at
			spots[d-1] = floorSpots(l)
		}
		if len(spots[d-1]) == 0 {
			return nil, fmt.Errorf("level %d has no corridor square to stand on", d)
		}
	}

	rng := rand.New(rand.NewPCG(c.Seed, 0x6b6e69676874)) // "knight"
	for _, s := range spots {
		rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	}
	ks := make([]loadKey, c.N)
	recs := make([]world.Adventurer, c.N)
	entries := make([]knights.Key, c.N)
	names := map[string]bool{}
	for i := range ks {
		var seed [ed25519.SeedSize]byte
		for j := range seed {
			seed[j] = byte(rng.Uint32())
		}
		priv := ed25519.NewKeyFromSeed(seed[:])
		pub, err := gossh.NewPublicKey(priv.Public())
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i, err)
		}
		name := knightName(rng)
		for names[world.NameKey(name)] {
			name = knightName(rng)
		}
		names[world.NameKey(name)] = true
		d := i%c.Levels + 1
		sp := spots[d-1][(i/c.Levels)%len(spots[d-1])]
		id := seededKnightID(rng)
		stats := world.RollStats(rng)
		rec := world.NewAdventurer(id, name, stats, world.StartHits(rng, stats.Con))
		rec.Depth, rec.X, rec.Y = d, sp.p.X, sp.p.Y
		recs[i] = rec
		entries[i] = knights.Key{Fingerprint: keys.Fingerprint(pub), Knight: id, Type: pub.Type(), Added: seedAdded}
		ks[i] = loadKey{priv: priv, depth: d, x: sp.p.X, y: sp.p.Y, name: name}
	}

	st, err := store.Open(dbPath, store.Options{})
	if err != nil {
		return nil, err
	}
	err = st.Save(store.Batch{Adventurers: recs, Keys: entries, Levels: col.levels})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	header := fmt.Sprintf("orthanc-load seed -n %d -seed %d -dungeon-seed %d -levels %d -place %s", c.N, c.Seed, c.DungeonSeed, c.Levels, c.Place)
	if err := writeKeysFile(keysPath, header, ks); err != nil {
		return nil, err
	}
	return ks, nil
}

// spot is a square a seeded knight stands on.
type spot struct{ p world.Pos }

// usable reports whether a knight may be seeded on p: a corridor square (not a guarded
// room, whose guard would attack it as its safe arrival ends) with no stairs, hazard or
// trap on it.
func usable(l *world.Level, p world.Pos) bool {
	return l.Terrain(p) == world.Corridor && l.Feature(p) == world.FeatNone && l.Trap(p) == world.TrapNone
}

// floorSpots lists the level's usable squares, row by row.
func floorSpots(l *world.Level) []spot {
	var out []spot
	for y := range l.H {
		for x := range l.W {
			if p := (world.Pos{X: x, Y: y}); usable(l, p) {
				out = append(out, spot{p})
			}
		}
	}
	return out
}

// guardedRooms lists the rooms of depth that a monster guards in the saved states.
func guardedRooms(states []world.LevelState, depth int) []int {
	var out []int
	for _, ls := range states {
		if ls.Depth != depth {
			continue
		}
		for _, m := range ls.Monsters {
			if m.Room >= 0 && !slices.Contains(out, m.Room) {
				out = append(out, m.Room)
			}
		}
	}
	slices.Sort(out)
	return out
}

// doorSpots lists the usable squares just outside a door that a player can see (plain,
// locked, or a secret door marked with a box) of one of the rooms, each once.
func doorSpots(l *world.Level, rooms []int) []spot {
	var out []spot
	for _, r := range rooms {
		rr := l.Rooms[r]
		for y := rr.Y; y < rr.Y+rr.H; y++ {
			for x := rr.X; x < rr.X+rr.W; x++ {
				p := world.Pos{X: x, Y: y}
				for _, d := range []world.Dir{world.North, world.East, world.South, world.West} {
					switch l.Edge(p, d) {
					case world.EdgeDoor, world.EdgeLocked, world.EdgeSecretMarked:
					default:
						continue
					}
					q := p.Step(d)
					if l.In(q) && usable(l, q) && !slices.Contains(out, spot{q}) {
						out = append(out, spot{q})
					}
				}
			}
		}
	}
	return out
}

// seededKnightID is a knight id of the store's form ("K-" and 16 capitals and digits),
// drawn from rng so that a seed gives the same ids.
func seededKnightID(rng *rand.Rand) string {
	var b [10]byte
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return "K-" + base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])
}

// writeKeysFile writes the keys file, mode 0600: a header, then one knight a line.
func writeKeysFile(path, header string, ks []loadKey) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", header)
	b.WriteString("# One knight a line: the seed of its ed25519 private key (hex), the level and square\n")
	b.WriteString("# it was seeded on (depth x y), and its name. Session i of a run with -keys plays line i.\n")
	for _, k := range ks {
		fmt.Fprintf(&b, "%s %d %d %d %s\n", hex.EncodeToString(k.priv.Seed()), k.depth, k.x, k.y, k.name)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("keys file: %w", err)
	}
	if _, err := io.WriteString(f, b.String()); err != nil {
		_ = f.Close()
		return fmt.Errorf("keys file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("keys file: %w", err)
	}
	return nil
}

// readKeysFile reads a keys file that writeKeysFile wrote.
func readKeysFile(path string) ([]loadKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("keys file: %w", err)
	}
	defer f.Close()
	var out []loadKey
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		k, err := parseKeyLine(text)
		if err != nil {
			return nil, fmt.Errorf("keys file %s:%d: %w", path, line, err)
		}
		out = append(out, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("keys file %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("keys file %s: no keys", path)
	}
	return out, nil
}

func parseKeyLine(text string) (loadKey, error) {
	f := strings.SplitN(text, " ", 5)
	if len(f) != 5 {
		return loadKey{}, errors.New("want: key depth x y name")
	}
	seed, err := hex.DecodeString(f[0])
	if err != nil || len(seed) != ed25519.SeedSize {
		return loadKey{}, fmt.Errorf("key: want %d bytes of hex", ed25519.SeedSize)
	}
	var n [3]int
	for i := range n {
		if n[i], err = strconv.Atoi(f[i+1]); err != nil {
			return loadKey{}, fmt.Errorf("depth x y: %w", err)
		}
	}
	return loadKey{priv: ed25519.NewKeyFromSeed(seed), depth: n[0], x: n[1], y: n[2], name: f[4]}, nil
}
