package records

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

type lettersValue struct {
	V       int            `json:"v"`
	Letters []world.Letter `json:"letters"`
	Gone    []GoneLetter   `json:"gone,omitempty"`
}

// Mailbox is one knight's mailbox as etcd keeps it: its letters, and the letters deleted
// from it lately (tombstones), so that a realm writing from an older copy at the same
// moment does not bring a deleted letter back.
type Mailbox struct {
	Letters []world.Letter
	Gone    []GoneLetter
}

// GoneLetter is a letter deleted from a mailbox: its identity (LetterID), and when.
type GoneLetter struct {
	ID string    `json:"id"`
	At time.Time `json:"at"`
}

// LetterID is a letter's identity across realms (the engine's ID is each world's own):
// a digest of who wrote it to whom, when and what.
func LetterID(l world.Letter) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%s", l.From, l.To, l.Sent.UnixNano(), l.Text)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Mail is every mailbox, by the recipient knight's id.
func (s *Store) Mail() (map[string][]world.Letter, error) {
	out := map[string][]world.Letter{}
	pre := s.prefix + "letters/"
	err := s.each("letters/", func(k, v []byte) error {
		var lv lettersValue
		if err := decodeVersioned(k, v, &lv, &lv.V); err != nil {
			return err
		}
		if len(lv.Letters) > 0 { // one with tombstones only is empty
			out[string(k[len(pre):])] = lv.Letters
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read letters: %w", err)
	}
	return out, nil
}

// PutMail replaces the mailbox of knight to; an empty one is deleted.
func (s *Store) PutMail(to string, letters []world.Letter) error {
	ctx, cancel := s.call()
	defer cancel()
	key := s.prefix + "letters/" + to
	if len(letters) == 0 {
		if _, err := s.cli.Delete(ctx, key); err != nil {
			return fmt.Errorf("delete letters of %q: %w", to, err)
		}
		return nil
	}
	data, err := json.Marshal(lettersValue{V: valueVersion, Letters: letters})
	if err != nil {
		return fmt.Errorf("encode letters of %q: %w", to, err)
	}
	if _, err := s.cli.Put(ctx, key, string(data)); err != nil {
		return fmt.Errorf("put letters of %q: %w", to, err)
	}
	return nil
}

// MailOf is the mailbox of knight id, empty when it has none.
func (s *Store) MailOf(id string) ([]world.Letter, error) {
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.prefix+"letters/"+id)
	if err != nil {
		return nil, fmt.Errorf("read letters of %q: %w", id, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, nil
	}
	var lv lettersValue
	if err := decodeVersioned(resp.Kvs[0].Key, resp.Kvs[0].Value, &lv, &lv.V); err != nil {
		return nil, err
	}
	return lv.Letters, nil
}

// ErrMailChanged is a mailbox written by another realm since its revision was read: read
// it again, merge, and write anew.
var ErrMailChanged = errors.New("the mailbox changed meanwhile")

// MailAt is the mailbox of knight id with its mod revision (0 when it has none), for a
// write conditioned on it (PutMailIf).
func (s *Store) MailAt(id string) (Mailbox, int64, error) {
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.prefix+"letters/"+id)
	if err != nil {
		return Mailbox{}, 0, fmt.Errorf("read letters of %q: %w", id, err)
	}
	if len(resp.Kvs) == 0 {
		return Mailbox{}, 0, nil
	}
	box, err := decodeMailbox(string(resp.Kvs[0].Key), resp.Kvs[0].Value)
	return box, resp.Kvs[0].ModRevision, err
}

// decodeMailbox is the mailbox kept under key as value.
func decodeMailbox(key string, value []byte) (Mailbox, error) {
	var lv lettersValue
	if err := decodeVersioned([]byte(key), value, &lv, &lv.V); err != nil {
		return Mailbox{}, err
	}
	return Mailbox{Letters: lv.Letters, Gone: lv.Gone}, nil
}

// PutMailIf replaces the mailbox of knight to if its mod revision is still rev (0: it has
// none), and returns the new one (0 when emptied, letters and tombstones, which deletes
// it). A mailbox written since is ErrMailChanged: two realms writing one mailbox at once
// never lose a letter.
func (s *Store) PutMailIf(to string, box Mailbox, rev int64) (int64, error) {
	key := s.prefix + "letters/" + to
	op := clientv3.OpDelete(key)
	empty := len(box.Letters) == 0 && len(box.Gone) == 0
	if !empty {
		data, err := json.Marshal(lettersValue{V: valueVersion, Letters: box.Letters, Gone: box.Gone})
		if err != nil {
			return 0, fmt.Errorf("encode letters of %q: %w", to, err)
		}
		op = clientv3.OpPut(key, string(data))
	}
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Txn(ctx).If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).Then(op).Commit()
	switch {
	case err != nil:
		return 0, fmt.Errorf("write letters of %q: %w", to, err)
	case !resp.Succeeded:
		return 0, fmt.Errorf("write letters of %q: %w", to, ErrMailChanged)
	case empty:
		return 0, nil
	}
	return resp.Header.Revision, nil
}
