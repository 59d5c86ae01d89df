package memory

import (
	"fmt"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Mail is every mailbox, by the recipient knight's id.
func (r *Records) Mail() (map[string][]world.Letter, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][]world.Letter, len(r.mail))
	for to, ls := range r.mail {
		out[to] = letters(ls)
	}
	return out, nil
}

// PutMail replaces the mailbox of knight to with ls; an empty one is deleted. A
// mailbox of no knight is refused, as the store cannot key it.
func (r *Records) PutMail(to string, ls []world.Letter) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(ls) == 0 {
		delete(r.mail, to)
		return nil
	}
	if to == "" {
		return fmt.Errorf("put letters: %w", errNoID)
	}
	r.mail[to] = letters(ls)
	return nil
}
