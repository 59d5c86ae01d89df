package memory

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// Ban keeps b under its fingerprint, or its address prefix (masked, and then without
// a fingerprint), replacing an earlier ban of the same. A prefix that does not parse,
// or a ban of neither, is refused.
func (r *Records) Ban(b knights.Ban) error {
	b, err := b.Kept()
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bans[b.Key()] = b
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
		if strings.HasPrefix(k, knights.AddrBanPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		p, err := netip.ParsePrefix(k[len(knights.AddrBanPrefix):])
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
		return cmp.Or(a.At.Compare(b.At), strings.Compare(a.Key(), b.Key()))
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
