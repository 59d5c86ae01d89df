// Package talk carries the talk between realms over NATS: shouts, whispers and
// their answers, channel lines, who plays where (presence, for whispers and `who`), bans
// and silences made in one realm, and each realm's announcement with a ping for its round
// trip (`realms`). It uses core NATS alone (publish, subscribe, request and reply), so a
// realm can talk through the nats-server a distribution ships (2.9 and later) as well as
// through the one it can embed (server.go), joined to the others' by routes.
//
// The subjects, under a prefix ("orthanc" by default), each ending with the realm that
// publishes it (FROM), which the NATS server holds it to (permissions.go):
//
//	PREFIX.shout.FROM             a shout, for every realm
//	PREFIX.channel.NAME.FROM      a line on the channel NAME
//	PREFIX.whisper.REALM.FROM     a whisper (or reply) for a knight of REALM; REALM answers how it went
//	PREFIX.realm.FROM             FROM's presence, every AnnounceEvery and when it closes
//	PREFIX.ping.REALM.FROM        a ping REALM answers at once, for the round trip
//	PREFIX.mod.FROM               a ban, silence, kick or rename, for every realm
//	PREFIX.mail.FROM              a knight's mailbox was written, for every realm to read anew
//	PREFIX.reports.REALM.FROM     an admin's ask of REALM's reports (list, close one), answered (admin.go)
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
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/orthanc-ssh/orthanc-ssh/store"
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
	Broadcast(ctx context.Context, text string) (int, error)
}

// Config says how a realm talks.
type Config struct {
	// Realm is this realm's name: 1 to world.MaxRealmName letters, digits, '-' or '_'.
	Realm string
	// Addr is the realm's public SSH address, which the realms listing shows.
	Addr string
	// Server is the embedded server the realm talks through, connected in-process; when
	// nil, the external server of URL.
	Server *Server
	// URL is the external NATS server (or several, comma-separated) the realm talks
	// through when Server is nil.
	URL string
	// Password is the realm's password on the external server, whose user is the realm's
	// name (NATSUser); empty: none given (a server that asks for one refuses the realm).
	Password string
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
	// OnReports answers another realm's admin's ask of this realm's reports, off NATS's
	// goroutine: the list, or the one report closed (store.ErrNotFound, store.ErrClosed
	// when it cannot be). Nil: the realm does not answer.
	OnReports func(ctx context.Context, ask ReportsAsk) ([]store.Report, error)
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

// ErrNotConfined is Open's refusal of a NATS server that lets the realm publish on a
// subject naming another realm: on it any realm, or anyone who may connect, could speak
// as another (its users want the permissions of NATSUser).
var ErrNotConfined = errors.New("talk: the NATS server lets this realm publish under other realms' names")

// ErrAuth is in Open's error when the NATS server refused the realm's user and password.
var ErrAuth = nats.ErrAuthorization

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

	// soon asks the announcement loop to announce now, not at its next period: another
	// realm asked for this one's presence.
	soon chan struct{}
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
	b := &Bus{cfg: cfg, out: newQueue(cfg.Queue), in: newQueue(cfg.Queue), inFlight: make(chan struct{}, cfg.InFlight),
		soon: make(chan struct{}, 1)}
	b.peers.m = map[string]peer{}
	nc, err := nats.Connect(cfg.URL, append(cfg.options(), nats.ErrorHandler(b.onError))...)
	if err != nil {
		return nil, fmt.Errorf("talk: connecting to %s: %w", cfg.where(), err)
	}
	if cfg.Server == nil { // the embedded server's permissions are its own (StartServer)
		if err := cfg.confined(nc); err != nil {
			nc.Close()
			return nil, err
		}
	}
	b.nc = nc
	return b, nil
}

// onError counts what NATS dropped for a handler too slow; the permissions violation
// the check at Open asks for is not news.
func (b *Bus) onError(_ *nats.Conn, _ *nats.Subscription, err error) {
	if errors.Is(err, nats.ErrSlowConsumer) {
		b.counts.slow.Add(1)
	}
}

// where names the server the realm talks through, for errors: the URL without any
// password in it.
func (c *Config) where() string {
	if c.Server != nil {
		return "the embedded nats-server"
	}
	return RedactURLs(c.URL)
}

// RedactURLs is a list of NATS URLs, separated by commas, as a log may show it: without
// a password written in them.
func RedactURLs(urls string) string {
	var out []string
	for _, u := range strings.Split(urls, ",") {
		if pu, err := url.Parse(strings.TrimSpace(u)); err == nil {
			u = pu.Redacted()
		}
		out = append(out, u)
	}
	return strings.Join(out, ",")
}

// confined checks that an external server holds the realm to its own subjects: a
// publish on a subject that names no realm must be refused (a permissions violation,
// which the server sends before it answers the flush's ping).
func (c *Config) confined(nc *nats.Conn) error {
	if err := nc.Publish(c.Prefix+".probe", nil); err != nil {
		return fmt.Errorf("talk: %w", err)
	}
	if err := nc.FlushTimeout(c.Timeout); err != nil {
		return fmt.Errorf("talk: %w", err)
	}
	if !errors.Is(nc.LastError(), nats.ErrPermissionViolation) {
		return fmt.Errorf("%w (%s)", ErrNotConfined, c.where())
	}
	return nil
}

// options are the connection's options: reconnecting forever, the realm's own reply
// inbox, in-process to the embedded server or with the password and TLS asked for.
func (c *Config) options() []nats.Option {
	opts := []nats.Option{nats.Name("orthanc-" + c.Realm), nats.NoEcho(),
		nats.MaxReconnects(-1), nats.ReconnectWait(time.Second), nats.CustomInboxPrefix(inboxPrefix(c.Realm))}
	if c.Server != nil {
		return append(opts, c.Server.clientOptions()...)
	}
	if c.Password != "" {
		opts = append(opts, nats.UserInfo(c.Realm, c.Password))
	}
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
		b.subject("shout", "*"):                b.onLine,
		b.subject("channel", "*", "*"):         b.onLine,
		b.subject("whisper", b.cfg.Realm, "*"): b.onWhisper,
		b.subject("realm", "*"):                b.onAnnounce,
		b.subject("ping", b.cfg.Realm, "*"):    b.onPing,
		b.subject("mod", "*"):                  b.onModeration,
		b.subject("mail", "*"):                 b.onMail,
		b.subject("reports", b.cfg.Realm, "*"): b.onReports,
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

// from is a subject this realm publishes on: the prefix, the words, and the realm.
func (b *Bus) from(words ...string) string {
	return b.subject(append(words, b.cfg.Realm)...)
}

// sender is the realm that published on subj: its last word, which the server held the
// publisher to.
func sender(subj string) string {
	return subj[strings.LastIndexByte(subj, '.')+1:]
}

// Close tells the other realms this one is going, and stops.
func (b *Bus) Close() {
	if b.started.Swap(false) {
		b.announcing.Lock()
		b.publish(b.from("realm"), announceMsg{V: version, Realm: b.cfg.Realm, Gone: true}, maxAnnounceBytes)
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
func (b *Bus) publish(subj string, m any, limit int) { b.publishReply(subj, "", m, limit) }

// publishReply is publish with NATS's reply subject set ("" for none).
func (b *Bus) publishReply(subj, reply string, m any, limit int) {
	data, err := encode(m, limit)
	switch {
	case errors.Is(err, errTooBig):
		b.counts.oversize.Add(1)
	case err != nil:
		b.counts.bad.Add(1)
	case reply == "" && b.nc.Publish(subj, data) == nil, reply != "" && b.nc.PublishRequest(subj, reply, data) == nil:
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
