package server

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The admin commands on the world: rebuilding and reverting levels, and what every player
// is told (broadcast, the message of the day).

// level reads a level argument: "all" is 0, otherwise a depth from 1.
func (c *call) level(arg string) (int, bool) {
	if arg == "all" {
		return 0, true
	}
	d, err := strconv.Atoi(arg)
	if err != nil || d < 1 {
		c.usageError("level %q: want a level number from 1, or all", printable(arg))
		return 0, false
	}
	return d, true
}

// regenJSON is the --json output of regen and revert.
type regenJSON struct {
	DungeonSeed uint64            `json:"dungeon_seed"`
	Levels      []world.LevelInfo `json:"levels"`
}

func (s *Server) adminRegen(c *call) int {
	if len(c.args) != 1 {
		return c.usageError("name one level, or all")
	}
	depth, ok := c.level(c.args[0])
	if !ok {
		return 1
	}
	seed := c.seed
	if !c.hasSeed {
		seed = rand.Uint64()
	}
	infos, err := s.engine.Regenerate(c.ctx, depth, seed)
	return s.rebuilt(c, "Regenerated", seed, infos, err)
}

func (s *Server) adminRevert(c *call) int {
	depth := 0
	switch len(c.args) {
	case 0:
	case 1:
		var ok bool
		if depth, ok = c.level(c.args[0]); !ok {
			return 1
		}
	default:
		return c.usageError("name one level, or all")
	}
	infos, err := s.engine.Revert(c.ctx, depth)
	return s.rebuilt(c, "Reverted", s.cfg.Seed, infos, err)
}

// rebuilt saves and reports the levels regen or revert rebuilt.
func (s *Server) rebuilt(c *call, verb string, seed uint64, infos []world.LevelInfo, err error) int {
	if errors.Is(err, world.ErrNoSuchLevel) {
		return c.fail("there is no such level: the dungeon has levels 1 to %d", s.engine.Levels())
	}
	if err != nil {
		return c.fail("the world is not answering: %v", err)
	}
	depths := make([]string, len(infos))
	for i, in := range infos {
		depths[i] = strconv.Itoa(in.Depth)
	}
	c.result = fmt.Sprintf("%s levels %s with dungeon seed %d", strings.ToLower(verb), strings.Join(depths, ","), seed)
	if err := s.saver.Flush(); err != nil {
		s.log.Error("admin: save rebuilt levels", "err", err)
		fmt.Fprintf(c.errOut, "orthanc: warning: the levels are rebuilt but not yet saved (%v); the saver retries\n", err)
	}
	if c.json {
		return c.writeJSON(regenJSON{DungeonSeed: seed, Levels: infos})
	}
	fmt.Fprintf(c.out, "%s with dungeon seed %d:\n", verb, seed)
	writeLevels(c.out, infos)
	return 0
}

// writeLevels prints levels as a table.
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

func (s *Server) adminBroadcast(c *call) int {
	text := strings.Join(c.args, " ") // the whole line is the text (takesLine): no flags
	if strings.TrimSpace(text) == "" {
		return c.usageError("say something")
	}
	n, err := s.engine.Broadcast(c.ctx, text)
	if errors.Is(err, world.ErrEmptyText) {
		return c.fail("nothing is left to send once control characters are removed")
	}
	if err != nil {
		return c.fail("the world is not answering: %v", err)
	}
	knights := "knights"
	if n == 1 {
		knights = "knight"
	}
	c.result = fmt.Sprintf("sent to %d %s", n, knights)
	fmt.Fprintf(c.out, "Sent to %d %s: [admin] %s\n", n, knights, world.CleanText(text, world.MaxBroadcastRunes))
	return 0
}

func (s *Server) adminMOTDSet(c *call) int {
	if f := s.motdSource(); f != "" {
		return c.fail("%s", motdFileRules(f))
	}
	text := world.CleanText(strings.Join(c.args, " "), world.MaxBroadcastRunes)
	if strings.TrimSpace(text) == "" {
		return c.usageError("give the message (motd clear clears it)")
	}
	if err := s.setMOTD(store.MOTD{Text: text, By: c.fp, At: time.Now().UTC()}); err != nil {
		s.log.Error("admin: motd set", "err", err)
		return c.fail("the message could not be saved: %v", err)
	}
	c.result = "set"
	fmt.Fprintf(c.out, "The message of the day is now: %s\n", text)
	return 0
}

func (s *Server) adminMOTDClear(c *call) int {
	if f := s.motdSource(); f != "" {
		return c.fail("%s", motdFileRules(f))
	}
	if err := s.setMOTD(store.MOTD{}); err != nil {
		s.log.Error("admin: motd clear", "err", err)
		return c.fail("the message could not be cleared: %v", err)
	}
	c.result = "cleared"
	fmt.Fprintln(c.out, "The message of the day is cleared.")
	return 0
}

// motdFileRules is the refusal of motd set and motd clear while the message comes from
// its file (reload.go).
func motdFileRules(file string) string {
	return fmt.Sprintf("the message of the day comes from %s: edit it and run reload (remove it to use motd set)", file)
}
