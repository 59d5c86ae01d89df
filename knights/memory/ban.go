package memory

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// addrBanPrefix starts the key of a ban of an address prefix, as in the store: keys and
// addresses share one set of keys, so "addr:" and a prefix reads as a fingerprint too.
const addrBanPrefix = "addr:"

// banKey is the key b is kept under: its fingerprint, or addrBanPrefix and its prefix.
func banKey(b knights.Ban) string {
	if b.Addr != "" {
		return addrBanPrefix + b.Addr
	}
	return b.Fingerprint
}

// Ban keeps b under its fingerprint, or its address prefix (masked, and then without
// a fingerprint), replacing an earlier ban of the same. A prefix that does not parse,
// or a ban of neither, is refused.
func (r *Records) Ban(b knights.Ban) error {
	if b.Addr != "" {
		p, err := netip.ParsePrefix(b.Addr)
		if err != nil {
			return fmt.Errorf("ban %q: %w", b.Addr, err)
		}
		b.Addr, b.Fingerprint = p.Masked().String(), ""
	}
	if banKey(b) == "" {
		return fmt.Errorf("ban: %w", errNoID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bans[banKey(b)] = b
	return nil
}

// Unban lifts the ban kept under fp (a fingerprint, or "addr:" and a masked prefix, as
// Bans lists it) and reports whether there was one, lapsed or not.
func (r *Records) Unban(fp string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, found := r.bans[fp]
	delete(r.bans, fp)
	return found, nil
}

// IsBanned reports whether fp is banned at now; a lapsed ban is none, and is left for
// Bans to delete.
func (r *Records) IsBanned(fp string, now time.Time) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.bans[fp]
	return ok && !b.Lapsed(now), nil
}

// IsAddrBanned reports whether addr (an IPv4-mapped IPv6 address as its IPv4 one) is in
// a prefix banned at now, and which: the first in key order, as the store walks them.
func (r *Records) IsAddrBanned(addr netip.Addr, now time.Time) (bool, string, error) {
	addr = addr.Unmap()
	r.mu.Lock()
	defer r.mu.Unlock()
	var keys []string
	for k := range r.bans {
		if strings.HasPrefix(k, addrBanPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		p, err := netip.ParsePrefix(k[len(addrBanPrefix):])
		if err != nil || !p.Contains(addr) || r.bans[k].Lapsed(now) {
			continue
		}
		return true, p.String(), nil
	}
	return false, "", nil
}

// Bans lists the bans in force at now, oldest first (in key order among equals, as the
// store's stable sort of its bucket), and deletes the lapsed ones.
func (r *Records) Bans(now time.Time) ([]knights.Ban, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []knights.Ban{}
	for k, b := range r.bans {
		if b.Lapsed(now) {
			delete(r.bans, k)
			continue
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b knights.Ban) int {
		return cmp.Or(a.At.Compare(b.At), strings.Compare(banKey(a), banKey(b)))
	})
	return out, nil
}

// CountBans counts the bans in force at now, of keys and of addresses, leaving the
// lapsed ones.
func (r *Records) CountBans(now time.Time) (keys, addrs int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range r.bans {
		switch {
		case b.Lapsed(now):
		case b.Addr != "":
			addrs++
		default:
			keys++
		}
	}
	return keys, addrs, nil
}
