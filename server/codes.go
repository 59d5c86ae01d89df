package server

import (
	"crypto/rand"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// codeLife is how long a one-time code (keys add, a guest's claim) may be used;
// codeLifeWords says it to a player.
const (
	codeLife      = 10 * time.Minute
	codeLifeWords = "10 minutes"
)

// Bounds of the codes, so that no flood of keys add evicts a guest's claim code (its
// knight would be lost):
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
	addr    string            // the address (edge.AddrKey) it was made from; empty in the console
	expires time.Time
	made    uint64 // order of making, to drop the oldest
}

// codeKeeper keeps the codes across a restart: the store.
type codeKeeper interface {
	PutCode(knights.Code) error
	DeleteCode(code string) error
}

// codeBook keeps the one-time codes of keys add and of guests' claims: a code is good
// once, for codeLife; each is written to keep too, so a restart keeps it for its time.
// Wrong codes are counted per key and per address, so a code cannot be guessed. It is
// safe for concurrent use.
//
// On a realm, keep and shared are etcd's (records.Store): a code is good on every realm,
// and taken there (shared.TakeCode), once; the book here keeps this realm's own codes
// only to bound them and count wrong ones, as a server alone does.
type codeBook struct {
	mu    sync.Mutex
	codes map[string]codeEntry
	tries map[string]codeTries // by fingerprint or address
	made  uint64
	now   func() time.Time // time.Now; a test moves it on
	keep  codeKeeper       // nil keeps them in memory only
	// shared, on a realm, is where codes are taken (keep is it too); nil alone.
	shared knights.Codes
	errs   []error // what keep failed at since the last add, for its caller to log

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
	if err != nil && cb.shared != nil { // no realm could take it: it is no code
		delete(cb.codes, code)
		return "", errors.Join(errCodeNotKept, err)
	}
	return code, err
}

// errCodeNotKept is a code a realm could not write to etcd: it was not given.
var errCodeNotKept = errors.New("the code could not be kept")

// codeNotKeptLine is what a player reads instead of the code.
const codeNotKeptLine = "the realms' records did not answer: no code could be made just now; try again later"

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
	if err := cb.keep.PutCode(e.stored(code)); err != nil {
		cb.errs = append(cb.errs, err)
	}
}

// stored is e kept under code, as the store and etcd keep it.
func (e codeEntry) stored(code string) knights.Code {
	c := knights.Code{Code: code, Kind: e.kind.String(), Knight: e.knight, Addr: e.addr, Expires: e.expires}
	if e.kind == codeClaim {
		c.Guest = e.rec
	}
	return c
}

// entryOf is the entry of a code kept; a claim code without its guest is none.
func entryOf(c knights.Code) (codeEntry, bool) {
	e := codeEntry{kind: codeLink, knight: c.Knight, addr: c.Addr, expires: c.Expires}
	if c.Kind == codeClaim.String() {
		e.kind, e.rec = codeClaim, c.Guest
	}
	return e, e.kind == codeLink || e.rec != nil
}

// String is the kind's name in the store and in etcd.
func (k codeKind) String() string {
	if k == codeClaim {
		return "claim"
	}
	return "link"
}

// load puts back the codes keep had when the server stopped, oldest first.
func (cb *codeBook) load(codes []knights.Code) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	cb.init()
	slices.SortFunc(codes, func(a, b knights.Code) int { return a.Expires.Compare(b.Expires) })
	for _, c := range codes {
		e, ok := entryOf(c)
		if !ok {
			continue
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
	// errCodesUnread: etcd did not answer a realm's take.
	errCodesUnread = errors.New("the codes could not be read")
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
	var e codeEntry
	var err error
	if cb.shared != nil {
		e, err = cb.takeShared(code, kind, now)
	} else {
		e, err = cb.takeHere(code, kind, now)
	}
	if errors.Is(err, errBadCode) || errors.Is(err, errWrongKind) {
		cb.miss(now, who)
	}
	return e, err
}

// takeHere takes code from the book; the caller holds mu.
func (cb *codeBook) takeHere(code string, kind codeKind, now time.Time) (codeEntry, error) {
	e, ok := cb.codes[code]
	if ok && !now.Before(e.expires) {
		cb.drop(code)
		ok = false
	}
	switch {
	case ok && e.kind != kind:
		return codeEntry{}, errWrongKind
	case !ok:
		return codeEntry{}, errBadCode
	}
	cb.drop(code)
	return e, nil
}

// takeShared takes code from etcd, whichever realm made it; the caller holds mu (takes
// here wait for each other: they are a player's commands, few).
func (cb *codeBook) takeShared(code string, kind codeKind, now time.Time) (codeEntry, error) {
	c, err := cb.shared.TakeCode(code, kind.String(), now)
	switch {
	case errors.Is(err, knights.ErrCodeKind):
		return codeEntry{}, errWrongKind
	case errors.Is(err, store.ErrNotFound):
		delete(cb.codes, code)
		return codeEntry{}, errBadCode
	case err != nil:
		return codeEntry{}, errors.Join(errCodesUnread, err)
	}
	delete(cb.codes, code) // made here: it no longer counts against the bounds
	e, ok := entryOf(c)
	if !ok {
		return codeEntry{}, errBadCode
	}
	return e, nil
}

// miss counts a wrong code against who; the caller holds mu.
func (cb *codeBook) miss(now time.Time, who []string) {
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
