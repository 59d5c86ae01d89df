package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// A cast is asciicast v2: a header object (version 2, the size, when, the idle limit, the
// title, TERM), then one event a drawn moment, [seconds, "o", text], its seconds never
// going back and no gap longer than the idle limit; a moment that draws nothing is no
// event, and the end's bytes come last. Past its bound it is ErrCastTooBig, and a
// context that has ended stops it.
func TestWriteCastIsAsciicastV2(t *testing.T) {
	at := []time.Duration{0, 40 * time.Millisecond, 90 * time.Millisecond, 30 * time.Second, 30*time.Second + 500*time.Millisecond}
	ms := make([]Moment, len(at))
	for i, a := range at {
		ms[i].At = a
	}
	draw := func(i int, _ Moment) []byte {
		if i == 2 {
			return nil
		}
		return []byte("\x1b[1;1Hframe \"" + string(rune('a'+i)) + "\" é\n")
	}
	h := CastHeader{Width: 80, Height: 24, Title: "The death of Kay", Timestamp: time.Unix(1700000000, 0),
		IdleLimit: 2 * time.Second, Term: "xterm-256color"}
	var out bytes.Buffer
	if err := WriteCast(context.Background(), &out, h, ms, draw, func() []byte { return []byte("\x1b[?25h") }, 1<<20); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&out)
	sc.Scan()
	var hd map[string]any
	if err := json.Unmarshal(sc.Bytes(), &hd); err != nil {
		t.Fatalf("header %q: %v", sc.Text(), err)
	}
	want := map[string]any{"version": 2.0, "width": 80.0, "height": 24.0, "timestamp": 1700000000.0, "idle_time_limit": 2.0,
		"title": "The death of Kay", "env": map[string]any{"TERM": "xterm-256color"}}
	for k, v := range want {
		if got, _ := json.Marshal(hd[k]); string(got) != string(must(json.Marshal(v))) {
			t.Errorf("header %s = %s, want %v", k, got, v)
		}
	}
	var times []float64
	var texts []string
	for sc.Scan() {
		var ev []any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || len(ev) != 3 {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		sec, ok1 := ev[0].(float64)
		code, ok2 := ev[1].(string)
		text, ok3 := ev[2].(string)
		if !ok1 || !ok2 || !ok3 || code != "o" {
			t.Fatalf("event %q is not [seconds, \"o\", text]", sc.Text())
		}
		times, texts = append(times, sec), append(texts, text)
	}
	wantTimes := []float64{0, 0.04, 2.04, 2.54, 2.54} // the 29.96 s from "b" to "d" cut to 2: "c" drew nothing
	if len(times) != len(wantTimes) {
		t.Fatalf("%d events at %v, want %v", len(times), times, wantTimes)
	}
	for i := range times {
		if times[i] != wantTimes[i] {
			t.Errorf("event %d at %v s, want %v", i, times[i], wantTimes[i])
		}
	}
	if texts[1] != "\x1b[1;1Hframe \"b\" é\n" || texts[4] != "\x1b[?25h" {
		t.Errorf("the events' text does not come back whole: %q", texts)
	}

	if err := WriteCast(context.Background(), &bytes.Buffer{}, h, ms, draw, nil, 200); !errors.Is(err, ErrCastTooBig) {
		t.Errorf("past its bound: %v, want ErrCastTooBig", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WriteCast(ctx, &bytes.Buffer{}, h, ms, draw, nil, 1<<20); !errors.Is(err, context.Canceled) {
		t.Errorf("with its context ended: %v", err)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// A Stand says where it stands as a Player's bar does, and the end at the last moment.
func TestStandSaysWhereItStands(t *testing.T) {
	s := NewStand("Kay", []Moment{{At: 0}, {At: 42 * time.Second}, {At: 5 * time.Minute}})
	s.At = 42 * time.Second
	if got := s.Status(); got != "0:42 of 5:00" || s.Name() != "Kay" {
		t.Errorf("Status = %q", got)
	}
	s.At = 5 * time.Minute
	if got := s.Status(); !strings.HasSuffix(got, ", the end") {
		t.Errorf("at the end, Status = %q", got)
	}
}
