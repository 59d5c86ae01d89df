package world

import (
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// Which lines of a knight's log others may read: a replay of a knight's play
// shown to anyone else (replay NAME --death, the web page's file) keeps only the public
// lines; the knight's own replays show them all. Every line is written with its kind, so
// the replay decides line by line, never by reading the words.

// MsgKind says who beyond its knight may read a line of the message log.
type MsgKind uint8

// The kinds of lines. MsgGame is the zero value: a line said without a kind is public.
const (
	MsgGame    MsgKind = iota // what happens in the world, and what is said aloud or shouted
	MsgWhisper                // whispers and replies, to the knight or from it
	MsgParty                  // the party: its talk, its invitations and its comings and goings
	MsgChannel                // a channel's talk and its joining and leaving
	MsgLetter                 // letters sent and come
	MsgOwn                    // the knight's own affairs: options and mutes, being away, reports, silences, its forebear's last lines
	MsgComing                 // another knight joining or leaving the game: public as MsgGame, kept apart for screen-reader mode's movements filter
	MsgDeed                   // a deed the knight earned (deed.go): public as MsgGame, kept apart so a screen can mark it
)

// Public reports whether a line of kind k may be shown to others.
func (k MsgKind) Public() bool { return k == MsgGame || k == MsgComing || k == MsgDeed }

// tell adds a line of kind k to the player's log and asks for a new view.
func (e *Engine) tell(p *player, k MsgKind, msg string) {
	noteKind(p, k, msg)
	p.dirty = true
}

// WithoutOwn is v without what only its knight's eyes may see: its id, its life's
// birth, its options (its mutes, its privacy), its unread letters, the invitations waiting
// for it, its last lines (they may hold a whisper), why its session ends (an admin's
// reason, for it alone; a watcher is told apart), and who watches it (a count is left).
// Its log is as it was (Public takes its private lines out too).
func (v View) WithoutOwn() View {
	v.Self.ID, v.Self.Born, v.Self.Options, v.Self.Unread = "", time.Time{}, Options{}, 0
	v.Invites, v.Asks, v.Ended = nil, nil, ""
	if n := len(v.Watchers); n > 0 {
		v.Watchers = []string{english.Count(n, "spectator")}
	}
	if v.Dead != nil && len(v.Dead.LastLines) > 0 {
		d := *v.Dead
		d.LastLines = nil
		v.Dead = &d
	}
	return v
}

// Public is v as a spectator sees it: WithoutOwn, and only the public lines of its log
// (no whisper to or from the knight, no party talk, channel line or letter), Said
// counting those.
func (v View) Public() View {
	v = v.WithoutOwn()
	v.Said = v.publicSaid
	if v.Log.public() {
		return v
	}
	var w LogWriter
	for i := range v.Log.Len() {
		if k := v.Log.Kind(i); k.Public() {
			w.Add(v.Log.Line(i), k)
		}
	}
	v.Log = w.Log()
	return v
}

// public is whether every line of the log is public.
func (l Log) public() bool {
	for i := range l.n {
		if !l.Kind(i).Public() {
			return false
		}
	}
	return true
}
