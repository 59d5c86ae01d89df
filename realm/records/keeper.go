package records

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// callTimeout bounds one call to etcd.
const callTimeout = 5 * time.Second

// Keeper is a realm's knights.Keeper: the records every realm shares in etcd, and the
// knights this realm plays, each claimed when its game opens (taken from the realm that
// holds it), written only under that claim, and checked in when its last session here
// ends.
type Keeper struct {
	*Store
	r      *realm.Realm
	sheets *sheets
	ttl    time.Duration
	log    *slog.Logger

	mu       sync.Mutex
	arrivals map[string]arrival // what claims here read for their sessions, by knight (Arrived)
}

var _ knights.Keeper = (*Keeper)(nil)

// KeeperConfig is what a realm's keeper is told of and tells.
type KeeperConfig struct {
	// Realm is this realm, open on the records' etcd; TTL its lease.
	Realm *realm.Realm
	TTL   time.Duration
	Log   *slog.Logger
	// Lost is told of a knight whose claim went while it played here; Beaten of a new
	// knight not kept, because another realm bound its key first.
	Lost, Beaten func(knight string)
	// Mailed is told of each mailbox written, for the other realms to read it anew;
	// Merged of a mailbox merged with another realm's writes, for the world.
	Mailed func(knight string)
	Merged func(knight string, letters []world.Letter)
}

// NewKeeper is the keeper of cfg.Realm's knights in st.
func NewKeeper(st *Store, cfg KeeperConfig) *Keeper {
	s := newSheets(cfg.Realm.Name(), st, cfg.Log)
	if cfg.Lost != nil {
		s.lost = cfg.Lost
	}
	if cfg.Beaten != nil {
		s.beat = cfg.Beaten
	}
	if cfg.Mailed != nil {
		s.mailed = cfg.Mailed
	}
	if cfg.Merged != nil {
		s.merged = cfg.Merged
	}
	return &Keeper{Store: st, r: cfg.Realm, sheets: s, ttl: cfg.TTL, log: cfg.Log, arrivals: map[string]arrival{}}
}

// Name is the realm's name.
func (k *Keeper) Name() string { return k.r.Name() }

// Done is closed when the realm stops: cut off from etcd, its lease gone, or closed.
func (k *Keeper) Done() <-chan struct{} { return k.r.Done() }

// Err implements knights.Keeper: knights.ErrStopped, with why, once the realm stopped.
func (k *Keeper) Err() error {
	if err := k.r.Err(); err != nil {
		return fmt.Errorf("%w: %w", knights.ErrStopped, err)
	}
	return nil
}

// KeyOf implements knights.Keeper: a key bound here, or the shared one.
func (k *Keeper) KeyOf(fp string) (knights.Key, error) { return k.sheets.keyOf(fp) }

// Bind implements knights.Keeper.
func (k *Keeper) Bind(key knights.Key) (release func()) { return k.sheets.bind(key) }

// Knight implements knights.Keeper: the newest sheet of a knight held here, or its
// shared one.
func (k *Keeper) Knight(id string) (world.Adventurer, error) { return k.sheets.load(id) }

// Put implements knights.Keeper: each record is written under its knight's claim.
func (k *Keeper) Put(recs ...world.Adventurer) { k.sheets.Put(recs...) }

// PutMail implements knights.Keeper: the mailbox is merged with other realms' writes.
func (k *Keeper) PutMail(to string, letters []world.Letter) { k.sheets.putMail(to, letters) }

// SeedMail notes the mailboxes read at start as this realm's last sight of them.
func (k *Keeper) SeedMail(mail map[string][]world.Letter) { k.sheets.seedMail(mail) }

// Flush implements knights.Keeper.
func (k *Keeper) Flush() error {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return k.sheets.flush(ctx)
}

// Run writes what the world files, until ctx ends.
func (k *Keeper) Run(ctx context.Context) { k.sheets.run(ctx) }

// Collectors are the keeper's metrics: how far etcd is behind the world.
func (k *Keeper) Collectors() []prometheus.Collector { return k.sheets.collectors() }

// Claim implements knights.Keeper: a knight another session here plays is shared; one
// another realm holds is called here (calling told first), and arrives at this realm's
// entrance. What the session brings besides the sheet is read with the claim (Arrived).
func (k *Keeper) Claim(ctx context.Context, id string, calling func(where string)) error {
	if k.r.Err() != nil {
		return knights.ErrStopped
	}
	if k.sheets.join(id) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, k.ttl+callTimeout)
	defer cancel()
	f, err := k.take(ctx, id, calling)
	if err != nil {
		return elsewhere(err)
	}
	sheet, renamed, err := k.sheetOf(f)
	if err != nil {
		_ = f.Release(ctx)
		return err
	}
	k.sheets.hold(f, sheet)
	if f.Err() != nil { // the realm stopped meanwhile: the claim writes nothing
		k.sheets.dropStopped()
		return knights.ErrStopped
	}
	k.mu.Lock()
	k.arrivals[id] = arrival{f: f, renamed: renamed}
	k.mu.Unlock()
	return nil
}

// Reopen starts the realm anew after it stopped (realm.Reopen: the old lease revoked,
// the name on a new one), once no session plays a knight of the old term: those
// knights are forgotten here, as their claims can write no more.
func (k *Keeper) Reopen(ctx context.Context) error {
	k.sheets.dropStopped()
	return k.r.Reopen(ctx)
}

// take claims id, calling it from the realm that holds it (calling told), and waiting
// while this realm's own last hold of it ends (a session that has just left and is
// checking it in).
func (k *Keeper) take(ctx context.Context, id string, calling func(where string)) (*realm.Fenced, error) {
	opt := realm.TakeOptions{Read: claimReads(id), Asked: calling}
	for {
		f, err := k.r.TakeWith(ctx, id, opt)
		var held *realm.ClaimedError
		if !errors.As(err, &held) || !held.Here {
			return f, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// sheetOf is the knight's sheet the claim read, nil for a knight never saved, with the
// name it had before a pending rename the claim applied ("" for none). A knight that
// comes from another realm starts at this realm's entrance: levels and squares are each
// realm's own.
func (k *Keeper) sheetOf(f *realm.Fenced) (*world.Adventurer, string, error) {
	if f.Sheet() == nil {
		return nil, "", nil
	}
	a, from, err := DecodeSheet(f.Knight(), f.Sheet())
	if err != nil {
		return nil, "", err
	}
	if from != k.r.Name() {
		a.Depth, a.X, a.Y = 1, -1, -1
		k.log.Info("realm: a knight arrives", "knight", a.ID, "from", from)
	}
	old, err := k.takeRename(&a, f)
	if err != nil {
		return nil, "", err
	}
	return &a, old, nil
}

// Leave implements knights.Keeper: the last session here checks the knight in, its
// newest record written and its claim let go in one transaction.
func (k *Keeper) Leave(ctx context.Context, id string) error {
	k.forgetArrival(id)
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return k.sheets.leave(ctx, id)
}

// LetGo checks knight id in whatever sessions here hold it: another realm asked for it.
func (k *Keeper) LetGo(ctx context.Context, id string) error {
	k.forgetArrival(id)
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return k.sheets.leaveAll(ctx, id)
}

// ReadMail reads the mailbox of id from etcd, for the world (one another realm wrote
// to; a knight claimed here has it read with its claim, Arrived); ok is false while a
// write of this realm's own waits: it merges, and the world is handed the result. Handed
// is to be told of what the world holds once it has it.
func (k *Keeper) ReadMail(id string) (letters []world.Letter, ok bool, err error) {
	box, rev, err := k.MailAt(id)
	if err != nil {
		return nil, false, err
	}
	return box.Letters, k.sheets.sawMail(id, box, rev), nil
}

// Handed notes a mailbox the world was handed, once it replaced its own.
func (k *Keeper) Handed(id string, letters []world.Letter) { k.sheets.handed(id, letters) }

// Close checks in every knight still held, writes the mailboxes waiting and closes the
// realm; the etcd client is its opener's to close.
func (k *Keeper) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	err := k.sheets.checkInAll(ctx)
	return errors.Join(err, k.sheets.flushMail(), k.r.Close())
}

// elsewhere is err with a realm's claim of another realm (or of this one, letting go)
// as the knights' own error.
func elsewhere(err error) error {
	var held *realm.ClaimedError
	if errors.As(err, &held) {
		return &knights.ElsewhereError{Knight: held.Knight, Where: held.Holder, Here: held.Here}
	}
	return err
}
