package memory

import (
	"fmt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// KnightNames is the name of every knight with a sheet, with its id, in id order, as the
// store reads them from its knights' records: Ended says the knight has died or retired.
// Names claimed with ClaimName are not among them (ClaimedNames lists those), as the
// store knows no claims.
func (r *Records) KnightNames() ([]knights.KnightName, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []knights.KnightName
	for _, id := range sortedKeys(r.sheets) {
		a := r.sheets[id]
		out = append(out, knights.KnightName{Knight: id, Name: a.Name, Ended: a.Ended()})
	}
	return out, nil
}

// SetName gives knight its name on its sheet, keeping the rest of the sheet; a knight
// with no sheet is given one with its id and name only. A knight without an id is
// refused.
func (r *Records) SetName(knight, name string) error {
	if knight == "" {
		return fmt.Errorf("name %q: %w", name, errNoID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.sheets[knight]
	a.ID, a.Name = knight, name
	r.sheets[knight] = a
	return nil
}

// ClaimName gives name to knight unless another knight has claimed it, as etcd's
// records do across realms: names are compared by world.NameKey, so a look-alike
// spelling is the same name. The knight that has it may claim it again, and its
// name as typed then is kept. Claims are kept apart from the sheets, as etcd keeps
// them apart from the knights' sheets.
func (r *Records) ClaimName(name, knight string) (bool, error) {
	key := world.NameKey(name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if held, ok := r.claims[key]; ok && held.Knight != knight {
		return false, nil
	}
	r.claims[key] = knights.KnightName{Knight: knight, Name: name}
	return true, nil
}

// ReleaseName frees name if knight has claimed it (as a realm frees the name of a knight
// it could not keep); a name unclaimed, or another knight's, is left as it is.
func (r *Records) ReleaseName(name, knight string) error {
	key := world.NameKey(name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if held, ok := r.claims[key]; ok && held.Knight == knight {
		delete(r.claims, key)
	}
	return nil
}

// ClaimedNames is every name claimed with ClaimName, with its knight, in the order of
// the names' keys (world.NameKey), as etcd's records list them; Ended is never set.
func (r *Records) ClaimedNames() []knights.KnightName {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []knights.KnightName
	for _, k := range sortedKeys(r.claims) {
		out = append(out, r.claims[k])
	}
	return out
}
