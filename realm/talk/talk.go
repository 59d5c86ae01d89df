// Package talk carries the talk between realms over NATS: shouts, whispers and
// their answers, channel lines, who plays where (presence, for whispers and `who`), bans
// and silences made in one realm, and each realm's announcement with a ping for its round
// trip (`realms`). It uses core NATS alone (publish, subscribe, request and reply), so a
// realm can talk through the nats-server a distribution ships (2.9 and later) as well as
// through the one it can embed (server.go), joined to the others' by routes.
//
// The subjects, under a prefix ("orthanc" by default):
//
//	PREFIX.shout            a shout, for every realm
//	PREFIX.channel.NAME     a line on the channel NAME
//	PREFIX.whisper.REALM    a whisper (or reply) for a knight of REALM; REALM answers how it went
//	PREFIX.realm.REALM      REALM's presence, every AnnounceEvery and when it closes
//	PREFIX.ping.REALM       a ping REALM answers at once, for the round trip
//	PREFIX.mod              a ban or a silence, for every realm
//	PREFIX.mail             a knight's mailbox was written, for every realm to read anew
//
// Nothing here waits on the world or holds it up: the world hands lines to Send, which
// queues them (bounded; a full queue drops and counts); what arrives is read under a size
// limit, cleaned, and queued for one goroutine that hands it to the world as requests.
// The Bus's own state (its peers) is shared by NATS's goroutines and its own, behind one
// mutex; no game state is.
package talk

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// World is what the bus needs of the world: *world.Engine.
type World interface {
	Who(ctx context.Context) ([]world.WhoEntry, error)
	HearFar(ctx context.Context, l world.FarLine) (world.FarAnswer, error)
	WhisperAnswered(ctx context.Context, l world.FarLine, a world.FarAnswer) error
	SetPresence(ctx context.Context, realm string, knights []world.FarKnight) error
	Silence(ctx context.Context, s world.Silence) (world.Silenced, error)
	Kick(ctx context.Context, who, reason string) (bool, error)
}

// Config says how a realm talks.
type Config struct {
	// Realm is this realm's name: 1 to world.MaxRealmName letters, digits, '-' or '_'.
	Realm string
	// Addr is the realm's public SSH address, which the realms listing shows.
	Addr string
	// URL is the NATS server (or several, comma-separated) the realm talks through: the
	// embedded server's (Server.ClientURL) or an external one.
	URL string
	// TLS, when set, is the TLS to the NATS server: CA (or the system's when empty) to
	// trust its certificate, and Cert and Key, when set, to show the realm's.
	TLS *TLS
	// Prefix is the subjects' first words; "orthanc" when empty.
	Prefix string
	// Tick is the world's turn, to give it a silence's length in turns; world.DefaultTick
	// when zero.
	Tick time.Duration
	// The Default values below when zero.
	AnnounceEvery time.Duration // how often the realm says who plays in it
	Timeout       time.Duration // how long a whisper or a ping waits for its answer
	Queue         int           // the room of each queue (out, in)
	InFlight      int           // whispers waiting for their answers at once
	// Now is the clock, for presence's age and round trips; time.Now when nil.
	Now func() time.Time
	// OnModeration is called, off the world's goroutine, after a moderation event from
	// another realm has been applied to the world: the server closes a banned knight's
	// sessions and keeps the record.
	OnModeration func(Moderation)
	// OnMail is called, off the world's goroutine, when another realm has written a
	// knight's mailbox (MailCame): the server reads it anew for its world.
	OnMail func(knight string)
}

// Defaults, with their effect:
//
//	constant               value  effect
//	DefaultAnnounceEvery   5s     presence is that old at most; a realm silent 3× as long is gone
//	DefaultTimeout         2s     a whisper to a realm that does not answer is told so after this
//	DefaultQueue           1024   lines waiting in each direction before they are dropped
//	DefaultInFlight        64     whispers awaiting answers at once; more are dropped
const (
	DefaultAnnounceEvery = 5 * time.Second
	DefaultTimeout       = 2 * time.Second
	DefaultQueue         = 1024
	DefaultInFlight      = 64
	goneAfter            = 3 // announcement periods missed before a realm counts as gone
)

// ErrBadConfig is returned by Open for a realm name or prefix that cannot be a subject.
var ErrBadConfig = errors.New("talk: bad configuration")

// ErrTLS is in Open's error when the TLS with the server failed: its certificate not
// trusted, or the server hanging up on the realm's (or on its lack of one).
var ErrTLS = nats.ErrTLS

// Bus is one realm's talk with the others.
type Bus struct {
	cfg      Config
	nc       *nats.Conn
	out, in  *queue
	inFlight chan struct{}
	w        World
	peers    peers
	// announcing is held while an announcement is made (Announce).
	announcing sync.Mutex
	counts     counts
	subs       []*nats.Subscription
	ctx        context.Context
	stop       context.CancelFunc
	wg         sync.WaitGroup
	started    atomic.Bool
}

// counts are the bus's counters (Stats).
type counts struct {
	sent, received, oversize, bad, slow atomic.Uint64
}

// Stats are what the bus has done since it opened.
type Stats struct {
	Sent, Received uint64 // messages published, and read and handed on
	// Dropped counts what a full queue dropped (out: the world's lines; in: what arrived)
	// and what NATS dropped for a subscriber too slow.
	DroppedOut, DroppedIn, DroppedSlow uint64
	Oversize                           uint64 // messages over their size limit, either way
	Bad                                uint64 // messages that could not be read or lacked what they must hold
}

// Open connects the realm to NATS. The bus sends nothing and takes nothing until Start.
func Open(cfg Config) (*Bus, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	nc, err := nats.Connect(cfg.URL, cfg.options()...)
	if err != nil {
		return nil, fmt.Errorf("talk: connecting to %s: %w", cfg.URL, err)
	}
	b := &Bus{cfg: cfg, nc: nc, out: newQueue(cfg.Queue), in: newQueue(cfg.Queue),
		inFlight: make(chan struct{}, cfg.InFlight)}
	b.peers.m = map[string]peer{}
	nc.SetErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		if errors.Is(err, nats.ErrSlowConsumer) {
			b.counts.slow.Add(1)
		}
	})
	return b, nil
}

// options are the connection's options: reconnecting forever, and TLS when asked for.
func (c *Config) options() []nats.Option {
	opts := []nats.Option{nats.Name("orthanc-" + c.Realm), nats.NoEcho(),
		nats.MaxReconnects(-1), nats.ReconnectWait(time.Second)}
	if c.TLS == nil {
		return opts
	}
	// A config of our own, verifying the server (the system's roots unless RootCAs).
	opts = append(opts, nats.Secure(&tls.Config{MinVersion: tls.VersionTLS12}))
	if c.TLS.CA != "" {
		opts = append(opts, nats.RootCAs(c.TLS.CA))
	}
	if c.TLS.Cert != "" {
		opts = append(opts, nats.ClientCert(c.TLS.Cert, c.TLS.Key))
	}
	return opts
}

// defaults fills in the zero settings and checks the rest.
func (c *Config) defaults() error {
	if c.Prefix == "" {
		c.Prefix = "orthanc"
	}
	if !validWord(c.Realm) {
		return fmt.Errorf("%w: realm name %q (1 to %d letters, digits, - or _)", ErrBadConfig, c.Realm, world.MaxRealmName)
	}
	for _, w := range strings.Split(c.Prefix, ".") {
		if !validWord(w) {
			return fmt.Errorf("%w: prefix %q", ErrBadConfig, c.Prefix)
		}
	}
	orDefault(&c.Tick, world.DefaultTick)
	orDefault(&c.AnnounceEvery, DefaultAnnounceEvery)
	orDefault(&c.Timeout, DefaultTimeout)
	orDefault(&c.Queue, DefaultQueue)
	orDefault(&c.InFlight, DefaultInFlight)
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

func orDefault[T int | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Start begins the talk with the world w: it subscribes, announces the realm, and runs
// the queues and the announcements until Close.
func (b *Bus) Start(w World) error {
	b.w = w
	b.ctx, b.stop = context.WithCancel(context.Background())
	if err := b.subscribe(); err != nil {
		b.stop()
		return err
	}
	if err := b.nc.Flush(); err != nil { // the subscriptions are on the server before anyone is told of the realm
		b.stop()
		return fmt.Errorf("talk: %w", err)
	}
	b.started.Store(true)
	for _, run := range []func(context.Context){b.out.run, b.in.run, b.announceLoop} {
		b.wg.Go(func() { run(b.ctx) })
	}
	return nil
}

// subscribe takes the subjects the realm listens to, each with its handler and limits.
func (b *Bus) subscribe() error {
	for subj, h := range map[string]nats.MsgHandler{
		b.subject("shout"):                b.onLine,
		b.subject("channel", "*"):         b.onLine,
		b.subject("whisper", b.cfg.Realm): b.onWhisper,
		b.subject("realm", "*"):           b.onAnnounce,
		b.subject("ping", b.cfg.Realm):    b.onPing,
		b.subject("mod"):                  b.onModeration,
		b.subject("mail"):                 b.onMail,
	} {
		sub, err := b.nc.Subscribe(subj, h)
		if err != nil {
			return fmt.Errorf("talk: subscribing to %s: %w", subj, err)
		}
		// NATS keeps at most this much for a handler that falls behind, and drops the rest.
		if err := sub.SetPendingLimits(b.cfg.Queue, 64<<20); err != nil {
			return fmt.Errorf("talk: %w", err)
		}
		b.subs = append(b.subs, sub)
	}
	return nil
}

// subject is the prefix and the words.
func (b *Bus) subject(words ...string) string {
	return b.cfg.Prefix + "." + strings.Join(words, ".")
}

// Close tells the other realms this one is going, and stops.
func (b *Bus) Close() {
	if b.started.Swap(false) {
		b.announcing.Lock()
		b.publish(b.subject("realm", b.cfg.Realm), announceMsg{V: version, Realm: b.cfg.Realm, Gone: true}, maxAnnounceBytes)
		b.announcing.Unlock()
		_ = b.nc.FlushTimeout(b.cfg.Timeout)
		b.stop()
		b.wg.Wait()
	}
	b.nc.Close()
}

// SetAddr sets the realm's public address, which the listing shows, when it is known only
// once the server listens; before Start only.
func (b *Bus) SetAddr(addr string) {
	if !b.started.Load() {
		b.cfg.Addr = addr
	}
}

// Stats reads the counters.
func (b *Bus) Stats() Stats {
	s := Stats{Sent: b.counts.sent.Load(), Received: b.counts.received.Load(),
		DroppedOut: b.out.dropped.Load(), DroppedIn: b.in.dropped.Load(), DroppedSlow: b.counts.slow.Load(),
		Oversize: b.counts.oversize.Load(), Bad: b.counts.bad.Load()}
	for _, sub := range b.subs {
		if n, err := sub.Dropped(); err == nil {
			s.DroppedSlow += uint64(n)
		}
	}
	return s
}

// publish sends a message, counting it, or counting why it was not sent.
func (b *Bus) publish(subj string, m any, limit int) {
	data, err := encode(m, limit)
	switch {
	case errors.Is(err, errTooBig):
		b.counts.oversize.Add(1)
	case err != nil:
		b.counts.bad.Add(1)
	case b.nc.Publish(subj, data) == nil:
		b.counts.sent.Add(1)
	}
}

// refused counts a message that arrived and could not be taken.
func (b *Bus) refused(err error) {
	if errors.Is(err, errTooBig) {
		b.counts.oversize.Add(1)
	} else {
		b.counts.bad.Add(1)
	}
}

// toWorld queues work for the world; the world's requests get the bus's Timeout each.
func (b *Bus) toWorld(f func(ctx context.Context) error) bool {
	return b.in.put(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
		defer cancel()
		_ = f(ctx) // the world stopped, or was too slow: the line is lost, as a dropped one is
	})
}
