package talk

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Presence: every realm says, every AnnounceEvery, its name, its address and who plays
// in it; the others hand the knights to their worlds (whispers find them there) and keep
// the rest for the realms listing, with a ping for each realm's round trip. A realm that
// says it is going, or says nothing for goneAfter periods, is gone.
//
// A realm that knows no other (it has just started, or restarted) asks for theirs: its
// presence carries a NATS reply subject, and a realm that hears such a presence
// announces at once, so who lists every realm's knights as soon as a realm starts, not
// up to AnnounceEvery later. The message itself is the same; a realm that does not look
// at the reply subject answers at its next period, as before.

// maxAnnounceKnights caps the knights of one announcement; Players still counts them all.
const maxAnnounceKnights = 5000

// peer is what a realm last said of itself, and when.
type peer struct {
	addr    string
	players int
	seen    time.Time
}

// peers are the other realms, shared by NATS's goroutines and the bus's.
type peers struct {
	mu sync.Mutex
	m  map[string]peer
	// broadcast is when each realm's last broadcast was shown here (hearBroadcast).
	broadcast map[string]time.Time
}

// RealmInfo is a realm of the listing.
type RealmInfo struct {
	Name    string
	Addr    string
	Players int
	// RTT is the ping's round trip from this realm; Answered is false when the realm did
	// not answer within the bus's Timeout (RTT is then zero). This realm is listed first,
	// with a zero RTT.
	RTT      time.Duration
	Answered bool
}

// announceLoop announces the realm at once and then every AnnounceEvery, and forgets the
// realms that have gone quiet.
func (b *Bus) announceLoop(ctx context.Context) {
	t := time.NewTicker(b.cfg.AnnounceEvery)
	defer t.Stop()
	for {
		_ = b.Announce(ctx)
		b.expire()
		select {
		case <-t.C:
		case <-b.soon:
		case <-ctx.Done():
			return
		}
	}
}

// Announce says now who plays in this realm (the loop does every AnnounceEvery). One
// announcement at a time: the world's answer and its publishing go together, or an older
// list could be published after a newer one.
func (b *Bus) Announce(ctx context.Context) error {
	b.announcing.Lock()
	defer b.announcing.Unlock()
	if !b.started.Load() {
		return nil // closing: its last word was that it is gone
	}
	who, err := b.w.Who(ctx)
	if err != nil {
		return err
	}
	m := announceMsg{V: version, Realm: b.cfg.Realm, Addr: b.cfg.Addr, Players: len(who)}
	for _, e := range who[:min(len(who), maxAnnounceKnights)] {
		m.Knights = append(m.Knights, knightMsg{Name: e.Name, ID: e.ID, Level: e.Level,
			Idle: int(time.Duration(e.IdleTurns) * b.cfg.Tick / time.Second), Away: e.Away, AwayReason: e.AwayReason, Guest: e.Guest})
	}
	reply := ""
	if b.peers.none() {
		// Any reply subject asks; the others answer by announcing. One no one listens
		// on: while no realm hears this one, NATS says so there (no responders), and
		// such a status on the presence subjects would be read as a bad presence.
		reply = b.nc.NewInbox()
	}
	b.publishReply(b.from("realm"), reply, fitAnnounce(m), maxAnnounceBytes)
	return nil
}

// none reports whether no other realm is known.
func (p *peers) none() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.m) == 0
}

// announceSoon has the announcement loop announce now; asks that come while one is
// pending make one announcement.
func (b *Bus) announceSoon() {
	select {
	case b.soon <- struct{}{}:
	default:
	}
}

// fitAnnounce cuts an announcement's knights by halves until it is under its limit:
// a realm whose whole list is too long still says who most of its knights are, and how
// many it has.
func fitAnnounce(m announceMsg) announceMsg {
	for len(m.Knights) > 0 {
		if _, err := encode(m, maxAnnounceBytes); err == nil {
			break
		}
		m.Knights = m.Knights[:len(m.Knights)/2]
	}
	return m
}

// onAnnounce takes another realm's presence.
func (b *Bus) onAnnounce(msg *nats.Msg) {
	m, err := decode[announceMsg](msg.Data, maxAnnounceBytes)
	if err == nil && (cleanRealm(m.Realm) == "" || m.Realm != sender(msg.Subject)) {
		err = errInvalid // a realm speaks only for itself
	}
	if err != nil {
		b.refused(err)
		return
	}
	if m.Realm == b.cfg.Realm {
		return
	}
	b.counts.received.Add(1)
	b.peers.mu.Lock()
	if m.Gone {
		delete(b.peers.m, m.Realm)
	} else {
		b.peers.m[m.Realm] = peer{addr: world.CleanText(m.Addr, 100), players: max(m.Players, 0), seen: b.cfg.Now()}
	}
	b.peers.mu.Unlock()
	if msg.Reply != "" && !m.Gone { // a realm that knows no other asks who plays here
		b.announceSoon()
	}
	ks := fromAnnounce(m)
	if m.Gone {
		ks = nil
	}
	b.toWorld(func(ctx context.Context) error { return b.w.SetPresence(ctx, m.Realm, ks) })
}

// expire forgets the realms that have said nothing for goneAfter periods, and tells the
// world they are gone.
func (b *Bus) expire() {
	now := b.cfg.Now()
	var gone []string
	b.peers.mu.Lock()
	for name, p := range b.peers.m {
		if now.Sub(p.seen) >= goneAfter*b.cfg.AnnounceEvery {
			delete(b.peers.m, name)
			gone = append(gone, name)
		}
	}
	b.peers.mu.Unlock()
	for _, name := range gone {
		b.toWorld(func(ctx context.Context) error { return b.w.SetPresence(ctx, name, nil) })
	}
}

// onPing answers a ping at once.
func (b *Bus) onPing(msg *nats.Msg) {
	m, err := decode[pingMsg](msg.Data, maxSmallBytes)
	if err == nil && m.Realm != sender(msg.Subject) {
		err = errInvalid
	}
	if err != nil {
		b.refused(err)
		return
	}
	if data, err := encode(pingMsg{V: version, Realm: b.cfg.Realm}, maxSmallBytes); err == nil {
		_ = msg.Respond(data)
	}
}

// Realms lists this realm and the others it has heard from, by name after this one, each
// pinged (all at once) for its round trip.
func (b *Bus) Realms(ctx context.Context) []RealmInfo {
	b.peers.mu.Lock()
	out := make([]RealmInfo, 0, len(b.peers.m)+1)
	for name, p := range b.peers.m {
		out = append(out, RealmInfo{Name: name, Addr: p.addr, Players: p.players})
	}
	b.peers.mu.Unlock()
	slices.SortFunc(out, func(x, y RealmInfo) int { return cmp.Compare(x.Name, y.Name) })
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() { out[i].RTT, out[i].Answered = b.Ping(ctx, out[i].Name) })
	}
	wg.Wait()
	self := RealmInfo{Name: b.cfg.Realm, Addr: b.cfg.Addr, Answered: true}
	if who, err := b.w.Who(ctx); err == nil {
		self.Players = len(who)
	}
	return append([]RealmInfo{self}, out...)
}

// Ping measures the round trip to a realm; false when it did not answer within Timeout.
func (b *Bus) Ping(ctx context.Context, realm string) (time.Duration, bool) {
	if !validWord(realm) {
		return 0, false
	}
	data, _ := encode(pingMsg{V: version, Realm: b.cfg.Realm}, maxSmallBytes)
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	start := b.cfg.Now()
	reply, err := b.nc.RequestWithContext(ctx, b.from("ping", realm), data)
	if err != nil {
		return 0, false
	}
	rtt := b.cfg.Now().Sub(start)
	if m, err := decode[pingMsg](reply.Data, maxSmallBytes); err != nil || m.Realm != realm {
		return 0, false
	}
	return rtt, true
}
