package server

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The admin commands that keep the server running: backups, the server's numbers, and
// moving a lost key's knight to a new key.

func (s *Server) adminBackup(c *command.Call) int {
	if c.PTY {
		return c.Fail("backup writes binary and a terminal would mangle it; run it without -t: %s backup > orthanc.db", s.sshCommand())
	}
	if err := s.saver.Flush(); err != nil {
		// The copy is still consistent; it lacks what the saver could not write.
		s.log.Error("admin: flush before backup", "err", err)
		fmt.Fprintf(c.ErrOut, "orthanc: warning: the last %d changes could not be written first: %v\n", s.saver.Pending(), err)
	}
	n, err := s.store.Backup(c.Out)
	if err != nil {
		s.log.Error("admin: backup", "bytes", n, "err", err)
		return c.Fail("backup failed after %d bytes: %v", n, err)
	}
	c.Result = fmt.Sprintf("%d bytes", n)
	return 0
}

// statsJSON is the --json output of stats.
type statsJSON struct {
	Version       string            `json:"version"`
	GoVersion     string            `json:"go_version"`
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
	Replays       *replayStatsJSON  `json:"replays,omitempty"` // none when the server records none
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

// replayStatsJSON is what the replays take of the database: the bucket's keys and values
// as its bound counts them, and the bound (-replay-store-mb).
type replayStatsJSON struct {
	StoredBytes int64 `json:"stored_bytes"`
	LimitBytes  int64 `json:"limit_bytes"`
}

// replayStats is what the replays take, or nil when the server records none.
func (s *Server) replayStats() (*replayStatsJSON, error) {
	if s.replayWriter == nil {
		return nil, nil
	}
	n, err := s.replayWriter.Size()
	if err != nil {
		return nil, err
	}
	return &replayStatsJSON{StoredBytes: n, LimitBytes: int64(s.cfg.ReplayMB) << 20}, nil
}

// replayRow is stats' line of the replays.
func replayRow(r *replayStatsJSON) string {
	if r == nil {
		return "none recorded (-replay-store-mb 0)"
	}
	return fmt.Sprintf("%.1f MB of %d MB", float64(r.StoredBytes)/(1<<20), r.LimitBytes>>20)
}

type memoryJSON struct {
	HeapAllocBytes uint64 `json:"heap_alloc_bytes"`
	SysBytes       uint64 `json:"sys_bytes"`
	Goroutines     int    `json:"goroutines"`
}

func (s *Server) adminStats(c *command.Call) int {
	census, err := s.engine.Census(c.Ctx)
	if err != nil {
		return c.Fail("the world is not answering: %v", err)
	}
	stored, err := s.knights.CountKnights()
	if err != nil {
		return c.Fail("could not count the stored knights: %v", err)
	}
	bans, err := s.knights.Bans(s.now())
	if err != nil {
		return c.Fail("could not read the bans: %v", err)
	}
	replays, err := s.replayStats()
	if err != nil {
		return c.Fail("could not measure the replays: %v", err)
	}
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	sv := s.saver.Stats()
	st := statsJSON{
		Version: s.cfg.Version, GoVersion: runtime.Version(),
		UptimeSeconds: time.Since(s.obs.start).Round(time.Second).Seconds(),
		Sessions:      s.live.Len(), PlayersOnline: census.Players, Adventurers: stored, Bans: len(bans),
		Turn: census.Turn, Fights: census.Fights, MonstersAlive: census.Monsters(),
		DungeonSeed: s.cfg.Seed, Levels: census.Levels, Tick: s.obs.ticks.percentiles(),
		Saves: saveStatsJSON{Batches: sv.Batches, Records: sv.Records, Errors: sv.Errors, Pending: s.saver.Pending(),
			LastLatencyMS: ms(sv.LastLatency), Latency: s.obs.saves.percentiles()},
		Memory:   memoryJSON{HeapAllocBytes: mem.HeapAlloc, SysBytes: mem.Sys, Goroutines: runtime.NumGoroutine()},
		Replays:  replays,
		Warnings: permissionWarnings(s.cfg),
	}
	c.Result = "shown"
	if c.JSON {
		return c.WriteJSON(st)
	}
	tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, args...)...) }
	row("version", "%s (%s)", st.Version, st.GoVersion)
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
	row("replays stored", "%s", replayRow(st.Replays))
	for _, w := range st.Warnings {
		row("warning", "%s", w)
	}
	_ = tw.Flush()
	fmt.Fprintln(c.Out)
	command.WriteLevels(c.Out, st.Levels)
	return 0
}

// keyMovedMessage is what the old key's game reads last when keys move gives its knight
// to another key.
const keyMovedMessage = "An admin has moved your knight to another key: this key no longer plays it. Your knight is saved where it stands."

// tellKeyEnds ends every game session of the key fp, whatever screen it is on, with why:
// each leaves the world (its knight saved) and its terminal keeps the reason. Send waits
// until a program takes the message, so each is sent on its own goroutine.
func (s *Server) tellKeyEnds(fp, why string) {
	for _, prog := range s.games.programsOfKey(fp) {
		go prog.Send(app.Farewell{Reason: why})
	}
}

// keysMoveJSON is the --json output of keys move.
type keysMoveJSON struct {
	Old    string `json:"old"`
	New    string `json:"new"`
	Knight string `json:"knight"`
	Name   string `json:"name"`
}

// adminKeysMove is keys move OLD NEW: for a player who lost a key, the key NEW takes
// OLD's place with OLD's knight.
func (s *Server) adminKeysMove(c *command.Call) int {
	if len(c.Args) != 2 || !strings.HasPrefix(c.Args[0], "SHA256:") || !strings.HasPrefix(c.Args[1], "SHA256:") {
		return c.UsageError("give two key fingerprints, SHA256:...")
	}
	oldFP, newFP := c.Args[0], c.Args[1]
	if oldFP == newFP {
		return c.Fail("the two keys are the same")
	}
	old, err := s.knights.KeyOf(oldFP) // a key bound and not yet written counts
	if errors.Is(err, knights.ErrNotFound) {
		return c.Fail("%s plays no knight", command.Printable(oldFP))
	} else if err != nil {
		return c.Fail("could not read the key: %v", err)
	}
	newKnight, err := s.knightOf(newFP)
	if err != nil {
		return c.Fail("could not read the key: %v", err)
	}
	if s.inTheGame(c, newKnight) {
		return c.Fail("%s's knight is in the dungeon; kick it first", command.Printable(newFP))
	}
	rec, err := s.knights.Knight(old.Knight)
	if err != nil {
		return c.Fail("could not read the knight: %v", err)
	}
	given, err := s.knights.Give(c.Ctx, knights.Give{
		Key:    knights.Key{Fingerprint: newFP, Knight: old.Knight, Comment: "moved from " + oldFP[:min(len(oldFP), 15)] + "… by an admin", Added: time.Now().UTC()},
		Remove: oldFP, At: s.now().UTC(),
	})
	switch {
	case errors.Is(err, knights.ErrHasKnight):
		return c.Fail("%s plays a living knight of its own; it cannot take another", command.Printable(newFP))
	case errors.Is(err, knights.ErrSameKnight):
		return c.Fail("%s plays that knight already", command.Printable(newFP))
	case err != nil:
		return c.Fail("the key could not be moved: %s", giveKeyLine(err))
	}
	if given.Gone {
		s.forgetKnight(c, given.Left) // the dead knight NEW played before
	}
	return s.keyMoved(c, oldFP, newFP, old.Knight, rec.Name)
}

// keyMoved ends keys move once NEW plays OLD's knight: OLD's
// games end, saying why, and the admin is told.
func (s *Server) keyMoved(c *command.Call, oldFP, newFP, knight, name string) int {
	s.tellKeyEnds(oldFP, keyMovedMessage)
	s.live.CloseKey(oldFP, kickGrace)
	c.Result = fmt.Sprintf("moved %s's key %s to %s", name, oldFP, newFP)
	if c.JSON {
		return c.WriteJSON(keysMoveJSON{Old: oldFP, New: newFP, Knight: knight, Name: name})
	}
	fmt.Fprintf(c.Out, "%s is now played by %s in place of %s.\n", name, newFP, oldFP)
	return 0
}

// checkJSON is check --json's answer.
type checkJSON struct {
	Path     string   `json:"path"`
	Sound    bool     `json:"sound"`
	Problems []string `json:"problems,omitempty"`
}

// adminCheck verifies every record of the live database (store.Check): bbolt's pages,
// every value's checksum, every value decoded. Exit status 1 on a problem.
func (s *Server) adminCheck(c *command.Call) int {
	if err := s.saver.Flush(); err != nil {
		s.log.Error("admin: flush before check", "err", err)
	}
	err := s.store.Check()
	out := checkJSON{Path: s.store.Path(), Sound: err == nil}
	if err != nil {
		out.Problems = strings.Split(err.Error(), "\n")
		s.log.Error("admin: check found problems", "err", err)
	}
	c.Result = fmt.Sprintf("sound: %v", out.Sound)
	if c.JSON {
		if code := c.WriteJSON(out); code != 0 || out.Sound {
			return code
		}
		return 1
	}
	if out.Sound {
		fmt.Fprintf(c.Out, "%s is sound: every page, checksum and record read.\n", out.Path)
		return 0
	}
	return c.Fail("%s", err)
}

// adminReload reads the admin keys and the message of the day again (reload.go), as
// SIGHUP does, and says what changed.
func (s *Server) adminReload(c *command.Call) int {
	r := s.reload()
	c.Result = fmt.Sprintf("%d admin keys, %d added, %d removed, motd changed %v", r.Admins, len(r.Added), len(r.Removed), r.MOTDChanged)
	if c.JSON {
		return c.WriteJSON(r)
	}
	writeReloaded(c, r)
	return 0
}

// writeReloaded prints what a reload did.
func writeReloaded(c *command.Call, r reloaded) {
	if r.KeysError != "" {
		fmt.Fprintf(c.Out, "Admin keys: kept as they were (%d): %s\n", r.Admins, r.KeysError)
	} else {
		fmt.Fprintf(c.Out, "Admin keys: %d, from %s.\n", r.Admins, r.AdminKeysFile)
	}
	tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
	for _, e := range r.Added {
		fmt.Fprintf(tw, "  added\t%s\t%s\n", e.Fingerprint, world.CleanLine(e.Comment))
	}
	for _, e := range r.Removed {
		fmt.Fprintf(tw, "  removed\t%s\t%s\n", e.Fingerprint, world.CleanLine(e.Comment))
	}
	_ = tw.Flush()
	for _, line := range r.Skipped {
		fmt.Fprintf(c.Out, "  skipped %s\n", world.CleanLine(line))
	}
	switch {
	case r.MOTDError != "":
		fmt.Fprintf(c.Out, "Message of the day: kept as it was: %s\n", r.MOTDError)
	case r.MOTDChanged:
		fmt.Fprintf(c.Out, "Message of the day: changed, from %s.\n", motdFrom(r.MOTDFile))
	default:
		fmt.Fprintf(c.Out, "Message of the day: unchanged, from %s.\n", motdFrom(r.MOTDFile))
	}
}

// adminAdmins lists the admin keys loaded, in the file's order.
func (s *Server) adminAdmins(c *command.Call) int {
	list := s.admins.Load().Entries()
	if list == nil {
		list = []keys.Entry{} // --json: [], not null
	}
	c.Result = fmt.Sprintf("%d admin keys", len(list))
	if c.JSON {
		return c.WriteJSON(list)
	}
	fmt.Fprintf(c.Out, "%d admin keys, from %s:\n", len(list), s.cfg.AdminKeys)
	tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FINGERPRINT\tTYPE\tCOMMENT")
	for _, e := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Fingerprint, e.Type, world.CleanLine(e.Comment))
	}
	_ = tw.Flush()
	return 0
}

// backupCommand is the row of backup.
func (s *Server) backupCommand() command.Command {
	return command.Command{Name: "backup", Usage: "backup", Summary: "a consistent copy of the database on stdout",
		Help: "Run it without a terminal and redirect it: ssh -p PORT host backup > orthanc.db\n" +
			"The copy is taken in one read transaction while the game runs, after the saver has\n" +
			"written what it holds; it opens with bbolt like the live file.",
		Shell: "backup streams the database as binary; run it from a shell: ssh -p PORT host backup > orthanc.db",
		Admin: true, Run: s.adminBackup}
}

// checkCommand is the row of check.
func (s *Server) checkCommand() command.Command {
	return command.Command{Name: "check", Usage: "check [--json]", Summary: "verify every record of the live database: pages, checksums, decoding",
		Help: "Runs while the game goes on, in one read transaction, after the saver has written what it\n" +
			"holds. Exit status 1 when a problem is found, each named by its bucket and key. A stopped\n" +
			"server's database is checked with orthanc-ssh -check.",
		Admin: true, Takes: command.TakesJSON, Run: s.adminCheck}
}

// statsCommand is the row of stats.
func (s *Server) statsCommand() command.Command {
	return command.Command{Name: "stats", Usage: "stats [--json]", Summary: "sessions, players, levels and seeds, tick and save times, memory",
		Admin: true, Takes: command.TakesJSON, Run: s.adminStats}
}

// reloadCommand is the row of reload.
func (s *Server) reloadCommand() command.Command {
	return command.Command{Name: "reload", Usage: "reload [--json]", Summary: "read the admin keys and the message of the day's file again; no one is dropped",
		Help: "SIGHUP does the same. Each admin key added or removed is named by its fingerprint, here\n" +
			"and in the log; a key taken out is refused at its next admin command. The message of the\n" +
			"day is the file's (-motd-file, <data>/motd by default) while the file exists, else the one\n" +
			"motd set stored. A file that cannot be read keeps what was there.",
		Admin: true, Takes: command.TakesJSON, Run: s.adminReload}
}

// adminsCommand is the row of admins.
func (s *Server) adminsCommand() command.Command {
	return command.Command{Name: "admins", Usage: "admins [--json]", Summary: "the admin keys loaded: fingerprint, type and comment",
		Admin: true, Takes: command.TakesJSON, Run: s.adminAdmins}
}

// keysMoveCommand is the row of keys move.
func (s *Server) keysMoveCommand() command.Command {
	return command.Command{Name: "keys move", Usage: "keys move OLD NEW", Summary: "for a player who lost a key: key NEW (a fingerprint) takes OLD's place",
		Help: "NEW must play no living knight (a dead one's record goes). NEW is a fingerprint as ssh-keygen -l\n" +
			"prints it: have the player send it, with `ssh-keygen -lf ~/.ssh/id_ed25519.pub`.\n" +
			"A game open with OLD ends, telling its player why; the knight is saved.",
		Admin: true, Takes: command.TakesWords | command.TakesJSON, Run: s.adminKeysMove}
}
