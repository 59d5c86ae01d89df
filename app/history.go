package app

// lineHistory is what the chat line, the admin console and the screen-reader command line
// recall with up and down: the last maxConsoleHistory lines typed, without repeats in a row.
type lineHistory struct {
	lines []string
	at    int // index into lines while recalling; len(lines) when not
}

// add keeps a typed line and stops recalling.
func (h *lineHistory) add(line string) {
	if n := len(h.lines); n == 0 || h.lines[n-1] != line {
		h.lines = append(h.lines, line)
	}
	if over := len(h.lines) - maxConsoleHistory; over > 0 {
		h.lines = h.lines[over:]
	}
	h.reset()
}

// reset stops recalling: the next up brings back the newest line.
func (h *lineHistory) reset() { h.at = len(h.lines) }

// prev is the line before the one recalled; ok is false at the oldest.
func (h *lineHistory) prev() (line string, ok bool) {
	if h.at == 0 {
		return "", false
	}
	h.at--
	return h.lines[h.at], true
}

// next is the line after the one recalled, or "" past the newest; ok is false when not
// recalling.
func (h *lineHistory) next() (line string, ok bool) {
	if h.at >= len(h.lines) {
		return "", false
	}
	h.at++
	if h.at < len(h.lines) {
		return h.lines[h.at], true
	}
	return "", true
}

// recall puts the line before (up) or after (down) the one recalled into a text field, if
// there is one: the chat line's and the console's up and down.
func (h *lineHistory) recall(up bool, in *lineInput) {
	next := h.next
	if up {
		next = h.prev
	}
	if line, ok := next(); ok {
		in.set(line)
	}
}
