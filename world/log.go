package world

import "iter"

// logChunkLen is how many lines a chunk of a log holds. A chunk is 32 lines and their
// kinds (544 bytes, 576 with the allocator's rounding): a knight's 200 lines take 7 or
// 8 of them, about what one array of 256 lines took, and a line costs its slot once
// (18 bytes) instead of the 78 a log in one array paid to copy itself to a new one.
const logChunkLen = 32

// logChunk is a run of a log's lines and their kinds. A line is written into it once
// and never again.
type logChunk struct {
	lines [logChunkLen]string
	kinds [logChunkLen]MsgKind
}

// Log is a knight's message log as a view holds it: its last lines, oldest first, each
// with its kind (who beyond the knight may read it). A Log never changes: the LogWriter
// that made it writes only past its end, in chunks it shares, so a view of 4000 knights'
// crowd keeps its lines without copying them.
type Log struct {
	chunks []*logChunk
	from   int // where the first line is in chunks[0]
	n      int
}

// LogOf is a log of lines, with their kinds (a missing kind is MsgGame): for a log made
// by hand, as a test's or a replay's view.
func LogOf(lines []string, kinds []MsgKind) Log {
	var w LogWriter
	for i, l := range lines {
		k := MsgGame
		if i < len(kinds) {
			k = kinds[i]
		}
		w.Add(l, k)
	}
	return w.Log()
}

// Len is how many lines the log holds.
func (l Log) Len() int { return l.n }

// at is where line i is: its chunk and its place in it.
func (l Log) at(i int) (*logChunk, int) {
	if i < 0 || i >= l.n {
		panic("world: log line out of range")
	}
	i += l.from
	return l.chunks[i/logChunkLen], i % logChunkLen
}

// Line is line i, 0 the oldest.
func (l Log) Line(i int) string {
	c, j := l.at(i)
	return c.lines[j]
}

// Kind is the kind of line i.
func (l Log) Kind(i int) MsgKind {
	c, j := l.at(i)
	return c.kinds[j]
}

// Last is the newest line, "" in an empty log.
func (l Log) Last() string {
	if l.n == 0 {
		return ""
	}
	return l.Line(l.n - 1)
}

// All is each line with its place, oldest first.
func (l Log) All() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i := range l.n {
			if !yield(i, l.Line(i)) {
				return
			}
		}
	}
}

// Lines is a copy of the log's lines, oldest first.
func (l Log) Lines() []string { return l.AppendLast(nil, l.n) }

// Kinds is a copy of the log's kinds, line for line.
func (l Log) Kinds() []MsgKind {
	out := make([]MsgKind, l.n)
	for i := range out {
		out[i] = l.Kind(i)
	}
	return out
}

// AppendLast appends the newest n lines (all when the log holds fewer), oldest first,
// to dst: a screen's few newest lines in a buffer it keeps.
func (l Log) AppendLast(dst []string, n int) []string {
	for i := max(0, l.n-n); i < l.n; i++ {
		dst = append(dst, l.Line(i))
	}
	return dst
}

// LogWriter writes a log: it keeps the last Max lines (all when Max is 0), dropping the
// oldest, and hands out Logs that share its chunks. One goroutine writes; the Logs it
// handed out may be read by others meanwhile, as they read only lines written before.
type LogWriter struct {
	log Log
	Max int
}

// Log is the log as it is now.
func (w *LogWriter) Log() Log { return w.log }

// Len is how many lines the log holds.
func (w *LogWriter) Len() int { return w.log.n }

// Add puts a line of kind k at the end of the log.
func (w *LogWriter) Add(line string, k MsgKind) {
	l := &w.log
	end := l.from + l.n
	if end == len(l.chunks)*logChunkLen {
		if len(l.chunks) == cap(l.chunks) {
			// A new list of chunks, with room for two more: the Logs handed out keep the
			// old one, and the chunks the drops leave behind in it are freed with it.
			list := make([]*logChunk, len(l.chunks), len(l.chunks)+2)
			copy(list, l.chunks)
			l.chunks = list
		}
		l.chunks = append(l.chunks, new(logChunk))
	}
	c := l.chunks[end/logChunkLen]
	c.lines[end%logChunkLen], c.kinds[end%logChunkLen] = line, k
	l.n++
	if w.Max > 0 && l.n > w.Max {
		l.from++
		l.n--
		if l.from == logChunkLen {
			l.chunks, l.from = l.chunks[1:], 0
		}
	}
}
