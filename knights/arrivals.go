package knights

import (
	"errors"
	"slices"
	"sync"
	"time"
)

// Arrivals is which knight a key plays as it opens a session: the one its key leads to,
// or, for a key with none that opens a game, a new knight bound to the key for the
// session's time (Keeper.Bind) and written with its first sheet. Each new knight is kept
// for ever and takes a name, so an address makes at most so many an hour: a place is
// reserved when a key with no knight opens a game, and given back when the game ends
// without a knight made. It is safe for concurrent use.
type Arrivals struct {
	keeper  Keeper
	perHour int
	now     func() time.Time

	mu   sync.Mutex
	made map[string][]time.Time // new knights' times by address, the last hour's
}

// maxArrivalAddrs is how many addresses' counts are kept before the old ones are swept.
const maxArrivalAddrs = 10000

// ErrTooManyKnights refuses a key with no knight a game, when its address has made its
// new knights of the hour.
var ErrTooManyKnights = errors.New("too many new knights from this address")

// NewArrivals is the arrivals of keeper's knights, perHour new knights an address an
// hour, on the clock now (nil: time.Now).
func NewArrivals(keeper Keeper, perHour int, now func() time.Time) *Arrivals {
	if now == nil {
		now = time.Now
	}
	return &Arrivals{keeper: keeper, perHour: perHour, now: now, made: map[string][]time.Time{}}
}

// KnightOf is the id of the knight the key fp plays, "" for a key that plays none (or
// a guest's empty fingerprint).
func (a *Arrivals) KnightOf(fp string) (string, error) {
	k, err := a.keyOf(fp)
	return k.Knight, err
}

// keyOf is the key fp as kept; one with no Knight for a key that plays none (or a
// guest's empty fingerprint).
func (a *Arrivals) keyOf(fp string) (Key, error) {
	if fp == "" {
		return Key{}, nil
	}
	k, err := a.keeper.KeyOf(fp)
	if errors.Is(err, ErrNotFound) {
		return Key{}, nil
	}
	return k, err
}

// Arrive is key (its fingerprint, type, and where it is used from) as the keeper has it
// once it arrives: the knight it plays (Knight; none for a key with none outside a
// game), its last use as kept. A key with no knight that opens a game (game) gets a new
// one, bound to key for the session's time and counted against addr (an address as the
// limits count it); release ends what Arrive holds, when the session ends. A second
// session of a key that was just given a knight plays that one.
func (a *Arrivals) Arrive(key Key, addr string, game bool) (kept Key, release func(), err error) {
	if kept, err = a.keyOf(key.Fingerprint); err != nil || kept.Knight != "" || !game {
		return kept, func() {}, err
	}
	key.Knight = NewKnightID()
	unbind := a.keeper.Bind(key)
	if k, err := a.keeper.KeyOf(key.Fingerprint); err == nil && k.Knight != key.Knight {
		return k, unbind, nil
	}
	undo, ok := a.reserve(addr)
	if !ok {
		unbind()
		return Key{}, func() {}, ErrTooManyKnights
	}
	return key, func() {
		unbind()
		if _, err := a.keeper.KeyOf(key.Fingerprint); errors.Is(err, ErrNotFound) {
			undo() // the session made no knight after all
		}
	}, nil
}

// reserve counts a new knight from addr now, unless addr has made perHour in the last
// hour; undo takes it back.
func (a *Arrivals) reserve(addr string) (undo func(), ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	recent := func(addr string) []time.Time {
		ts := slices.DeleteFunc(a.made[addr], func(t time.Time) bool { return now.Sub(t) >= time.Hour })
		if len(ts) == 0 {
			delete(a.made, addr)
		}
		return ts
	}
	if len(a.made) >= maxArrivalAddrs {
		for other := range a.made {
			recent(other)
		}
	}
	ts := recent(addr)
	if len(ts) >= a.perHour {
		return nil, false
	}
	a.made[addr] = append(ts, now)
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if i := slices.Index(a.made[addr], now); i >= 0 {
			a.made[addr] = slices.Delete(a.made[addr], i, i+1)
		}
	}, true
}
