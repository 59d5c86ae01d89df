package edge

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Who is let into the handshake when places are scarce. Sockets that stop short of a
// login would otherwise hold handshake places for the whole handshake timeout (10 s):
// 60 addresses × 20 silent sockets, or 100 × 8 that sent a version line, hold enough that
// most new logins are dropped; the per-address limit holds, but a spread attacker passes
// it. Four things, after OpenSSH's MaxStartups and PerSourcePenalties:
//
//   - an address has -max-handshakes-per-ip connections in the handshake at once (not
//     logged in yet): a flood needs many addresses to fill the places;
//
//   - the banner deadline, -banner-timeout after the server began to read a connection: one
//     that has sent nothing by then (an SSH client sends its version line at once) is
//     dropped; so is one that has not got through the key exchange, whatever it sent,
//     while places are scarce (-early-drop-at in the handshake). With places to spare it
//     keeps the handshake timeout, as OpenSSH asks a new player whether to trust the host
//     key in the middle of the key exchange, and a player may read that for a while;
//
//   - penalties: an address whose connection was dropped at the banner deadline, or whose
//     handshake failed, is charged time; once its charge is past penaltyGrace it is
//     refused at once, with a line, until the charge runs down;
//
//   - early drop: once -early-drop-at connections are in the handshake (not logged in
//     yet: a connection logged in without a session is the channel timeout's), a new one
//     from an address with none in the handshake is let in while places are left, and one
//     from an address with some is dropped: always once the address holds its share
//     (-max-handshakes-per-ip at -early-drop-at, falling to one with the last places),
//     else at random, earlyDropRate percent at first, rising to all at -max-handshakes.
//     So addresses that each hold several never take the last places: a player from an
//     address of its own gets in while any is left.
//
//     constant       value  effect
//     penaltyLate    10s    charged for a connection dropped at the banner deadline (OpenSSH's grace-exceeded)
//     penaltyFailed  1s     charged for a handshake that failed (OpenSSH's noauth)
//     penaltyGrace   15s    an address is refused only once its charge is past this (OpenSSH's min)
//     penaltyMax     10m    the most an address is charged (OpenSSH's max)
//     maxPenalised   65536  addresses charged at once; past it new charges wait for old ones to run out
//     earlyDropRate  30     percent of new connections dropped at -early-drop-at in the handshake, from addresses with some there
const (
	penaltyLate   = 10 * time.Second
	penaltyFailed = time.Second
	penaltyGrace  = 15 * time.Second
	penaltyMax    = 10 * time.Minute
	maxPenalised  = 65536
	earlyDropRate = 30
)

// penaltyMsg is what a penalised address is told, before SSH begins.
const penaltyMsg = "orthanc: too many failed connections from your address; try again in %s\r\n"

// penalise charges addr d; the caller holds l.mu.
func (l *Listener) penalise(addr string, d time.Duration, now time.Time) {
	until, ok := l.penalties[addr]
	if !ok && len(l.penalties) >= maxPenalised {
		for a, u := range l.penalties {
			if !u.After(now) {
				delete(l.penalties, a)
			}
		}
		if len(l.penalties) >= maxPenalised {
			return
		}
	}
	if until.Before(now) {
		until = now
	}
	until = until.Add(d)
	if limit := now.Add(penaltyMax); until.After(limit) {
		until = limit
	}
	l.penalties[addr] = until
}

// penalty returns how long addr is still refused, or zero; the caller holds l.mu.
func (l *Listener) penalty(addr string, now time.Time) time.Duration {
	until, ok := l.penalties[addr]
	if !ok {
		return 0
	}
	left := until.Sub(now)
	if left <= 0 {
		delete(l.penalties, addr)
		return 0
	}
	if left <= penaltyGrace {
		return 0
	}
	return left - penaltyGrace
}

// charge penalises addr d for a connection's failure (not held: it takes l.mu).
func (l *Listener) charge(addr string, d time.Duration) {
	l.mu.Lock()
	l.penalise(addr, d, time.Now())
	l.mu.Unlock()
}

// HandshakeFailed charges the connection's address for a handshake that failed, unless
// its login was refused (it was told why: no failure) or it was dropped at the banner
// deadline (charged for that already).
func (c *Slot) HandshakeFailed() {
	if !c.IsRefused() && !c.droppedLate.Load() {
		c.l.charge(c.addr, penaltyFailed)
	}
}

// scarce reports whether handshake places are scarce: -early-drop-at connections in the
// handshake; the caller holds l.mu.
func (l *Listener) scarce() bool { return l.shaking >= l.lim.EarlyDropAt }

// share is how many connections an address may have in the handshake with places scarce:
// -max-handshakes-per-ip at -early-drop-at, falling to one with the last places; the
// caller holds l.mu.
func (l *Listener) share() int {
	start, full := l.lim.EarlyDropAt, l.lim.MaxHandshakes
	return max(1, l.lim.MaxShakesPerIP*(full-l.shaking)/(full-start))
}

// earlyDrop decides whether a new connection from addr is dropped, given how many are in
// the handshake and how many of them are addr's; the caller holds l.mu.
func (l *Listener) earlyDrop(addr string) bool {
	start, full := l.lim.EarlyDropAt, l.lim.MaxHandshakes
	held := l.shakes[addr]
	switch {
	case l.shaking < start || start >= full || held == 0:
		return false
	case held >= l.share():
		return true
	}
	pct := earlyDropRate + (100-earlyDropRate)*min(l.shaking-start, full-start)/(full-start)
	return rand.IntN(100) < pct
}

// admission says whether a connection from addr is refused before the handshake, and
// the line it is told; the caller holds l.mu.
func (l *Listener) admission(addr string, now time.Time) (reason, msg string) {
	if left := l.penalty(addr, now); left > 0 {
		return RefusedPenalty, fmt.Sprintf(penaltyMsg, left.Round(time.Second))
	}
	switch {
	case l.waiting >= l.lim.MaxHandshakes:
		return RefusedBusy, busyMsg
	case l.perAddr[addr] >= l.lim.MaxPerIP+RefusalsPerAddr, l.shakes[addr] >= l.lim.MaxShakesPerIP:
		return RefusedPerAddr, tooManyMsg
	case l.earlyDrop(addr):
		return RefusedEarly, busyMsg
	}
	return "", ""
}

// listen starts the banner deadline, at the server's first read: a server too busy to
// begin reading a client in time never takes it for a silent one.
func (c *Slot) listen() {
	if c.listening.CompareAndSwap(false, true) {
		c.banner.Reset(c.l.lim.BannerTimeout)
	}
}

// heard marks that the client has sent something: past the banner deadline it is dropped
// only while handshake places are scarce.
func (c *Slot) heard() { c.spoke.Store(true) }

// KeyExchanged marks that the client has got through the key exchange: the banner
// deadline no longer applies. The login's PreAuthConnCallback calls it.
func (c *Slot) KeyExchanged() {
	c.exchanged.Store(true)
	c.banner.Stop()
}

// bannerDeadline runs at the banner deadline, and again every -banner-timeout until the
// key exchange is through or the handshake timeout ends the connection. It drops a
// connection that has sent nothing, or that has not got through the key exchange while
// places are scarce, and charges its address.
func (c *Slot) bannerDeadline() {
	c.l.mu.Lock()
	// Under the mutex: a connection released (closed) meanwhile is not charged, nor its
	// deadline armed again. One logged in (out of the handshake) is through the key
	// exchange, told so or not.
	over := c.closed || !c.shaking || c.exchanged.Load()
	if !over && c.spoke.Load() && !c.l.scarce() {
		c.banner.Reset(c.l.lim.BannerTimeout) // a player may be reading the host key prompt
		over = true
	}
	c.l.mu.Unlock()
	if over {
		return
	}
	c.droppedLate.Store(true)
	c.l.charge(c.addr, penaltyLate)
	_ = c.conn.Close()
}
