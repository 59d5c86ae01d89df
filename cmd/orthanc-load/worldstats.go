package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"slices"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// statsSample is the part of the game server's `stats --json` the load tool reads.
type statsSample struct {
	at            time.Time
	Turn          uint64 `json:"turn"`
	PlayersOnline int    `json:"players_online"`
	Tick          struct {
		Count uint64  `json:"count"`
		P50   float64 `json:"p50_ms"`
		P99   float64 `json:"p99_ms"`
		Max   float64 `json:"max_ms"`
	} `json:"tick"`
}

// loadAdminKey reads an unencrypted private key file (OpenSSH or PEM format).
func loadAdminKey(path string) (gossh.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("admin key: %w", err)
	}
	s, err := gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("admin key %s: %w", path, err)
	}
	return s, nil
}

// fetchStats runs `stats --json` on the game server as an admin.
func fetchStats(ctx context.Context, addr string, key gossh.Signer) (statsSample, error) {
	var st statsSample
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return st, fmt.Errorf("stats: dial: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	cc, chans, reqs, err := gossh.NewClientConn(conn, addr, &gossh.ClientConfig{
		User:            "load",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
	})
	if err != nil {
		return st, fmt.Errorf("stats: handshake: %w", err)
	}
	client := gossh.NewClient(cc, chans, reqs)
	defer client.Close()
	sess, err := client.NewSession()
	if err != nil {
		return st, fmt.Errorf("stats: session: %w", err)
	}
	defer sess.Close()
	var out, errOut bytes.Buffer
	sess.Stdout, sess.Stderr = &out, &errOut
	if err := sess.Run("stats --json"); err != nil {
		return st, fmt.Errorf("stats: %w: %s", err, bytes.TrimSpace(errOut.Bytes()))
	}
	st.at = time.Now()
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		return st, fmt.Errorf("stats: parse: %w", err)
	}
	return st, nil
}

// summariseWorld turns the samples into the report's world figures.
func summariseWorld(samples []statsSample, errs int) *WorldStats {
	ws := &WorldStats{Samples: len(samples), Errors: errs}
	if len(samples) == 0 {
		return ws
	}
	first, last := samples[0], samples[len(samples)-1]
	if dt := last.at.Sub(first.at).Seconds(); dt > 0 && last.Turn >= first.Turn {
		ws.TurnsPerSecond = round3(float64(last.Turn-first.Turn) / dt)
	}
	// The first sample, taken as the window opens, covers steps from before it (the
	// ramp): it counts for the turn rate only, unless it is the only one.
	timed := samples
	if len(samples) > 1 {
		timed = samples[1:]
	}
	p50s := make([]float64, 0, len(timed))
	for _, s := range timed {
		p50s = append(p50s, s.Tick.P50)
		ws.TickP99 = max(ws.TickP99, s.Tick.P99)
		ws.TickMax = max(ws.TickMax, s.Tick.Max)
	}
	slices.Sort(p50s)
	ws.TickP50 = rank(p50s, 0.5)
	ws.PlayersOnline = last.PlayersOnline
	return ws
}

// statsSampler reads the world's stats (-admin-key) through the window, on its own
// goroutine; samples and errs are read once it has stopped.
type statsSampler struct {
	ctx     context.Context // the run's: a sample in flight ends with it
	cfg     Config
	record  func(error)
	running context.Context // ends when the sampling stops
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	samples []statsSample
	errs    int
}

func newStatsSampler(ctx context.Context, cfg Config, record func(error)) *statsSampler {
	st := &statsSampler{ctx: ctx, cfg: cfg, record: record}
	st.running, st.cancel = context.WithCancel(ctx)
	return st
}

// start takes a sample now and one every every until stop.
func (st *statsSampler) start(every time.Duration) {
	st.wg.Add(1)
	go func() {
		defer st.wg.Done()
		st.sample()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-st.running.Done():
				return
			case <-t.C:
				st.sample()
			}
		}
	}()
}

// sample reads the stats once.
func (st *statsSampler) sample() {
	s, err := fetchStats(st.ctx, st.cfg.Addr, st.cfg.AdminKey)
	if err != nil {
		st.errs++
		st.record(fail("stats", err))
		return
	}
	st.samples = append(st.samples, s)
}

// stop ends the sampling and waits for the sample under way.
func (st *statsSampler) stop() {
	st.cancel()
	st.wg.Wait()
}
