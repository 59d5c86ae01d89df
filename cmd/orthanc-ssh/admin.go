package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The admin console (issue 7): commands for the keys in the admin allow-list, run as
// `ssh -p PORT host COMMAND` or typed after `:` in an admin's game. They all live in one
// table, adminCommands, and run only through runAdmin, the one gate: it checks the key
// the session really authenticated with (sess.PublicKey(), never what the auth callback
// was offered) before anything else, so no command can be added that escapes it.

// permissionDenied is all a key that is not an admin's learns about an admin command.
const permissionDenied = "permission denied"

// bannedMessage is what a banned key is told at login.
const bannedMessage = "This key is banned from this server."

// kickGrace is how long a banned key's sessions stay open after the ban, so the game's
// last screen ("An admin has removed you...") reaches the player before the line drops.
const kickGrace = time.Second

// adminCommand is one command of the admin console.
type adminCommand struct {
	name, usage, summary string
	help                 string // more about the command, for --help
	run                  func(s *server, c *adminCall) int
}

// adminCommands is the admin console: every entry runs only through runAdmin.
var adminCommands []adminCommand

func init() {
	adminCommands = []adminCommand{
		{"regen", "regen <level|all> [--seed N] [--json]", "rebuild one level, or all, now, from a new seed",
			"Level d becomes the one dungeon seed N builds for depth d (N is random unless given, and printed).\n" +
				"Knights on a rebuilt level move to its up stairs and are told; fights there end and the\n" +
				"old monsters vanish; no knight dies or loses anything. The level is saved at once and\n" +
				"stays rebuilt across restarts until `revert`.", (*server).adminRegen},
		{"revert", "revert [level|all] [--json]", "rebuild levels from the original seed (all by default)",
			"The original dungeon comes back byte for byte, freshly stocked: broken doors are whole and\n" +
				"the original guards are back. Knights on a reverted level move to its up stairs.", (*server).adminRevert},
		{"kick", "kick <name|fingerprint> [--json]", "remove a knight from the dungeon (it is saved and may come back)",
			"The knight's game ends with \"" + world.KickedMessage + "\"", (*server).adminKick},
		{"ban", "ban <name|fingerprint> [--reason TEXT] [--json]", "refuse a key at login, and remove its knight now",
			"A name is looked up among the knights online first, then among every stored knight\n" +
				"(without regard to case); when several share it, ban by fingerprint (see `who`).\n" +
				"An admin's key cannot be banned: take it out of the admin keys file first.", (*server).adminBan},
		{"unban", "unban <name|fingerprint> [--json]", "lift a ban", "", (*server).adminUnban},
		{"bans", "bans [--json]", "the banned keys", "", (*server).adminBans},
		{"broadcast", "broadcast <text>", "a line in every knight's messages, marked [admin]",
			fmt.Sprintf("Control characters, escape sequences and direction overrides are removed, and the\n"+
				"text is cut to %d characters.", world.MaxBroadcastRunes), (*server).adminBroadcast},
		{"backup", "backup", "a consistent copy of the database on stdout",
			"Run it without a terminal and redirect it: ssh -p PORT host backup > orthanc.db\n" +
				"The copy is taken in one read transaction while the game runs, after the saver has\n" +
				"written what it holds; it opens with bbolt like the live file.", (*server).adminBackup},
		{"stats", "stats [--json]", "sessions, players, levels and seeds, tick and save times, memory", "", (*server).adminStats},
	}
}

// findAdmin is the admin command with the name, or nil.
func findAdmin(name string) *adminCommand {
	for i := range adminCommands {
		if adminCommands[i].name == name {
			return &adminCommands[i]
		}
	}
	return nil
}

// isAdmin reports whether key, the key a session authenticated with, is in the admin
// allow-list. It is the only test of admin rights in the server.
func (s *server) isAdmin(key ssh.PublicKey) bool {
	return key != nil && s.admins.Contains(key)
}

// adminCall is one run of an admin command.
type adminCall struct {
	ctx     context.Context
	cmd     *adminCommand
	fp      string   // the admin's key fingerprint
	args    []string // the arguments after the command's name
	out     io.Writer
	errOut  io.Writer
	console bool   // typed in the game's console rather than run over ssh
	pty     bool   // the ssh session has a terminal
	result  string // what the command did, for the log
}

// runAdmin is the admin gate: it runs the admin command args[0] (which must be in
// adminCommands) for key, the key the session authenticated with, and returns its exit
// status. A key that is not an admin's gets exactly "permission denied" and status 1,
// whatever it asked. Every action an admin takes is logged once, with the outcome.
func (s *server) runAdmin(ctx context.Context, key ssh.PublicKey, args []string, out, errOut io.Writer, console, pty bool) int {
	fp := keys.Fingerprint(key)
	cmd := findAdmin(args[0])
	if cmd == nil || !s.isAdmin(key) {
		s.log.Warn("admin: permission denied", "fingerprint", fp, "command", printable(args[0]), "console", console)
		fmt.Fprintln(errOut, permissionDenied)
		return 1
	}
	if slices.ContainsFunc(args[1:], func(a string) bool { return a == "--help" || a == "-h" }) {
		fmt.Fprintf(out, "usage: %s\n  %s\n", cmd.usage, cmd.summary)
		if cmd.help != "" {
			fmt.Fprintf(out, "\n%s\n", cmd.help)
		}
		return 0
	}
	c := &adminCall{ctx: ctx, cmd: cmd, fp: fp, args: args[1:], out: out, errOut: errOut, console: console, pty: pty}
	code := cmd.run(s, c)
	logArgs := make([]string, len(c.args))
	for i, a := range c.args {
		logArgs[i] = printable(a)
	}
	s.log.Info("admin", "fingerprint", fp, "command", cmd.name, "args", logArgs, "console", console, "exit", code, "result", c.result)
	return code
}

// fail reports an error to the admin and ends the command with status 1.
func (c *adminCall) fail(format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	c.result = "error: " + msg
	fmt.Fprintf(c.errOut, "orthanc: %s\n", msg)
	return 1
}

// usageError reports a misuse of the command with its usage line.
func (c *adminCall) usageError(format string, args ...any) int {
	return c.fail("%s; usage: %s", fmt.Sprintf(format, args...), c.cmd.usage)
}

// adminArgs are a command's parsed arguments.
type adminArgs struct {
	pos     []string
	json    bool
	seed    uint64
	hasSeed bool
	reason  string
}

// parse reads the call's arguments; flags lists the flags the command takes ("json",
// "seed", "reason"). --reason takes the rest of the line. It reports misuse itself.
func (c *adminCall) parse(flags ...string) (adminArgs, bool) {
	var a adminArgs
	takes := func(f string) bool { return slices.Contains(flags, f) }
	for i := 0; i < len(c.args); i++ {
		arg := c.args[i]
		name, value, hasValue := strings.Cut(arg, "=")
		switch {
		case arg == "--json" && takes("json"):
			a.json = true
		case name == "--seed" && takes("seed"):
			if !hasValue {
				if i+1 >= len(c.args) {
					c.usageError("--seed needs a number")
					return a, false
				}
				i++
				value = c.args[i]
			}
			n, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				c.usageError("seed %q is not a whole number from 0 to 18446744073709551615", printable(value))
				return a, false
			}
			a.seed, a.hasSeed = n, true
		case name == "--reason" && takes("reason"):
			rest := c.args[i+1:]
			if hasValue {
				rest = append([]string{value}, rest...)
			}
			a.reason = world.CleanText(strings.Join(rest, " "), world.MaxBroadcastRunes)
			return a, true
		case strings.HasPrefix(arg, "-"):
			c.usageError("unknown flag %q", printable(arg))
			return a, false
		default:
			a.pos = append(a.pos, arg)
		}
	}
	return a, true
}

// writeJSON prints v as one line of JSON.
func (c *adminCall) writeJSON(v any) int {
	if err := json.NewEncoder(c.out).Encode(v); err != nil {
		return c.fail("write output: %v", err)
	}
	return 0
}

// level reads a level argument: "all" is 0, otherwise a depth from 1.
func (c *adminCall) level(arg string) (int, bool) {
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

func (s *server) adminRegen(c *adminCall) int {
	a, ok := c.parse("json", "seed")
	if !ok {
		return 1
	}
	if len(a.pos) != 1 {
		return c.usageError("name one level, or all")
	}
	depth, ok := c.level(a.pos[0])
	if !ok {
		return 1
	}
	seed := a.seed
	if !a.hasSeed {
		seed = rand.Uint64()
	}
	infos, err := s.engine.Regenerate(c.ctx, depth, seed)
	return s.rebuilt(c, a, "Regenerated", seed, infos, err)
}

func (s *server) adminRevert(c *adminCall) int {
	a, ok := c.parse("json")
	if !ok {
		return 1
	}
	depth := 0
	switch len(a.pos) {
	case 0:
	case 1:
		if depth, ok = c.level(a.pos[0]); !ok {
			return 1
		}
	default:
		return c.usageError("name one level, or all")
	}
	infos, err := s.engine.Revert(c.ctx, depth)
	return s.rebuilt(c, a, "Reverted", s.cfg.seed, infos, err)
}

// rebuilt saves and reports the levels regen or revert rebuilt.
func (s *server) rebuilt(c *adminCall, a adminArgs, verb string, seed uint64, infos []world.LevelInfo, err error) int {
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
	if a.json {
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

// actionJSON is the --json output of kick, ban and unban.
type actionJSON struct {
	Fingerprint string `json:"fingerprint,omitempty"`
	Name        string `json:"name,omitempty"`
	Kicked      bool   `json:"kicked"`
	Banned      bool   `json:"banned"`
}

func (s *server) adminKick(c *adminCall) int {
	a, ok := c.parse("json")
	if !ok {
		return 1
	}
	who := strings.Join(a.pos, " ")
	if who == "" {
		return c.usageError("name the knight")
	}
	kicked, err := s.engine.Kick(c.ctx, who)
	switch {
	case errors.Is(err, world.ErrAmbiguousName):
		return c.fail("several knights online are named %q; kick by fingerprint (see who)", printable(who))
	case err != nil:
		return c.fail("the world is not answering: %v", err)
	case !kicked:
		return c.fail("no knight %q is online", printable(who))
	}
	c.result = "kicked " + printable(who)
	if a.json {
		return c.writeJSON(actionJSON{Name: who, Kicked: true})
	}
	fmt.Fprintf(c.out, "Removed %s from the dungeon.\n", printable(who))
	return 0
}

// errNoKnight and errSeveral are resolveKey's failures.
var (
	errNoKnight = errors.New("no knight")
	errSeveral  = errors.New("several knights")
)

// resolveKey finds the key a ban names: a fingerprint as given, or the key of the knight
// with the name, among the knights online first, then among the stored ones. name is the
// knight's name when one is known.
func (s *server) resolveKey(ctx context.Context, target string) (fp, name string, err error) {
	who, err := s.engine.Who(ctx)
	if err != nil {
		return "", "", fmt.Errorf("ask the world who is online: %w", err)
	}
	if strings.HasPrefix(target, "SHA256:") {
		for _, w := range who {
			if w.Fingerprint == target {
				return target, w.Name, nil
			}
		}
		if rec, err := s.saver.Load(target); err == nil {
			return target, rec.Name, nil
		}
		return target, "", nil
	}
	var fps []string
	for _, w := range who {
		if strings.EqualFold(w.Name, strings.TrimSpace(target)) && !slices.Contains(fps, w.Fingerprint) {
			fps = append(fps, w.Fingerprint)
			name = w.Name
		}
	}
	if len(fps) == 0 {
		if err := s.saver.Flush(); err != nil {
			return "", "", fmt.Errorf("write pending knights before the search: %w", err)
		}
		if fps, err = s.store.FingerprintsByName(target); err != nil {
			return "", "", err
		}
		if len(fps) == 1 {
			if rec, err := s.store.LoadAdventurer(fps[0]); err == nil {
				name = rec.Name
			}
		}
	}
	switch len(fps) {
	case 0:
		return "", "", errNoKnight
	case 1:
		return fps[0], name, nil
	}
	return "", "", fmt.Errorf("%w: %s", errSeveral, strings.Join(fps, ", "))
}

func (s *server) adminBan(c *adminCall) int {
	a, ok := c.parse("json", "reason")
	if !ok {
		return 1
	}
	target := strings.Join(a.pos, " ")
	if target == "" {
		return c.usageError("name the knight or the key")
	}
	fp, name, err := s.resolveKey(c.ctx, target)
	switch {
	case errors.Is(err, errNoKnight):
		return c.fail("no knight %q, online or stored; ban by fingerprint", printable(target))
	case errors.Is(err, errSeveral):
		return c.fail("several knights are named %q; ban one by fingerprint: %s", printable(target), strings.TrimPrefix(err.Error(), errSeveral.Error()+": "))
	case err != nil:
		s.log.Error("admin: ban lookup", "target", printable(target), "err", err)
		return c.fail("could not look the knight up: %v", err)
	}
	if slices.Contains(s.admins.Fingerprints(), fp) {
		return c.fail("%s is an admin's key; take it out of the admin keys file first", fp)
	}
	if err := s.store.Ban(store.Ban{Fingerprint: fp, Name: name, Reason: a.reason, By: c.fp, At: time.Now().UTC()}); err != nil {
		s.log.Error("admin: ban", "fingerprint", fp, "err", err)
		return c.fail("the ban could not be saved: %v", err)
	}
	kicked, err := s.engine.Kick(c.ctx, fp)
	if err != nil {
		s.log.Error("admin: kick the banned knight", "fingerprint", fp, "err", err)
	}
	s.live.closeKey(fp, kickGrace) // sessions still on the title screen, or running commands
	c.result = fmt.Sprintf("banned %s (%s), kicked %v", fp, name, kicked)
	if a.json {
		return c.writeJSON(actionJSON{Fingerprint: fp, Name: name, Kicked: kicked, Banned: true})
	}
	who := fp
	if name != "" {
		who = fmt.Sprintf("%s (%s)", name, fp)
	}
	fmt.Fprintf(c.out, "Banned %s.", who)
	if kicked {
		fmt.Fprint(c.out, " Its knight was removed from the dungeon.")
	}
	fmt.Fprintln(c.out)
	return 0
}

func (s *server) adminUnban(c *adminCall) int {
	a, ok := c.parse("json")
	if !ok {
		return 1
	}
	target := strings.Join(a.pos, " ")
	if target == "" {
		return c.usageError("name the knight or the key")
	}
	fp := target
	name := ""
	if !strings.HasPrefix(target, "SHA256:") {
		bans, err := s.store.Bans()
		if err != nil {
			return c.fail("could not read the bans: %v", err)
		}
		var fps []string
		for _, b := range bans {
			if strings.EqualFold(b.Name, strings.TrimSpace(target)) {
				fps, name = append(fps, b.Fingerprint), b.Name
			}
		}
		switch len(fps) {
		case 0:
			return c.fail("no banned knight is named %q; `bans` lists the bans", printable(target))
		case 1:
			fp = fps[0]
		default:
			return c.fail("several banned keys had knights named %q; unban one by fingerprint: %s", printable(target), strings.Join(fps, ", "))
		}
	}
	found, err := s.store.Unban(fp)
	if err != nil {
		return c.fail("the ban could not be lifted: %v", err)
	}
	if !found {
		return c.fail("%s is not banned", printable(fp))
	}
	c.result = "unbanned " + fp
	if a.json {
		return c.writeJSON(actionJSON{Fingerprint: fp, Name: name})
	}
	fmt.Fprintf(c.out, "Lifted the ban on %s.\n", fp)
	return 0
}

func (s *server) adminBans(c *adminCall) int {
	a, ok := c.parse("json")
	if !ok {
		return 1
	}
	if len(a.pos) > 0 {
		return c.usageError("unexpected %q", printable(a.pos[0]))
	}
	bans, err := s.store.Bans()
	if err != nil {
		return c.fail("could not read the bans: %v", err)
	}
	c.result = fmt.Sprintf("%d bans", len(bans))
	if a.json {
		return c.writeJSON(bans)
	}
	if len(bans) == 0 {
		fmt.Fprintln(c.out, "No key is banned.")
		return 0
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FINGERPRINT\tKNIGHT\tSINCE\tREASON")
	for _, b := range bans {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", b.Fingerprint, b.Name, b.At.UTC().Format(time.DateTime), b.Reason)
	}
	_ = tw.Flush()
	return 0
}

func (s *server) adminBroadcast(c *adminCall) int {
	text := strings.Join(c.args, " ") // the whole line is the text: no flags
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

func (s *server) adminBackup(c *adminCall) int {
	if len(c.args) > 0 {
		return c.usageError("unexpected %q", printable(c.args[0]))
	}
	if c.console {
		return c.fail("backup streams the database as binary; run it from a shell: ssh -p PORT host backup > orthanc.db")
	}
	if c.pty {
		return c.fail("backup writes binary and a terminal would mangle it; run it without -t: ssh -p PORT host backup > orthanc.db")
	}
	if err := s.saver.Flush(); err != nil {
		// The copy is still consistent; it lacks what the saver could not write.
		s.log.Error("admin: flush before backup", "err", err)
		fmt.Fprintf(c.errOut, "orthanc: warning: the last %d changes could not be written first: %v\n", s.saver.Pending(), err)
	}
	n, err := s.store.Backup(c.out)
	if err != nil {
		s.log.Error("admin: backup", "bytes", n, "err", err)
		return c.fail("backup failed after %d bytes: %v", n, err)
	}
	c.result = fmt.Sprintf("%d bytes", n)
	return 0
}

// statsJSON is the --json output of stats.
type statsJSON struct {
	UptimeSeconds float64           `json:"uptime_seconds"`
	Sessions      int               `json:"sessions"`
	PlayersOnline int               `json:"players_online"`
	Adventurers   int               `json:"adventurers_stored"`
	Bans          int               `json:"bans"`
	Turn          uint64            `json:"turn"`
	Fights        int               `json:"fights"`
	MonstersAlive int               `json:"monsters_alive"`
	DungeonSeed   uint64            `json:"dungeon_seed"` // the configured seed of the original dungeon
	Levels        []world.LevelInfo `json:"levels"`
	Tick          percentiles       `json:"tick"`
	Saves         saveStatsJSON     `json:"saves"`
	Memory        memoryJSON        `json:"memory"`
	// Warnings are the server's files other users could read or change.
	Warnings []permissionWarning `json:"permission_warnings"`
}

type saveStatsJSON struct {
	Batches       uint64      `json:"batches"`
	Records       uint64      `json:"records"`
	Errors        uint64      `json:"errors"`
	Pending       int         `json:"pending"`
	LastLatencyMS float64     `json:"last_latency_ms"`
	Latency       percentiles `json:"latency"`
}

type memoryJSON struct {
	HeapAllocBytes uint64 `json:"heap_alloc_bytes"`
	SysBytes       uint64 `json:"sys_bytes"`
	Goroutines     int    `json:"goroutines"`
}

func (s *server) adminStats(c *adminCall) int {
	a, ok := c.parse("json")
	if !ok {
		return 1
	}
	if len(a.pos) > 0 {
		return c.usageError("unexpected %q", printable(a.pos[0]))
	}
	census, err := s.engine.Census(c.ctx)
	if err != nil {
		return c.fail("the world is not answering: %v", err)
	}
	stored, err := s.store.CountAdventurers()
	if err != nil {
		return c.fail("could not count the stored knights: %v", err)
	}
	bans, err := s.store.Bans()
	if err != nil {
		return c.fail("could not read the bans: %v", err)
	}
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	sv := s.saver.Stats()
	st := statsJSON{
		UptimeSeconds: time.Since(s.obs.start).Round(time.Second).Seconds(),
		Sessions:      s.live.len(), PlayersOnline: census.Players, Adventurers: stored, Bans: len(bans),
		Turn: census.Turn, Fights: census.Fights, MonstersAlive: census.Monsters(),
		DungeonSeed: s.cfg.seed, Levels: census.Levels, Tick: s.obs.ticks.percentiles(),
		Saves: saveStatsJSON{Batches: sv.Batches, Records: sv.Records, Errors: sv.Errors, Pending: s.saver.Pending(),
			LastLatencyMS: ms(sv.LastLatency), Latency: s.obs.saves.percentiles()},
		Memory:   memoryJSON{HeapAllocBytes: mem.HeapAlloc, SysBytes: mem.Sys, Goroutines: runtime.NumGoroutine()},
		Warnings: permissionWarnings(s.cfg),
	}
	c.result = "shown"
	if a.json {
		return c.writeJSON(st)
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, args...)...) }
	row("uptime", "%s", time.Duration(st.UptimeSeconds)*time.Second)
	row("sessions", "%d", st.Sessions)
	row("players online", "%d", st.PlayersOnline)
	row("knights stored", "%d", st.Adventurers)
	row("keys banned", "%d", st.Bans)
	row("turn", "%d", st.Turn)
	row("fights", "%d", st.Fights)
	row("monsters alive", "%d", st.MonstersAlive)
	row("dungeon seed", "%d (the original)", st.DungeonSeed)
	t := st.Tick
	row("tick (ms)", "p50 %.3f  p90 %.3f  p99 %.3f  max %.3f  (last %d ticks)", t.P50, t.P90, t.P99, t.Max, min(t.Count, durationWindow))
	l := st.Saves.Latency
	row("saves", "%d batches, %d records, %d errors, %d pending", st.Saves.Batches, st.Saves.Records, st.Saves.Errors, st.Saves.Pending)
	row("save (ms)", "p50 %.3f  p90 %.3f  p99 %.3f  max %.3f  (last %d saves)", l.P50, l.P90, l.P99, l.Max, min(l.Count, durationWindow))
	row("memory", "heap %.1f MiB, from the system %.1f MiB, %d goroutines",
		float64(st.Memory.HeapAllocBytes)/(1<<20), float64(st.Memory.SysBytes)/(1<<20), st.Memory.Goroutines)
	for _, w := range st.Warnings {
		row("warning", "%s", w)
	}
	_ = tw.Flush()
	fmt.Fprintln(c.out)
	writeLevels(c.out, st.Levels)
	return 0
}

// adminWhoJSON is one row of `who --json` as an admin sees it.
type adminWhoJSON struct {
	Name             string  `json:"name"`
	Level            int     `json:"level"`
	Depth            int     `json:"depth"`
	Fingerprint      string  `json:"fingerprint"`
	Addr             string  `json:"addr,omitempty"`
	ConnectedSeconds float64 `json:"connected_seconds,omitempty"`
	BytesSent        int64   `json:"bytes_sent,omitempty"`
}

// writeAdminWho prints the who-list with what only admins see: each knight's key
// fingerprint, remote address, time connected and bytes sent.
func (s *server) writeAdminWho(w io.Writer, who []world.WhoEntry, asJSON bool) int {
	rows := make([]adminWhoJSON, 0, len(who))
	for _, e := range who {
		r := adminWhoJSON{Name: e.Name, Level: e.Level, Depth: e.Depth, Fingerprint: e.Fingerprint}
		if ls, ok := s.live.game(e.Fingerprint); ok {
			r.Addr, r.BytesSent = ls.addr, ls.sent.Load()
			r.ConnectedSeconds = time.Since(ls.start).Round(time.Second).Seconds()
		}
		rows = append(rows, r)
	}
	if asJSON {
		return writeJSON(w, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "No one is in the dungeon.")
		return 0
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tLEVEL\tWHERE\tADDRESS\tCONNECTED\tSENT\tFINGERPRINT")
	for _, r := range rows {
		where := fmt.Sprintf("depth %d", r.Depth)
		if r.Depth == 0 {
			where = "outside"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d KiB\t%s\n", r.Name, r.Level, where, r.Addr,
			time.Duration(r.ConnectedSeconds)*time.Second, r.BytesSent/1024, r.Fingerprint)
	}
	_ = tw.Flush()
	return 0
}

// writeAdminHelp lists the admin commands.
func writeAdminHelp(w io.Writer, console bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if console {
		fmt.Fprintln(tw, "Admin console (Enter runs a line, Esc closes, PgUp/PgDn scroll):")
		fmt.Fprintln(tw, "  who\tthe knights online, with keys and addresses")
	} else {
		fmt.Fprintln(tw, "Admin commands (also typed after : in the game; each takes --help):")
	}
	for _, c := range adminCommands {
		if console && c.name == "backup" {
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\n", c.usage, c.summary)
	}
	_ = tw.Flush()
}

// consoleHook is the in-game console for a session that authenticated with key: nil
// unless the key is an admin's. Each line still goes through the gate.
func (s *server) consoleHook(ctx context.Context, key ssh.PublicKey) func(line string) (string, bool) {
	if !s.isAdmin(key) {
		return nil
	}
	return func(line string) (string, bool) {
		var out bytes.Buffer
		code := s.consoleLine(ctx, key, line, &out)
		return out.String(), code == 0
	}
}

// consoleLine runs one line typed in the game's console: an admin command, or who, or
// help. Output and errors both go to out, for the console panel.
func (s *server) consoleLine(ctx context.Context, key ssh.PublicKey, line string, out io.Writer) int {
	args := strings.Fields(line)
	if len(args) == 0 {
		return 0
	}
	switch {
	case findAdmin(args[0]) != nil:
		return s.runAdmin(ctx, key, args, out, out, true, false)
	case !s.isAdmin(key):
		fmt.Fprintln(out, permissionDenied)
		return 1
	case args[0] == "who":
		who, err := s.engine.Who(ctx)
		if err != nil {
			fmt.Fprintln(out, "orthanc: the world is not answering; try again later")
			return 1
		}
		return s.writeAdminWho(out, who, false)
	case args[0] == "help" || args[0] == "?":
		writeAdminHelp(out, true)
		return 0
	}
	fmt.Fprintf(out, "orthanc: unknown command %q; try help\n", printable(args[0]))
	return 1
}
