package server

import (
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// keyOf is the entry of the key fp: one bound for a new knight, or the shared one.
func (s *server) keyOf(fp string) (knights.Key, error) {
	if s.realm != nil {
		return s.realm.knights.keyOf(fp)
	}
	return s.saver.KeyOf(fp)
}

// bindKey holds a new key until its knight's first record is written with it (Saver.Bind).
func (s *server) bindKey(k knights.Key) (release func()) {
	if s.realm != nil {
		return s.realm.knights.bind(k)
	}
	return s.saver.Bind(k)
}

// loadKnight is the newest record of knight id not in the world: one waiting to be
// written, or the shared one (an error wrapping store.ErrNotFound when there is none).
func (s *server) loadKnight(id string) (world.Adventurer, error) {
	if s.realm != nil {
		return s.realm.knights.load(id)
	}
	return s.saver.Load(id)
}
