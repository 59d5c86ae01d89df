package edge

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Who is let into the handshake when places are scarce. Sockets that never send a byte
// would otherwise hold handshake places for the whole handshake timeout (10 s): 60
// addresses × 20 such sockets hold all 1000, and every new login is reset; the
// per-address limit holds, but a spread attacker passes it. Four things, after OpenSSH's
// MaxStartups and PerSourcePenalties:
//
//   - an address has -max-handshakes-per-ip connections in the handshake at once (not
//     logged in yet): a flood needs many addresses to fill the places;
//
//   - the banner deadline: a connection that sends nothing (an SSH client sends its
//     version line at once) is dropped -banner-timeout after the server began to read
//     it, not at the handshake timeout;
//
//   - penalties: an address whose connection was dropped silent, or whose handshake
//     failed, is charged time; once its charge is past penaltyGrace it is refused at
//     once, with a line, until the charge runs down;
//
//   - early drop: once -early-drop-at connections are in the handshake (not logged in
//     yet: a connection logged in without a session is the channel timeout's), a new one
//     is dropped at random, earlyDropRate percent at first, rising to all at
//     -max-handshakes, so a flood never takes the last place for sure.
//
//     constant       value  effect
//     penaltySilent  10s    charged for a connection dropped at the banner deadline (OpenSSH's grace-exceeded)
//     penaltyFailed  1s     charged for a handshake that failed (OpenSSH's noauth)
//     penaltyGrace   15s    an address is refused only once its charge is past this (OpenSSH's min)
//     penaltyMax     10m    the most an address is charged (OpenSSH's max)
//     maxPenalised   65536  addresses charged at once; past it new charges wait for old ones to run out
//     earlyDropRate  30     percent of new connections dropped at -early-drop-at in the handshake
const (
	penaltySilent = 10 * time.Second
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
	if !c.IsRefused() && !c.droppedSilent.Load() {
		c.l.charge(c.addr, penaltyFailed)
	}
}

// earlyDrop decides at random whether a new connection is dropped, given how many are in
// the handshake; the caller holds l.mu.
func (l *Listener) earlyDrop() bool {
	start, full := l.lim.EarlyDropAt, l.lim.MaxHandshakes
	if l.shaking < start || start >= full {
		return false
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
	case l.earlyDrop():
		return RefusedEarly, busyMsg
	}
	return "", ""
}

// listen starts the banner deadline, at the server's first read: a server too busy to
// begin reading a client in time never takes it for a silent one.
func (c *Slot) listen() {
	if c.listening.CompareAndSwap(false, true) && !c.spoke.Load() {
		c.banner.Reset(c.l.lim.BannerTimeout)
	}
}

// heard marks that the client has sent something: the banner deadline no longer applies.
func (c *Slot) heard() {
	if c.spoke.CompareAndSwap(false, true) {
		c.banner.Stop()
	}
}

// silent drops a connection that has sent nothing by the banner deadline, and charges its
// address.
func (c *Slot) silent() {
	if c.spoke.Load() {
		return
	}
	c.droppedSilent.Store(true)
	c.l.charge(c.addr, penaltySilent)
	_ = c.conn.Close()
}
