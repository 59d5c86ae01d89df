package knights

import (
	"crypto/rand"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// CodeLife is how long a one-time code (keys add, a guest's claim) may be used.
const CodeLife = 10 * time.Minute

// Bounds of the codes, so that no flood of keys add evicts a guest's claim code (its
// knight would be lost):
//
//	constant         value  effect
//	MaxCodes         1000   codes of one kind waiting at once; past it the oldest of that kind from the address with the most goes, so link codes never evict a guest's claim, nor a flood from many addresses one guest's
//	MaxCodesPerAddr  3      codes made from one address (an IPv6 /64) waiting at once; past it that address's oldest goes
//	MaxCodeTries     5      wrong codes a key or an address may give in CodeLife; then it is told to wait
//	MaxTriers        10000  keys and addresses whose wrong codes are counted; past it the counts start again
//
// A knight has at most one link code waiting: a new keys add replaces it.
const (
	MaxCodes        = 1000
	MaxCodesPerAddr = 3
	MaxCodeTries    = 5
	MaxTriers       = 10000
)

// CodeKind is what a one-time code is for.
type CodeKind uint8

const (
	CodeLink  CodeKind = iota + 1 // keys add: a key that links with it joins a knight
	CodeClaim                     // a guest's: a key that claims with it adopts the guest's knight
)

// CodeEntry is one code waiting to be used.
type CodeEntry struct {
	Kind   CodeKind
	Knight string            // CodeLink: the knight the code gives
	Guest  *world.Adventurer // CodeClaim: the guest's knight as it left
	// Addr is the address it was made from (an IPv6 /64 as one); empty in an admin's
	// console. Codes are bounded per address.
	Addr    string
	Expires time.Time
	made    uint64 // order of making, to drop the oldest
}

// CodeKeeper keeps the codes across a restart: a server alone's store, or etcd.
type CodeKeeper interface {
	PutCode(Code) error
	DeleteCode(code string) error
}

// CodeBook keeps the one-time codes of keys add and of guests' claims: a code is good
// once, for CodeLife; each is written to keep too, so a restart keeps it for its time.
// Wrong codes are counted per key and per address, so a code cannot be guessed. It is
// safe for concurrent use.
//
// Codes shared with other servers (a realm's, in etcd) are taken where they are kept
// (Codes.TakeCode), once, whichever server made them; the book keeps this server's own
// codes only to bound them and count wrong ones, as a server alone does.
type CodeBook struct {
	mu    sync.Mutex
	codes map[string]CodeEntry
	tries map[string]codeTries // by fingerprint or address
	made  uint64
	now   func() time.Time // time.Now; a test moves it on
	keep  CodeKeeper       // nil keeps them in memory only
	// shared, when set, is where codes are taken (keep is it too): the codes of every
	// server that shares them; nil takes them from the book.
	shared Codes
	errs   []error // what keep failed at since the last add, for its caller to log

	pruned time.Time // when prune last ran: it runs at most once a second
}

// NewCodeBook is a book of codes kept in keep (nil: in memory only) and taken from
// shared (nil: from the book itself).
func NewCodeBook(keep CodeKeeper, shared Codes) *CodeBook {
	return &CodeBook{keep: keep, shared: shared}
}

// SetClock makes now the book's clock (nil: time.Now), for a test that moves it on.
func (cb *CodeBook) SetClock(now func() time.Time) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	cb.now = now
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

func (cb *CodeBook) clock() time.Time {
	if cb.now != nil {
		return cb.now()
	}
	return time.Now()
}

// Add keeps e under a new code and returns the code. A knight's waiting link code is
// replaced; past MaxCodesPerAddr of e's address its oldest goes, and past MaxCodes of
// e's kind the oldest of that kind made from the address that has made the most. The error is keep's, for any code it wrote or deleted: the code works
// all the same until a restart.
func (cb *CodeBook) Add(e CodeEntry) (string, error) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	now := cb.clock()
	cb.init()
	cb.prune(now)
	for c, old := range cb.codes {
		if e.Kind == CodeLink && old.Kind == CodeLink && old.Knight == e.Knight {
			cb.drop(c)
		}
	}
	if e.Addr != "" {
		cb.dropOldest(MaxCodesPerAddr, func(x CodeEntry) bool { return x.Addr == e.Addr })
	}
	cb.dropFairly(MaxCodes, e.Kind)
	cb.made++
	e.made, e.Expires = cb.made, now.Add(CodeLife)
	code := newCode()
	for cb.codes[code].Kind != 0 {
		code = newCode()
	}
	cb.codes[code] = e
	cb.write(code, e)
	err := errors.Join(cb.errs...)
	cb.errs = nil
	if err != nil && cb.shared != nil { // no realm could take it: it is no code
		delete(cb.codes, code)
		return "", errors.Join(ErrCodeNotKept, err)
	}
	return code, err
}

// ErrCodeNotKept is a code that could not be written where other servers take it: it
// was not given.
var ErrCodeNotKept = errors.New("the code could not be kept")

func (cb *CodeBook) init() {
	if cb.codes == nil {
		cb.codes, cb.tries = map[string]CodeEntry{}, map[string]codeTries{}
	}
}

// dropOldest drops the oldest codes that match until fewer than limit do; the caller
// holds mu.
func (cb *CodeBook) dropOldest(limit int, match func(CodeEntry) bool) {
	for {
		n := 0
		for _, e := range cb.codes {
			if match(e) {
				n++
			}
		}
		if n < limit {
			return
		}
		cb.drop(cb.oldest(match))
	}
}

// dropFairly drops codes of kind until fewer than limit are waiting: each time the
// oldest of the address that made the most (an admin's console's counts as one
// address), so departures from a few hundred addresses cannot push out the one code a
// guest from another was given. The caller holds mu.
func (cb *CodeBook) dropFairly(limit int, kind CodeKind) {
	for {
		per, n := map[string]int{}, 0
		for _, e := range cb.codes {
			if e.Kind == kind {
				per[e.Addr]++
				n++
			}
		}
		if n < limit {
			return
		}
		most := 0
		for _, k := range per {
			most = max(most, k)
		}
		cb.drop(cb.oldest(func(x CodeEntry) bool { return x.Kind == kind && per[x.Addr] == most }))
	}
}

// oldest is the oldest code that matches, "" for none; the caller holds mu.
func (cb *CodeBook) oldest(match func(CodeEntry) bool) string {
	oldest, first := "", uint64(0)
	for c, e := range cb.codes {
		if match(e) && (oldest == "" || e.made < first) {
			oldest, first = c, e.made
		}
	}
	return oldest
}

// drop forgets code, in keep too; the caller holds mu.
func (cb *CodeBook) drop(code string) {
	delete(cb.codes, code)
	if cb.keep != nil {
		if err := cb.keep.DeleteCode(code); err != nil {
			cb.errs = append(cb.errs, err)
		}
	}
}

// write keeps e under code in keep; the caller holds mu.
func (cb *CodeBook) write(code string, e CodeEntry) {
	if cb.keep == nil {
		return
	}
	if err := cb.keep.PutCode(e.stored(code)); err != nil {
		cb.errs = append(cb.errs, err)
	}
}

// stored is e kept under code, as the store and etcd keep it.
func (e CodeEntry) stored(code string) Code {
	c := Code{Code: code, Kind: e.Kind.String(), Knight: e.Knight, Addr: e.Addr, Expires: e.Expires}
	if e.Kind == CodeClaim {
		c.Guest = e.Guest
	}
	return c
}

// entryOf is the entry of a code kept; a claim code without its guest is none.
func entryOf(c Code) (CodeEntry, bool) {
	e := CodeEntry{Kind: CodeLink, Knight: c.Knight, Addr: c.Addr, Expires: c.Expires}
	if c.Kind == CodeClaim.String() {
		e.Kind, e.Guest = CodeClaim, c.Guest
	}
	return e, e.Kind == CodeLink || e.Guest != nil
}

// String is the kind's name in the store and in etcd.
func (k CodeKind) String() string {
	if k == CodeClaim {
		return "claim"
	}
	return "link"
}

// Load puts back the codes keep had when the server stopped, oldest first.
func (cb *CodeBook) Load(codes []Code) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	cb.init()
	slices.SortFunc(codes, func(a, b Code) int { return a.Expires.Compare(b.Expires) })
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
func (cb *CodeBook) prune(now time.Time) {
	if now.Sub(cb.pruned) < time.Second {
		return
	}
	cb.pruned = now
	for c, e := range cb.codes {
		if !now.Before(e.Expires) {
			cb.drop(c)
		}
	}
	for who, t := range cb.tries {
		if now.Sub(t.first) >= CodeLife {
			delete(cb.tries, who)
		}
	}
}

// Why a code was not taken.
var (
	// ErrBadCode is a code not kept, used or expired.
	ErrBadCode = errors.New("no such code")
	// ErrTooManyBad is a key or address that gave MaxCodeTries wrong codes in CodeLife.
	ErrTooManyBad = errors.New("too many wrong codes")
	// ErrWrongKind is a code of the other kind: it stays, for its own.
	ErrWrongKind = errors.New("a code of another kind")
	// ErrCodesUnread is codes shared with other servers that could not be read.
	ErrCodesUnread = errors.New("the codes could not be read")
)

// Take returns the entry of code, of the kind asked, and forgets it: a code is good
// once. Who gave it (fingerprints, an address) is counted on a wrong code; past
// MaxCodeTries in CodeLife even a good code is refused.
func (cb *CodeBook) Take(code string, kind CodeKind, who ...string) (CodeEntry, error) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	now := cb.clock()
	cb.init()
	cb.prune(now)
	defer func() { cb.errs = nil }() // a code taken is forgotten in keep at its best; an expired one goes at the next start
	for _, w := range who {
		if t := cb.tries[w]; t.n >= MaxCodeTries && now.Sub(t.first) < CodeLife {
			return CodeEntry{}, ErrTooManyBad
		}
	}
	code = strings.ToUpper(strings.TrimSpace(code))
	var e CodeEntry
	var err error
	if cb.shared != nil {
		e, err = cb.takeShared(code, kind, now)
	} else {
		e, err = cb.takeHere(code, kind, now)
	}
	if errors.Is(err, ErrBadCode) || errors.Is(err, ErrWrongKind) {
		cb.miss(now, who)
	}
	return e, err
}

// takeHere takes code from the book; the caller holds mu.
func (cb *CodeBook) takeHere(code string, kind CodeKind, now time.Time) (CodeEntry, error) {
	e, ok := cb.codes[code]
	if ok && !now.Before(e.Expires) {
		cb.drop(code)
		ok = false
	}
	switch {
	case ok && e.Kind != kind:
		return CodeEntry{}, ErrWrongKind
	case !ok:
		return CodeEntry{}, ErrBadCode
	}
	cb.drop(code)
	return e, nil
}

// takeShared takes code from etcd, whichever realm made it; the caller holds mu (takes
// here wait for each other: they are a player's commands, few).
func (cb *CodeBook) takeShared(code string, kind CodeKind, now time.Time) (CodeEntry, error) {
	c, err := cb.shared.TakeCode(code, kind.String(), now)
	switch {
	case errors.Is(err, ErrCodeKind):
		return CodeEntry{}, ErrWrongKind
	case errors.Is(err, ErrNotFound):
		delete(cb.codes, code)
		return CodeEntry{}, ErrBadCode
	case err != nil:
		return CodeEntry{}, errors.Join(ErrCodesUnread, err)
	}
	delete(cb.codes, code) // made here: it no longer counts against the bounds
	e, ok := entryOf(c)
	if !ok {
		return CodeEntry{}, ErrBadCode
	}
	return e, nil
}

// miss counts a wrong code against who; the caller holds mu.
func (cb *CodeBook) miss(now time.Time, who []string) {
	if len(cb.tries) >= MaxTriers {
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

// GiveBack puts an entry taken but not used (the key was refused) back under its code,
// until it expires as before.
func (cb *CodeBook) GiveBack(code string, e CodeEntry) {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	if cb.clock().Before(e.Expires) {
		code = strings.ToUpper(strings.TrimSpace(code))
		cb.codes[code] = e
		cb.write(code, e)
		cb.errs = nil
	}
}

// Len is the number of codes waiting.
func (cb *CodeBook) Len() int {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	return len(cb.codes)
}
