package memory

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// AddKnight keeps a new knight's first sheet with its first key, which must lead to it,
// as the store's saver writes them in one batch. An earlier sheet of the knight, or
// entry of the key, is replaced.
func (r *Records) AddKnight(a world.Adventurer, k knights.Key) error {
	switch {
	case a.ID == "" || k.Fingerprint == "" || k.Knight == "":
		return fmt.Errorf("add key %q of knight %q: %w", k.Fingerprint, a.ID, errNoID)
	case k.Knight != a.ID:
		return fmt.Errorf("add key %s: it leads to knight %q, not %q", k.Fingerprint, k.Knight, a.ID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sheets[a.ID] = sheet(a)
	r.keys[k.Fingerprint] = k
	return nil
}

// KeyOf is the key fp's entry, or an error wrapping knights.ErrNotFound.
func (r *Records) KeyOf(fp string) (knights.Key, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k, ok := r.keys[fp]
	if !ok {
		return knights.Key{}, fmt.Errorf("find the knight of key %s: %w", fp, knights.ErrNotFound)
	}
	return k, nil
}

// KeysOf is the keys of knight, the first added first (by fingerprint among equals, the
// store's key order); nil for none.
func (r *Records) KeysOf(knight string) ([]knights.Key, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keysOf(knight), nil
}

// keysOf is KeysOf under the lock.
func (r *Records) keysOf(knight string) []knights.Key {
	var out []knights.Key
	for _, k := range r.keys {
		if k.Knight == knight {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b knights.Key) int {
		return cmp.Or(a.Added.Compare(b.Added), strings.Compare(a.Fingerprint, b.Fingerprint))
	})
	return out
}

// TouchKey records that fp was used at at (kept in UTC, as the store keeps it), from
// addr (the last address kept when empty); a key that plays no knight is left alone.
func (r *Records) TouchKey(fp string, at time.Time, addr string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k, ok := r.keys[fp]
	if !ok {
		return nil
	}
	k.LastUsed = at.UTC()
	if addr != "" {
		k.LastAddr = addr
	}
	r.keys[fp] = k
	return nil
}

// RemoveKey takes fp from its knight. The knight's last key is refused with
// knights.ErrLastKey, so that it keeps a way in; a key that plays no knight wraps
// knights.ErrNotFound.
func (r *Records) RemoveKey(fp string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k, ok := r.keys[fp]
	switch {
	case !ok:
		return fmt.Errorf("remove key %s: %w", fp, knights.ErrNotFound)
	case len(r.keysOf(k.Knight)) <= 1:
		return fmt.Errorf("remove key %s: %w", fp, knights.ErrLastKey)
	}
	delete(r.keys, fp)
	return nil
}
