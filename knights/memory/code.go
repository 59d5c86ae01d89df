package memory

import (
	"fmt"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// PutCode keeps c until it is taken or deleted, replacing a code of the same name; a
// code without one is refused. Expiry is judged by the now TakeCode is given, never by
// the wall clock.
func (r *Records) PutCode(c knights.Code) error {
	if c.Code == "" {
		return fmt.Errorf("keep a code: %w", errNoID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.codes[c.Code] = code(c)
	return nil
}

// TakeCode returns the code of kind and forgets it, under the lock, so of takes at once
// one has it. A code not kept, or expired by now (then forgotten, whatever its kind),
// wraps knights.ErrNotFound; a live one of the other kind is knights.ErrCodeKind, and
// kept.
func (r *Records) TakeCode(name, kind string, now time.Time) (knights.Code, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.codes[name]
	if !ok {
		return knights.Code{}, fmt.Errorf("take code %s: %w", name, knights.ErrNotFound)
	}
	live := now.Before(c.Expires)
	if c.Kind != kind && live {
		return knights.Code{}, fmt.Errorf("take code %s: %w", name, knights.ErrCodeKind)
	}
	delete(r.codes, name)
	if !live {
		return knights.Code{}, fmt.Errorf("take code %s: %w", name, knights.ErrNotFound)
	}
	return code(c), nil
}

// DeleteCode forgets a code, used or replaced; a code not kept is no error.
func (r *Records) DeleteCode(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.codes, name)
	return nil
}
