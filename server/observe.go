package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// This file is what the server knows about itself for the admin console and the metrics
// endpoint: how long each world step takes, how long saves take, what each connection is
// sent, and the Prometheus registry. The live sessions are in edge.Registry.

// Tuning of the observations:
//
//	constant         value   effect
//	durationWindow   1000    tick and save percentiles in `stats` cover the last 1000 of each (25 s of ticks)
//	metricsTimeout   1 s     a scrape waits at most this long for the world's census
const (
	durationWindow = 1000
	metricsTimeout = time.Second
)

// durations keeps the last durationWindow durations of something, for percentiles.
type durations struct {
	mu    sync.Mutex
	ring  [durationWindow]time.Duration
	count uint64
}

func (d *durations) add(x time.Duration) {
	d.mu.Lock()
	d.ring[d.count%durationWindow] = x
	d.count++
	d.mu.Unlock()
}

// percentiles summarises the window.
type percentiles struct {
	Count uint64  `json:"count"` // observations ever; the percentiles cover the last durationWindow
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

func (d *durations) percentiles() percentiles {
	d.mu.Lock()
	n := int(min(d.count, durationWindow))
	xs := slices.Clone(d.ring[:n])
	count := d.count
	d.mu.Unlock()
	if n == 0 {
		return percentiles{}
	}
	slices.Sort(xs)
	at := func(q float64) float64 { return ms(xs[min(n-1, int(q*float64(n)))]) }
	return percentiles{Count: count, P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: ms(xs[n-1])}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// observer holds the server's measurements and its Prometheus metrics.
type observer struct {
	start time.Time
	ticks durations
	saves durations

	lastSaves store.SaverStats // the saver's counters at the last sample; tick loop only

	reg            *prometheus.Registry
	tickSeconds    prometheus.Histogram
	saveSeconds    prometheus.Histogram
	authFailures   *prometheus.CounterVec
	refusals       *prometheus.CounterVec
	handshakeFails prometheus.Counter
	bytesSent      prometheus.Counter
	keyFrame       prometheus.Histogram
}

// The label values of the labelled counters, every one made at 0 when the server starts
// so that a rate or an alert over them has a series from the first scrape.
var (
	refusalReasons = []string{edge.RefusedFull, edge.RefusedPerAddr, edge.RefusedBusy, edge.RefusedPenalty, edge.RefusedEarly}
)

// newObserver makes the measurements and registers the metrics (served only when the
// server has a metrics address).
func newObserver(s *Server) *observer {
	o := &observer{
		start: time.Now(),
		reg:   prometheus.NewRegistry(),
		tickSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "orthanc_tick_duration_seconds", Help: "Wall time of one world step (one game turn).",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 12), // 50 µs to about 100 ms
		}),
		saveSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "orthanc_save_duration_seconds", Help: "Wall time of one write of the saver's batch to the database.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 14), // 100 µs to about 1.6 s
		}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "orthanc_auth_failures_total",
			Help: "Login attempts the server refused, by reason: banned (a banned key), signature (a key whose signature did not verify), method (a method or key algorithm the server does not take). Every other key that proves itself may play.",
		}, []string{"reason"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "orthanc_connections_refused_total",
			Help: "Connections refused by the limits, by reason: server_full, per_address, handshakes_full, penalised (an address charged for failed connections), early_drop (dropped with the handshakes nearly full, the address holding some already).",
		}, []string{"reason"}),
		handshakeFails: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "orthanc_handshake_failures_total", Help: "SSH connections that ended before a session could start.",
		}),
		bytesSent: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "orthanc_sent_bytes_total", Help: "Bytes written to SSH connections, encryption included.",
		}),
		keyFrame: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "orthanc_key_to_frame_seconds",
			Help:    "Time from a key read from a player's connection to the next frame written to it in full (the oldest key since the last frame; a step waits for the world's turn).",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 13), // 1 ms to about 4 s
		}),
	}
	for _, r := range edge.AuthReasons {
		o.authFailures.WithLabelValues(r)
	}
	for _, r := range refusalReasons {
		o.refusals.WithLabelValues(r)
	}
	census := func(f func(players, monsters, fights int) int) func() float64 {
		return func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), metricsTimeout)
			defer cancel()
			c, err := s.engine.Census(ctx)
			if err != nil {
				return 0
			}
			return float64(f(c.Players, c.Monsters(), c.Fights))
		}
	}
	o.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		o.tickSeconds, o.saveSeconds, o.authFailures, o.refusals, o.handshakeFails, o.bytesSent, o.keyFrame,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "orthanc_sessions", Help: "Open SSH sessions (games and commands)."},
			func() float64 { return float64(s.live.Len()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "orthanc_players_online", Help: "Knights in the world."},
			census(func(p, _, _ int) int { return p })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "orthanc_monsters_alive", Help: "Live monsters on every level."},
			census(func(_, m, _ int) int { return m })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "orthanc_fights", Help: "Fights under way."},
			census(func(_, _, f int) int { return f })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "orthanc_saves_total", Help: "Batches the saver wrote."},
			func() float64 { return float64(s.saver.Stats().Batches) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "orthanc_save_errors_total", Help: "Batches the saver failed to write (it retries)."},
			func() float64 { return float64(s.saver.Stats().Errors) }),
		newTalkCollector(s), newStoreCollector(s), newDiskCollector(s),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "orthanc_webhook_posts_total", Help: "Events the webhook's receiver took (a 2xx); 0 without -webhook."},
			func() float64 { return float64(s.hook.Stats().Posted) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "orthanc_webhook_failures_total", Help: "Events the webhook gave up: the receiver refused them (a 4xx other than 429), or every try failed."},
			func() float64 { return float64(s.hook.Stats().Failed) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "orthanc_webhook_dropped_total", Help: "Events the webhook never tried: its queue was full, or the server stopped first."},
			func() float64 { return float64(s.hook.Stats().Dropped) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "orthanc_webhook_retries_total", Help: "Posts of the webhook after an event's first: after a network error, a 5xx or a 429."},
			func() float64 { return float64(s.hook.Stats().Retried) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "orthanc_build_info", Help: "Always 1; its labels name the server's build.",
			ConstLabels: prometheus.Labels{"version": s.cfg.Version, "goversion": runtime.Version()}}, func() float64 { return 1 }),
	)
	o.reg.MustRegister(s.keeperNeeds.collectors...)
	return o
}

// chatLineKinds are the kinds of the world's talk counts that are lines of chat, for
// orthanc_chat_lines_total; letters and reports have counters of their own.
var chatLineKinds = []string{"say", "emote", "shout", "whisper", "party", "channel"}

// talkCollector reads the world's counts of what was said and refused, once a scrape,
// into the community's metrics.
type talkCollector struct {
	s                               *Server
	lines, refused, letters, report *prometheus.Desc
}

func newTalkCollector(s *Server) *talkCollector {
	return &talkCollector{s: s,
		lines: prometheus.NewDesc("orthanc_chat_lines_total",
			"Lines of chat sent, by kind: say, emote, shout, whisper (replies too), party, channel.", []string{"kind"}, nil),
		refused: prometheus.NewDesc("orthanc_chat_refused_total",
			"Lines refused by the per-key rate limit, by kind: the kinds of orthanc_chat_lines_total, letter, report, request (party invitations and askings) and away (an away reason).", []string{"kind"}, nil),
		letters: prometheus.NewDesc("orthanc_letters_sent_total", "Letters sent to knights, online or not.", nil, nil),
		report:  prometheus.NewDesc("orthanc_reports_filed_total", "Reports players filed about other knights.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *talkCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.lines
	ch <- c.refused
	ch <- c.letters
	ch <- c.report
}

// Collect implements prometheus.Collector.
func (c *talkCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), metricsTimeout)
	defer cancel()
	counts, err := c.s.engine.TalkCounts(ctx)
	if err != nil {
		return // the world is stopping, or too busy to answer within a scrape
	}
	for _, k := range chatLineKinds {
		ch <- prometheus.MustNewConstMetric(c.lines, prometheus.CounterValue, float64(counts.Said[k]), k)
	}
	for k, n := range counts.Refused {
		ch <- prometheus.MustNewConstMetric(c.refused, prometheus.CounterValue, float64(n), k)
	}
	ch <- prometheus.MustNewConstMetric(c.letters, prometheus.CounterValue, float64(counts.Said["letter"]))
	ch <- prometheus.MustNewConstMetric(c.report, prometheus.CounterValue, float64(counts.Said["report"]))
}

// storeCollector reads what the database holds, once a scrape: the knights stored and
// the bans in force. Counting reads every key of the knights' bucket (no value) and
// every ban: milliseconds for tens of thousands of knights, beside a scrape a minute.
type storeCollector struct {
	s             *Server
	knights, bans *prometheus.Desc
}

func newStoreCollector(s *Server) *storeCollector {
	return &storeCollector{s: s,
		knights: prometheus.NewDesc("orthanc_stored_knights", "Knights in the database, alive, dead or retired (the saver's last batch written).", nil, nil),
		bans:    prometheus.NewDesc("orthanc_bans", "Bans in force, by kind: key (a knight's key) or address.", []string{"kind"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.knights
	ch <- c.bans
}

// Collect implements prometheus.Collector. A count the store cannot give is left out of
// the scrape (and logged), not reported as 0.
func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	if n, err := c.s.knights.CountKnights(); err != nil {
		c.s.log.Error("metrics: count knights", "err", err)
	} else {
		ch <- prometheus.MustNewConstMetric(c.knights, prometheus.GaugeValue, float64(n))
	}
	keys, addrs, err := c.s.knights.CountBans(c.s.now())
	if err != nil {
		c.s.log.Error("metrics: count bans", "err", err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.bans, prometheus.GaugeValue, float64(keys), "key")
	ch <- prometheus.MustNewConstMetric(c.bans, prometheus.GaugeValue, float64(addrs), "address")
}

// tick records one world step's duration.
func (o *observer) tick(d time.Duration) {
	o.ticks.add(d)
	o.tickSeconds.Observe(d.Seconds())
}

// sampleSaver records the latency of the saver's newest write when it has written since
// the last sample. The saver keeps only its last latency, so a second write within one
// tick goes unrecorded; writes come every checkpoint (2 s), so that is rare.
func (o *observer) sampleSaver(st store.SaverStats) {
	if st.Batches+st.Errors != o.lastSaves.Batches+o.lastSaves.Errors {
		o.saves.add(st.LastLatency)
		o.saveSeconds.Observe(st.LastLatency.Seconds())
	}
	o.lastSaves = st
}

// countingConn counts the bytes the server writes to one connection.
type countingConn struct {
	net.Conn
	sent  *atomic.Int64
	total prometheus.Counter
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.sent.Add(int64(n))
	c.total.Add(float64(n))
	return n, err
}

type connCtxKey int

// sentKey keeps a connection's count of bytes sent in its context. Its place in the
// limits and its login are edge's (edge.SlotOf, edge.Login).
const sentKey connCtxKey = 0

// wrapConn is the SSH server's ConnCallback: it counts what each connection is sent, and
// keeps the connection's place in the limits (edge.KeepSlot) where its sessions find it.
func (s *Server) wrapConn(ctx ssh.Context, c net.Conn) net.Conn {
	sent := &atomic.Int64{}
	ctx.SetValue(sentKey, sent)
	edge.KeepSlot(ctx, c)
	return &countingConn{Conn: c, sent: sent, total: s.obs.bytesSent}
}

// serveMetrics serves /metrics on ln until ctx ends.
func (s *Server) serveMetrics(ctx context.Context, ln net.Listener) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(s.obs.reg, promhttp.HandlerOpts{}))
	// The Go profiler, for finding where a loaded server spends its time (docs/PERFORMANCE.md).
	// It shares the metrics address, which an operator keeps on loopback or a private network.
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.log.Error("metrics server", "addr", ln.Addr().String(), "err", err)
	}
}

// listenMetrics opens the metrics listener, if the server has a metrics address.
func (s *Server) listenMetrics() (net.Listener, error) {
	if s.cfg.MetricsAddr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", s.cfg.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("metrics listen %s: %w", s.cfg.MetricsAddr, err)
	}
	return ln, nil
}
