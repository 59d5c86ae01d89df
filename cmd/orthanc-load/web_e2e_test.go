package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

// browserLimits raise the server's limits of one address for guests and for the web
// page, which every session of a test shares.
var browserLimits = []string{"-http-addr", "127.0.0.1:0", "-max-guests-per-ip", "50", "-max-guests", "50",
	"-http-max-conns-per-ip", "50", "-http-rate", "100", "-http-burst", "100", "-new-knights-per-hour", "1000"}

// A mixed run against the real server: half the sessions SSH's, half browsers' on the
// play page's socket, as guests. Every one walks in; the browsers' active sessions walk,
// each key answered by a frame; the report gives each kind apart, their bytes a frame,
// and the play page's weight.
func TestBrowsersWalk(t *testing.T) {
	t.Parallel()
	const n, browsers = 6, 3
	g := runGame(t, t.TempDir(), "127.0.0.1:0", browserLimits...)
	rep, err := Run(t.Context(), Config{
		Addr: g.addr, N: n, Active: 4, Rate: 4, Duration: 3 * time.Second, Ramp: 300 * time.Millisecond,
		Mode: ModeGame, Web: "http://" + g.webAddr(), Browsers: browsers, ServerPID: g.cmd.Process.Pid,
		Drain: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *rep)
	checkClean(t, rep, n)
	if len(rep.Kinds) != 2 || rep.Kinds[0].Kind != "ssh" || rep.Kinds[1].Kind != "web" || rep.Browsers != browsers {
		t.Fatalf("kinds %+v", rep.Kinds)
	}
	for _, k := range rep.Kinds {
		t.Logf("%+v", k)
		// Two of each kind walk at 4 keys a second for 3 s: about 24 keys, each answered
		// by the next frame; the idle one of each kind gets frames too (knights walk by).
		if k.Sessions != 3 || k.Established != 3 || k.BytesActive.Sessions != 2 || k.BytesIdle.Sessions != 1 {
			t.Errorf("%s: sessions %+v", k.Kind, k)
		}
		if k.Keys.Sent < 12 || k.Keys.Unanswered > 1 || k.Latency.Count != k.Keys.Answered || k.Latency.P50 <= 0 {
			t.Errorf("%s: keys %+v, latency %+v", k.Kind, k.Keys, k.Latency)
		}
		if f := k.FrameBytes; f.Count < k.Keys.Answered/2 || f.Mean <= 0 || f.P99 < f.P50 || f.Max < f.P99 {
			t.Errorf("%s: bytes a frame %+v", k.Kind, f)
		}
	}
	// The page and what it loads: its style and its scripts.
	if len(rep.Page) < 3 || rep.Page[0].Path != "/play" || !slices.ContainsFunc(rep.Page, func(p PageFile) bool { return p.Path == "/play.js" }) ||
		!slices.ContainsFunc(rep.Page, func(p PageFile) bool { return p.Path == "/play.css" }) {
		t.Fatalf("page %+v", rep.Page)
	}
	for _, p := range rep.Page {
		if p.Bytes < 100 || p.GzipBytes <= 0 || p.GzipBytes >= p.Bytes {
			t.Errorf("page file %+v", p)
		}
	}
	// The server played three browsers' games.
	if got := strings.Count(g.logText(), `msg="session start" fingerprint=guest`); got != browsers {
		t.Errorf("%d browsers' games started on the server, want %d:\n%s", got, browsers, g.logText())
	}
	var text bytes.Buffer
	if err := rep.writeText(&text); err != nil || !strings.Contains(text.String(), "page /play.js") || !strings.Contains(text.String(), "web  ") {
		t.Errorf("the report: %v\n%s", err, text.String())
	}
}

// A browsers-only run: every session on the play socket, the report's columns those of
// an SSH run.
func TestBrowsersOnly(t *testing.T) {
	t.Parallel()
	const n = 3
	g := runGame(t, t.TempDir(), "127.0.0.1:0", browserLimits...)
	rep, err := Run(t.Context(), Config{
		Addr: g.addr, N: n, Active: n, Rate: 4, Duration: 2 * time.Second, Ramp: 200 * time.Millisecond,
		Mode: ModeGame, Web: "http://" + g.webAddr(), Browsers: -1, Drain: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkClean(t, rep, n)
	if len(rep.Kinds) != 1 || rep.Kinds[0].Kind != "web" || rep.Browsers != n {
		t.Fatalf("kinds %+v", rep.Kinds)
	}
	if k := rep.Keys; k.Sent < 12 || k.Unanswered > 1 || rep.Latency.Count != k.Answered || rep.FrameBytes.Count == 0 {
		t.Errorf("keys %+v, latency %+v, bytes a frame %+v", k, rep.Latency, rep.FrameBytes)
	}
	if rep.Arrival.Count != n || rep.FirstFrame.Count != n || rep.Arrival.P50 <= rep.FirstFrame.P50 {
		t.Errorf("first frame %+v, arrival %+v", rep.FirstFrame, rep.Arrival)
	}
}
