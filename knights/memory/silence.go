package memory

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// Silence keeps sl under its knight's id, replacing an earlier silence of the knight;
// a silence of no knight is refused.
func (r *Records) Silence(sl knights.Silence) error {
	if sl.Knight == "" {
		return fmt.Errorf("silence: %w", errNoID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.silences[sl.Knight] = sl
	return nil
}

// Unsilence deletes the silence of knight id, ended or not, and reports whether there
// was one.
func (r *Records) Unsilence(id string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, found := r.silences[id]
	delete(r.silences, id)
	return found, nil
}

// Silences lists the silences lasting beyond now, soonest to end first (by knight id
// among equals, the store's key order), and deletes the ended ones.
func (r *Records) Silences(now time.Time) ([]knights.Silence, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []knights.Silence{}
	for id, sl := range r.silences {
		if !now.Before(sl.Until) {
			delete(r.silences, id)
			continue
		}
		out = append(out, sl)
	}
	slices.SortFunc(out, func(a, b knights.Silence) int {
		return cmp.Or(a.Until.Compare(b.Until), strings.Compare(a.Knight, b.Knight))
	})
	return out, nil
}
