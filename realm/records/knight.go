package records

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"bytes"
	"encoding/json"
	"fmt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// knightValue is a knight's sheet as kept in etcd (the realm's knight/ID key), in the
// store's encoding.
type knightValue struct {
	V int `json:"v"`
	// Realm is the realm that wrote the sheet: its levels and positions mean something
	// there only, so another realm starts the knight at its own entrance.
	Realm      string          `json:"realm,omitempty"`
	Adventurer json.RawMessage `json:"adventurer"`
}

func encodeSheet(a *world.Adventurer, realmName string) ([]byte, error) {
	body, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("encode knight %s: %w", a.ID, err)
	}
	return json.Marshal(knightValue{V: valueVersion, Realm: realmName, Adventurer: body})
}

// SheetWrite is a's sheet written by realm realmName, as a fenced write.
func SheetWrite(a *world.Adventurer, realmName string) (realm.Write, error) {
	data, err := encodeSheet(a, realmName)
	return realm.Write{Key: "knight/" + a.ID, Value: data}, err
}

// DecodeKnight reads the sheet of knight id, as a claim hands it back (Fenced.Sheet).
func DecodeKnight(id string, data []byte) (world.Adventurer, error) {
	a, _, err := DecodeSheet(id, data)
	return a, err
}

// DecodeSheet reads the sheet of knight id and the realm that wrote it ("" when
// unknown).
func DecodeSheet(id string, data []byte) (world.Adventurer, string, error) {
	var v knightValue
	if err := json.Unmarshal(data, &v); err != nil {
		return world.Adventurer{}, "", fmt.Errorf("decode knight %s: %w", id, err)
	}
	if v.V != valueVersion {
		return world.Adventurer{}, "", fmt.Errorf("decode knight %s: value version %d, this program knows %d: %w",
			id, v.V, valueVersion, knights.ErrUnknownVersion)
	}
	if len(v.Adventurer) == 0 || bytes.Equal(v.Adventurer, []byte("null")) {
		return world.Adventurer{}, "", fmt.Errorf("decode knight %s: value has no knight", id)
	}
	var a world.Adventurer
	if err := json.Unmarshal(v.Adventurer, &a); err != nil {
		return world.Adventurer{}, "", fmt.Errorf("decode knight %s: %w", id, err)
	}
	if a.ID != id {
		return world.Adventurer{}, "", fmt.Errorf("decode knight %s: the sheet says %q", id, a.ID)
	}
	return a, v.Realm, nil
}

// decodeLiving reads the sheet of knight id as Living does, without its maps
// (knights.SheetWithoutMaps), refusing what DecodeSheet refuses.
func decodeLiving(id string, data []byte) (world.Adventurer, error) {
	var v knightValue
	if err := json.Unmarshal(data, &v); err != nil {
		return world.Adventurer{}, fmt.Errorf("decode knight %s: %w", id, err)
	}
	if v.V != valueVersion {
		return world.Adventurer{}, fmt.Errorf("decode knight %s: value version %d, this program knows %d: %w",
			id, v.V, valueVersion, knights.ErrUnknownVersion)
	}
	var sheet knights.SheetWithoutMaps
	if err := json.Unmarshal(v.Adventurer, &sheet); err != nil {
		return world.Adventurer{}, fmt.Errorf("decode knight %s: %w", id, err)
	}
	if sheet.ID != id {
		return world.Adventurer{}, fmt.Errorf("decode knight %s: the sheet says %q", id, sheet.ID)
	}
	return sheet.Adventurer, nil
}

// LoadAdventurer is knight id's last checkpoint, or an error wrapping knights.ErrNotFound.
// It is for reading a knight no realm plays (a realm playing one has its sheet from its
// claim).
func (s *Store) LoadAdventurer(id string) (world.Adventurer, error) {
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.prefix+"knight/"+id)
	if err != nil {
		return world.Adventurer{}, fmt.Errorf("load knight %s: %w", id, err)
	}
	if len(resp.Kvs) == 0 {
		return world.Adventurer{}, fmt.Errorf("load knight %s: %w", id, knights.ErrNotFound)
	}
	return DecodeKnight(id, resp.Kvs[0].Value)
}

// Living is the last sheet of every living knight etcd keeps (neither dead nor
// retired), by knight id, without its maps (knights.Hall), read at one revision a page
// at a time; nil for none.
func (s *Store) Living() ([]world.Adventurer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	rev, err := s.revision(ctx)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("read the living knights: %w", err)
	}
	var out []world.Adventurer
	err = s.scan(context.Background(), "knight/", rev, func(id string, v []byte) error {
		a, err := decodeLiving(id, v)
		if err != nil {
			return err
		}
		if a.Ranked() {
			out = append(out, a)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the living knights: %w", err)
	}
	return out, nil
}

// CountKnights is how many knights' sheets etcd keeps, living or not.
func (s *Store) CountKnights() (int, error) {
	ctx, cancel := s.call()
	defer cancel()
	resp, err := s.cli.Get(ctx, s.prefix+"knight/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0, fmt.Errorf("count knights: %w", err)
	}
	return int(resp.Count), nil
}
