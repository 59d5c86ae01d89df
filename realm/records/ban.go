package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// valueVersion versions each value's encoding, as the store versions its own.
const valueVersion = 1

var errNoKey = errors.New("no fingerprint or address")

type banValue struct {
	V   int         `json:"v"`
	Ban knights.Ban `json:"ban"`
}

func (s *Store) banKey(fp string) string { return s.prefix + "ban/" + fp }

// Ban stores b under its fingerprint or its address prefix, replacing an earlier ban
// of the same.
func (s *Store) Ban(b knights.Ban) error {
	id, data, err := banEntry(b)
	if err != nil {
		return err
	}
	ctx, cancel := s.call()
	defer cancel()
	if _, err := s.cli.Put(ctx, s.banKey(id), string(data)); err != nil {
		return fmt.Errorf("ban %s: %w", id, err)
	}
	return nil
}

// banEntry is b's id (knights.Ban.Key, as kept) and value.
func banEntry(b knights.Ban) (string, []byte, error) {
	b, err := b.Kept()
	if err != nil {
		return "", nil, err
	}
	id := b.Key()
	data, err := json.Marshal(banValue{V: valueVersion, Ban: b})
	if err != nil {
		return "", nil, fmt.Errorf("encode ban %s: %w", id, err)
	}
	return id, data, nil
}

// Unban lifts the ban on fp and reports whether there was one.
func (s *Store) Unban(fp string) (bool, error) {
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Delete(ctx, s.banKey(fp))
	if err != nil {
		return false, fmt.Errorf("unban %s: %w", fp, err)
	}
	return resp.Deleted > 0, nil
}

// IsBanned reports whether fp is banned at now; a value that cannot be read is an
// error, so that the caller refuses the key.
func (s *Store) IsBanned(fp string, now time.Time) (bool, error) {
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.banKey(fp))
	if err != nil {
		return false, fmt.Errorf("check ban of %s: %w", fp, err)
	}
	if len(resp.Kvs) == 0 {
		return false, nil
	}
	b, err := decodeBan(resp.Kvs[0].Key, resp.Kvs[0].Value)
	if err != nil {
		return false, err
	}
	return !b.Lapsed(now), nil
}

// IsAddrBanned reports whether addr is in a prefix banned at now, and which.
func (s *Store) IsAddrBanned(addr netip.Addr, now time.Time) (bool, string, error) {
	addr = addr.Unmap()
	ctx, cancel := s.call()
	defer cancel()
	pre := s.banKey(knights.AddrBanPrefix)
	resp, err := s.cli.Get(ctx, pre, clientv3.WithPrefix())
	if err != nil {
		return false, "", fmt.Errorf("check ban of address %s: %w", addr, err)
	}
	for _, kv := range resp.Kvs {
		p, err := netip.ParsePrefix(strings.TrimPrefix(string(kv.Key), pre))
		if err != nil || !p.Contains(addr) {
			continue
		}
		b, err := decodeBan(kv.Key, kv.Value)
		if err != nil {
			return false, "", err
		}
		if !b.Lapsed(now) {
			return true, p.String(), nil
		}
	}
	return false, "", nil
}

// Bans lists the bans in force at now, oldest first, and deletes the lapsed ones
// (each only if unchanged since read, so a ban made again meanwhile stays).
func (s *Store) Bans(now time.Time) ([]knights.Ban, error) {
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.banKey(""), clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("read bans: %w", err)
	}
	out := []knights.Ban{}
	for _, kv := range resp.Kvs {
		b, err := decodeBan(kv.Key, kv.Value)
		if err != nil {
			return nil, err
		}
		if !b.Lapsed(now) {
			out = append(out, b)
			continue
		}
		key := string(kv.Key)
		_, err = s.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", kv.ModRevision)).
			Then(clientv3.OpDelete(key)).Commit()
		if err != nil {
			return nil, fmt.Errorf("delete lapsed ban %s: %w", key, err)
		}
	}
	slices.SortStableFunc(out, func(a, b knights.Ban) int { return a.At.Compare(b.At) })
	return out, nil
}

// CountBans counts the bans in force at now, of keys and of addresses; the lapsed ones
// are left for Bans to delete, so a scrape of the metrics writes nothing.
func (s *Store) CountBans(now time.Time) (keys, addrs int, err error) {
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.banKey(""), clientv3.WithPrefix())
	if err != nil {
		return 0, 0, fmt.Errorf("count bans: %w", err)
	}
	for _, kv := range resp.Kvs {
		b, err := decodeBan(kv.Key, kv.Value)
		if err != nil {
			return 0, 0, err
		}
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

func decodeBan(k, v []byte) (knights.Ban, error) {
	var bv banValue
	if err := json.Unmarshal(v, &bv); err != nil {
		return knights.Ban{}, fmt.Errorf("decode ban %s: %w", k, err)
	}
	if bv.V != valueVersion {
		return knights.Ban{}, fmt.Errorf("decode ban %s: value version %d, this program knows %d: %w",
			k, bv.V, valueVersion, knights.ErrUnknownVersion)
	}
	return bv.Ban, nil
}
