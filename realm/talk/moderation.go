package talk

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Moderation across realms: a ban, a silence, a kick or a rename an admin makes in one
// realm is an event for the others to act on at once — the banned or kicked knight's
// session dropped, the silenced knight muted, the renamed one told its new name. The
// records themselves are kept where the knights are (etcd); the event only spares the
// wait, or reaches a knight playing in another realm. An event is taken only from the
// realm its subject names, which that realm's NATS server held it to (permissions.go),
// and only when its own realm field says the same.

// ModKind is what a moderation event does.
type ModKind string

// The moderation events.
const (
	ModBan       ModKind = "ban"       // drop the knight's sessions
	ModSilence   ModKind = "silence"   // silence the knight For as long
	ModUnsilence ModKind = "unsilence" // lift its silence
	ModKick      ModKind = "kick"      // remove the knight from the dungeon, telling it Reason
	ModRename    ModKind = "rename"    // the knight was given Name: the server checks it with etcd, then renames
	// ModBroadcast (admin.go): an admin's line for every knight, Reason its text; no Knight.
)

// known reports whether k is a moderation event this program knows.
func (k ModKind) known() bool {
	switch k {
	case ModBan, ModSilence, ModUnsilence, ModKick, ModRename, ModBroadcast:
		return true
	}
	return false
}

// Moderation is a moderation event.
type Moderation struct {
	Kind ModKind
	// Realm is the realm it was made in (the bus sets it when sending).
	Realm string
	// Knight is the knight's id (world.Adventurer.ID).
	Knight string
	// For is a silence's length; Until says when it ends, as the knight is told.
	For    time.Duration
	Until  string
	Reason string
	// Name is a rename's new name.
	Name string
}

// Moderate tells the other realms of a moderation event made here.
func (b *Bus) Moderate(m Moderation) {
	b.publish(b.from("mod"), modMsg{V: version, Realm: b.cfg.Realm, Kind: string(m.Kind), Knight: m.Knight,
		Seconds: int64(m.For / time.Second), Until: m.Until, Reason: m.Reason, Name: m.Name}, maxSmallBytes)
}

// onModeration takes an event from another realm and applies it to the world.
func (b *Bus) onModeration(msg *nats.Msg) {
	wm, err := decode[modMsg](msg.Data, maxSmallBytes)
	m := Moderation{Kind: ModKind(wm.Kind), Realm: cleanRealm(wm.Realm), Knight: cleanID(wm.Knight),
		For: time.Duration(max(wm.Seconds, 0)) * time.Second, Until: world.CleanText(wm.Until, 40),
		Reason: world.CleanText(wm.Reason, world.MaxBroadcastRunes)}
	if err == nil && m.Kind == ModRename {
		m.Name, err = world.CleanName(wm.Name)
	}
	if err == nil && (m.Realm == "" || m.Realm != sender(msg.Subject) || !m.Kind.known() ||
		(m.Kind == ModBroadcast) != (m.Knight == "") || m.Kind == ModBroadcast && m.Reason == "") {
		err = errInvalid
	}
	if err != nil {
		b.refused(err)
		return
	}
	if m.Realm == b.cfg.Realm {
		return
	}
	if m.Kind == ModBroadcast { // its text is the reason's field, cleaned as one
		b.hearBroadcast(m)
		return
	}
	b.counts.received.Add(1)
	b.toWorld(func(ctx context.Context) error {
		err := b.apply(ctx, m)
		if b.cfg.OnModeration != nil {
			b.cfg.OnModeration(m)
		}
		return err
	})
}

// apply carries an event out in the world.
func (b *Bus) apply(ctx context.Context, m Moderation) error {
	switch m.Kind {
	case ModBan, ModKick:
		_, err := b.w.Kick(ctx, m.Knight, m.Reason)
		return err
	case ModRename:
		return nil // the server renames, once etcd says an admin did (its pending rename)
	case ModSilence:
		turns := max(uint64(m.For/b.cfg.Tick), 1)
		_, err := b.w.Silence(ctx, world.Silence{Knight: m.Knight, Turns: turns, Until: m.Until, Reason: m.Reason})
		return err
	default:
		_, err := b.w.Silence(ctx, world.Silence{Knight: m.Knight})
		return err
	}
}
