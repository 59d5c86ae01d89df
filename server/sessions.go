package server

import (
	"cmp"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The session registry: every open SSH session, game or one-off command, with what closes
// it. who and stats list it; kick and ban close sessions through it (by knight, key or
// address).

// liveSession is one open SSH session, as the admin's who and stats see it.
type liveSession struct {
	id     uint64
	fp     string // the session's key; empty for a guest
	knight string // the knight it plays, or would play: empty for a key with none outside a game
	guest  bool
	addr   string
	start  time.Time
	game   bool          // a terminal session (the game), not a one-off command
	sent   *atomic.Int64 // bytes sent on the session's connection
	close  func()        // closes the session
}

// registry is the set of open sessions. It lives at the server edge (the engine knows
// nothing of connections), so a mutex guards it.
type registry struct {
	mu   sync.Mutex
	next uint64
	m    map[uint64]*liveSession
}

func newRegistry() *registry { return &registry{m: map[uint64]*liveSession{}} }

// add registers a session and returns the function that removes it.
func (r *registry) add(s liveSession) (remove func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	s.id = r.next
	r.m[s.id] = &s
	return func() {
		r.mu.Lock()
		delete(r.m, s.id)
		r.mu.Unlock()
	}
}

// len is the number of open sessions.
func (r *registry) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}

// list returns a copy of the open sessions, oldest first.
func (r *registry) list() []liveSession {
	r.mu.Lock()
	out := make([]liveSession, 0, len(r.m))
	for _, s := range r.m {
		out = append(out, *s)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b liveSession) int { return cmp.Compare(a.id, b.id) })
	return out
}

// game returns the newest game session of the knight, if one is open.
func (r *registry) game(knight string) (liveSession, bool) {
	var best liveSession
	found := false
	for _, s := range r.list() {
		if s.knight == knight && s.game {
			best, found = s, true
		}
	}
	return best, found
}

// keysOf lists the keys the open sessions of the knight authenticated with.
func (r *registry) keysOf(knight string) []string {
	var fps []string
	for _, s := range r.list() {
		if s.knight == knight && s.fp != "" && !slices.Contains(fps, s.fp) {
			fps = append(fps, s.fp)
		}
	}
	return fps
}

// closeKey closes every session of the key after delay (so a last screen can reach the
// player first) and reports how many it will close.
func (r *registry) closeKey(fp string, delay time.Duration) int {
	n := 0
	for _, s := range r.list() {
		if s.fp == fp {
			time.AfterFunc(delay, s.close)
			n++
		}
	}
	return n
}

// closeAddr closes every session from an address in prefix (as parseAddrOrPrefix reads
// it) after delay, and reports how many it will close.
func (r *registry) closeAddr(prefix string, delay time.Duration) int {
	p, err := netip.ParsePrefix(prefix)
	if err != nil {
		return 0
	}
	n := 0
	for _, s := range r.list() {
		if a, err := netip.ParseAddr(hostOf(stringAddr(s.addr))); err == nil && p.Contains(a.WithZone("").Unmap()) {
			time.AfterFunc(delay, s.close)
			n++
		}
	}
	return n
}
