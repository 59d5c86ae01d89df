package edge

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
)

// The numbers of docs/DESIGN.md's Hardening rulings and docs/OPERATIONS.md's defaults, written
// out here rather than read from the constants: a test that reads a bound from the code
// it tests passes whatever the bound becomes.
const (
	rulingKeyBurst     = 4 << 10          // a session's keys at once
	rulingKeyRate      = 1 << 10          // then a second
	rulingFloodClose   = 10 * time.Second // past the rate this long, without the burst filling again
	rulingQueue        = 8                // KiB of keys waiting
	rulingPaste        = 16 << 10         // of one bracketed paste
	rulingUnparsed     = 32 << 10         // of one escape sequence
	rulingPenaltyLate  = 10 * time.Second // a connection dropped at the banner deadline
	rulingPenaltyFail  = time.Second      // a failed handshake
	rulingPenaltyGrace = 15 * time.Second // charge an address holds before it is refused
	rulingPenaltyMax   = 10 * time.Minute // the most an address is charged
)

// The defaults are the ones docs/OPERATIONS.md lists and docs/DESIGN.md rules on.
func TestDefaultLimitsAreTheRulings(t *testing.T) {
	want := Limits{
		MaxSessions: 500, MaxHandshakes: 1000, EarlyDropAt: 500, MaxPerIP: 20, MaxShakesPerIP: 8, MaxPerKey: 4,
		HandshakeTimeout: 10 * time.Second, BannerTimeout: 3 * time.Second, ChannelTimeout: 20 * time.Second,
		IdleTimeout: 30 * time.Minute, MaxLifetime: 12 * time.Hour, StallTimeout: 30 * time.Second,
	}
	if DefaultLimits != want {
		t.Errorf("DefaultLimits = %+v\nthe rulings: %+v", DefaultLimits, want)
	}
	if RefusalsPerAddr != 4 || FloodClose != rulingFloodClose {
		t.Errorf("RefusalsPerAddr %d, FloodClose %v; the rulings: 4, %v", RefusalsPerAddr, FloodClose, rulingFloodClose)
	}
}

// Both bounds of a session's key bucket: the burst (4 KiB at once, however long the pause
// before) and the rate (1 KiB a second after it); a paste takes what the bucket holds,
// leaving keys after it to the rate.
func TestKeyBucketBurstAndRate(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b keyBucket
	if fits, _ := b.take(rulingKeyBurst+1, false, now); fits {
		t.Error("more than the burst passed at once")
	}
	if fits, _ := b.take(rulingKeyBurst, false, now); !fits {
		t.Error("the burst was dropped")
	}
	now = now.Add(time.Second)
	if fits, _ := b.take(rulingKeyRate+1, false, now); fits {
		t.Error("more than a second's rate passed a second after the burst")
	}
	if fits, _ := b.take(rulingKeyRate, false, now); !fits {
		t.Error("a second's rate was dropped a second after the burst")
	}
	now = now.Add(time.Hour) // a long pause fills the bucket to the burst, no more
	if fits, _ := b.take(rulingKeyBurst+1, false, now); fits {
		t.Error("after an hour's pause more than the burst passed at once")
	}
	if fits, _ := b.take(rulingKeyBurst-100, false, now); !fits {
		t.Error("after an hour's pause the burst was dropped")
	}
	if fits, _ := b.take(rulingPaste, true, now); !fits {
		t.Error("a paste was dropped")
	}
	if fits, _ := b.take(1, false, now); fits {
		t.Error("a key passed right after a paste that emptied the bucket")
	}
	if w := b.wait(readChunk); w < 900*time.Millisecond || w > time.Second {
		t.Errorf("a chunk fits again in %v after the bucket emptied, want a second", w)
	}
}

// The flood clock: a client past the rate for 10 s without the bucket filling again is
// flooding; a pause that fills it starts the clock again, one that does not leaves it.
func TestTheFloodClockRunsUntilTheBucketFills(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// flood sends 2 KiB every 100 ms (20 KiB/s) from now for d, and reports whether the
	// bucket says the client is flooding by the end.
	flood := func(b *keyBucket, now *time.Time, d time.Duration) bool {
		flooding := false
		for end := now.Add(d); !now.After(end); *now = now.Add(100 * time.Millisecond) {
			_, flooding = b.take(2<<10, false, *now)
		}
		return flooding
	}
	var b keyBucket
	now := start
	if flood(&b, &now, rulingFloodClose-time.Second) {
		t.Fatalf("flooding after %v past the rate", rulingFloodClose-time.Second)
	}
	if !flood(&b, &now, 2*time.Second) {
		t.Fatalf("not flooding after %v past the rate", rulingFloodClose+time.Second)
	}

	b, now = keyBucket{}, start
	flood(&b, &now, rulingFloodClose-2*time.Second)
	now = now.Add(rulingKeyBurst/rulingKeyRate*time.Second + time.Second) // the bucket fills again
	if flood(&b, &now, rulingFloodClose-2*time.Second) {
		t.Error("a pause that filled the bucket did not start the flood clock again")
	}

	b, now = keyBucket{}, start
	flood(&b, &now, rulingFloodClose-2*time.Second)
	now = now.Add(time.Second) // a pause too short to fill it
	if !flood(&b, &now, 3*time.Second) {
		t.Error("a pause that left the bucket short started the flood clock again")
	}
}

// chunks is input of 1 KiB reads of h for ever (until done is closed), counting the reads
// and when each came.
type chunks struct {
	mu    sync.Mutex
	times []time.Time
	done  chan struct{}
}

func (c *chunks) Read(p []byte) (int, error) {
	select {
	case <-c.done:
		return 0, io.EOF
	default:
	}
	c.mu.Lock()
	c.times = append(c.times, time.Now())
	c.mu.Unlock()
	n := min(len(p), readChunk)
	for i := range n {
		p[i] = 'h'
	}
	return n, nil
}

func (c *chunks) read(i int) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i >= len(c.times) {
		return time.Time{}, false
	}
	return c.times[i], true
}

// Past the key rate the pump reads nothing until a chunk fits again (about a second), so
// a flooder waits on its own channel's window instead of having the server read and
// decrypt what it drops.
func TestThePumpStopsReadingPastTheRate(t *testing.T) {
	in := &chunks{done: make(chan struct{})}
	defer close(in.done)
	p := StartInput(in, func(uv.Event) {}, func() {})
	defer p.Stop()
	// The burst is 4 reads; the fifth is dropped; the sixth waits for the rate.
	const dropped = rulingKeyBurst/readChunk + 1
	waitUntil(t, "the read past the burst", func() bool { _, ok := in.read(dropped - 1); return ok })
	waitUntil(t, "the read after it", func() bool { _, ok := in.read(dropped); return ok })
	before, _ := in.read(dropped - 1)
	after, _ := in.read(dropped)
	if gap := after.Sub(before); gap < 500*time.Millisecond {
		t.Errorf("the pump read again %v after a read past the rate, want about a second", gap)
	}
	if d := p.Dropped(); d < readChunk {
		t.Errorf("%d bytes dropped past the burst, want the read past it", d)
	}
}

// gated is input that sends one chunk, then waits for open before sending more chunks of
// keys, then ends.
type gated struct {
	open chan struct{}
	more int          // chunks after the gate
	sent atomic.Int64 // chunks sent; the test reads it as the pump reads
}

func (g *gated) Read(p []byte) (int, error) {
	if g.sent.Load() == 1 {
		<-g.open
	}
	if g.sent.Load() > int64(g.more) {
		return 0, io.EOF
	}
	g.sent.Add(1)
	n := min(len(p), readChunk)
	for i := range n {
		p[i] = 'j'
	}
	return n, nil
}

// A game that does not take its keys holds 8 KiB of them waiting, beyond which keys are
// dropped.
func TestKeysWaitingAreBounded(t *testing.T) {
	in := &gated{open: make(chan struct{}), more: 20}
	blocked := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	p := StartInput(in, func(uv.Event) {
		once.Do(func() { close(blocked) })
		<-release // the game takes no key: the parser waits on its first
	}, nil)
	defer p.Stop()
	defer close(release)
	select {
	case <-blocked:
	case <-time.After(10 * time.Second):
		t.Fatal("the first key never reached the game")
	}
	close(in.open) // the parser holds the first chunk: the rest fill the queue
	waitUntil(t, "the client's input to end", func() bool { return in.sent.Load() > int64(in.more) })
	want := int64((in.more - rulingQueue) * readChunk)
	waitUntil(t, fmt.Sprintf("%d bytes to be dropped", want), func() bool { return p.Dropped() >= want })
	if d := p.Dropped(); d != want {
		t.Errorf("%d bytes dropped of %d KiB sent to a game that took none, want all but %d KiB waiting", d, in.more, rulingQueue)
	}
}

// A bracketed paste reaches the game cut at 16 KiB, and an escape sequence that never ends
// is given up after 32 KiB, the numbers of the ruling.
func TestPasteAndSequenceBoundsAreTheRulings(t *testing.T) {
	var l pasteLimit
	long := strings.Repeat("x", rulingPaste+100)
	got := l.filter(nil, []byte(pasteStart+long+pasteEnd))
	if want := len(pasteStart) + rulingPaste + len(pasteEnd); len(got) != want {
		t.Errorf("a paste of %d bytes passed as %d, want it cut at %d", len(long), len(got), rulingPaste)
	}

	in := &endless{start: []byte("\x1b]52;c;"), filler: 'A', done: make(chan struct{})}
	defer close(in.done)
	var given atomic.Int64
	p := StartInput(in, func(ev uv.Event) {
		if u, ok := ev.(uv.UnknownEvent); ok {
			given.CompareAndSwap(0, int64(len(u)))
		}
	}, nil)
	defer p.Stop()
	waitUntil(t, "the sequence to be given up", func() bool { return given.Load() > 0 })
	if n := given.Load(); n <= rulingUnparsed || n > rulingUnparsed+rulingQueue*readChunk+readChunk {
		t.Errorf("an endless sequence was given up after %d bytes, want just past %d", n, rulingUnparsed)
	}
}

// A failed handshake charges its address 1 s, so sixteen in a row put it past the 15 s
// grace and it is refused; a refused login is no failure (it was told why); the charge is
// never more than 10 minutes, however many.
func TestAFailedHandshakeChargesASecond(t *testing.T) {
	f := &fakeListener{conns: make(chan net.Conn, 32)}
	lim := DefaultLimits
	lim.BannerTimeout = time.Hour
	l := NewListener(f, lim, nil)
	const addr = "192.0.2.1"
	refused := func() string {
		l.mu.Lock()
		defer l.mu.Unlock()
		reason, _ := l.admission(addr, time.Now())
		return reason
	}
	h := admit(t, f, l, addr)
	h.slot.HandshakeFailed()
	if c := l.charged(addr); c <= rulingPenaltyFail-100*time.Millisecond || c > rulingPenaltyFail {
		t.Fatalf("a failed handshake charged %v, want %v", c, rulingPenaltyFail)
	}
	_ = h.Close()
	for i := 1; i < int(rulingPenaltyGrace/rulingPenaltyFail); i++ {
		h := admit(t, f, l, addr)
		h.slot.HandshakeFailed()
		_ = h.Close()
	}
	if r := refused(); r != "" {
		t.Fatalf("15 failed handshakes refuse the address: %s", r)
	}
	last := admit(t, f, l, addr)
	last.slot.HandshakeFailed()
	_ = last.Close()
	if r := refused(); r != RefusedPenalty {
		t.Fatalf("16 failed handshakes: %q, want %q", r, RefusedPenalty)
	}

	const other = "192.0.2.2"
	told := admit(t, f, l, other)
	told.slot.overAddr = true // refused at login, and told so
	told.slot.Refusal()
	told.slot.HandshakeFailed()
	if c := l.charged(other); c != 0 {
		t.Errorf("a login refused and told why charged its address %v", c)
	}

	now := time.Now()
	l.mu.Lock()
	for range 1000 {
		l.penalise("192.0.2.3", rulingPenaltyLate, now)
	}
	left := l.penalty("192.0.2.3", now)
	l.mu.Unlock()
	if left != rulingPenaltyMax-rulingPenaltyGrace {
		t.Errorf("a thousand charges refuse for %v, want %v", left, rulingPenaltyMax-rulingPenaltyGrace)
	}
}

// The charges are kept for 65536 addresses at once: past it a new address's charge waits
// for an old one to run out, which is then forgotten to make room.
func TestChargedAddressesAreBounded(t *testing.T) {
	const bound = 65536
	l := NewListener(nil, DefaultLimits, nil)
	now := time.Now()
	for i := range bound - 1 {
		l.penalise(fmt.Sprintf("10.%d.%d.%d", i>>16, i>>8&0xff, i&0xff), rulingPenaltyLate, now)
	}
	l.penalise("192.0.2.1", rulingPenaltyLate, now)
	if _, ok := l.penalties["192.0.2.1"]; !ok {
		t.Fatalf("the %dth address charged was not kept", bound)
	}
	l.penalise("192.0.2.2", rulingPenaltyLate, now)
	if _, ok := l.penalties["192.0.2.2"]; ok || len(l.penalties) != bound {
		t.Fatalf("past %d addresses charged a new one was kept (%d kept)", bound, len(l.penalties))
	}
	l.penalise("192.0.2.1", rulingPenaltyLate, now)
	if left := l.penalties["192.0.2.1"].Sub(now); left != 2*rulingPenaltyLate {
		t.Errorf("an address kept was charged again to %v, want %v", left, 2*rulingPenaltyLate)
	}
	later := now.Add(time.Minute) // every charge has run out
	l.penalise("192.0.2.2", rulingPenaltyLate, later)
	if _, ok := l.penalties["192.0.2.2"]; !ok || len(l.penalties) != 1 {
		t.Errorf("with every charge run out a new address was not kept (%d kept)", len(l.penalties))
	}
}

// An address has 8 connections in the handshake at once: the ninth is refused before
// SSH; one logged in is out of the handshake and makes room, and one closed gives its
// place back, so the counts come back to none.
func TestAnAddressHasEightHandshakes(t *testing.T) {
	f := &fakeListener{conns: make(chan net.Conn, 16)}
	var refused []string
	l := NewListener(f, DefaultLimits, func(reason string, _ net.Addr) { refused = append(refused, reason) })
	const addr = "192.0.2.1"
	var held []halfOpen
	for range 8 {
		held = append(held, admit(t, f, l, addr))
	}
	server, client := net.Pipe()
	defer client.Close()
	go func() { _, _ = io.Copy(io.Discard, client) }()
	f.conns <- fromConn{server, &net.TCPAddr{IP: net.ParseIP(addr), Port: 40000}}
	if _, err := l.Accept(); err == nil || len(refused) != 1 || refused[0] != RefusedPerAddr {
		t.Fatalf("a ninth handshake from an address: %v, refused %v", err, refused)
	}
	held[0].slot.LoggedIn()
	held = append(held, admit(t, f, l, addr)) // room made by the login
	if l.shaking != 8 || l.shakes[addr] != 8 {
		t.Errorf("%d in the handshake, %d of the address's; want 8", l.shaking, l.shakes[addr])
	}
	for _, h := range held {
		_ = h.Close()
	}
	if w, p := l.Counts(); w != 0 || p != 0 || l.shaking != 0 || len(l.shakes) != 0 || len(l.perAddr) != 0 {
		t.Errorf("all closed: %d waiting, %d playing, %d in the handshake %v, %v", w, p, l.shaking, l.shakes, l.perAddr)
	}
}

// Early drop's chance rises from 30 % at early-drop-at to all at max-handshakes: at the
// half-way mark, 65 % of the new connections of an address under its share are dropped.
func TestEarlyDropRisesToAll(t *testing.T) {
	lim := DefaultLimits
	l := NewListener(nil, lim, nil)
	l.shaking = (lim.EarlyDropAt + lim.MaxHandshakes) / 2
	l.shakes["192.0.2.1"] = 1 // under its share of 4 there
	n := 0
	for range 10000 {
		if l.earlyDrop("192.0.2.1") {
			n++
		}
	}
	if n < 6200 || n > 6800 {
		t.Errorf("%d of 10000 dropped half-way to max-handshakes, want about 6500", n)
	}
}

// The flood clock ends a session exactly 10 s after keys were first dropped, not a read
// later: a client sending a read of 1 KiB every 100 ms is flooding at the hundredth read after its
// first dropped one.
func TestTheFloodClockEndsAtTenSeconds(t *testing.T) {
	var b keyBucket
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var first time.Time
	for range 1000 {
		fits, flooding := b.take(readChunk, false, now)
		if !fits && first.IsZero() {
			first = now
		}
		if flooding {
			if d := now.Sub(first); d != rulingFloodClose {
				t.Errorf("flooding %v after keys were first dropped, want %v", d, rulingFloodClose)
			}
			return
		}
		now = now.Add(100 * time.Millisecond)
	}
	t.Fatal("never flooding")
}

// keyEvents is input of the given reads, one after another, then nothing until done.
type keyEvents struct {
	reads []string
	done  chan struct{}
}

func (k *keyEvents) Read(p []byte) (int, error) {
	if len(k.reads) == 0 {
		<-k.done
		return 0, io.EOF
	}
	n := copy(p, k.reads[0])
	k.reads = k.reads[1:]
	return n, nil
}

// Through the pump, a lone Esc reaches the game once the input pauses, and an arrow's
// sequence cut across two reads reaches it whole.
func TestThePumpWaitsForASequencesEnd(t *testing.T) {
	for _, c := range []struct {
		name  string
		reads []string
		want  string
	}{
		{"a lone Esc", []string{"\x1b"}, "esc"},
		{"an arrow in two reads", []string{"\x1b[", "A"}, "up"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := &keyEvents{reads: c.reads, done: make(chan struct{})}
			defer close(in.done)
			got := make(chan string, 8)
			p := StartInput(in, func(ev uv.Event) {
				if k, ok := ev.(uv.KeyPressEvent); ok {
					got <- k.String()
				}
			}, func() {})
			defer p.Stop()
			select {
			case k := <-got:
				if k != c.want {
					t.Fatalf("the game got %q first, want %q", k, c.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%q never reached the game", c.want)
			}
			select {
			case k := <-got:
				t.Errorf("then %q, want nothing more", k)
			case <-time.After(200 * time.Millisecond): // four times the wait for a sequence's end
			}
		})
	}
}

// What the pump waits past the rate is the time until a chunk fits: a second from an
// empty bucket, half of one from a bucket half a chunk full.
func TestThePumpWaitsUntilAChunkFits(t *testing.T) {
	var b keyBucket
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.take(rulingKeyBurst, false, now)
	if w := b.wait(readChunk); w != time.Second {
		t.Errorf("from an empty bucket a chunk fits in %v, want 1s", w)
	}
	b.take(readChunk, false, now.Add(time.Second/2)) // dropped: half a chunk there
	if w := b.wait(readChunk); w != time.Second/2 {
		t.Errorf("from half a chunk a chunk fits in %v, want 500ms", w)
	}
}

// At early-drop-at exactly 30 in 100 of an address's new connections are dropped: of a
// million, within 2500 of 300000 (five and a half standard deviations); 31 in 100
// would be 310000.
func TestEarlyDropIsThirtyInAHundred(t *testing.T) {
	lim := DefaultLimits
	l := NewListener(nil, lim, nil)
	l.shaking = lim.EarlyDropAt
	l.shakes["192.0.2.1"] = 1
	n := 0
	for range 1000000 {
		if l.earlyDrop("192.0.2.1") {
			n++
		}
	}
	if n < 297500 || n > 302500 {
		t.Errorf("%d of a million dropped at early-drop-at, want 300000", n)
	}
}
