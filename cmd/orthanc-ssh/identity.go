package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Who a session plays as. A key leads to its knight through the store's index of keys
// (a knight may have several keys, DESIGN §12 "Keys and guests"); a key that has none
// yet is given a new knight id when it opens a game, held by the saver until the
// knight's first record is written with it. A session that logged in with no key
// (keyboard-interactive, login.go) is a guest: a knight id of its own for the session
// only, never saved; when it leaves, a one-time code lets a key claim the knight.

// guestIDPrefix starts the knight id of a guest, which is never stored.
const guestIDPrefix = "guest-"

// codeLife is how long a one-time code (keys add, a guest's claim) may be used;
// codeLifeWords says it to a player.
const (
	codeLife      = 10 * time.Minute
	codeLifeWords = "10 minutes"
)

// Bounds of the codes (issue 30: 1010 keys add in 56 s evicted a guest's claim code,
// and that guest's knight was lost):
//
//	constant         value  effect
//	maxCodes         1000   codes of one kind waiting at once; past it the oldest of that kind goes, so link codes never evict a guest's claim
//	maxCodesPerAddr  3      codes made from one address (an IPv6 /64) waiting at once; past it that address's oldest goes
//	maxCodeTries     5      wrong codes a key or an address may give in codeLife; then it is told to wait
//	maxTriers        10000  keys and addresses whose wrong codes are counted; past it the counts start again
//
// A knight has at most one link code waiting: a new keys add replaces it.
const (
	maxCodes        = 1000
	maxCodesPerAddr = 3
	maxCodeTries    = 5
	maxTriers       = 10000
)

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
func (s *server) knightOf(fp string) (string, error) {
	if fp == "" {
		return "", nil
	}
	k, err := s.keyOf(fp)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return k.Knight, nil
}

// identify works out who a session is, for the track middleware: a guest gets a knight
// id of its own; a key with no knight that opens a game gets a new one, bound in the
// saver for the session's time. release ends what identify holds.
func (s *server) identify(sess ssh.Session, game bool) (id ident, release func(), err error) {
	key := sess.PublicKey()
	if key == nil {
		return ident{guest: true, knight: guestIDPrefix + store.NewKnightID()[2:]}, func() {}, nil
	}
	id.fp = keys.Fingerprint(key)
	if id.knight, err = s.knightOf(id.fp); err != nil || id.knight != "" || !game {
		return id, func() {}, err
	}
	id.knight = store.NewKnightID()
	// A new key is used as it is added: knight shows it last used now, from here.
	unbind := s.bindKey(store.Key{Fingerprint: id.fp, Knight: id.knight, Type: key.Type(), Added: time.Now().UTC(),
		LastUsed: s.now().UTC(), LastAddr: hostOf(sess.RemoteAddr())})
	k, err := s.keyOf(id.fp) // a second session of the key bound it first
	if err == nil && k.Knight != id.knight {
		id.knight = k.Knight
		return id, unbind, nil
	}
	undo, ok := s.newKnights.reserve(addrKey(sess.RemoteAddr()), time.Now(), s.cfg.limits.newKnightsPerHour)
	if !ok {
		unbind()
		return id, func() {}, errTooManyKnights
	}
	return id, func() {
		unbind()
		if _, err := s.keyOf(id.fp); errors.Is(err, store.ErrNotFound) {
			undo() // the session made no knight after all
		}
	}, nil
}

// errTooManyKnights refuses a key with no knight a game, when its address has made
// -new-knights-per-hour knights in the last hour.
var errTooManyKnights = errors.New("too many new knights from this address")

// tooManyKnightsLine is what such a key reads.
const tooManyKnightsLine = "Too many new knights were made from your address in the last hour; come back later, " +
	"or play a knight you have (keys add on its key, then link the code from this one)."

// knightCounter counts the new knights made from each address (addrKey: an IPv6 /64 is
// one) in the last hour (issue 30: one address made 45 knights in 9 s, each permanent,
// each taking a name). A place is reserved when a key with no knight opens a game, and
// given back when the game ends without a knight made. Safe for concurrent use.
type knightCounter struct {
	mu   sync.Mutex
	made map[string][]time.Time
}

// maxKnightAddrs is how many addresses' counts are kept before the old ones are swept.
const maxKnightAddrs = 10000

// reserve counts a new knight from addr at now, unless addr has made limit in the last
// hour; undo takes it back.
func (k *knightCounter) reserve(addr string, now time.Time, limit int) (undo func(), ok bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.made == nil {
		k.made = map[string][]time.Time{}
	}
	recent := func(a string) []time.Time {
		ts := slices.DeleteFunc(k.made[a], func(t time.Time) bool { return now.Sub(t) >= time.Hour })
		if len(ts) == 0 {
			delete(k.made, a)
		}
		return ts
	}
	if len(k.made) >= maxKnightAddrs {
		for a := range k.made {
			recent(a)
		}
	}
	ts := recent(addr)
	if len(ts) >= limit {
		return nil, false
	}
	k.made[addr] = append(ts, now)
	return func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if i := slices.Index(k.made[addr], now); i >= 0 {
			k.made[addr] = slices.Delete(k.made[addr], i, i+1)
		}
	}, true
}

// touchEvery is how seldom a key's "last used" is written: a key that opens sessions
// all day from one address writes it once in this time, not once a session.
const touchEvery = 10 * time.Minute

// touchKey records that the key fp was used now from addr (an address without its
// port): when a session opens, at most every touchEvery unless the address is new, and
// always (always set) when its game ends, so knight tells when a knight was last seen
// and from where.
func (s *server) touchKey(fp, addr string, always bool) {
	if fp == "" || s.realmDown() {
		return // a stopped realm's etcd may not answer: a player leaving does not wait for it
	}
	k, err := s.shared.KeyOf(fp)
	if err != nil || (!always && s.now().Sub(k.LastUsed) < touchEvery && k.LastAddr == addr) {
		return
	}
	if err := s.shared.TouchKey(fp, s.now(), addr); err != nil {
		s.log.Error("touch key", "fingerprint", fp, "err", err)
	}
}

// codeKind is what a one-time code is for.
type codeKind uint8

const (
	codeLink  codeKind = iota + 1 // keys add: a key that links with it joins a knight
	codeClaim                     // a guest's: a key that claims with it adopts the guest's knight
)

// codeEntry is one code waiting to be used.
type codeEntry struct {
	kind    codeKind
	knight  string            // codeLink: the knight the code gives
	rec     *world.Adventurer // codeClaim: the guest's knight as it left
	addr    string            // the address (addrKey) it was made from; empty in the console
	expires time.Time
	made    uint64 // order of making, to drop the oldest
}

// codeKeeper keeps the codes across a restart: the store.
type codeKeeper interface {
	PutCode(store.Code) error
	DeleteCode(code string) error
}

// codeBook keeps the one-time codes of keys add and of guests' claims: a code is good
// once, for codeLife; each is written to keep too, so a restart keeps it for its time.
// Wrong codes are counted per key and per address, so a code cannot be guessed. It is
// safe for concurrent use.
type codeBook struct {
	mu    sync.Mutex
	codes map[string]codeEntry
	tries map[string]codeTries // by fingerprint or address
	made  uint64
	now   func() time.Time // time.Now; a test moves it on
	keep  codeKeeper       // nil keeps them in memory only
	errs  []error          // what keep failed at since the last add, for its caller to log

	pruned time.Time // when prune last ran: it runs at most once a second
}

// codeTries counts the wrong codes of one key or address since first.
type codeTries struct {
	n     int
	first time.Time
}

// codeAlphabet has no letters or digits that look alike (0/O, 1/I/L).
const codeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

// newCode returns a code of two groups of four, such as 7KQM-3XRT (31^8 codes).
func newCode() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	out := make([]byte, 0, 9)
	for i, x := range b {
		if i == 4 {
			out = append(out, '-')
		}
		out = append(out, codeAlphabet[int(x)%len(codeAlphabet)])
	}
	return string(out)
}

func (cb *codeBook) clock() time.Time {
	if cb.now != nil {
		return cb.now()
	}
	return time.Now()
}

// add keeps e under a new code and returns the code. A knight's waiting link code is
// replaced; past maxCodesPerAddr of e's address, or maxCodes of e's kind, the oldest
// such goes. The error is keep's, for any code it wrote or deleted: the code works
// all the same until a restart.
func (cb *codeBook) add(e codeEntry) (string, error) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	now := cb.clock()
	cb.init()
	cb.prune(now)
	for c, old := range cb.codes {
		if e.kind == codeLink && old.kind == codeLink && old.knight == e.knight {
			cb.drop(c)
		}
	}
	if e.addr != "" {
		cb.dropOldest(maxCodesPerAddr, func(x codeEntry) bool { return x.addr == e.addr })
	}
	cb.dropOldest(maxCodes, func(x codeEntry) bool { return x.kind == e.kind })
	cb.made++
	e.made, e.expires = cb.made, now.Add(codeLife)
	code := newCode()
	for cb.codes[code].kind != 0 {
		code = newCode()
	}
	cb.codes[code] = e
	cb.write(code, e)
	err := errors.Join(cb.errs...)
	cb.errs = nil
	return code, err
}

func (cb *codeBook) init() {
	if cb.codes == nil {
		cb.codes, cb.tries = map[string]codeEntry{}, map[string]codeTries{}
	}
}

// dropOldest drops the oldest codes that match until fewer than limit do; the caller
// holds mu.
func (cb *codeBook) dropOldest(limit int, match func(codeEntry) bool) {
	for {
		n, oldest, first := 0, "", uint64(0)
		for c, e := range cb.codes {
			if match(e) {
				n++
				if oldest == "" || e.made < first {
					oldest, first = c, e.made
				}
			}
		}
		if n < limit {
			return
		}
		cb.drop(oldest)
	}
}

// drop forgets code, in keep too; the caller holds mu.
func (cb *codeBook) drop(code string) {
	delete(cb.codes, code)
	if cb.keep != nil {
		if err := cb.keep.DeleteCode(code); err != nil {
			cb.errs = append(cb.errs, err)
		}
	}
}

// write keeps e under code in keep; the caller holds mu.
func (cb *codeBook) write(code string, e codeEntry) {
	if cb.keep == nil {
		return
	}
	c := store.Code{Code: code, Kind: "link", Knight: e.knight, Addr: e.addr, Expires: e.expires}
	if e.kind == codeClaim {
		c.Kind, c.Guest = "claim", e.rec
	}
	if err := cb.keep.PutCode(c); err != nil {
		cb.errs = append(cb.errs, err)
	}
}

// load puts back the codes keep had when the server stopped, oldest first.
func (cb *codeBook) load(codes []store.Code) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	cb.init()
	slices.SortFunc(codes, func(a, b store.Code) int { return a.Expires.Compare(b.Expires) })
	for _, c := range codes {
		e := codeEntry{kind: codeLink, knight: c.Knight, addr: c.Addr, expires: c.Expires}
		if c.Kind == "claim" {
			if c.Guest == nil {
				continue
			}
			e.kind, e.rec = codeClaim, c.Guest
		}
		cb.made++
		e.made = cb.made
		cb.codes[c.Code] = e
	}
}

// prune drops expired codes and old counts of wrong ones, at most once a second (a code
// expired since is refused by take all the same); the caller holds mu.
func (cb *codeBook) prune(now time.Time) {
	if now.Sub(cb.pruned) < time.Second {
		return
	}
	cb.pruned = now
	for c, e := range cb.codes {
		if !now.Before(e.expires) {
			cb.drop(c)
		}
	}
	for who, t := range cb.tries {
		if now.Sub(t.first) >= codeLife {
			delete(cb.tries, who)
		}
	}
}

// Why a code was not taken.
var (
	errBadCode    = errors.New("no such code")
	errTooManyBad = errors.New("too many wrong codes")
	errWrongKind  = errors.New("a code of another kind")
)

// take returns the entry of code, of the kind asked, and forgets it: a code is good
// once. Who gave it (fingerprints, an address) is counted on a wrong code; past
// maxCodeTries in codeLife even a good code is refused.
func (cb *codeBook) take(code string, kind codeKind, who ...string) (codeEntry, error) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	now := cb.clock()
	cb.init()
	cb.prune(now)
	defer func() { cb.errs = nil }() // a code taken is forgotten in keep at its best; an expired one goes at the next start
	for _, w := range who {
		if t := cb.tries[w]; t.n >= maxCodeTries && now.Sub(t.first) < codeLife {
			return codeEntry{}, errTooManyBad
		}
	}
	code = strings.ToUpper(strings.TrimSpace(code))
	e, ok := cb.codes[code]
	if ok && !now.Before(e.expires) {
		cb.drop(code)
		ok = false
	}
	if !ok || e.kind != kind {
		if len(cb.tries) >= maxTriers {
			clear(cb.tries) // the counts are a brake on guessing, not a record of who guessed
		}
		for _, w := range who {
			t := cb.tries[w]
			if t.n == 0 {
				t.first = now
			}
			t.n++
			cb.tries[w] = t
		}
		if ok {
			return codeEntry{}, errWrongKind
		}
		return codeEntry{}, errBadCode
	}
	cb.drop(code)
	return e, nil
}

// giveBack puts an entry taken but not used (the key was refused) back under its code,
// until it expires as before.
func (cb *codeBook) giveBack(code string, e codeEntry) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if cb.clock().Before(e.expires) {
		code = strings.ToUpper(strings.TrimSpace(code))
		cb.codes[code] = e
		cb.write(code, e)
		cb.errs = nil
	}
}

// len is the number of codes waiting.
func (cb *codeBook) len() int {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return len(cb.codes)
}

// loadKnightOf returns the newest saved record of the knight the key fp plays (an
// error wrapping store.ErrNotFound when it plays none).
func (s *server) loadKnightOf(fp string) (world.Adventurer, error) {
	knight, err := s.knightOf(fp)
	if err != nil {
		return world.Adventurer{}, err
	}
	if knight == "" {
		return world.Adventurer{}, store.ErrNotFound
	}
	return s.loadKnight(knight)
}

// guestGoodbye is what a guest's terminal keeps when its game ends: how to keep a
// knight, and for a knight still living, the one-time code that lets a new key adopt it
// as it stands (rec, its last record, when left), made from addr (addrKey).
func (s *server) guestGoodbye(w io.Writer, rec world.Adventurer, left bool, addr string) {
	fmt.Fprint(w, "\r\nFarewell. You played as a guest: nothing was saved.\r\n")
	if left && rec.Guest && !rec.Ended() {
		code, err := s.codes.add(codeEntry{kind: codeClaim, rec: &rec, addr: addr})
		if err != nil {
			s.log.Error("keep a guest's claim code", "err", err)
		}
		fmt.Fprintf(w, "To keep %s as it stands, make a key and, within %s, claim it:\r\n"+
			"  ssh-keygen -t ed25519\r\n"+
			"  %s claim %s\r\n", rec.Name, codeLifeWords, s.sshCommand(), code)
		return
	}
	fmt.Fprintf(w, "To keep a knight, make a key (ssh-keygen -t ed25519) and connect again: %s\r\n", s.sshCommand())
}

// goodbye is what a player's terminal keeps when it leaves the game by its own choice (q
// then y in the game, quit, q on the title or the death screen; a kick, a ban or a
// shutdown leaves its own reason instead): its knight is saved, and how to come back.
func (s *server) goodbye(w io.Writer, rec world.Adventurer, left bool) {
	if left && rec.Name != "" && !rec.Ended() {
		fmt.Fprintf(w, "\r\nFarewell, %s. Your knight is saved where it stands; to play on: %s\r\n", rec.Name, s.sshCommand())
		return
	}
	fmt.Fprintf(w, "\r\nFarewell. To play again: %s\r\n", s.sshCommand())
}
