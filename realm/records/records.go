// Package records keeps the records every realm shares in etcd, under the same
// contracts that store.Store keeps them in bbolt (contract.go), so that a server can
// run on either and the contract tests hold both to one behaviour.
//
// The keys, under the prefix (the realm's, "/orthanc/" by default), beside the realm
// package's (realm.go):
//
//	knight/ID            {"v":1,"realm":R,"adventurer":{...}}: the sheet, by realm R, written only under the
//	                     knight's claim (realm.Fenced: Checkpoint, Retire, Bury)
//	fame/ID/TIME         {"v":1,...FameEntry}, with the sheet, under the claim (Retire)
//	tombstone/ID/TIME    {"v":1,...Tombstone}, with the sheet, under the claim (Bury)
//	ban/FINGERPRINT      {"v":1,"ban":{...}}: a key's ban
//	ban/addr:PREFIX      {"v":1,"ban":{...}}: an address prefix's ban
//	key/FINGERPRINT      {"v":1,"key":{...}}: the knight a key plays; a new key is
//	                     written with its knight's first sheet, under the claim
//	name/NAMEKEY         {"v":1,"knight":ID,"name":NAME}: a name (world.NameKey),
//	                     claimed in a transaction (ClaimName)
//	letters/ID           {"v":1,"letters":[...],"gone":[...]}: a knight's mailbox and its
//	                     deleted letters' tombstones, written conditioned on its mod
//	                     revision (PutMailIf)
//	silence/ID           {"v":1,"silence":{...}}: a knight's silence
//	code/CODE            {"v":1,"code":{...}}: a one-time code (keys add, a guest's claim), on
//	                     a lease of its life; taken in a transaction (TakeCode)
//
// Values are JSON with a version, as in the store; a value whose version is unknown is
// refused rather than guessed at.
package records

import (
	"context"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Store is the shared records in etcd. Its methods may be called from any goroutine.
type Store struct {
	cli     *clientv3.Client
	prefix  string
	timeout time.Duration
}

// Options are a Store's settings; the zero value is the defaults.
type Options struct {
	// Prefix is put before every key; "/orthanc/" when empty (the realm package's).
	Prefix string
	// Timeout bounds each call to etcd; 5s when zero.
	Timeout time.Duration
}

// New is the records kept through cli.
func New(cli *clientv3.Client, opts Options) *Store {
	if opts.Prefix == "" {
		opts.Prefix = "/orthanc/"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Second
	}
	return &Store{cli: cli, prefix: opts.Prefix, timeout: opts.Timeout}
}

// call is a context for one call to etcd.
func (s *Store) call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.timeout)
}

// The records of every realm's knights.
var _ knights.Records = (*Store)(nil)
