package edge

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

// LiveSession is one open SSH session, as the admin's who and stats see it.
type LiveSession struct {
	id          uint64
	Fingerprint string // the session's key; empty for a guest
	Knight      string // the knight it plays, or would play: empty for a key with none outside a game
	Guest       bool
	Addr        string // the client's host and port
	Start       time.Time
	Game        bool          // a terminal session (the game), not a one-off command
	Sent        *atomic.Int64 // bytes sent on the session's connection
	Close       func()        // closes the session
}

// Host is the host the session's client connects from, without its port.
func (s LiveSession) Host() string {
	return HostOf(stringAddr(s.Addr))
}

// Registry is the set of open sessions. It lives at the server edge (the engine knows
// nothing of connections), so a mutex guards it.
type Registry struct {
	mu     sync.Mutex
	next   uint64
	m      map[uint64]*LiveSession
	closes atomic.Uint64 // CloseKey and CloseAddr calls so far
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{m: map[uint64]*LiveSession{}} }

// Add registers a session and returns the function that removes it.
func (r *Registry) Add(s LiveSession) (remove func()) {
	remove, _ = r.AddMoving(s)
	return remove
}

// AddMoving is Add for a session whose client may change address while it lasts (a
// browser's game taken up from another network): move lists it at addr (Addr's form)
// from then on, where who shows it and a ban of the address closes it.
func (r *Registry) AddMoving(s LiveSession) (remove func(), move func(addr string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	s.id = r.next
	r.m[s.id] = &s
	id := s.id
	remove = func() {
		r.mu.Lock()
		delete(r.m, id)
		r.mu.Unlock()
	}
	move = func(addr string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if l, ok := r.m[id]; ok {
			l.Addr = addr
		}
	}
	return remove, move
}

// Len is the number of open sessions.
func (r *Registry) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}

// List returns a copy of the open sessions, oldest first.
func (r *Registry) List() []LiveSession {
	r.mu.Lock()
	out := make([]LiveSession, 0, len(r.m))
	for _, s := range r.m {
		out = append(out, *s)
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b LiveSession) int { return cmp.Compare(a.id, b.id) })
	return out
}

// Game returns the newest game session of the knight, if one is open.
func (r *Registry) Game(knight string) (LiveSession, bool) {
	var best LiveSession
	found := false
	for _, s := range r.List() {
		if s.Knight == knight && s.Game {
			best, found = s, true
		}
	}
	return best, found
}

// KeysOf lists the keys the open sessions of the knight authenticated with.
func (r *Registry) KeysOf(knight string) []string {
	var fps []string
	for _, s := range r.List() {
		if s.Knight == knight && s.Fingerprint != "" && !slices.Contains(fps, s.Fingerprint) {
			fps = append(fps, s.Fingerprint)
		}
	}
	return fps
}

// Closes counts the CloseKey and CloseAddr calls so far, each counted before it lists
// the sessions to close: a session that read its bans before it was added, and finds the
// count changed once added, reads them again, as a ban's close may have missed it.
func (r *Registry) Closes() uint64 { return r.closes.Load() }

// CloseKey closes every session of the key after delay (so a last screen can reach the
// player first) and reports how many it will close.
func (r *Registry) CloseKey(fp string, delay time.Duration) int {
	r.closes.Add(1)
	n := 0
	for _, s := range r.List() {
		if s.Fingerprint == fp {
			time.AfterFunc(delay, s.Close)
			n++
		}
	}
	return n
}

// CloseAddr closes every session from an address in prefix (a CIDR prefix, as
// netip.ParsePrefix reads it) after delay, and reports how many it will close.
func (r *Registry) CloseAddr(prefix string, delay time.Duration) int {
	r.closes.Add(1)
	p, err := netip.ParsePrefix(prefix)
	if err != nil {
		return 0
	}
	n := 0
	for _, s := range r.List() {
		if a, err := netip.ParseAddr(s.Host()); err == nil && p.Contains(a.WithZone("").Unmap()) {
			time.AfterFunc(delay, s.Close)
			n++
		}
	}
	return n
}
