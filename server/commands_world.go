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

	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The admin commands on the world: rebuilding and reverting levels, and what every player
// is told (broadcast, the message of the day).

// level reads a level argument: "all" is 0, otherwise a depth from 1.
func level(c *command.Call, arg string) (int, bool) {
	if arg == "all" {
		return 0, true
	}
	d, err := strconv.Atoi(arg)
	if err != nil || d < 1 {
		c.UsageError("level %q: want a level number from 1, or all", command.Printable(arg))
		return 0, false
	}
	return d, true
}

// regenJSON is the --json output of regen and revert.
type regenJSON struct {
	DungeonSeed uint64            `json:"dungeon_seed"`
	Levels      []world.LevelInfo `json:"levels"`
}

func (s *Server) adminRegen(c *command.Call) int {
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
	infos, err := s.engine.Regenerate(c.Ctx, depth, seed)
	return s.rebuilt(c, "Regenerated", seed, infos, err)
}

func (s *Server) adminRevert(c *command.Call) int {
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
	infos, err := s.engine.Revert(c.Ctx, depth)
	return s.rebuilt(c, "Reverted", s.cfg.Seed, infos, err)
}

// rebuilt saves and reports the levels regen or revert rebuilt.
func (s *Server) rebuilt(c *command.Call, verb string, seed uint64, infos []world.LevelInfo, err error) int {
	if errors.Is(err, world.ErrNoSuchLevel) {
		return c.Fail("there is no such level: the dungeon has levels 1 to %d", s.engine.Levels())
	}
	if err != nil {
		return c.Fail("the world is not answering: %v", err)
	}
	depths := make([]string, len(infos))
	for i, in := range infos {
		depths[i] = strconv.Itoa(in.Depth)
	}
	c.Result = fmt.Sprintf("%s levels %s with dungeon seed %d", strings.ToLower(verb), strings.Join(depths, ","), seed)
	if err := s.saver.Flush(); err != nil {
		s.log.Error("admin: save rebuilt levels", "err", err)
		fmt.Fprintf(c.ErrOut, "orthanc: warning: the levels are rebuilt but not yet saved (%v); the saver retries\n", err)
	}
	if c.JSON {
		return c.WriteJSON(regenJSON{DungeonSeed: seed, Levels: infos})
	}
	fmt.Fprintf(c.Out, "%s with dungeon seed %d:\n", verb, seed)
	writeLevels(c.Out, infos)
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

func (s *Server) adminBroadcast(c *command.Call) int {
	text := strings.Join(c.Args, " ") // the whole line is the text (takesLine): no flags
	if strings.TrimSpace(text) == "" {
		return c.UsageError("say something")
	}
	n, err := s.engine.Broadcast(c.Ctx, text)
	if errors.Is(err, world.ErrEmptyText) {
		return c.Fail("nothing is left to send once control characters are removed")
	}
	if err != nil {
		return c.Fail("the world is not answering: %v", err)
	}
	knights := "knights"
	if n == 1 {
		knights = "knight"
	}
	c.Result = fmt.Sprintf("sent to %d %s", n, knights)
	fmt.Fprintf(c.Out, "Sent to %d %s: [admin] %s\n", n, knights, world.CleanText(text, world.MaxBroadcastRunes))
	return 0
}

func (s *Server) adminMOTDSet(c *command.Call) int {
	if f := s.motdSource(); f != "" {
		return c.Fail("%s", motdFileRules(f))
	}
	text := world.CleanText(strings.Join(c.Args, " "), world.MaxBroadcastRunes)
	if strings.TrimSpace(text) == "" {
		return c.UsageError("give the message (motd clear clears it)")
	}
	if err := s.setMOTD(store.MOTD{Text: text, By: c.FP, At: time.Now().UTC()}); err != nil {
		s.log.Error("admin: motd set", "err", err)
		return c.Fail("the message could not be saved: %v", err)
	}
	c.Result = "set"
	fmt.Fprintf(c.Out, "The message of the day is now: %s\n", text)
	return 0
}

func (s *Server) adminMOTDClear(c *command.Call) int {
	if f := s.motdSource(); f != "" {
		return c.Fail("%s", motdFileRules(f))
	}
	if err := s.setMOTD(store.MOTD{}); err != nil {
		s.log.Error("admin: motd clear", "err", err)
		return c.Fail("the message could not be cleared: %v", err)
	}
	c.Result = "cleared"
	fmt.Fprintln(c.Out, "The message of the day is cleared.")
	return 0
}

// motdFileRules is the refusal of motd set and motd clear while the message comes from
// its file (reload.go).
func motdFileRules(file string) string {
	return fmt.Sprintf("the message of the day comes from %s: edit it and run reload (remove it to use motd set)", file)
}

// regenCommand is the row of regen.
func (s *Server) regenCommand() command.Command {
	return command.Command{Name: "regen", Usage: "regen <level|all> [--seed N] [--json]", Summary: "rebuild one level, or all, now, from a new seed",
		Help: "Level d becomes the one dungeon seed N builds for depth d (N is random unless given, and printed).\n" +
			"Knights on a rebuilt level move to its up stairs and are told; fights there end and the\n" +
			"old monsters vanish; no knight dies or loses anything. The level is saved at once and\n" +
			"stays rebuilt across restarts until `revert`.",
		Admin: true, Takes: command.TakesWords | command.TakesJSON | command.TakesSeed, Run: s.adminRegen}
}

// revertCommand is the row of revert.
func (s *Server) revertCommand() command.Command {
	return command.Command{Name: "revert", Usage: "revert [level|all] [--json]", Summary: "rebuild levels from the original seed (all by default)",
		Help: "The original dungeon comes back byte for byte, freshly stocked: broken doors are whole and\n" +
			"the original guards are back. Knights on a reverted level move to its up stairs.",
		Admin: true, Takes: command.TakesWords | command.TakesJSON, Run: s.adminRevert}
}

// broadcastCommand is the row of broadcast.
func (s *Server) broadcastCommand() command.Command {
	return command.Command{Name: "broadcast", Usage: "broadcast <text>", Summary: "a line in every knight's messages, marked [admin]",
		Help: fmt.Sprintf("Control characters, escape sequences and direction overrides are removed, and the\n"+
			"text is cut to %d characters.", world.MaxBroadcastRunes),
		Admin: true, Takes: command.TakesLine, Run: s.adminBroadcast}
}

// motdSetCommand is the row of motd set.
func (s *Server) motdSetCommand() command.Command {
	return command.Command{Name: "motd set", Usage: "motd set <text>", Summary: "set the message of the day (title screen and web page)",
		Help:  fmt.Sprintf("Control characters and escape sequences are removed, and the text is cut to %d characters.", world.MaxBroadcastRunes),
		Admin: true, Takes: command.TakesLine, Run: s.adminMOTDSet}
}

// motdClearCommand is the row of motd clear.
func (s *Server) motdClearCommand() command.Command {
	return command.Command{Name: "motd clear", Usage: "motd clear", Summary: "clear the message of the day",
		Admin: true, Run: s.adminMOTDClear}
}
