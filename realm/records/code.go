package records

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

type codeValue struct {
	V    int          `json:"v"`
	Code knights.Code `json:"code"`
}

func (s *Store) codeKey(code string) string { return s.prefix + "code/" + code }

// PutCode keeps c until c.Expires: on a lease of its own that lasts that long (from the
// wall clock, rounded up to a second), so a code nobody uses vanishes by itself.
func (s *Store) PutCode(c knights.Code) error {
	if c.Code == "" {
		return fmt.Errorf("keep a code: %w", errNoKey)
	}
	data, err := json.Marshal(codeValue{V: valueVersion, Code: c})
	if err != nil {
		return fmt.Errorf("encode code: %w", err)
	}
	ttl := int64(math.Ceil(time.Until(c.Expires).Seconds()))
	ctx, cancel := s.call()
	defer cancel()
	lease, err := s.cli.Grant(ctx, max(ttl, 1))
	if err != nil {
		return fmt.Errorf("keep code %s: %w", c.Code, err)
	}
	if _, err := s.cli.Put(ctx, s.codeKey(c.Code), string(data), clientv3.WithLease(lease.ID)); err != nil {
		return fmt.Errorf("keep code %s: %w", c.Code, err)
	}
	return nil
}

// TakeCode returns the code of kind and forgets it: a transaction deletes it only if it
// is still as read, so of two realms taking one code at once one has it and the other
// knights.ErrNotFound. A code not kept, or expired by now (its lease may outlive it by a
// second), wraps knights.ErrNotFound; one of the other kind is store.ErrCodeKind, and kept.
func (s *Store) TakeCode(code, kind string, now time.Time) (knights.Code, error) {
	ctx, cancel := s.call()
	defer cancel()
	key := s.codeKey(code)
	resp, err := s.cli.Get(ctx, key)
	if err != nil {
		return knights.Code{}, fmt.Errorf("take code %s: %w", code, err)
	}
	if len(resp.Kvs) == 0 {
		return knights.Code{}, fmt.Errorf("take code %s: %w", code, knights.ErrNotFound)
	}
	var cv codeValue
	if err := decodeVersioned(resp.Kvs[0].Key, resp.Kvs[0].Value, &cv, &cv.V); err != nil {
		return knights.Code{}, err
	}
	live := now.Before(cv.Code.Expires)
	if cv.Code.Kind != kind && live {
		return knights.Code{}, fmt.Errorf("take code %s: %w", code, knights.ErrCodeKind)
	}
	txn, err := s.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", resp.Kvs[0].ModRevision)).
		Then(clientv3.OpDelete(key)).Commit()
	switch {
	case err != nil:
		return knights.Code{}, fmt.Errorf("take code %s: %w", code, err)
	case !txn.Succeeded || !live:
		return knights.Code{}, fmt.Errorf("take code %s: %w", code, knights.ErrNotFound)
	}
	return cv.Code, nil
}

// DeleteCode forgets a code, used or replaced; its lease lapses in its time.
func (s *Store) DeleteCode(code string) error {
	ctx, cancel := s.call()
	defer cancel()
	if _, err := s.cli.Delete(ctx, s.codeKey(code)); err != nil {
		return fmt.Errorf("forget code %s: %w", code, err)
	}
	return nil
}
