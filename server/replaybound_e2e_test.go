package server

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The replays' storage bound, end to end (issue 33): a server with -replay-store-mb 1,
// knights coming in, walking and leaving again and again (each session's end cuts a
// chunk, which begins with the whole level) until far more than 1 MB has been recorded.
// After every session the bucket is within its bound, as the store counts it and as
// stats says it; the session's own chunk is there (the newest are kept); and in the end
// the first knight's record is gone, and every chunk still kept is newer than every chunk
// that went (oldest first out).
func TestTheReplaysStayWithinTheirBoundOldestFirstOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	admin := newKey(t)
	writeAdminKeys(t, dir, admin)
	const knights = 12
	var ks []gossh.Signer
	for i := range knights {
		k := newKey(t)
		seedKnight(t, dir, k, func(a *world.Adventurer) { a.Name = fmt.Sprintf("Walker%c", 'A'+i) })
		ks = append(ks, k)
	}
	cfg := testConfig(dir, defaultSeed)
	cfg.ReplayMB = 1
	ts, srv := startConfigured(t, cfg)
	const limit = 1 << 20

	made := map[int64]bool{}     // every chunk seen kept, by its start (ms)
	written := map[int64]int64{} // when each was written (ms), by its start
	var recorded int64           // their bytes
	var firstChunk int64         // the start of the first session's chunk
	ids := make([]string, knights)
	for i, k := range ks {
		ids[i] = keys.Fingerprint(k.PublicKey()) // a seeded knight's id
	}
	for round := 0; ; round++ {
		if round == 200 {
			t.Fatalf("%d rounds, %d bytes recorded: the first chunk is still kept, or not a bound's worth recorded", round, recorded)
		}
		// Every knight comes in, walks and leaves, all at once.
		since := time.Now().Truncate(time.Millisecond)
		tms := make([]*terminal, knights)
		for i, k := range ks {
			tms[i] = openTerminal(t, ts.addr, k, 80, 24, nil)
		}
		for _, tm := range tms {
			tm.continueKnight()
			tm.press(keyUp, keyDown, keyUp, keyDown, keyUp, keyDown)
		}
		for _, tm := range tms {
			tm.close()
		}
		// Each session's end cuts its chunk; wait until every one is written.
		waitUntil(t, "the sessions' chunks written and kept, the newest", func() bool {
			if err := srv.replayWriter.Flush(); err != nil {
				t.Fatal(err)
			}
			all := true
			for _, id := range ids {
				live, err := srv.store.LiveReplay(id)
				if err != nil {
					t.Fatal(err)
				}
				newest := false
				for _, c := range live {
					if ms := c.Start.UnixMilli(); !made[ms] {
						made[ms] = true
						written[ms] = c.Written.UnixMilli()
						recorded += int64(len(c.Data))
						if firstChunk == 0 {
							firstChunk = ms
						}
					}
					newest = newest || !c.Start.Before(since)
				}
				all = all && newest
			}
			return all
		})
		stored, err := srv.store.ReplayBytes()
		if err != nil {
			t.Fatal(err)
		}
		if stored > limit {
			t.Fatalf("round %d: the replays take %d bytes, past their bound of %d", round, stored, limit)
		}
		if size, _ := srv.replayWriter.Size(); size != stored {
			t.Fatalf("round %d: the writer counts %d bytes, the store holds %d", round, size, stored)
		}
		first, err := srv.store.LiveReplay(ids[0])
		if err != nil {
			t.Fatal(err)
		}
		gone := !slices.ContainsFunc(first, func(c store.ReplayChunk) bool { return c.Start.UnixMilli() == firstChunk })
		if gone && recorded > limit {
			t.Logf("%d sessions recorded %d bytes; %d kept", (round+1)*knights, recorded, stored)
			break
		}
	}
	// Oldest first out: what is kept was written after everything that went. Chunks are
	// written in the order they end, so it is their writing, not their start, that the
	// bound follows.
	var kept, keptWritten []int64
	for _, k := range ks {
		live, err := srv.store.LiveReplay(keys.Fingerprint(k.PublicKey()))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range live {
			kept = append(kept, c.Start.UnixMilli())
			keptWritten = append(keptWritten, c.Written.UnixMilli())
		}
	}
	oldestKept := slices.Min(keptWritten)
	for ms, at := range written {
		if at > oldestKept && !slices.Contains(kept, ms) {
			t.Errorf("a chunk written at %v went while an older one, written at %v, is kept", time.UnixMilli(at), time.UnixMilli(oldestKept))
		}
	}

	// stats says it, within the bound.
	out, _, code := runCmd(t, ts.addr, admin, "stats")
	m := regexp.MustCompile(`(?m)^replays stored +(\d+\.\d) MB of 1 MB$`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("stats (status %d) does not say what the replays take:\n%s", code, out)
	}
	if mb, _ := strconv.ParseFloat(m[1], 64); mb > 1 || mb < 0.5 {
		t.Errorf("stats says the replays take %s MB of 1", m[1])
	}
	if strings.Contains(out, "replays stored  0.0") {
		t.Errorf("stats says nothing is stored:\n%s", out)
	}
}
