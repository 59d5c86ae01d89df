package main

import "strings"

// The type scenario (-scenario type): each active session stands where it arrived, opens
// the chat line and types on it, a key a rune, at -rate keys a second: typeLine runes,
// longer than the screen is wide, then Ctrl-U, which erases the line, and typeLine runes
// again, and so on. Every key changes the line, and the line never comes back to what it
// was within typeLine keys: the server draws keys that come faster than anyone types
// together, a frame for many, and keys that undid one another within a frame (a letter
// and a backspace) would leave the frame as it was, with nothing written to answer them.
// It never presses Enter: nothing is said, and what is measured is the line and its
// frames alone. At -rate 1000 a typist sends 1000 bytes a second, just under the game's
// key rate (1 KiB/s). It writes a key at a time, an SSH packet each, or -type-burst N
// keys at once, a packet of N keys at -rate/N packets a second: what the server pays for
// a packet, and what for a key, then show apart.
//
//	typeLine   500   runes typed before the line is erased (the chat line holds 600)

const typeLine = 500

// chatOpenText is on the screen while the chat line is open: the first words of what it
// takes, shown above it.
const chatOpenText = "Enter sends, Esc or Backspace cancels"

// keyEraseLine is what a terminal sends for Ctrl-U, which erases the line before the
// cursor.
const keyEraseLine = "\x15"

// typing is a typist's line: whether it has opened the chat line, and how many runes are
// on it.
type typing struct {
	open  bool
	typed int
}

// key is the typist's next key on the screen scr; waiting says keys sent are still
// unanswered, so the screen may not show them yet. A chat line the screen shows closed
// while nothing is waiting (Esc, the recovery key, closed it, or the knight died) is
// opened again, on the dungeon screen, and typed afresh; elsewhere the typist waits ("").
func (t *typing) key(scr string, waiting bool) string {
	if t.open && !waiting && !strings.Contains(scr, chatOpenText) {
		t.open = false
	}
	if !t.open {
		if !strings.Contains(scr, dungeonStatus) && !strings.Contains(scr, outsideStatus) {
			return ""
		}
		t.open, t.typed = true, 0
		return keyEnter
	}
	if t.typed == typeLine {
		t.typed = 0
		return keyEraseLine
	}
	t.typed++
	return string(rune('a' + t.typed%26))
}

// keys is the typist's next n keys, written at once (-type-burst): the first as key
// gives it, the rest typed on the line it opens or has open. "" when the typist waits.
func (t *typing) keys(scr string, waiting bool, n int) string {
	first := t.key(scr, waiting)
	if first == "" || n <= 1 {
		return first
	}
	var b strings.Builder
	b.WriteString(first)
	for range n - 1 {
		b.WriteString(t.key(scr, true)) // the line is open (first opened it, or it was)
	}
	return b.String()
}
