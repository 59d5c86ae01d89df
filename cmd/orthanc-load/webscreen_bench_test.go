package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchFrame is a frame of a busy 80×24 screen: every row sent, each in eight runs of
// colours, walls and text.
func benchFrame() []byte {
	var rows []any
	for y := range termHeight {
		var runs []any
		for i := range 8 {
			runs = append(runs, []any{strings.Repeat("─┐ab", 2) + fmt.Sprint(i) + " ", "#ff8c00", "#000000", i % 2})
		}
		rows = append(rows, []any{y, runs})
	}
	b, _ := json.Marshal(map[string]any{"w": termWidth, "h": termHeight, "rows": rows})
	return b
}

// BenchmarkWebMessage is a walker's cost of one frame: decoding it, painting its rows,
// answering its keys.
func BenchmarkWebMessage(b *testing.B) {
	msg := benchFrame()
	s := newSession(0, true, &window{})
	s.webScr = newWebScreen(termWidth, termHeight)
	s.walk = newWebWalker(gameScript, s.webScr, "Bot abc")
	s.arrival = 1
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		s.webMessage(s.dialAt, msg)
	}
}
