package world

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// A log keeps its last Max lines with their kinds, oldest first, through chunk after
// chunk; a Log taken from it reads the same whatever is written after.
func TestALogKeepsItsLastLines(t *testing.T) {
	kindOf := func(i int) MsgKind { return MsgKind(i % int(MsgOwn+1)) }
	for _, most := range []int{1, 5, logChunkLen - 1, logChunkLen, logChunkLen + 1, 200} {
		w := LogWriter{Max: most}
		var taken []Log
		for i := range 7 * logChunkLen {
			w.Add(fmt.Sprint("line ", i), kindOf(i))
			taken = append(taken, w.Log())
		}
		for end, l := range taken {
			n := min(end+1, most)
			if l.Len() != n {
				t.Fatalf("max %d: after line %d the log holds %d lines, want %d", most, end, l.Len(), n)
			}
			var want []string
			var kinds []MsgKind
			for i := end + 1 - n; i <= end; i++ {
				want, kinds = append(want, fmt.Sprint("line ", i)), append(kinds, kindOf(i))
			}
			if !slices.Equal(l.Lines(), want) || !slices.Equal(l.Kinds(), kinds) || l.Last() != want[n-1] {
				t.Fatalf("max %d: after line %d the log holds %q %v, want %q %v", most, end, l.Lines(), l.Kinds(), want, kinds)
			}
			if got := l.AppendLast([]string{"before"}, 2); !slices.Equal(got, append([]string{"before"}, want[max(0, n-2):]...)) {
				t.Fatalf("max %d: the last two lines after line %d: %q", most, end, got)
			}
			if len(l.chunks) > most/logChunkLen+2 {
				t.Fatalf("max %d: %d lines kept in %d chunks", most, n, len(l.chunks))
			}
		}
	}
}

// LogOf makes a log of lines by hand; a kind it is not given is MsgGame. An empty log
// has no last line, and a line out of its range is a mistake that panics.
func TestALogOfLinesGiven(t *testing.T) {
	l := LogOf([]string{"a", "b", "c"}, []MsgKind{MsgWhisper})
	if !slices.Equal(l.Lines(), []string{"a", "b", "c"}) || !slices.Equal(l.Kinds(), []MsgKind{MsgWhisper, MsgGame, MsgGame}) {
		t.Fatalf("LogOf: %q %v", l.Lines(), l.Kinds())
	}
	var seen []string
	for i, line := range l.All() {
		if line != l.Line(i) {
			t.Fatalf("All gives %q as line %d, Line %q", line, i, l.Line(i))
		}
		if seen = append(seen, line); i == 1 {
			break
		}
	}
	if !slices.Equal(seen, []string{"a", "b"}) {
		t.Fatalf("All stopped after two gave %q", seen)
	}
	var empty Log
	if empty.Len() != 0 || empty.Last() != "" || len(empty.Lines()) != 0 || len(empty.AppendLast(nil, 3)) != 0 {
		t.Fatal("an empty log is not empty")
	}
	for _, i := range []int{-1, 3} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("line %d of 3 did not panic", i)
				}
			}()
			l.Line(i)
		}()
	}
}

// Logs handed out are read on other goroutines (the sessions draw their views) while
// the writer goes on: under the race detector, readers of every Log taken see its lines
// while the writer fills and drops chunks.
func TestLogsAreReadWhileTheLogIsWritten(t *testing.T) {
	w := LogWriter{Max: 40}
	logs := make(chan Log, 16)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for l := range logs {
				for i := range l.Len() - 1 {
					var a, b int
					fmt.Sscan(l.Line(i)[len("line "):], &a)
					fmt.Sscan(l.Line(i + 1)[len("line "):], &b)
					if b != a+1 {
						t.Errorf("a log read as it was written holds line %d after line %d", b, a)
						return
					}
				}
			}
		})
	}
	for i := range 20 * logChunkLen {
		w.Add(fmt.Sprint("line ", i), MsgGame)
		logs <- w.Log()
	}
	close(logs)
	wg.Wait()
}
