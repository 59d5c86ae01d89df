package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Replays as asciicast files: GET /replay/ID.cast is the public replay of a
// death or a retirement that the page links, drawn at 80×24 by the server's CastFunc. A
// cast costs the server real work (reading and drawing every frame of up to 5 minutes),
// so at most MaxCasts are made at once, a request waits at most castWait for its turn, and
// the newest castKept are kept: a kept record never changes, so neither does its cast.
// A request for a cast not kept (to be made, or none the public may see) is counted
// against its client's allowance of them: castMisses at once, then one a castMissEvery,
// beyond which it is answered 429; a cast kept is served whatever the allowance. So
// visitors asking for casts nobody else has asked for, each at the page's rate, make a
// few a second between them, not one for every request.

// CastFunc makes the asciicast file of the public replay named id (as the status's links
// give it); ErrNoCast when there is none the public may see.
type CastFunc func(ctx context.Context, id string) ([]byte, error)

// ErrNoCast is a replay that is not kept, or that its knight keeps private.
var ErrNoCast = errors.New("no public replay of that name")

// CastType is an asciicast file's media type.
const CastType = "application/x-asciicast"

// Tuning of the casts:
//
//	constant         value   effect
//	DefaultMaxCasts  2       casts made at once, from all requests (one core each while it lasts)
//	castWait         5 s     how long a request waits for its turn before a 503
//	castKept         16      casts kept made, the newest asked for; each is bounded by the server
//	castMisses       3       requests for casts not kept one client address may make at once
//	castMissEvery    20 s    and then one each this often (a cast plays for up to 5 minutes)
const (
	DefaultMaxCasts = 2
	castWait        = 5 * time.Second
	castKept        = 16
	castMisses      = 3
	castMissEvery   = 20 * time.Second
)

// CastPath is the page's address of the replay id.
func CastPath(id string) string { return "/replay/" + id + ".cast" }

// casts are the made casts kept, and the turns to make more.
type casts struct {
	make   CastFunc
	shown  func(ctx context.Context, id string) bool // nil: a cast kept is served
	turns  chan struct{}
	wait   time.Duration // castWait; tests shorten it
	misses *limiter      // each client address's allowance of requests for casts not kept
	mu     sync.Mutex
	kept   map[string][]byte
	order  []string // ids of kept, oldest asked for first
}

func newCasts(f CastFunc, max int) *casts {
	if max <= 0 {
		max = DefaultMaxCasts
	}
	return &casts{make: f, turns: make(chan struct{}, max), wait: castWait, kept: map[string][]byte{},
		misses: newLimiter(1/castMissEvery.Seconds(), castMisses)}
}

// get is the cast of id, kept or made now for the client addr (its key) at now:
// errCastMisses when the client may ask for no more casts not kept just now.
func (c *casts) get(ctx context.Context, id, addr string, now time.Time) ([]byte, error) {
	if b := c.lookup(id); b != nil {
		if c.shown != nil && !c.shown(ctx, id) {
			c.forget(id)
			return nil, ErrNoCast
		}
		return b, nil
	}
	if ok, _ := c.misses.take(addr, now); !ok {
		return nil, errCastMisses
	}
	wait := time.NewTimer(c.wait)
	defer wait.Stop()
	select {
	case c.turns <- struct{}{}:
	case <-wait.C:
		return nil, errCastsBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.turns }()
	if b := c.lookup(id); b != nil {
		return b, nil // made while this request waited
	}
	b, err := c.make(ctx, id)
	if err != nil {
		return nil, err
	}
	c.keep(id, b)
	return b, nil
}

var (
	errCastsBusy  = errors.New("casts busy")
	errCastMisses = errors.New("over the client's allowance of casts not kept")
)

// lookup is id's cast if it is kept, which makes it the newest asked for: the casts
// people watch stay made while casts asked for once are pushed out.
func (c *casts) lookup(id string) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.kept[id]
	if ok {
		i := slices.Index(c.order, id)
		c.order = append(slices.Delete(c.order, i, i+1), id)
	}
	return b
}

// forget drops id's cast.
func (c *casts) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.kept[id]; ok {
		delete(c.kept, id)
		c.order = slices.DeleteFunc(c.order, func(x string) bool { return x == id })
	}
}

// keep keeps b as id's cast, forgetting the oldest past castKept.
func (c *casts) keep(id string, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.kept[id]; !ok {
		c.order = append(c.order, id)
	}
	c.kept[id] = b
	for len(c.order) > castKept {
		delete(c.kept, c.order[0])
		c.order = c.order[1:]
	}
}

// castID reads the id of a cast's file name: ID.cast, the id made of letters, digits
// and dashes.
func castID(file string) (string, bool) {
	id, ok := strings.CutSuffix(file, ".cast")
	if !ok || id == "" || len(id) > 64 {
		return "", false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return "", false
		}
	}
	return id, true
}

func (h *Handler) serveCast(w http.ResponseWriter, r *http.Request) {
	id, ok := castID(r.PathValue("file"))
	if !ok || h.casts == nil {
		http.Error(w, "no public replay at this address: replays are at /replay/ID.cast, linked from the page", http.StatusNotFound)
		return
	}
	b, err := h.casts.get(r.Context(), id, h.clientKey(r), h.now())
	switch {
	case errors.Is(err, ErrNoCast):
		http.Error(w, "no public replay of that name: it is not kept (the oldest go first), or its knight keeps it private", http.StatusNotFound)
		return
	case errors.Is(err, errCastMisses):
		w.Header().Set("Retry-After", strconv.Itoa(int(castMissEvery.Seconds())))
		http.Error(w, "too many replays asked for that nobody else has; try again in a moment", http.StatusTooManyRequests)
		return
	case errors.Is(err, errCastsBusy):
		w.Header().Set("Retry-After", "5")
		http.Error(w, "the server is busy drawing other replays; try again in a moment", http.StatusServiceUnavailable)
		return
	case err != nil:
		if r.Context().Err() == nil {
			h.log.Error("web: make a replay's cast", "id", id, "err", err)
		}
		http.Error(w, "the replay could not be drawn just now; try again later", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", CastType)
	w.Header().Set("Access-Control-Allow-Origin", "*") // public, for asciinema's web player on other pages
	if h.cacheHeaders(w, r, b, time.Time{}) {
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(b)
}
