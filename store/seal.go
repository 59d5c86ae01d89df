package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	bolt "go.etcd.io/bbolt"
)

// Since schema 3 every value of the layout's buckets carries a checksum: bbolt checks
// its pages, not the values on them, so one flipped byte inside a stored report changed
// its text and passed every check. A sealed value is four bytes of CRC-32C (big-endian)
// and then the value as it was: the sum covers the bucket's name, the key and the value,
// so a value that moved to another key or bucket fails too. meta/version alone is not
// sealed: it says whether the values are.

// sumLen is the length of a value's checksum, before the value.
const sumLen = 4

// ErrChecksum means a stored value does not match its checksum: something under the
// program changed it. The error names the bucket and the key; the file is left as it is.
var ErrChecksum = errors.New("checksum mismatch")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sep is what the checksum puts between the bucket, the key and the value: a slice made
// once, for crc32 takes it through a function value and a local one escaped, one each a
// value sealed or checked.
var sep = []byte{0}

// checksum is the CRC-32C of a value under its bucket and key.
func checksum(bucket, k, v []byte) uint32 {
	c := crc32.Update(0, castagnoli, bucket)
	c = crc32.Update(c, castagnoli, sep)
	c = crc32.Update(c, castagnoli, k)
	c = crc32.Update(c, castagnoli, sep)
	return crc32.Update(c, castagnoli, v)
}

// seal returns v with its checksum before it.
func seal(bucket, k, v []byte) []byte {
	return appendSealed(make([]byte, 0, sumLen+len(v)), bucket, k, v)
}

// appendSealed appends v with its checksum before it to dst.
func appendSealed(dst, bucket, k, v []byte) []byte {
	return append(binary.BigEndian.AppendUint32(dst, checksum(bucket, k, v)), v...)
}

// unseal checks a sealed value's checksum and returns the value without it (sharing
// its bytes).
func unseal(bucket, k, sealed []byte) ([]byte, error) {
	if len(sealed) < sumLen {
		return nil, fmt.Errorf("bucket %s, key %q: %d bytes, shorter than a checksum: %w", bucket, k, len(sealed), ErrChecksum)
	}
	v := sealed[sumLen:]
	stored, sum := binary.BigEndian.Uint32(sealed), checksum(bucket, k, v)
	if stored != sum {
		return nil, fmt.Errorf("bucket %s, key %q: stored %08x, the value's is %08x: %w", bucket, k, stored, sum, ErrChecksum)
	}
	return v, nil
}

// isSealed reports whether a value of bucket is sealed in a file of schema 3: every
// value of the layout's buckets but meta/version.
func isSealed(bucket, k []byte) bool {
	if bytes.Equal(bucket, bucketMeta) {
		return !bytes.Equal(k, keyVersion)
	}
	for _, name := range allBuckets {
		if bytes.Equal(bucket, name) {
			return true
		}
	}
	return false
}

// table is one of the layout's buckets in a transaction, whose values it seals when it
// writes them and checks when it reads them.
type table struct {
	b    *bolt.Bucket
	name []byte
}

// open returns the bucket name of tx as a table.
func open(tx *bolt.Tx, name []byte) table { return table{b: tx.Bucket(name), name: name} }

// get returns the value under k without its checksum, nil when there is none, or
// ErrChecksum.
func (t table) get(k []byte) ([]byte, error) {
	v := t.b.Get(k)
	if v == nil {
		return nil, nil
	}
	return unseal(t.name, k, v)
}

// has reports whether a value is stored under k, without reading it.
func (t table) has(k []byte) bool { return t.b.Get(k) != nil }

// put stores v under k, sealed.
func (t table) put(k, v []byte) error { return t.b.Put(k, seal(t.name, k, v)) }

// putSealed stores a value sealed for this table and k already (seal(t.name, k, v)).
func (t table) putSealed(k, sealed []byte) error { return t.b.Put(k, sealed) }

// putIn stores v under k, sealed in room, which grows by its bytes: bbolt keeps a
// value's bytes (and k's) until the transaction ends, so room, and k, are not to be
// written over before then.
func (t table) putIn(room *[]byte, k, v []byte) error {
	at := len(*room)
	*room = appendSealed(*room, t.name, k, v)
	return t.b.Put(k, (*room)[at:len(*room):len(*room)])
}

// delete removes k.
func (t table) delete(k []byte) error { return t.b.Delete(k) }

// value checks a value read with a cursor of the table.
func (t table) value(k, sealed []byte) ([]byte, error) { return unseal(t.name, k, sealed) }

// forEach calls fn with every key and its value, checked; a value that fails its check
// ends the walk with ErrChecksum.
func (t table) forEach(fn func(k, v []byte) error) error {
	return t.b.ForEach(func(k, sealed []byte) error {
		v, err := unseal(t.name, k, sealed)
		if err != nil {
			return err
		}
		return fn(k, v)
	})
}
