package server

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
)

// A realm's metrics say how far etcd is behind the world: each knight's record written
// is timed from the world filing it, the knights written are counted, and the oldest
// record waiting is a gauge; promtool finds nothing to say of them.
func TestRealmMetricsTellTheCheckpointsAge(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.Realm, cfg.Etcd, cfg.RealmTTL = "A", []string{etcd}, 3*time.Second
	cfg.MetricsAddr = "127.0.0.1:0"
	ts, srv := startConfigured(t, cfg)
	stepAndCheckpoint(t, ts.addr, newKey(t), "Kay", sharedRecordsOf(t, etcd))
	addr := srv.metrics.Addr().String()
	m := scrape(t, addr)
	for name, want := range map[string]func(float64) bool{
		"orthanc_realm_knights_written_total":        func(v float64) bool { return v >= 2 }, // its first sheet, then the move
		"orthanc_realm_checkpoint_age_seconds_count": func(v float64) bool { return v == m["orthanc_realm_knights_written_total"] },
		"orthanc_realm_checkpoint_age_seconds_sum":   func(v float64) bool { return v >= 0 },
		"orthanc_realm_checkpoint_lag_seconds":       func(v float64) bool { return v >= 0 },
	} {
		if v, ok := m[name]; !ok || !want(v) {
			t.Errorf("metric %s = %v (present %v)", name, v, ok)
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
