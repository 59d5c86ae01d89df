package server

import (
	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// sharedRecords is where the records a knight takes from realm to realm live: keys,
// names, bans, the last sheets, fame and tombstones, letters. A server alone keeps them
// in its store (bbolt); a realm in etcd (records.Store), where every realm reads them.
// What stays in the server (levels, reports, codes, replays) is the store's either way.
type sharedRecords interface {
	records.Bans
	records.Hall
	records.Keys
	records.Names
	records.Letters
	records.Silences
}

var (
	_ sharedRecords = (*store.Store)(nil)
	_ sharedRecords = (*records.Store)(nil)
)

// keyOf is the entry of the key fp: one bound for a new knight, or the shared one.
func (s *server) keyOf(fp string) (store.Key, error) {
	if s.realm != nil {
		return s.realm.knights.keyOf(fp)
	}
	return s.saver.KeyOf(fp)
}

// bindKey holds a new key until its knight's first record is written with it (Saver.Bind).
func (s *server) bindKey(k store.Key) (release func()) {
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
