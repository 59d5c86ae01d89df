package main

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// A browser's screen is the grid the frames' rows paint: a row sent replaces that row,
// a wide character takes two cells, a new size blanks the screen, and a message of
// another kind is no frame.
func TestWebScreen(t *testing.T) {
	s := newWebScreen(10, 3)
	f, err := decodeFrame([]byte(`{"w":10,"h":3,"rows":[[0,[["ab","#ff0000","",1],["c d",""," ",0]]],[2,[["界x│",""," ",0]]]]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.apply(f); err != nil {
		t.Fatal(err)
	}
	if got, want := s.screen(), "abc d\n\n界x│"; got != want {
		t.Fatalf("screen %q, want %q", got, want)
	}
	if got := []string{s.cell(0, 2), s.cell(1, 2), s.cell(2, 2), s.cell(3, 2), s.cell(4, 2)}; !slices.Equal(got, []string{"界", "", "x", "│", " "}) {
		t.Errorf("row 2's cells %q", got)
	}
	if got := s.lines(2, 3); got != "界x│      \n" {
		t.Errorf("lines(2, 3) = %q", got)
	}
	// Only the rows sent change.
	f, _ = decodeFrame([]byte(`{"w":10,"h":3,"rows":[[0,[["zz","","",0]]]]}`))
	_ = s.apply(f)
	if got := s.screen(); got != "zz\n\n界x│" {
		t.Errorf("after row 0 again: %q", got)
	}
	// Another size: the screen is blank first.
	f, _ = decodeFrame([]byte(`{"w":4,"h":2,"rows":[[1,[["ok","","",0]]]]}`))
	_ = s.apply(f)
	if got := s.screen(); got != "\nok" || s.cell(3, 1) != " " || s.cell(4, 1) != "" {
		t.Errorf("after a resize: %q", got)
	}
	for _, msg := range []string{`{"resume":"abc"}`, `{"kind":"challenge","nonce":"x"}`, `{"w":80,"h":24}`} {
		if _, err := decodeFrame([]byte(msg)); err != errNotFrame {
			t.Errorf("%s: %v, want errNotFrame", msg, err)
		}
	}
	if _, err := decodeFrame([]byte(`not json`)); err == nil || err == errNotFrame {
		t.Errorf("not JSON: %v", err)
	}
	// A row it cannot read is an error, and the others are painted.
	f, _ = decodeFrame([]byte(`{"w":4,"h":2,"rows":[[9,[["x","","",0]]],[0,[["hi","","",0]]]]}`))
	if err := s.apply(f); err == nil || !strings.HasPrefix(s.screen(), "hi") {
		t.Errorf("a row off the screen: %v, %q", err, s.screen())
	}
}

// A session that keeps its screen reads messages of kinds it does not know and goes on:
// they answer no key and are no frame; a frame after them is painted and answers.
func TestWebSessionIgnoresOtherMessages(t *testing.T) {
	s := newSession(0, true, &window{})
	s.webScr = newWebScreen(termWidth, termHeight)
	s.walk = newWebWalker(gameScript, s.webScr, "Bot abc")
	var keys strings.Builder
	s.stdin = &keys
	s.pending = []pendingKey{{measured: true}}
	s.webMessage(s.dialAt, []byte(`{"kind":"resume","token":"abc"}`))
	if len(s.pending) != 1 || s.firstFrame != 0 || len(s.latencies) != 0 {
		t.Fatalf("another kind of message answered a key: %d pending, first frame %v", len(s.pending), s.firstFrame)
	}
	s.webMessage(s.dialAt, []byte(`{"w":80,"h":24,"rows":[[5,[["Press Enter to begin.","","",0]]]]}`))
	if len(s.pending) != 0 || len(s.latencies) != 1 || keys.String() != keyEnter {
		t.Fatalf("the title's frame: %d pending, %d answered, sent %q", len(s.pending), len(s.latencies), keys.String())
	}
	if got := s.bytes.Load(); got < 60 {
		t.Errorf("bytes %d: both messages count", got)
	}
}

// Browsers are spread evenly over the active sessions and over the idle ones, so that
// each kind has its share of both.
func TestBrowserSessionsSpread(t *testing.T) {
	for _, tc := range []struct{ n, active, browsers, activeBrowsers int }{
		{10, 10, 5, 5}, {10, 5, 5, 3}, {10, 4, 6, 2}, {10, 2, 10, 2}, {7, 0, 3, 0}, {8, 8, 0, 0}, {4, 2, 4, 2},
	} {
		cfg := Config{N: tc.n, Active: tc.active, Browsers: tc.browsers}
		got := browserSessions(cfg)
		all, active := 0, 0
		for i, b := range got {
			if b {
				all++
				if isActive(i, tc.active, tc.n) {
					active++
				}
			}
		}
		if all != tc.browsers || active != tc.activeBrowsers {
			t.Errorf("%+v: %d browsers, %d of them active: %v", tc, all, active, got)
		}
	}
}

// A frame read by hand is the frame encoding/json reads: random rows of runs whose text
// has escapes (quotes, < > &, control characters, U+2028, characters beyond ASCII), with
// white space and fields of other kinds around; broken JSON is an error, never a panic.
func TestDecodeFrameIsEncodingJSONs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"a", "─┐", "<&>", `"`, `\`, "\n", "\x01", "é", "騎", "\u2028", " ", "()"}
	for range 500 {
		type run = []any
		var rows []any
		want := map[int]string{}
		for y := range r.IntN(5) {
			var runs []any
			var text strings.Builder
			for range 1 + r.IntN(4) {
				var t strings.Builder
				for range r.IntN(5) {
					t.WriteString(pieces[r.IntN(len(pieces))])
				}
				text.WriteString(t.String())
				runs = append(runs, run{t.String(), "#ff8c00", "", r.IntN(32)})
			}
			rows = append(rows, []any{y, runs})
			want[y] = text.String()
		}
		msg, _ := json.MarshalIndent(map[string]any{"w": 80, "h": 24, "rows": rows, "kind": map[string]any{"x": []any{1.5e3, true, nil, "s"}}}, "", " ")
		f, err := decodeFrame(msg)
		if err != nil && len(rows) > 0 || len(f.Rows) != len(rows) {
			t.Fatalf("%s: %v, %d rows", msg, err, len(f.Rows))
		}
		for _, row := range f.Rows {
			if row.Text != want[row.Y] {
				t.Fatalf("%s: row %d %q, want %q", msg, row.Y, row.Text, want[row.Y])
			}
		}
		for cut := range len(msg) { // every prefix is broken JSON
			if _, err := decodeFrame(msg[:cut]); err == nil {
				t.Fatalf("%s: no error", msg[:cut])
			}
		}
	}
}
