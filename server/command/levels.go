package command

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Levels is what the commands that rebuild the dungeon (regen, revert) use.
type Levels struct {
	Log   *slog.Logger
	World *world.Engine
	// Save writes what the saver holds, so a rebuilt level is on disk when the command
	// answers.
	Save func() error
	// Seed is the dungeon's original seed, which revert builds from.
	Seed uint64
}

// Regen is regen's row.
func (l Levels) Regen() Command {
	return Command{Name: "regen", Usage: "regen <level|all> [--seed N] [--json]", Summary: "rebuild one level, or all, now, from a new seed",
		Help: "Level d becomes the one dungeon seed N builds for depth d (N is random unless given, and printed).\n" +
			"Knights on a rebuilt level move to its up stairs and are told; fights there end and the\n" +
			"old monsters vanish; no knight dies or loses anything. The level is saved at once and\n" +
			"stays rebuilt across restarts until `revert`.",
		Admin: true, Takes: TakesWords | TakesJSON | TakesSeed, Run: l.regen}
}

// Revert is revert's row.
func (l Levels) Revert() Command {
	return Command{Name: "revert", Usage: "revert [level|all] [--json]", Summary: "rebuild levels from the original seed (all by default)",
		Help: "The original dungeon comes back byte for byte, freshly stocked: broken doors are whole and\n" +
			"the original guards are back. Knights on a reverted level move to its up stairs.",
		Admin: true, Takes: TakesWords | TakesJSON, Run: l.revert}
}

// level reads a level argument: "all" is 0, otherwise a depth from 1.
func level(c *Call, arg string) (int, bool) {
	if arg == "all" {
		return 0, true
	}
	d, err := strconv.Atoi(arg)
	if err != nil || d < 1 {
		c.UsageError("level %q: want a level number from 1, or all", Printable(arg))
		return 0, false
	}
	return d, true
}

// regenJSON is the --json output of regen and revert.
type regenJSON struct {
	DungeonSeed uint64            `json:"dungeon_seed"`
	Levels      []world.LevelInfo `json:"levels"`
}

func (l Levels) regen(c *Call) int {
	if len(c.Args) != 1 {
		return c.UsageError("name one level, or all")
	}
	depth, ok := level(c, c.Args[0])
	if !ok {
		return 1
	}
	seed := c.Seed
	if !c.HasSeed {
		seed = rand.Uint64()
	}
	infos, err := l.World.Regenerate(c.Ctx, depth, seed)
	return l.rebuilt(c, "Regenerated", seed, infos, err)
}

func (l Levels) revert(c *Call) int {
	depth := 0
	switch len(c.Args) {
	case 0:
	case 1:
		var ok bool
		if depth, ok = level(c, c.Args[0]); !ok {
			return 1
		}
	default:
		return c.UsageError("name one level, or all")
	}
	infos, err := l.World.Revert(c.Ctx, depth)
	return l.rebuilt(c, "Reverted", l.Seed, infos, err)
}

// rebuilt saves and reports the levels regen or revert rebuilt.
func (l Levels) rebuilt(c *Call, verb string, seed uint64, infos []world.LevelInfo, err error) int {
	if errors.Is(err, world.ErrNoSuchLevel) {
		return c.Fail("there is no such level: the dungeon has levels 1 to %d", l.World.Levels())
	}
	if err != nil {
		return c.Fail("the world is not answering: %v", err)
	}
	depths := make([]string, len(infos))
	for i, in := range infos {
		depths[i] = strconv.Itoa(in.Depth)
	}
	c.Result = fmt.Sprintf("%s levels %s with dungeon seed %d", strings.ToLower(verb), strings.Join(depths, ","), seed)
	if err := l.Save(); err != nil {
		l.Log.Error("admin: save rebuilt levels", "err", err)
		fmt.Fprintf(c.ErrOut, "orthanc: warning: the levels are rebuilt but not yet saved (%v); the saver retries\n", err)
	}
	if c.JSON {
		return c.WriteJSON(regenJSON{DungeonSeed: seed, Levels: infos})
	}
	fmt.Fprintf(c.Out, "%s with dungeon seed %d:\n", verb, seed)
	writeLevels(c.Out, infos)
	return 0
}

// writeLevels prints levels as a table (regen, revert, stats).
func writeLevels(w io.Writer, infos []world.LevelInfo) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LEVEL\tSEED\tORIGINAL\tMONSTERS\tKNIGHTS")
	for _, in := range infos {
		orig := "no"
		if in.Original {
			orig = "yes"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%d\t%d\n", in.Depth, in.Seed, orig, in.Monsters, in.Players)
	}
	_ = tw.Flush()
}
