package command

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Stats is stats' row.
func (o Operations) Stats() Command {
	return Command{Name: "stats", Usage: "stats [--json]", Summary: "sessions, players, levels and seeds, tick and save times, memory",
		Admin: true, Takes: TakesJSON, Run: o.stats}
}

// Measures are what the server measures of itself, for stats.
type Measures struct {
	Uptime time.Duration
	// Window is how many of the latest ticks and of the latest saves Tick and Saves cover.
	Window uint64
	Tick   Percentiles // the world's steps
	Saves  Percentiles // the saver's writes
}

// Percentiles summarise the latest durations of something, in milliseconds.
type Percentiles struct {
	Count uint64  `json:"count"` // observations ever; the percentiles cover the latest Measures.Window
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// PermissionWarning is a file of the server's that other users of the machine could
// read or change, and how to fix it.
type PermissionWarning struct {
	Path    string `json:"path"`
	Mode    string `json:"mode"`
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
}

// String is the warning in one line, as stats shows it.
func (w PermissionWarning) String() string {
	return fmt.Sprintf("%s: %s (mode %s); fix: %s", w.Problem, w.Path, w.Mode, w.Fix)
}

// StatsJSON is the --json output of stats (tests and the operators' scripts read it).
type StatsJSON struct {
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
	Tick          Percentiles       `json:"tick"`
	Saves         saveStatsJSON     `json:"saves"`
	Memory        memoryJSON        `json:"memory"`
	Replays       *replayStatsJSON  `json:"replays,omitempty"` // none when the server records none
	// Etcd is what etcd holds of the knights, on a realm (Adventurers and Bans are its).
	Etcd *knights.Tally `json:"etcd,omitempty"`
	// Warnings are the server's files other users could read or change.
	Warnings []PermissionWarning `json:"permission_warnings"`
}

type saveStatsJSON struct {
	Batches       uint64      `json:"batches"`
	Records       uint64      `json:"records"`
	Errors        uint64      `json:"errors"`
	Pending       int         `json:"pending"`
	LastLatencyMS float64     `json:"last_latency_ms"`
	Latency       Percentiles `json:"latency"`
}

// replayStatsJSON is what the replays take of the database: the bucket's keys and values
// as its bound counts them, and the bound (-replay-store-mb).
type replayStatsJSON struct {
	StoredBytes int64 `json:"stored_bytes"`
	LimitBytes  int64 `json:"limit_bytes"`
}

type memoryJSON struct {
	HeapAllocBytes uint64 `json:"heap_alloc_bytes"`
	SysBytes       uint64 `json:"sys_bytes"`
	Goroutines     int    `json:"goroutines"`
}

// stats shows the server's numbers: sessions, players, knights and bans, the world's
// turn and levels, tick and save times, memory, replays and the files' permissions.
func (o Operations) stats(c *Call) int {
	census, err := o.World.Census(c.Ctx)
	if err != nil {
		return c.Fail("the world is not answering: %v", err)
	}
	stored, bans, tally, err := o.countRecords(c.Ctx)
	if err != nil {
		return c.Fail("%v", err)
	}
	replays, err := o.replayStats()
	if err != nil {
		return c.Fail("could not measure the replays: %v", err)
	}
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	sv, m := o.Saver.Stats(), o.Measure()
	st := StatsJSON{
		Version: o.Version, GoVersion: runtime.Version(),
		UptimeSeconds: m.Uptime.Round(time.Second).Seconds(),
		Sessions:      o.Sessions.Len(), PlayersOnline: census.Players, Adventurers: stored, Bans: bans, Etcd: tally,
		Turn: census.Turn, Fights: census.Fights, MonstersAlive: census.Monsters(),
		DungeonSeed: o.Seed, Levels: census.Levels, Tick: m.Tick,
		Saves: saveStatsJSON{Batches: sv.Batches, Records: sv.Records, Errors: sv.Errors, Pending: o.Saver.Pending(),
			LastLatencyMS: ms(sv.LastLatency), Latency: m.Saves},
		Memory:   memoryJSON{HeapAllocBytes: mem.HeapAlloc, SysBytes: mem.Sys, Goroutines: runtime.NumGoroutine()},
		Replays:  replays,
		Warnings: o.Warnings(),
	}
	c.Result = "shown"
	if c.JSON {
		return c.WriteJSON(st)
	}
	writeStats(c.Out, st, m.Window)
	return 0
}

// writeStats prints stats as a table, then the levels; window is how many of the latest
// ticks and saves the percentiles cover.
func writeStats(w io.Writer, st StatsJSON, window uint64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, args...)...) }
	row("version", "%s (%s)", st.Version, st.GoVersion)
	row("uptime", "%s", time.Duration(st.UptimeSeconds)*time.Second)
	row("sessions", "%d", st.Sessions)
	row("players online", "%d", st.PlayersOnline)
	row("knights stored", "%d", st.Adventurers)
	row("keys banned", "%d", st.Bans)
	if st.Etcd != nil {
		row("in etcd", "%s (revision %d)", tallyText(*st.Etcd), st.Etcd.Revision)
	}
	row("turn", "%d", st.Turn)
	row("fights", "%d", st.Fights)
	row("monsters alive", "%d", st.MonstersAlive)
	row("dungeon seed", "%d (the original)", st.DungeonSeed)
	t := st.Tick
	row("tick (ms)", "p50 %.3f  p90 %.3f  p99 %.3f  max %.3f  (last %d ticks)", t.P50, t.P90, t.P99, t.Max, min(t.Count, window))
	l := st.Saves.Latency
	row("saves", "%d batches, %d records, %d errors, %d pending", st.Saves.Batches, st.Saves.Records, st.Saves.Errors, st.Saves.Pending)
	row("save (ms)", "p50 %.3f  p90 %.3f  p99 %.3f  max %.3f  (last %d saves)", l.P50, l.P90, l.P99, l.Max, min(l.Count, window))
	row("memory", "heap %.1f MiB, from the system %.1f MiB, %d goroutines",
		float64(st.Memory.HeapAllocBytes)/(1<<20), float64(st.Memory.SysBytes)/(1<<20), st.Memory.Goroutines)
	row("replays stored", "%s", replayRow(st.Replays))
	for _, w := range st.Warnings {
		row("warning", "%s", w)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	writeLevels(w, st.Levels)
}

// countRecords counts the knights stored and the bans in force: in the database, or on
// a realm in etcd, with all else etcd holds of the knights, at one revision.
func (o Operations) countRecords(ctx context.Context) (stored, bans int, tally *knights.Tally, err error) {
	if o.Shared != nil {
		t, err := o.Shared.Tally(ctx, o.Now())
		if err != nil {
			return 0, 0, nil, fmt.Errorf("could not count the records in etcd: %w", err)
		}
		return t.Knights, t.Bans, &t, nil
	}
	if stored, err = o.Knights.CountKnights(); err != nil {
		return 0, 0, nil, fmt.Errorf("could not count the stored knights: %w", err)
	}
	keyBans, addrBans, err := o.Knights.CountBans(o.Now())
	if err != nil {
		return 0, 0, nil, fmt.Errorf("could not read the bans: %w", err)
	}
	return stored, keyBans + addrBans, nil, nil
}

// replayStats is what the replays take, or nil when the server records none.
func (o Operations) replayStats() (*replayStatsJSON, error) {
	w := o.Replays()
	if w == nil {
		return nil, nil
	}
	n, err := w.Size()
	if err != nil {
		return nil, err
	}
	return &replayStatsJSON{StoredBytes: n, LimitBytes: o.ReplayLimit}, nil
}

// replayRow is stats' line of the replays.
func replayRow(r *replayStatsJSON) string {
	if r == nil {
		return "none recorded (-replay-store-mb 0)"
	}
	return fmt.Sprintf("%.1f MB of %d MB", float64(r.StoredBytes)/(1<<20), r.LimitBytes>>20)
}

// ms is a duration in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
