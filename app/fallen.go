package app

import (
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// deathLines are the death screen's account of how the knight fell, as screen-reader
// mode says it too (world.DeathLines: the last blows, then what might have saved it),
// without the list's indents, which a centred screen and a spoken line do not need.
func deathLines(d *world.Death) []string {
	var out []string
	for _, l := range world.DeathLines(d) {
		out = append(out, strings.TrimSpace(l))
	}
	return out
}

// prelude is what the key's next knight's log begins with: the last moments of the knight
// that fell in this session (none after a retirement).
func (m *Model) prelude() []string {
	if m.tomb == nil || m.retired != nil {
		return nil
	}
	return m.tomb.LastLines
}

// inUseMark marks the things the knight uses in the inventory: the best sword, shield and
// armour it carries, which alone count (world.InUse); worn boots and rings say so as
// they always did.
func inUseMark(items []world.Item, i int) string {
	if items[i].Info().Wearable || !world.InUse(items, i) {
		return ""
	}
	return "in use"
}
