package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	bolt "go.etcd.io/bbolt"
)

type banValue struct {
	V   int         `json:"v"`
	Ban knights.Ban `json:"ban"`
}

// Ban stores b under its fingerprint (or its address), replacing an earlier ban of
// the same key (or address prefix). An address must parse as a prefix.
func (s *Store) Ban(b knights.Ban) error {
	b, err := b.Kept()
	if err != nil {
		return err
	}
	data, err := json.Marshal(banValue{V: ValueVersion, Ban: b})
	if err != nil {
		return fmt.Errorf("encode ban %s: %w", b.Key(), err)
	}
	err = s.update(func(tx *bolt.Tx) error {
		return open(tx, bucketBans).put([]byte(b.Key()), data)
	})
	if err != nil {
		return fmt.Errorf("ban %s in %s: %w", b.Key(), s.path, err)
	}
	return nil
}

// Unban lifts the ban on fp (a fingerprint, or "addr:" and a banned address prefix, as
// Bans lists it) and reports whether there was one.
func (s *Store) Unban(fp string) (bool, error) {
	found := false
	err := s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketBans)
		found = b.Get([]byte(fp)) != nil
		if !found {
			return nil
		}
		return b.Delete([]byte(fp))
	})
	if err != nil {
		return false, fmt.Errorf("unban %s in %s: %w", fp, s.path, err)
	}
	return found, nil
}

// IsBanned reports whether the key with fingerprint fp is banned at now: a timed ban that
// has lapsed is none (Bans deletes it).
func (s *Store) IsBanned(fp string, now time.Time) (bool, error) {
	banned := false
	err := s.db.View(func(tx *bolt.Tx) error {
		v, err := open(tx, bucketBans).get([]byte(fp))
		if v == nil {
			return err // the caller refuses the key when it cannot tell
		}
		b, err := decodeBan([]byte(fp), v)
		if err != nil {
			return err // the caller refuses the key: it cannot tell
		}
		banned = !b.Lapsed(now)
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("check ban of %s in %s: %w", fp, s.path, err)
	}
	return banned, nil
}

// IsAddrBanned reports whether addr is in an address prefix banned at now, and which: a
// timed ban that has lapsed is none (Bans deletes it).
func (s *Store) IsAddrBanned(addr netip.Addr, now time.Time) (bool, string, error) {
	addr = addr.Unmap()
	found := ""
	err := s.db.View(func(tx *bolt.Tx) error {
		bans := open(tx, bucketBans)
		c := bans.b.Cursor()
		pre := []byte(knights.AddrBanPrefix)
		for k, sealed := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, sealed = c.Next() {
			p, err := netip.ParsePrefix(string(k[len(pre):]))
			if err != nil || !p.Contains(addr) {
				continue
			}
			v, err := bans.value(k, sealed)
			if err != nil {
				return err // the caller refuses the connection: it cannot tell
			}
			b, err := decodeBan(k, v)
			if err != nil {
				return err // the caller refuses the connection: it cannot tell
			}
			if b.Lapsed(now) {
				continue
			}
			found = p.String()
			return nil
		}
		return nil
	})
	if err != nil {
		return false, "", fmt.Errorf("check ban of address %s in %s: %w", addr, s.path, err)
	}
	return found != "", found, nil
}

// Bans lists the bans in force at now, oldest first; the timed bans that have lapsed are
// deleted.
func (s *Store) Bans(now time.Time) ([]knights.Ban, error) {
	out := []knights.Ban{}
	err := s.update(func(tx *bolt.Tx) error {
		bk := open(tx, bucketBans)
		var lapsed [][]byte
		err := bk.forEach(func(k, v []byte) error {
			b, err := decodeBan(k, v)
			if err != nil {
				return err
			}
			if b.Lapsed(now) {
				lapsed = append(lapsed, append([]byte(nil), k...))
			} else {
				out = append(out, b)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range lapsed {
			if err := bk.delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read bans from %s: %w", s.path, err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, nil
}

// CountBans counts the bans in force at now, of keys and of addresses, without
// changing the file (lapsed bans are left for Bans to delete): for the metrics.
func (s *Store) CountBans(now time.Time) (keys, addrs int, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		return open(tx, bucketBans).forEach(func(k, v []byte) error {
			b, err := decodeBan(k, v)
			switch {
			case err != nil:
				return err
			case b.Lapsed(now):
			case b.Addr != "":
				addrs++
			default:
				keys++
			}
			return nil
		})
	})
	if err != nil {
		return 0, 0, fmt.Errorf("count bans in %s: %w", s.path, err)
	}
	return keys, addrs, nil
}

func decodeBan(k, v []byte) (knights.Ban, error) {
	var bv banValue
	if err := json.Unmarshal(v, &bv); err != nil {
		return knights.Ban{}, fmt.Errorf("decode ban %s: %w", k, err)
	}
	if bv.V != ValueVersion {
		return knights.Ban{}, fmt.Errorf("decode ban %s: value version %d, this program knows %d: %w", k, bv.V, ValueVersion, ErrUnknownVersion)
	}
	return bv.Ban, nil
}
