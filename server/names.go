package server

import (
	"strings"
	"sync"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// nameBook keeps knights' names unique across knights (DESIGN §12, "Names"): the owner of
// every name, as world.NameKey folds it, read once from the store and then kept up to
// date by the name prompt, which claims a name before the knight joins. Claiming at the
// prompt also settles two players who pick the same name at the same moment: the second
// is refused. It is safe for concurrent use.
type nameBook struct {
	mu     sync.Mutex
	loaded bool
	owner  map[string]string // NameKey → knight id
	name   map[string]string // knight id → the name it last claimed, as typed, for the log
}

// book is the name book, read from the store the first time it is needed. A store that
// cannot be read leaves it with the names claimed since the start, and it is read again
// next time.
func (s *Server) book() *nameBook {
	b := &s.names
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.owner == nil {
		b.owner, b.name = map[string]string{}, map[string]string{}
	}
	if b.loaded {
		return b
	}
	names, err := s.knights.KnightNames()
	if err != nil {
		s.log.Error("read knights' names", "err", err)
		return b
	}
	for _, n := range names {
		if k := world.NameKey(n.Name); b.owner[k] == "" {
			b.owner[k] = n.Knight
		}
		if b.name[n.Knight] == "" {
			b.name[n.Knight] = n.Name
		}
	}
	b.loaded = true
	return b
}

// taken reports whether a knight other than fp (a knight id) owns the name.
func (b *nameBook) taken(name, fp string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	owner := b.owner[world.NameKey(name)]
	return owner != "" && owner != fp
}

// claim reserves the name for the knight fp, unless another knight owns it.
func (b *nameBook) claim(name, fp string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := world.NameKey(name)
	if owner := b.owner[k]; owner != "" && owner != fp {
		return false
	}
	b.owner[k] = fp
	b.name[fp] = name
	return true
}

// rename makes name the only name of the knight id (an admin's rename), unless another
// knight owns it; the knight's other names are let go.
func (b *nameBook) rename(name, id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := world.NameKey(name)
	if owner := b.owner[k]; owner != "" && owner != id {
		return false
	}
	for key, owner := range b.owner {
		if owner == id {
			delete(b.owner, key)
		}
	}
	b.owner[k] = id
	b.name[id] = name
	return true
}

// nameOf returns the name the knight id last claimed, "" for none yet.
func (b *nameBook) nameOf(id string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.name[id]
}

// forget lets go of every name the knight fp owns: a guest's, when it leaves, so that
// guests' names neither pile up nor stay taken.
func (b *nameBook) forget(fp string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, owner := range b.owner {
		if owner == fp {
			delete(b.owner, k)
		}
	}
	delete(b.name, fp)
}

// sessionNames is the name book as one knight's session sees it (app.Names).
type sessionNames struct {
	s     *Server
	fp    string // the knight's id
	guest bool
}

// namesFor is the app's view of the name book for the knight fp (an id). A guest's
// names are the app's, which puts guestPrefix before them; a knight with a key may not
// take a name that looks like a guest's.
func (s *Server) namesFor(fp string, guest bool) app.Names { return sessionNames{s, fp, guest} }

// Taken implements app.Names.
func (n sessionNames) Taken(name string) bool {
	return (!n.guest && looksLikeAGuest(name)) || n.s.book().taken(name, n.fp)
}

// Claim implements app.Names.
func (n sessionNames) Claim(name string) bool {
	if !n.guest && looksLikeAGuest(name) {
		return false
	}
	if !n.guest && !n.s.claimSharedName(name, n.fp) {
		return false
	}
	return n.s.book().claim(name, n.fp)
}

// claimSharedName claims a name for knight id wherever the knights are kept (a guest's
// is this server's only): a name another realm's knight took is refused.
func (s *Server) claimSharedName(name, id string) bool {
	ok, err := s.knights.ClaimName(name, id)
	if err != nil {
		s.log.Error("claim a name", "knight", id, "err", err)
	}
	return ok && err == nil
}

// looksLikeAGuest reports whether a name is a guest's: any name that begins with "Guest",
// in any case: moderators would take a keyed knight named "Guestly" for a guest.
func looksLikeAGuest(name string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(name)), "guest")
}
