package web

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/coder/websocket"
)

// The game's frames as an SSH client read them, in true colour as the page's game draws:
// a new key through the title, the roll and the name, then walking on level 1, the map
// and the help opened and closed, lines said (testdata/gamewalk.jsonl, a JSON string a
// read, recorded from a server over SSH with COLORTERM=truecolor).
func gameWalk(t testing.TB) [][]byte {
	t.Helper()
	f, err := os.Open("testdata/gamewalk.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s string
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, []byte(s))
	}
	if err := sc.Err(); err != nil || len(out) < 100 {
		t.Fatalf("%d frames: %v", len(out), err)
	}
	return out
}

// BenchmarkPlayScreenWrite is the play screen taking the game's walk, frame by frame,
// and sending each frame on a real WebSocket to a page that reads and drops them.
func BenchmarkPlayScreenWrite(b *testing.B) {
	walk := gameWalk(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			if _, _, err := c.Read(r.Context()); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c, _, err := websocket.Dial(context.Background(), srv.URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.CloseNow()
	b.ReportAllocs()
	bytes := 0
	for _, p := range walk {
		bytes += len(p)
	}
	b.SetBytes(int64(bytes))
	for b.Loop() {
		s := newPlayScreen(Size{W: 80, H: 24})
		s.conn = c // as attach makes it, without the token sent first
		for _, p := range walk {
			if _, err := s.Write(p); err != nil || s.conn == nil {
				b.Fatalf("the page was let go: %v", err)
			}
		}
		s.close()
	}
}
