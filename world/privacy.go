package world

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
)

// Public reports whether a line of kind k may be shown to others.
func (k MsgKind) Public() bool { return k == MsgGame }

// tell adds a line of kind k to the player's log and asks for a new view.
func (e *Engine) tell(p *player, k MsgKind, msg string) {
	noteKind(p, k, msg)
	p.dirty = true
}
