package world

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Options are a player's settings, kept with the knight in the store and handed on to
// the key's next knight, so they belong to the key. The zero value is the default: the
// full screen in PLATO orange, colours as the terminal says, the key help line shown,
// spectators allowed, nobody muted. The world reads only NoSpectators, Muted and
// ScreenReader; the rest is the terminal's business, kept here so it is saved per key.
type Options struct {
	// Plain is screen-reader mode, kept for the key: an append-only transcript of
	// sentences, no drawing, from every connection.
	Plain bool `json:"plain,omitempty"`
	// PlainHere is screen-reader mode for this connection only (play --plain), never
	// saved: a phone that once needed it is not held to it from an ordinary ssh.
	PlainHere bool `json:"-"`
	// Theme names the colours: "" is PLATO orange on black, "contrast" the high-contrast one.
	Theme string `json:"theme,omitempty"`
	// Colour forces a colour profile: "" follows the terminal; "truecolor", "256", "16"
	// or "none".
	Colour string `json:"colour,omitempty"`
	// HideKeys turns the short key help line off.
	HideKeys bool `json:"hide_keys,omitempty"`
	// NoSpectators refuses anyone who would watch this player's screen.
	NoSpectators bool `json:"no_spectators,omitempty"`
	// PrivateReplays keeps the replays of the knight's death and retirement for its own
	// key: no one else may play them, and the web page does not offer them.
	PrivateReplays bool `json:"private_replays,omitempty"`
	// Verbose says every step in full in screen-reader mode, where the default is brief:
	// a step that changes little is a few words ("East. Passage goes on north and east.").
	Verbose bool `json:"verbose,omitempty"`
	// NoSightings, NoMovements and NoPartyChat quiet kinds of screen-reader mode's lines,
	// as MUDs for blind players let them: monsters coming into sight and going, other
	// knights' comings and goings (in sight, on the surface, into the game and out of
	// it: MsgComing), and the other members' party talk. A step and look still say all
	// that is in sight.
	NoSightings bool `json:"no_sightings,omitempty"`
	NoMovements bool `json:"no_movements,omitempty"`
	NoPartyChat bool `json:"no_party_chat,omitempty"`
	// Bell says what rings the terminal's bell (the session's alerts): "" for whispers,
	// the knight's name said, party invitations and battles waiting for it; "all" for
	// every line another knight says to it besides; "off" for nothing.
	Bell string `json:"bell,omitempty"`
	// Muted are the names whose chat this player does not see.
	Muted []string `json:"muted,omitempty"`
}

// maxMuted bounds the mute list; maxOptionText bounds the free-form option strings.
const (
	maxMuted      = 50
	maxOptionText = 16
)

// ScreenReader reports whether the knight's connection speaks in screen-reader mode, kept
// or for this connection only: the world then gives it a listener's time.
func (o Options) ScreenReader() bool { return o.Plain || o.PlainHere }

// Clone copies the options.
func (o Options) Clone() Options {
	o.Muted = slices.Clone(o.Muted)
	return o
}

// Mutes reports whether chat from the knight named name is hidden, comparing names as
// uniqueness does (NameKey), so a look-alike spelling of a muted name is muted too.
func (o Options) Mutes(name string) bool {
	// A chat line asks every listener, and most mute nobody: no name to fold then.
	return len(o.Muted) > 0 && o.mutesKey(NameKey(name))
}

// mutesKey is Mutes of a name already folded by NameKey.
func (o Options) mutesKey(k string) bool {
	return slices.ContainsFunc(o.Muted, func(m string) bool { return NameKey(m) == k })
}

// clean makes options that came from a session safe to keep: names on the mute list
// pass CleanName and appear once, the list and the strings are bounded.
func (o Options) clean() Options {
	o.Theme = CleanText(o.Theme, maxOptionText)
	o.Colour = CleanText(o.Colour, maxOptionText)
	o.Bell = CleanText(o.Bell, maxOptionText)
	var muted []string
	for _, m := range o.Muted {
		name, err := CleanName(m)
		if err != nil || len(muted) >= maxMuted || (Options{Muted: muted}).Mutes(name) {
			continue
		}
		muted = append(muted, name)
	}
	o.Muted = muted
	return o
}

type optionsReq struct {
	from
	opts Options
}

// SetOptions replaces the player's options; they are saved with the knight. Turning
// spectators off ends every watch of this player, telling the watchers why.
func (p *Player) SetOptions(ctx context.Context, o Options) error {
	return p.e.send(ctx, optionsReq{p.from, o.Clone()})
}

// handle is SetOptions on the engine goroutine.
func (m optionsReq) handle(e *Engine) {
	p := m.player(e)
	if p == nil {
		return
	}
	was := p.rec.Options
	p.rec.Options = m.opts.clean()
	p.changed, p.dirty = true, true
	e.sayMutes(p, was, p.rec.Options)
	if p.rec.Options.NoSpectators && len(p.watchers) > 0 {
		names := make([]string, 0, len(p.watchers))
		for _, w := range p.watchers {
			names = append(names, w.name)
		}
		e.endWatches(p, fmt.Sprintf("%s has turned spectating off.", p.rec.Name))
		e.tell(p, MsgOwn, fmt.Sprintf("Spectators are no longer allowed; %s stopped watching.", strings.Join(names, ", ")))
	}
	e.publish()
}

// sayMutes confirms in p's messages (and so in its message log) the names muted and
// unmuted between two sets of options, however they were changed: the chat line's /mute,
// the options screen, screen-reader mode's mute.
func (e *Engine) sayMutes(p *player, was, now Options) {
	for _, n := range now.Muted {
		if !was.Mutes(n) {
			e.tell(p, MsgOwn, fmt.Sprintf("You have muted %s: you will not see what %s says. (/unmute %s undoes it.)", n, n, n))
		}
	}
	for _, n := range was.Muted {
		if !now.Mutes(n) {
			e.tell(p, MsgOwn, fmt.Sprintf("You have unmuted %s: you will see what %s says again.", n, n))
		}
	}
}
