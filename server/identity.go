package server

import (
	"fmt"
	"io"
	"sync"
	"time"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Who a session plays as. A key leads to its knight through the store's index of keys
// (a knight may have several keys, DESIGN §12 "Keys and guests"); a key that has none
// yet is given a new knight id when it opens a game, held by the saver until the
// knight's first record is written with it. A session that logged in with no key
// (keyboard-interactive, edge.Login) is a guest: a knight id of its own for the session
// only, never saved; when it leaves, a one-time code lets a key claim the knight.

// ident is who one session is: its key's fingerprint (empty for a guest) and the
// knight it plays (empty for a key with no knight, outside a game).
type ident struct {
	fp     string
	knight string
	guest  bool
}

// identities keeps each open session's ident, from the track middleware to the end of
// the session (a session's context is its connection's, shared by all its sessions).
type identities struct {
	mu sync.Mutex
	m  map[ssh.Session]ident
}

// put keeps the session's ident until remove: the logSessions middleware removes it
// after its session's last log line, which names the knight.
func (ids *identities) put(sess ssh.Session, id ident) {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	if ids.m == nil {
		ids.m = map[ssh.Session]ident{}
	}
	ids.m[sess] = id
}

func (ids *identities) remove(sess ssh.Session) {
	ids.mu.Lock()
	delete(ids.m, sess)
	ids.mu.Unlock()
}

func (ids *identities) get(sess ssh.Session) (ident, bool) {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	id, ok := ids.m[sess]
	return id, ok
}

// knightOf returns the id of the knight the key fp plays, or "" for a key that plays
// none (or a guest's empty fingerprint).
func (s *Server) knightOf(fp string) (string, error) { return s.arrivals.KnightOf(fp) }

// identify works out who a session is, for the track middleware: a guest gets a knight
// id of its own; a key with no knight that opens a game gets a new one, bound for the
// session's time (knights.Arrivals). kept is the key's entry as read (zero for a guest),
// for touchRead; release ends what identify holds.
func (s *Server) identify(sess ssh.Session, game bool) (id ident, kept knights.Key, release func(), err error) {
	key := sess.PublicKey()
	if key == nil {
		return ident{guest: true, knight: knights.NewGuestID()}, knights.Key{}, func() {}, nil
	}
	id.fp = keys.Fingerprint(key)
	// A new key is used as it is added: knight shows it last used now, from here.
	k := knights.Key{Fingerprint: id.fp, Type: key.Type(), Added: time.Now().UTC(), LastUsed: s.now().UTC(),
		LastAddr: edge.HostOf(sess.RemoteAddr())}
	kept, release, err = s.arrivals.Arrive(k, edge.AddrKey(sess.RemoteAddr()), game)
	id.knight = kept.Knight
	return id, kept, release, err
}

// tooManyKnightsLine is what such a key reads.
const tooManyKnightsLine = "Too many new knights were made from your address in the last hour; come back later, " +
	"or play a knight you have (keys add on its key, then link the code from this one)."

// touchEvery is how seldom a key's "last used" is written: a key that opens sessions
// all day from one address writes it once in this time, not once a session.
const touchEvery = 10 * time.Minute

// touchKey records that the key fp was used now from addr (an address without its
// port): when a session opens, at most every touchEvery unless the address is new, and
// always (always set) when its game ends, so knight tells when a knight was last seen
// and from where.
func (s *Server) touchKey(fp, addr string, always bool) {
	if fp == "" || (s.knights.Err() != nil) {
		return // a stopped realm's etcd may not answer: a player leaving does not wait for it
	}
	k, err := s.knights.KeyOf(fp)
	if err != nil {
		return
	}
	s.touchRead(k, addr, always)
}

// touchRead is touchKey for the key k as just read (none for a key with no knight).
func (s *Server) touchRead(k knights.Key, addr string, always bool) {
	if k.Knight == "" || s.knights.Err() != nil || (!always && s.now().Sub(k.LastUsed) < touchEvery && k.LastAddr == addr) {
		return
	}
	if err := s.knights.TouchKey(k.Fingerprint, s.now(), addr); err != nil {
		s.log.Error("touch key", "fingerprint", k.Fingerprint, "err", err)
	}
}

// loadKnightOf returns the newest saved record of the knight the key fp plays (an
// error wrapping store.ErrNotFound when it plays none).
func (s *Server) loadKnightOf(fp string) (world.Adventurer, error) {
	knight, err := s.knightOf(fp)
	if err != nil {
		return world.Adventurer{}, err
	}
	if knight == "" {
		return world.Adventurer{}, store.ErrNotFound
	}
	return s.knights.Knight(knight)
}

// guestGoodbye is what a guest's terminal keeps when its game ends: how to keep a
// knight, and for a knight still living, the one-time code that lets a new key adopt it
// as it stands (rec, its last record, when left), made from addr (edge.AddrKey).
func (s *Server) guestGoodbye(w io.Writer, rec world.Adventurer, left bool, addr string) {
	fmt.Fprint(w, "\r\nFarewell. You played as a guest: nothing was saved.\r\n")
	if left && rec.Guest && !rec.Ended() {
		code, err := s.codes.Add(knights.CodeEntry{Kind: knights.CodeClaim, Guest: &rec, Addr: addr})
		if err != nil {
			s.log.Error("keep a guest's claim code", "err", err)
		}
		if code == "" {
			fmt.Fprintf(w, "%s\r\n", command.CodeNotKept)
			return
		}
		fmt.Fprintf(w, "To keep %s as it stands, make a key and, within %s, claim it:\r\n"+
			"  ssh-keygen -t ed25519\r\n"+
			"  %s claim %s\r\n", rec.Name, command.CodeLifeWords, s.sshCommand(), code)
		return
	}
	fmt.Fprintf(w, "To keep a knight, make a key (ssh-keygen -t ed25519) and connect again: %s\r\n", s.sshCommand())
}

// goodbye is what a player's terminal keeps when it leaves the game by its own choice (q
// then y in the game, quit, q on the title or the death screen; a kick, a ban or a
// shutdown leaves its own reason instead): its knight is saved, and how to come back.
func (s *Server) goodbye(w io.Writer, rec world.Adventurer, left bool) {
	if left && rec.Name != "" && !rec.Ended() {
		fmt.Fprintf(w, "\r\nFarewell, %s. Your knight is saved where it stands; to play on: %s\r\n", rec.Name, s.sshCommand())
		return
	}
	fmt.Fprintf(w, "\r\nFarewell. To play again: %s\r\n", s.sshCommand())
}
