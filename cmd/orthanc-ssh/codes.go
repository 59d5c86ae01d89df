package main

import (
	"crypto/rand"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

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
