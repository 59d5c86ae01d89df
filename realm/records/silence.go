package records

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	clientv3 "go.etcd.io/etcd/client/v3"
)

type silenceValue struct {
	V       int             `json:"v"`
	Silence knights.Silence `json:"silence"`
}

func (s *Store) silenceKey(id string) string { return s.prefix + "silence/" + id }

// Silence stores sl under its knight's id, replacing an earlier silence of the knight.
func (s *Store) Silence(sl knights.Silence) error {
	if sl.Knight == "" {
		return fmt.Errorf("silence: %w", errNoKey)
	}
	data, err := json.Marshal(silenceValue{V: valueVersion, Silence: sl})
	if err != nil {
		return fmt.Errorf("encode silence %s: %w", sl.Knight, err)
	}
	ctx, cancel := s.call()
	defer cancel()
	if _, err := s.cli.Put(ctx, s.silenceKey(sl.Knight), string(data)); err != nil {
		return fmt.Errorf("silence %s: %w", sl.Knight, err)
	}
	return nil
}

// Unsilence deletes the silence of knight id and reports whether there was one.
func (s *Store) Unsilence(id string) (bool, error) {
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Delete(ctx, s.silenceKey(id))
	if err != nil {
		return false, fmt.Errorf("unsilence %s: %w", id, err)
	}
	return resp.Deleted > 0, nil
}

// Silences lists the silences that last beyond now, soonest to end first, and deletes
// the ended ones (each only if unchanged since read, so a silence made again stays).
func (s *Store) Silences(now time.Time) ([]knights.Silence, error) {
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.silenceKey(""), clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("read silences: %w", err)
	}
	out := []knights.Silence{}
	for _, kv := range resp.Kvs {
		var sv silenceValue
		if err := decodeVersioned(kv.Key, kv.Value, &sv, &sv.V); err != nil {
			return nil, err
		}
		if now.Before(sv.Silence.Until) {
			out = append(out, sv.Silence)
			continue
		}
		key := string(kv.Key)
		_, err = s.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", kv.ModRevision)).
			Then(clientv3.OpDelete(key)).Commit()
		if err != nil {
			return nil, fmt.Errorf("delete ended silence %s: %w", key, err)
		}
	}
	slices.SortStableFunc(out, func(a, b knights.Silence) int { return a.Until.Compare(b.Until) })
	return out, nil
}
