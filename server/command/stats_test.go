package command

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// opsNoViews is a subscriber that drops every view.
type opsNoViews struct{}

func (opsNoViews) Deliver(world.View) {}

// opsStatsWorld gives the fixture something to count: a stored knight, in the world, two
// sessions, a ban of a key and one of an address in force and a lapsed one.
func opsStatsWorld(t *testing.T, f *opsFixture) {
	t.Helper()
	ctx := context.Background()
	kay := world.NewAdventurer("K-1", "Kay", world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 12)
	if _, err := f.keeper.Give(ctx, knights.Give{Key: knights.Key{Fingerprint: "SHA256:kay", Knight: "K-1"}, Knight: &kay}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.world.Join(ctx, kay, opsNoViews{}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, b := range []knights.Ban{
		{Fingerprint: "SHA256:banned", By: "SHA256:admin", At: now},
		{Addr: "203.0.113.7/32", By: "SHA256:admin", At: now},
		{Fingerprint: "SHA256:lapsed", By: "SHA256:admin", At: now.Add(-time.Hour), Until: now.Add(-time.Minute)},
	} {
		if err := f.keeper.Ban(b); err != nil {
			t.Fatal(err)
		}
	}
	f.ops.Sessions.Add(edge.LiveSession{Fingerprint: "SHA256:kay", Knight: "K-1", Game: true, Close: func() {}})
	f.ops.Sessions.Add(edge.LiveSession{Fingerprint: "SHA256:other", Close: func() {}})
}

// opsStatsMemory is stats' line of the memory, whose figures change from run to run.
var opsStatsMemory = regexp.MustCompile(`^memory {10}heap \d+\.\d MiB, from the system \d+\.\d MiB, \d+ goroutines$`)

// stats shows the server's numbers as a table, then the levels as the world counts them.
func TestStatsShowsTheServersNumbers(t *testing.T) {
	f := newOpsFixture(t)
	opsStatsWorld(t, f)
	f.ops.Warnings = func() []PermissionWarning {
		return []PermissionWarning{{Path: "/data/host_key", Mode: "0644", Problem: "the host key can be read by other users", Fix: "chmod 600 /data/host_key"}}
	}
	census, err := f.world.Census(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	row := func(k, v string) string { return fmt.Sprintf("%-16s%s", k, v) }
	want := []string{
		row("version", "v1.2.3 ("+runtime.Version()+")"),
		row("uptime", "1m30s"),
		row("sessions", "2"),
		row("players online", "1"),
		row("knights stored", "1"),
		row("keys banned", "2"),
		row("turn", "0"),
		row("fights", "0"),
		row("monsters alive", strconv.Itoa(census.Monsters())),
		row("dungeon seed", "7 (the original)"),
		row("tick (ms)", "p50 0.125  p90 0.250  p99 1.500  max 3.000  (last 1000 ticks)"),
		row("saves", "0 batches, 0 records, 0 errors, 0 pending"),
		row("save (ms)", "p50 2.000  p90 4.000  p99 8.000  max 16.500  (last 12 saves)"),
		"memory",
		row("replays stored", "none recorded (-replay-store-mb 0)"),
		row("warning", "the host key can be read by other users: /data/host_key (mode 0644); fix: chmod 600 /data/host_key"),
		"",
		"LEVEL SEED ORIGINAL MONSTERS KNIGHTS",
	}
	for _, l := range census.Levels {
		want = append(want, fmt.Sprintf("%d %d yes %d %d", l.Depth, l.Seed, l.Monsters, l.Players))
	}
	out, errOut, code := f.adminRun("stats")
	if errOut != "" || code != 0 {
		t.Fatalf("stats: err %q, exit %d", errOut, code)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("stats wrote %d lines, want %d:\n%s", len(got), len(want), out)
	}
	for i, w := range want {
		switch {
		case w == "memory":
			if !opsStatsMemory.MatchString(got[i]) {
				t.Errorf("line %d: %q is not the memory's", i+1, got[i])
			}
		case i > len(want)-len(census.Levels)-2: // the levels' table: its columns
			if g := strings.Join(strings.Fields(got[i]), " "); g != w {
				t.Errorf("line %d: %q, want the columns %q", i+1, got[i], w)
			}
		case got[i] != w:
			t.Errorf("line %d: %q, want %q", i+1, got[i], w)
		}
	}
	if len(census.Levels) != 2 || census.Levels[0].Players != 1 {
		t.Errorf("the world's levels: %+v", census.Levels)
	}
}

// stats --json is one line of the figures under the names the operators' scripts read;
// with no warning they are null, and without replays there is no replays key.
func TestStatsJSONKeepsItsShape(t *testing.T) {
	f := newOpsFixture(t)
	opsStatsWorld(t, f)
	out, errOut, code := f.adminRun("stats", "--json")
	if errOut != "" || code != 0 || strings.Count(out, "\n") != 1 {
		t.Fatalf("stats --json: out %q, err %q, exit %d", out, errOut, code)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	wantKeys := []string{"adventurers_stored", "bans", "dungeon_seed", "fights", "go_version", "levels", "memory", "monsters_alive",
		"permission_warnings", "players_online", "saves", "sessions", "tick", "turn", "uptime_seconds", "version"}
	if got := slices.Sorted(maps.Keys(raw)); !slices.Equal(got, wantKeys) {
		t.Errorf("keys %q, want %q", got, wantKeys)
	}
	for key, want := range map[string]string{
		"permission_warnings": "null",
		"tick":                `{"count":2500,"p50_ms":0.125,"p90_ms":0.25,"p99_ms":1.5,"max_ms":3}`,
		"saves":               `{"batches":0,"records":0,"errors":0,"pending":0,"last_latency_ms":0,"latency":{"count":12,"p50_ms":2,"p90_ms":4,"p99_ms":8,"max_ms":16.5}}`,
		"uptime_seconds":      "90",
		"bans":                "2",
		"sessions":            "2",
		"version":             `"v1.2.3"`,
	} {
		if got := string(raw[key]); got != want {
			t.Errorf("%s: %s, want %s", key, got, want)
		}
	}
	var st StatsJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st.PlayersOnline != 1 || st.Adventurers != 1 || st.DungeonSeed != 7 || len(st.Levels) != 2 || st.Memory.Goroutines == 0 {
		t.Errorf("stats --json: %+v", st)
	}
}

// With replays recorded, stats says what they take of their bound.
func TestStatsShowsTheReplays(t *testing.T) {
	f := newOpsFixture(t)
	w := store.NewReplayWriter(f.store, 8<<20, time.Minute, quietLog())
	f.ops.Replays = func() *store.ReplayWriter { return w }
	out, _, code := f.adminRun("stats")
	if code != 0 || !strings.Contains(out, "\nreplays stored  0.0 MB of 8 MB\n") {
		t.Errorf("stats with replays: exit %d\n%s", code, out)
	}
	out, _, code = f.adminRun("stats", "--json")
	if code != 0 || !strings.Contains(out, `,"replays":{"stored_bytes":0,"limit_bytes":8388608},`) {
		t.Errorf("stats --json with replays: exit %d\n%s", code, out)
	}
}

// stats says so when the world does not answer, and takes only --json.
func TestStatsFailures(t *testing.T) {
	f := newOpsFixture(t)
	for line, want := range map[string]string{
		"stats --bogus": "orthanc: unknown flag \"--bogus\"; usage: stats [--json]\n",
		"stats levels":  "orthanc: unexpected \"levels\"; usage: stats [--json]\n",
	} {
		if out, errOut, code := f.adminRun(strings.Fields(line)...); out != "" || errOut != want || code != 1 {
			t.Errorf("%s: out %q, err %q, exit %d; want %q", line, out, errOut, code, want)
		}
	}
	f.stopWorld()
	out, errOut, code := f.adminRun("stats")
	if out != "" || !strings.HasPrefix(errOut, "orthanc: the world is not answering: ") || code != 1 {
		t.Errorf("stats of a stopped world: out %q, err %q, exit %d", out, errOut, code)
	}
}
