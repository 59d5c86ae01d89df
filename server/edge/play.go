package edge

import (
	"net"
	"net/netip"
	"time"
)

// A browser's game (the web page's play socket) has no SSH connection, but takes a
// player's place all the same, counted with SSH's: in the sessions on the server and in
// its address's connections.

// AdmitPlay takes a player's place for a browser's game from addr (AddrKey's form): it
// returns the function that gives it back, or the reason it is refused (RefusedFull,
// RefusedPerAddr, RefusedPenalty) and the line the player is told.
func (l *Listener) AdmitPlay(addr string) (release func(), reason, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.penalty(addr, time.Now()) > 0:
		return nil, RefusedPenalty, "orthanc: too many failed connections from your address; try again later"
	case l.perAddr[addr] >= l.lim.MaxPerIP:
		return nil, RefusedPerAddr, tooManyMsg
	case l.playing >= l.lim.MaxSessions:
		return nil, RefusedFull, ServerFullMsg
	}
	l.playing++
	l.perAddr[addr]++
	done := false
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if done {
			return
		}
		done = true
		l.playing--
		if l.perAddr[addr]--; l.perAddr[addr] <= 0 {
			delete(l.perAddr, addr)
		}
	}, "", ""
}

// AddrKeyOf is the key a client's address is counted by, as AddrKey's.
func AddrKeyOf(ip netip.Addr) string {
	return AddrKey(net.TCPAddrFromAddrPort(netip.AddrPortFrom(ip, 0)))
}
