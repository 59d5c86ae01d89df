package records

import (
	"encoding/json"
	"fmt"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

type lettersValue struct {
	V       int            `json:"v"`
	Letters []world.Letter `json:"letters"`
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
		out[string(k[len(pre):])] = lv.Letters
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
