package server

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// What the database costs on disk is in /metrics (issue 46): the file's size as stat
// gives it, bbolt's free pages and free list, the pages its commits wrote, the commits'
// histogram, the replays' bytes and churn once a knight's chunk is written, and the bytes
// the process wrote to storage; promtool, where it is installed, finds nothing to say of
// them.
func TestDiskMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := testConfig(dir, defaultSeed)
	cfg.MetricsAddr = "127.0.0.1:0"
	ts, srv := startConfigured(t, cfg)
	tm := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	tm.enterDungeon("Lucan")
	tm.press(keyUp, keyDown, keyUp)
	tm.close() // the session's end cuts its chunk
	addr := srv.metrics.Addr().String()
	var m map[string]float64
	// The saver may grow the file between a scrape and a stat: wait for the two to agree.
	waitUntil(t, "the knight's chunk counted, and the file's size as stat gives it", func() bool {
		m = scrape(t, addr)
		fi, err := os.Stat(filepath.Join(dir, "orthanc.db"))
		if err != nil {
			t.Fatal(err)
		}
		return m["orthanc_replay_written_bytes_total"] > 0 && m["orthanc_replay_bytes"] > 0 &&
			m["orthanc_store_file_bytes"] == float64(fi.Size())
	})
	for name, want := range map[string]func(float64) bool{
		"orthanc_store_free_pages":                    func(v float64) bool { return v >= 0 },
		"orthanc_store_pending_pages":                 func(v float64) bool { return v >= 0 },
		"orthanc_store_free_bytes":                    func(v float64) bool { return v >= 0 },
		"orthanc_store_freelist_bytes":                func(v float64) bool { return v > 0 }, // its header at least
		"orthanc_store_page_written_bytes_total":      func(v float64) bool { return v > 0 },
		"orthanc_store_commit_duration_seconds_count": func(v float64) bool { return v > 0 },
		"orthanc_store_commit_duration_seconds_sum":   func(v float64) bool { return v > 0 },
		`orthanc_store_commit_duration_seconds_bucket{le="+Inf"}`: func(v float64) bool {
			return v == m["orthanc_store_commit_duration_seconds_count"]
		},
		"orthanc_replay_deleted_bytes_total": func(v float64) bool { return v >= 0 },
	} {
		if v, ok := m[name]; !ok || !want(v) {
			t.Errorf("metric %s = %v (present %v)", name, v, ok)
		}
	}
	if _, ok := processWritten(); ok { // Linux
		if v := m["orthanc_disk_written_bytes_total"]; v <= 0 {
			t.Errorf("orthanc_disk_written_bytes_total = %v after commits", v)
		}
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	t.Run("promtool", func(t *testing.T) { promtoolCheck(t, body) })
}
