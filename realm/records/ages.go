package records

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// realmAges is how far etcd is behind the world on a realm: how long each knight's
// record waited from the world filing it to etcd holding it (or a newer one). A crash of
// the realm loses the play since the last checkpoint the world filed, and this besides.
type realmAges struct {
	wait    prometheus.Histogram
	written prometheus.Counter
}

func newRealmAges() realmAges {
	return realmAges{
		wait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "orthanc_realm_checkpoint_age_seconds",
			Help:    "On a realm, time from the world filing a knight's record to etcd holding it or a newer one (the oldest record of the write, superseded ones included): what a crash loses beyond the checkpoint interval.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 13), // 10 ms to about 41 s
		}),
		written: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "orthanc_realm_knights_written_total",
			Help: "On a realm, knights' records written to etcd (each knight's newest at its write; check-ins too).",
		}),
	}
}

// observe notes a knight's record written, filed at since (zero: nothing was waiting).
func (a realmAges) observe(since, now time.Time) {
	if since.IsZero() {
		return
	}
	a.wait.Observe(now.Sub(since).Seconds())
	a.written.Inc()
}

// collectors are the realm saver's metrics, with the age of the oldest record waiting.
func (k *sheets) collectors() []prometheus.Collector {
	return []prometheus.Collector{k.ages.wait, k.ages.written,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "orthanc_realm_checkpoint_lag_seconds",
			Help: "On a realm, age of the oldest knight's record the world filed that etcd does not hold yet; 0 when it holds every knight's newest. Growing past a few checkpoint intervals: etcd falls behind.",
		}, func() float64 { return k.lag().Seconds() }),
	}
}

// lag is the age of the oldest record filed that etcd does not hold yet.
func (k *sheets) lag() time.Duration {
	k.mu.Lock()
	defer k.mu.Unlock()
	var oldest time.Time
	for _, h := range k.held {
		for _, t := range [2]time.Time{h.since, h.taken} {
			if !t.IsZero() && (oldest.IsZero() || t.Before(oldest)) {
				oldest = t
			}
		}
	}
	if oldest.IsZero() {
		return 0
	}
	return k.now().Sub(oldest)
}
