package webpage

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The web page's replays: each hall-of-fame entry and each recent death whose
// record is kept, and not private, links its asciicast file, which the page asks Cast
// for. The cast is the watching screen a replay's session shows, drawn at 80×24 by the
// app's own Model with no program (app.Headless), over the public timeline.
//
//	constant       value    effect
//	castWidth      80       columns of a cast
//	castHeight     24       rows of a cast: the screen is drawn in the 23 above the last
//	castIdle       2 s      a longer stretch with nothing drawn is cut to this, and said in the header
//	castMaxBytes   8 MB     a cast past this is made again from the last half of its record, down to castMinWindow
//	castMinWindow  30 s     the shortest end of a record a cast is made of
//	castMatch      1 min    a record of no life told belongs to the end of a knight of none this close in time
const (
	castWidth     = 80
	castHeight    = 24
	castIdle      = replay.IdleCut
	castMaxBytes  = 8 << 20
	castMinWindow = 30 * time.Second
	castMatch     = time.Minute
)

// CastID names a kept record on the page (its cast is at web.CastPath(CastID(r))), as
// store.Replay.ID does everywhere.
func CastID(r store.Replay) string { return r.ID() }

// keptList is the kept deaths and retirements by id (CastID), as last listed. Listing
// them reads every kept record, after the recorder and the writer have filed what they
// hold, so a cast's request does not: it is answered from a listing at most keptFresh
// old, a cast asked for that is not in it is none (ErrNoCast) however many are asked for,
// and one that is, is read alone. The page's status lists them anew each time it is
// gathered (at most every web.CacheFor), so every cast it links is in the listing.
type keptList struct {
	mu   sync.Mutex // held while listing: one at a time, a cast's request waiting shares it
	at   time.Time  // when byID was listed
	byID map[string]store.Replay
	now  func() time.Time // time.Now when nil; tests move it
}

// time is the list's clock.
func (k *keptList) time() time.Time {
	if k.now != nil {
		return k.now()
	}
	return time.Now()
}

// keptFresh is how old a listing of the kept records may be for a cast's request: as old
// as the page's status.
const keptFresh = web.CacheFor

// listKept lists the kept deaths and retirements anew, and keeps them by id; the caller
// holds p.kept.mu.
func (p *Page) listKept() ([]store.Replay, error) {
	at := p.kept.time()
	kept, err := p.Replays.Kept(func(r store.Replay) bool {
		return r.Kind == string(replay.KindDeath) || r.Kind == string(replay.KindRetired)
	})
	if err != nil {
		return nil, err
	}
	byID := make(map[string]store.Replay, len(kept))
	for _, r := range kept {
		byID[CastID(r)] = r // the last of an id, as before
	}
	p.kept.byID, p.kept.at = byID, at
	return kept, nil
}

// keptByID is the kept deaths and retirements by id, listed anew when the last listing
// is keptFresh old. The map is never changed after: a listing makes another.
func (p *Page) keptByID() (map[string]store.Replay, error) {
	p.kept.mu.Lock()
	defer p.kept.mu.Unlock()
	if p.kept.byID != nil && p.kept.time().Sub(p.kept.at) < keptFresh {
		return p.kept.byID, nil
	}
	if _, err := p.listKept(); err != nil {
		return nil, err
	}
	return p.kept.byID, nil
}

// KeptChanged says a kept record has gone (an admin removed it): the next cast asked for
// lists them anew, so a cast made of it before is served no more.
func (p *Page) KeptChanged() {
	p.kept.mu.Lock()
	p.kept.byID = nil
	p.kept.mu.Unlock()
}

// publicKept lists the kept records the page may link: deaths and retirements that
// anyone may see now. None when the server records no replays.
func (p *Page) publicKept(ctx context.Context) ([]store.Replay, error) {
	if p.Replays == nil {
		return nil, nil
	}
	p.kept.mu.Lock()
	kept, err := p.listKept()
	p.kept.mu.Unlock()
	if err != nil {
		return nil, err
	}
	// Asked after the listing, not within it: the privacy is read from the knights'
	// records, which the listing's read of the store must not wait on.
	return slices.DeleteFunc(kept, func(r store.Replay) bool { return !p.Replays.Public(ctx, r) }), nil
}

// castLink is the page's address of the record of a's end of kind, at, or "". A record
// is linked only when it is that knight's: the same id and the same life (a key's later
// knights share an id; a life is told by when the knight was named, Created). A knight
// named before lives were told apart has no Created, nor have its records a life: its
// record is the one kept within castMatch of its end, as before.
func castLink(kept []store.Replay, a world.Adventurer, kind replay.Kind, at time.Time) string {
	for i := len(kept) - 1; i >= 0; i-- {
		r := kept[i]
		if r.Knight != a.ID || r.Kind != string(kind) || !r.Born.Equal(a.Created) {
			continue
		}
		if !a.Created.IsZero() || r.At.Sub(at).Abs() <= castMatch {
			return web.CastPath(CastID(r))
		}
	}
	return ""
}

// Cast is the asciicast file of the public record named id (web.CastFunc);
// web.ErrNoCast when no public record is kept by that name.
func (p *Page) Cast(ctx context.Context, id string) ([]byte, error) {
	r, ok, err := p.shown(ctx, id)
	if err != nil || !ok {
		return nil, cmp.Or(err, web.ErrNoCast)
	}
	chunks, err := p.Replays.Chunks(r)
	if errors.Is(err, store.ErrNotFound) {
		return nil, web.ErrNoCast
	}
	if err != nil {
		return nil, err
	}
	ms := replay.Last(replay.Timeline(chunks, true), r.Window)
	return castOf(ctx, r, ms, p.Tick)
}

// CastShown reports whether the record named id is kept and anyone may see it now
// (web.Options.CastShown): a cast made before is served again only then.
func (p *Page) CastShown(ctx context.Context, id string) bool {
	_, ok, err := p.shown(ctx, id)
	return ok && err == nil
}

// shown is the record named id, if it is kept (keptByID), a death or a retirement, and
// anyone may see it now. Its privacy is asked after the listing, outside its read of the
// store, and every time: a knight's replays made private are hidden at once.
func (p *Page) shown(ctx context.Context, id string) (store.Replay, bool, error) {
	if p.Replays == nil {
		return store.Replay{}, false, nil
	}
	byID, err := p.keptByID()
	if err != nil {
		return store.Replay{}, false, err
	}
	r, ok := byID[id]
	if !ok {
		return store.Replay{}, false, nil
	}
	return r, p.Replays.Public(ctx, r), nil
}

// castOf draws ms as a cast of r at castWidth×castHeight; a cast too big is made again
// of the last half of ms, and so on.
func castOf(ctx context.Context, r store.Replay, ms []replay.Moment, tick time.Duration) ([]byte, error) {
	what := map[string]string{string(replay.KindDeath): "death", string(replay.KindRetired): "retirement"}[r.Kind]
	began := r.At // asciicast v2's timestamp is when the recording began: the record's first moment
	if len(ms) > 0 {
		began = r.At.Add(-ms[len(ms)-1].At)
	}
	h := replay.CastHeader{Width: castWidth, Height: castHeight, Timestamp: began, IdleLimit: castIdle,
		Term: "xterm-256color", Title: fmt.Sprintf("The %s of %s", what, r.Name)}
	window := r.Window
	for {
		b, err := drawCast(ctx, h, r.Name, ms, tick)
		if !errors.Is(err, replay.ErrCastTooBig) || window/2 < castMinWindow || len(ms) < 2 {
			return b, err
		}
		window /= 2
		ms = replay.Last(ms, window)
	}
}

// drawCast draws one cast: the replay held at each moment in turn, each frame's bytes an
// event (the first with the screen's setup).
func drawCast(ctx context.Context, h replay.CastHeader, name string, ms []replay.Moment, tick time.Duration) ([]byte, error) {
	var out, frame bytes.Buffer
	stand := replay.NewStand(name, ms)
	// Drawn a row shorter than the cast: its end leaves the cursor on the last row,
	// empty, where a shell's prompt after asciinema play covers nothing of the frame.
	hl := app.NewHeadless(stand, h.Width, h.Height-1, tick, &frame)
	take := func() []byte { // read before the next frame is drawn
		b := frame.Bytes()
		frame.Reset()
		return b
	}
	draw := func(_ int, m replay.Moment) []byte {
		stand.At = m.At
		hl.Draw(m.View)
		return take()
	}
	end := func() []byte { hl.End(); return take() }
	if err := replay.WriteCast(ctx, &out, h, ms, draw, end, castMaxBytes); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
