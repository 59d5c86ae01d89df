package memory_test

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/memory"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// openStoreKeeper is a server alone's keeper on a bbolt store of the test's, its saver
// flushed by the steps themselves.
func openStoreKeeper(t *testing.T) knights.Keeper {
	st, err := store.Open(filepath.Join(t.TempDir(), "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return store.NewKeeper(st, store.NewSaver(st, nil))
}

// keeperOutcome is what a keeper's error says, as a test of either keeper can tell.
func keeperOutcome(err error) string {
	for _, e := range []error{knights.ErrNotFound, knights.ErrHasKnight, knights.ErrSameKnight, knights.ErrNameTaken} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	if err != nil {
		return "error"
	}
	return "ok"
}

// keeperStep is one call on a keeper, and what it answered.
type keeperStep struct {
	name string
	do   func(k knights.Keeper) []any
}

// giveTo gives key fp to knight (a new one when given is set), as g's other fields say.
func giveTo(fp, knight string, given *world.Adventurer, g knights.Give) func(k knights.Keeper) []any {
	return func(k knights.Keeper) []any {
		g.Key = knights.Key{Fingerprint: fp, Knight: knight, Comment: "step", Added: g.At}
		g.Knight = given
		done, err := k.Give(context.Background(), g)
		return []any{done, keeperOutcome(err)}
	}
}

// put puts recs and writes them.
func put(recs ...world.Adventurer) func(k knights.Keeper) []any {
	return func(k knights.Keeper) []any {
		k.Put(recs...)
		return []any{keeperOutcome(k.Flush())}
	}
}

// state is everything kept of knights and keys ids and fps: what a step left.
func state(ids, fps []string) func(k knights.Keeper) []any {
	return func(k knights.Keeper) []any {
		var out []any
		for _, id := range ids {
			a, err := k.LoadAdventurer(id)
			keys, err2 := k.KeysOf(id)
			out = append(out, a, keeperOutcome(err), keys, keeperOutcome(err2))
		}
		for _, fp := range fps {
			key, err := k.KeyOf(fp)
			out = append(out, key, keeperOutcome(err))
		}
		n, err := k.CountKnights()
		names, err2 := k.KnightNames()
		mail, err3 := k.Mail()
		tombs, err4 := k.Tombstones()
		return append(out, n, names, mail, tombs, keeperOutcome(errors.Join(err, err2, err3, err4)))
	}
}

// undated is step with its tombstones' times zero: a Put's tombstone is dated by the
// clock.
func undated(step func(k knights.Keeper) []any) func(k knights.Keeper) []any {
	return func(k knights.Keeper) []any {
		out := step(k)
		for _, v := range out {
			if tombs, ok := v.([]knights.Tombstone); ok {
				for i := range tombs {
					tombs[i].Died = time.Time{}
				}
			}
		}
		return out
	}
}

var (
	stepAt   = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	kay      = world.Adventurer{ID: "K-1", Name: "Kay", Level: 4, Depth: 2, Experience: 300, Turn: 77}
	bors     = world.Adventurer{ID: "K-2", Name: "Bors", Level: 1}
	gawain   = world.Adventurer{ID: "K-3", Name: "Gawain"}
	stepIDs  = []string{"K-1", "K-2", "K-3", "K-9"}
	stepKeys = []string{"SHA256:a", "SHA256:b", "SHA256:c", "SHA256:d"}
)

// giveSteps are the gives the Keeper suite leaves out, or does not look at all round:
// a knight kept already, or never, a key given undated, a Remove that leaves a knight
// keyless, or is another knight's key, or none.
var giveSteps = []keeperStep{
	{"give a to K-1, new", giveTo("SHA256:a", "K-1", &kay, knights.Give{At: stepAt})},
	{"give b to K-1, new again", giveTo("SHA256:b", "K-1", &kay, knights.Give{At: stepAt})},
	{"give b to K-9, never kept", giveTo("SHA256:b", "K-9", nil, knights.Give{At: stepAt})},
	{"give b to K-2 as K-3", giveTo("SHA256:b", "K-2", &gawain, knights.Give{At: stepAt})},
	{"give b to K-1", giveTo("SHA256:b", "K-1", nil, knights.Give{At: stepAt.Add(time.Minute)})},
	{"give a to K-1 again, undated", giveTo("SHA256:a", "K-1", nil, knights.Give{})},
	{"mail K-1", func(k knights.Keeper) []any {
		k.PutMail("K-1", []world.Letter{{From: "Bors", To: "Kay", Text: "hi", Sent: stepAt}})
		return []any{keeperOutcome(k.Flush())}
	}},
	{"state", state(stepIDs, stepKeys)},
	{"give a to K-2, new, removing b", giveTo("SHA256:a", "K-2", &bors, knights.Give{Remove: "SHA256:b", At: stepAt})},
	{"state after a refusal", state(stepIDs, stepKeys)},
	{"give a to K-2, new, undated", giveTo("SHA256:a", "K-2", &bors, knights.Give{})},
	{"give c to K-3, new", giveTo("SHA256:c", "K-3", &gawain, knights.Give{At: stepAt})},
	{"give b to K-3, undated, replacing K-1", giveTo("SHA256:b", "K-3", nil,
		knights.Give{Replace: true, Death: world.Death{Killer: "a claim"}, At: stepAt.Add(time.Hour)})},
	{"state after K-1 went", state(stepIDs, stepKeys)},
	{"give d to K-2 removing K-3's c", giveTo("SHA256:d", "K-2", nil, knights.Give{Remove: "SHA256:c", At: stepAt})},
	{"give c to K-3 removing a key of no knight", giveTo("SHA256:c", "K-3", nil, knights.Give{Remove: "SHA256:z", At: stepAt})},
	{"state at last", state(stepIDs, stepKeys)},
}

// bindSteps: a bound key released while its knight's first sheet is written, a dead
// knight's key that rolls a new knight, a rename.
var bindSteps = []keeperStep{
	{"bind d to K-1 and let it go", func(k knights.Keeper) []any {
		release := k.Bind(knights.Key{Fingerprint: "SHA256:d", Knight: "K-1", Added: stepAt})
		release()
		key, err := k.KeyOf("SHA256:d")
		return []any{key, keeperOutcome(err)}
	}},
	{"bind d to K-1 and put", func(k knights.Keeper) []any {
		release := k.Bind(knights.Key{Fingerprint: "SHA256:d", Knight: "K-1", Added: stepAt})
		k.Put(kay)
		release()
		return []any{keeperOutcome(k.Flush())}
	}},
	{"K-1 dies", put(func() world.Adventurer { a := kay.Clone(); a.Death = &world.Death{Killer: "a Wraith"}; return a }())},
	{"give d to K-2, new, leaving dead K-1", giveTo("SHA256:d", "K-2", &bors, knights.Give{At: stepAt})},
	{"rename K-2", func(k knights.Keeper) []any {
		return []any{keeperOutcome(k.Rename(context.Background(), "K-2", "Bors", "Sir Bors"))}
	}},
	{"rename K-9, never kept", func(k knights.Keeper) []any {
		return []any{keeperOutcome(k.Rename(context.Background(), "K-9", "", "Nobody"))}
	}},
	{"state", undated(state(stepIDs, stepKeys))},
}

// The keeper in memory answers as a server alone's does (store.Keeper), step by step,
// in the cases the Keeper suite leaves out; names aside, which it claims.
func TestTheKeeperAnswersAsTheStoresKeeper(t *testing.T) {
	for name, steps := range map[string][]keeperStep{"give": giveSteps, "bind": bindSteps} {
		t.Run(name, func(t *testing.T) {
			st, mem := openStoreKeeper(t), memory.NewKeeper()
			for _, s := range steps {
				want, got := s.do(st), s.do(mem)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\nmemory %+v\n store %+v", s.name, got, want)
				}
			}
		})
	}
}
