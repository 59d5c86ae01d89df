package memory

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// LoadAdventurer is knight id's last sheet, or an error wrapping knights.ErrNotFound.
func (r *Records) LoadAdventurer(id string) (world.Adventurer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.sheets[id]
	if !ok {
		return world.Adventurer{}, fmt.Errorf("load adventurer %s: %w", id, knights.ErrNotFound)
	}
	return sheet(a), nil
}

// CountKnights is how many knights' sheets are kept, living or not.
func (r *Records) CountKnights() (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sheets), nil
}

// Living is the last sheet of every living knight kept, by knight id; nil for none.
func (r *Records) Living() ([]world.Adventurer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []world.Adventurer
	for _, id := range sortedKeys(r.sheets) {
		if a := r.sheets[id]; a.Ranked() {
			out = append(out, sheet(a))
		}
	}
	return out, nil
}

// Retire keeps a retired knight's last sheet (e.Adventurer) with its hall-of-fame
// entry, as the store's saver writes them in one batch. An entry of the same knight
// and time replaces the earlier one; a knight without an id is refused.
func (r *Records) Retire(e knights.FameEntry) error {
	if e.Adventurer.ID == "" {
		return fmt.Errorf("retire %q: %w", e.Adventurer.Name, errNoID)
	}
	e.Adventurer = sheet(e.Adventurer)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sheets[e.Adventurer.ID] = sheet(e.Adventurer)
	r.fame[endKey(e.Adventurer.ID, e.Retired)] = e
	return nil
}

// Bury keeps a dead knight's last sheet (t.Adventurer) with its tombstone, as the
// store's saver writes them in one batch. A tombstone of the same knight and time
// replaces the earlier one; a knight without an id is refused.
func (r *Records) Bury(t knights.Tombstone) error {
	if t.Adventurer.ID == "" {
		return fmt.Errorf("bury %q: %w", t.Adventurer.Name, errNoID)
	}
	t.Adventurer = sheet(t.Adventurer)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sheets[t.Adventurer.ID] = sheet(t.Adventurer)
	r.tombstones[endKey(t.Adventurer.ID, t.Died)] = t
	return nil
}

// Fame is every retired knight, most experienced first, earlier retirements first among
// equals (then in the store's key order); nil for none.
func (r *Records) Fame() ([]knights.FameEntry, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []knights.FameEntry
	for _, k := range sortedKeys(r.fame) {
		e := r.fame[k]
		e.Adventurer = sheet(e.Adventurer)
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b knights.FameEntry) int {
		return cmp.Or(cmp.Compare(b.Adventurer.Experience, a.Adventurer.Experience), a.Retired.Compare(b.Retired))
	})
	return out, nil
}

// Tombstones is every tombstone in the store's key order: by knight id, then time of
// death as RFC 3339 in UTC (so, as there, 12:00:00.5 sorts before 12:00:00, its
// fraction's dot before the Z); nil for none.
func (r *Records) Tombstones() ([]knights.Tombstone, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []knights.Tombstone
	for _, k := range sortedKeys(r.tombstones) {
		t := r.tombstones[k]
		t.Adventurer = sheet(t.Adventurer)
		out = append(out, t)
	}
	return out, nil
}

// sortedKeys is m's keys in byte order, the order bbolt walks a bucket in.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	return keys
}
