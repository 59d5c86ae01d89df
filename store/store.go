// Package store owns the game's persistent state: one bbolt file holding the
// knights (keyed by their own id), the index from SSH key fingerprints to knights,
// level state, the hall of fame, tombstones, bans, the community's silences, letters
// and reports, and the message of the day. It also
// owns the write-behind Saver that keeps disk latency out of the game engine.
//
// It must not import anything terminal- or SSH-related, must not hold game
// rules (it stores world.Adventurer records as given and never judges them),
// and the engine's turn loop must not call the Store directly: it hands
// records to a Saver, whose Put never waits on disk.
//
// The file's bucket layout (schema 3):
//
//	<file>.db
//	├── knights          knight id → {"v":1,"adventurer":{...}} (the record's "fingerprint" is the id)
//	├── keys             key fingerprint ("SHA256:...") → {"v":1,"key":{knight, type, comment, added, last_used}}
//	├── levels           depth (uint32, big-endian) → JSON {"v":1,"level":LevelState}
//	├── fame             knight id/RFC 3339 time → JSON {"v":1,...FameEntry}
//	├── tombstones       knight id/RFC 3339 time → JSON {"v":1,...Tombstone}
//	├── bans             fingerprint, or "addr:" and an address prefix → {"v":1,"ban":{..., until}}
//	├── silences         knight id → {"v":1,"silence":{knight, name, reason, by, at, until}}
//	├── letters          the recipient's knight id → {"v":1,"letters":[{from, to, text, sent, read}]}
//	├── reports          report number, ten digits → {"v":1,"report":{id, filed, updated, times, from, from_knight, about, about_knight, reason, lines: [keys of reportlines], outcome, closed, closed_by}}
//	├── reportlines      a line's key (a hash of the knight, when, where and the line) → {"v":1,"line":{at, where, line}}: each line once, whichever reports quote it
//	├── codes            a one-time code → {"v":1,"code":{code, kind, knight, guest, addr, expires}}: keys add's and guests' codes, until they expire
//	├── replays          T/start/knight id → a chunk of the knight's rolling record; K/when/knight id/kind[/report] → a kept record (replay.go)
//	└── meta
//	    ├── version      SchemaVersion as decimal ASCII ("3")
//	    └── motd         {"v":1,"motd":{text, by, at}}: the message of the day, when set
//
// Every value but meta/version is sealed: four bytes of CRC-32C over the bucket's name,
// the key and the value, then the value (seal.go). A value whose checksum fails is
// refused when read (ErrChecksum, naming the bucket and the key), and a file with one is
// refused at Open.
//
// A knight has one or more keys, and every key leads to one knight: keys is the only
// way from a key to its knight, and a knight's keys are the keys entries naming it.
// A knight id is opaque: a new knight's is random (NewKnightID); a knight from schema
// 1 kept its key's fingerprint as its id.
//
// Schema 1 had one bucket adventurers, fingerprint → the same value
// as knights, in place of knights and keys; Open migrates such a file in place
// (migrate.go), after writing a copy of it beside it; schema 2 had the
// same buckets, its values without checksums, and is sealed in place the same way. silences, letters and reports
// came after schema 2 without a version change, like bans before them: Open
// creates them in a file that lacks them, a migrated one included, and a program that
// does not know them leaves them alone; so did replays.
//
// SchemaVersion versions the layout above; the "v" in each value versions
// that value's encoding. A program refuses a file or a value whose version it
// does not know rather than guess at it.
package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the version of the bucket layout this package reads and
// writes, stored under meta/version. Open migrates a file of schemaV1 or schemaV2.
const SchemaVersion = 3

// schemaV1 is the layout before knights had several keys: adventurers by fingerprint.
const schemaV1 = 1

// schemaV2 is the layout before values carried their checksums (seal.go).
const schemaV2 = 2

// DefaultTimeout is how long Open waits for another process to release the
// file when Options.Timeout is zero.
const DefaultTimeout = time.Second

// Bucket and key names of the layout drawn in the package comment.
var (
	bucketKnights    = []byte("knights")
	bucketKeys       = []byte("keys")
	bucketLevels     = []byte("levels")
	bucketFame       = []byte("fame")
	bucketTombstones = []byte("tombstones")
	bucketBans       = []byte("bans")
	bucketSilences   = []byte("silences")
	bucketLetters    = []byte("letters")
	bucketReports    = []byte("reports")
	bucketMeta       = []byte("meta")
	keyVersion       = []byte("version")
	keyMOTD          = []byte("motd")

	// bucketAdventurers is schema 1's bucket of adventurers by fingerprint, which the
	// migration to schema 2 empties into knights and keys and deletes.
	bucketAdventurers = []byte("adventurers")

	// allBuckets are created at Open when missing. A bucket added later (bans; silences,
	// letters and reports) is created in an older file on its first Open, with no version
	// change: older programs ignore it.
	allBuckets = [][]byte{bucketKnights, bucketKeys, bucketLevels, bucketFame, bucketTombstones, bucketBans,
		bucketSilences, bucketLetters, bucketReports, bucketReportLines, bucketCodes, bucketReplays, bucketMeta}
)

var (
	// ErrLocked means another process has the database file open; bbolt
	// allows one writer process per file.
	ErrLocked = errors.New("store locked")

	// ErrUnknownVersion means the file's schema version, or a stored value's
	// version, is not one this program knows (usually: written by a newer
	// version). The data is left as it is.
	ErrUnknownVersion = knights.ErrUnknownVersion

	// ErrNotDatabase means the file exists but is not a bbolt database, or
	// its header pages are damaged. The file is left as it is.
	ErrNotDatabase = errors.New("not a bbolt database or damaged")

	// ErrNotFound means nothing is stored under the id or fingerprint asked for: the
	// records' not found, so one test finds both.
	ErrNotFound = knights.ErrNotFound
)

// Options tune Open.
type Options struct {
	// Timeout is how long to wait for another process to release the file
	// before failing with ErrLocked; zero means DefaultTimeout.
	Timeout time.Duration
}

// Store is the game's bbolt database. It is safe for concurrent use; bbolt
// runs one write transaction at a time and any number of readers.
type Store struct {
	db   *bolt.DB
	path string
	// migrated is what Open migrated, nil when the file was of the current schema.
	migrated *Migration
	// quarantined are the damaged values Open took out of buckets the game can live
	// without.
	quarantined []Damaged
	// replays finds each knight's rolling record (replayindex.go).
	replays replayIndex
	// commits times the write transactions (diskstats.go).
	commits commitTimes
}

// Migration is what Open did to a file of an older schema: the store does no logging
// of its own, so the server reports it.
type Migration struct {
	// From and To are the schema versions before and after.
	From, To int
	// Backup is the copy of the file as it was, written beside it first.
	Backup string
}

// Damaged is a value Open found damaged (a flipped byte, a value that does not decode)
// in a bucket the game can live without, and took out so the server starts: a report, a
// replay's chunk or kept record. The store does no logging of its own: the server says
// which.
type Damaged struct {
	Bucket, Key string
	Err         error
}

// expendable are the buckets whose damaged values Open takes out rather than refusing
// the file: no knight, key, ban or level is in them.
var expendable = [][]byte{bucketReports, bucketReplays}

// Quarantined returns the damaged values Open took out of the buckets the game can live
// without.
func (s *Store) Quarantined() []Damaged { return s.quarantined }

// Migrated returns what Open migrated, and false when it migrated nothing.
func (s *Store) Migrated() (Migration, bool) {
	if s.migrated == nil {
		return Migration{}, false
	}
	return *s.migrated, true
}

// Open opens the store at path, creating the file (and its parent folder,
// mode 0700) if missing. An existing file is first read whole in a read-only
// pass (inspect), and nothing is written to it unless it passes: a file
// another process holds fails after opts.Timeout with ErrLocked; an empty,
// truncated, damaged or foreign file fails with ErrNotDatabase (a panic or
// memory fault inside bbolt while reading it included); a file of an unknown
// schema version fails with ErrUnknownVersion. A file that passes is written
// to at Open only when it lacks a bucket or its schema version, or is of schema 1
// or 2: then a copy of it is written beside it (<path>.schema1-backup or
// .schema2-backup) before it is migrated in place, in one transaction (migrate.go).
// A value whose checksum fails is damage: ErrNotDatabase and ErrChecksum.
func Open(path string, opts Options) (st *Store, err error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store %s: create folder: %w", path, err)
	}
	fi, statErr := os.Stat(path)
	exists := statErr == nil && fi.Mode().IsRegular()
	needsInit, version := true, 0
	var damaged []Damaged
	if exists {
		if fi.Size() == 0 {
			// bbolt would take an empty file as a new database: a restore that failed
			// (backup > orthanc.db) would start an empty dungeon unnoticed.
			return nil, fmt.Errorf("open store %s: the file is empty (zero length): %w", path, ErrNotDatabase)
		}
		if needsInit, version, damaged, err = inspect(path, timeout, fi.Size(), true); err != nil {
			return nil, err
		}
	}
	db, err := openBolt(path, timeout, false, true)
	if err != nil {
		return nil, classifyOpenError(path, timeout, exists, err)
	}
	if err := quarantine(db, damaged); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open store %s: take out damaged values: %w", path, err)
	}
	var migrated *Migration
	if version == schemaV1 || version == schemaV2 {
		backup, err := migrate(db, path, version)
		if err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("open store %s: %w", path, err)
		}
		migrated = &Migration{From: version, To: SchemaVersion, Backup: backup}
	}
	if needsInit {
		if err := initSchema(db); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("open store %s: %w", path, err)
		}
	}
	return &Store{db: db, path: path, migrated: migrated, quarantined: damaged}, nil
}

// quarantine deletes the damaged values inspect found in the expendable buckets.
func quarantine(db *bolt.DB, damaged []Damaged) error {
	if len(damaged) == 0 {
		return nil
	}
	return db.Update(func(tx *bolt.Tx) error {
		for _, d := range damaged {
			if b := tx.Bucket([]byte(d.Bucket)); b != nil {
				if err := b.Delete([]byte(d.Key)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// openBolt opens the bbolt file, turning a panic or memory fault while
// reading a damaged file into an error. Read-only, it takes a shared lock and
// never writes; with freelist, it reads the free list at once, here, rather
// than later on a goroutine of bbolt's own (written, it always does).
func openBolt(path string, timeout time.Duration, readOnly, freelist bool) (db *bolt.DB, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if db != nil {
				_ = db.Close()
			}
			db, err = nil, fmt.Errorf("%w: bbolt panicked reading it: %v", ErrNotDatabase, r)
		}
	}()
	return bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, ReadOnly: readOnly, PreLoadFreelist: freelist})
}

// inspect checks an existing file in a read-only pass, before anything may
// write to it: bbolt's header pages (at open), the file's length against the
// length the header gives, the structure of the pages bbolt will follow
// (checkPages), every page reachable from the root with every key and value
// on it, bbolt's consistency check, the schema version, and that every value
// of the layout's buckets decodes (a value of an unknown version is no damage:
// it is refused when read). It reports whether the file lacks a bucket or the schema
// version, and the schema version stored (0 for none). With lenient, a damaged value of
// an expendable bucket is no damage of the file: it is returned, for Open to take out.
func inspect(path string, timeout time.Duration, size int64, lenient bool) (needsInit bool, version int, damaged []Damaged, err error) {
	// First bbolt reads only the meta pages (and takes a shared lock): the structure
	// it would follow is checked from the file itself before it reads any more.
	db, err := openBolt(path, timeout, true, false)
	if err != nil {
		return false, 0, nil, classifyOpenError(path, timeout, true, err)
	}
	var txid uint64
	_ = db.View(func(tx *bolt.Tx) error { txid = uint64(tx.ID()); return nil })
	err = checkStructure(path, size, db.Info().PageSize, txid)
	_ = db.Close()
	if err != nil {
		return false, 0, nil, fmt.Errorf("open store %s: %w: %w", path, ErrNotDatabase, err)
	}
	if db, err = openBolt(path, timeout, true, true); err != nil {
		return false, 0, nil, classifyOpenError(path, timeout, true, err)
	}
	defer db.Close()
	var found *[]Damaged
	if lenient {
		found = &damaged
	}
	needsInit, version, err = readWhole(db, size, found)
	if err != nil {
		return false, 0, nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return needsInit, version, damaged, nil
}

// checkStructure is checkFile; a test replaces it to reach bbolt's own reading
// of a damaged file.
var checkStructure = checkFile

// readWhole is inspect's reading, in one read transaction. Every page is read
// here first, on a goroutine where a memory fault (a damaged page pointing
// outside the file) becomes a panic that is recovered, because bbolt's check
// runs on a goroutine of its own where a fault would end the process.
func readWhole(db *bolt.DB, size int64, damaged *[]Damaged) (needsInit bool, version int, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			needsInit, version, err = false, 0, fmt.Errorf("%w: bbolt panicked reading it: %v", ErrNotDatabase, r)
		}
	}()
	err = db.View(func(tx *bolt.Tx) error {
		if tx.Size() > size {
			return fmt.Errorf("%w: the file is %d bytes, its header says %d: it was cut short", ErrNotDatabase, size, tx.Size())
		}
		var stored []byte
		if meta := tx.Bucket(bucketMeta); meta != nil {
			stored = meta.Get(keyVersion)
		}
		if version, err = checkVersion(tx, stored); err != nil {
			return err
		}
		// A file of schema 1 or 2 has no checksums yet; a new one (no version) has no values.
		sealed := version != schemaV1 && version != schemaV2
		h := fnv.New64a()
		if err := tx.ForEach(func(name []byte, b *bolt.Bucket) error { return readBucket(h, name, b, sealed, damaged) }); err != nil {
			return err
		}
		var problems []error
		for err := range tx.Check() {
			if len(problems) < 3 {
				problems = append(problems, err)
			}
		}
		if len(problems) > 0 {
			return fmt.Errorf("%w: bbolt's check: %w", ErrNotDatabase, errors.Join(problems...))
		}
		needsInit = stored == nil
		for _, name := range allBuckets {
			needsInit = needsInit || tx.Bucket(name) == nil
		}
		return nil
	})
	return needsInit, version, err
}

// readBucket reads every key and value of bucket name and its sub-buckets
// into h, and checks the values of the layout's buckets: their checksums when
// sealed (schema 3), and that they decode. With damaged, a damaged value of an
// expendable bucket is added to it rather than failing the read.
func readBucket(h hash.Hash64, name []byte, b *bolt.Bucket, sealed bool, damaged *[]Damaged) error {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		_, _ = h.Write(k)
		if v == nil { // a sub-bucket
			if sub := b.Bucket(k); sub != nil {
				if err := readBucket(h, k, sub, sealed, nil); err != nil {
					return err
				}
			}
			continue
		}
		_, _ = h.Write(v)
		err := checkValue(name, k, v, sealed)
		if err != nil && damaged != nil && slices.ContainsFunc(expendable, func(e []byte) bool { return bytes.Equal(e, name) }) {
			*damaged = append(*damaged, Damaged{Bucket: string(name), Key: string(k), Err: err})
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkValue reports a value of one of the layout's buckets whose checksum
// fails (when sealed) or that does not decode as this package writes it (a
// value of a version this program does not know is no damage: it is refused
// when read).
func checkValue(bucket, k, v []byte, sealed bool) error {
	if sealed && isSealed(bucket, k) {
		var err error
		if v, err = unseal(bucket, k, v); err != nil {
			return fmt.Errorf("%w: %w", ErrNotDatabase, err)
		}
	}
	decode := decodeValue
	if !sealed && bytes.Equal(bucket, bucketReports) {
		decode = func(_, _, v []byte) error { return json.Unmarshal(v, new(schema2Report)) }
	}
	if err := decode(bucket, k, v); err != nil && !errors.Is(err, ErrUnknownVersion) {
		return fmt.Errorf("%w: bucket %s, key %q: %w", ErrNotDatabase, bucket, k, err)
	}
	return nil
}

// decodeValue decodes a value (without its checksum) of one of the layout's buckets.
func decodeValue(bucket, k, v []byte) error {
	var err error
	switch string(bucket) {
	case string(bucketAdventurers), string(bucketKnights):
		_, err = decodeAdventurer(string(k), v)
	case string(bucketKeys):
		_, err = decodeKey(k, v)
	case string(bucketBans):
		_, err = decodeBan(k, v)
	case string(bucketSilences):
		_, err = decodeSilence(k, v)
	case string(bucketLetters):
		_, err = decodeLetters(k, v)
	case string(bucketReports):
		_, err = decodeReport(k, v)
	case string(bucketReportLines):
		_, err = decodeLine(k, v)
	case string(bucketCodes):
		_, err = decodeCode(k, v)
	case string(bucketReplays):
		err = decodeReplayValue(k, v)
	case string(bucketLevels):
		err = json.Unmarshal(v, new(levelValue))
	case string(bucketFame):
		err = json.Unmarshal(v, new(fameValue))
	case string(bucketTombstones):
		err = json.Unmarshal(v, new(tombstoneValue))
	case string(bucketMeta):
		if bytes.Equal(k, keyMOTD) {
			err = json.Unmarshal(v, new(motdValue))
		}
	}
	return err
}

// checkVersion returns the stored schema version (0 for none), and refuses one
// this program does not know (it knows SchemaVersion, and schemas 1 and 2, which
// Open migrates), or a file with knights but no schema version.
func checkVersion(tx *bolt.Tx, stored []byte) (int, error) {
	if stored != nil {
		v, err := strconv.Atoi(string(stored))
		if err != nil {
			return 0, fmt.Errorf("schema version %q: %w", stored, ErrUnknownVersion)
		}
		if v < schemaV1 || v > SchemaVersion {
			return 0, fmt.Errorf("schema version %d, this program knows %d to %d: %w", v, schemaV1, SchemaVersion, ErrUnknownVersion)
		}
		return v, nil
	}
	for _, name := range [][]byte{bucketAdventurers, bucketKnights, bucketKeys} {
		if b := tx.Bucket(name); b != nil {
			if k, _ := b.Cursor().First(); k != nil {
				return 0, fmt.Errorf("%s stored but no schema version: %w", name, ErrUnknownVersion)
			}
		}
	}
	return 0, nil
}

// classifyOpenError wraps an error from bolt.Open with the store's sentinels.
func classifyOpenError(path string, timeout time.Duration, hadData bool, err error) error {
	if errors.Is(err, berrors.ErrTimeout) {
		return fmt.Errorf("open store: database %s is in use by another process (waited %s): %w", path, timeout, ErrLocked)
	}
	if errors.Is(err, ErrNotDatabase) {
		return fmt.Errorf("open store %s: %w", path, err)
	}
	corrupt := errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrChecksum) ||
		errors.Is(err, berrors.ErrVersionMismatch)
	if !corrupt && hadData {
		// bbolt reports some damage (such as a file shorter than two pages)
		// with unwrapped errors; anything that is not an OS error on a file
		// that had data is the file's fault.
		var pathErr *fs.PathError
		var errno syscall.Errno
		corrupt = !errors.As(err, &pathErr) && !errors.As(err, &errno)
	}
	if corrupt {
		return fmt.Errorf("open store %s: %w: %w", path, ErrNotDatabase, err)
	}
	return fmt.Errorf("open store %s: %w", path, err)
}

// initSchema writes the schema version and creates any missing bucket, all in
// one transaction, for a new file or one that lacks them (inspect has checked
// an existing file's version already).
func initSchema(db *bolt.DB) error {
	return db.Update(func(tx *bolt.Tx) error {
		var stored []byte
		if meta := tx.Bucket(bucketMeta); meta != nil {
			stored = meta.Get(keyVersion)
		}
		if _, err := checkVersion(tx, stored); err != nil {
			return err
		}
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("create bucket %s: %w", name, err)
			}
		}
		if stored == nil {
			want := []byte(strconv.Itoa(SchemaVersion))
			if err := tx.Bucket(bucketMeta).Put(keyVersion, want); err != nil {
				return fmt.Errorf("write schema version: %w", err)
			}
		}
		return nil
	})
}

// Path is the file the store was opened from.
func (s *Store) Path() string { return s.path }

// Close closes the database file and releases its lock. Later calls on the
// Store fail.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close store %s: %w", s.path, err)
	}
	return nil
}

// Backup writes a consistent copy of the whole database to w, taken in a
// read transaction so the game keeps running, and returns the bytes written.
// The copy is itself a bbolt file that Open accepts.
func (s *Store) Backup(w io.Writer) (int64, error) {
	var n int64
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("backup store %s: %w", s.path, err)
	}
	return n, nil
}

// Check runs bbolt's consistency check over the whole file, checks every stored
// value's checksum and decodes it, returning all problems found joined in one error, or
// nil. A key that names a knight that is not stored is a problem too. It runs on a live
// database as the game goes on, in a writable transaction that writes nothing and is
// rolled back: bbolt's check reads the free list, which only a writable transaction
// keeps still (in a read-only one it races with the writer releasing pages; bbolt's
// Tx.Check says so). The saver and the replays wait for it meanwhile.
func (s *Store) Check() error {
	var problems []error
	err := s.inRolledBack(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			problems = append(problems, err)
		}
		kb := tx.Bucket(bucketKnights)
		for _, name := range allBuckets {
			b := tx.Bucket(name)
			if b == nil {
				problems = append(problems, fmt.Errorf("bucket %s missing", name))
				continue
			}
			_ = b.ForEach(func(k, sealed []byte) error {
				if !isSealed(name, k) {
					return nil
				}
				v, err := unseal(name, k, sealed)
				if err == nil {
					err = decodeValue(name, k, bytes.Clone(v))
				}
				if err != nil {
					problems = append(problems, err)
					return nil
				}
				if bytes.Equal(name, bucketKeys) && kb != nil {
					if key, _ := decodeKey(k, v); kb.Get([]byte(key.Knight)) == nil {
						problems = append(problems, fmt.Errorf("key %s: its knight %s is not stored", k, key.Knight))
					}
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("check store %s: %w", s.path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("check store %s: %d problems: %w", s.path, len(problems), errors.Join(problems...))
	}
	return nil
}

// inRolledBack runs fn in a writable transaction and rolls it back, whatever fn did; on
// a file opened read-only (CheckFile's), where no one writes, in a read transaction.
func (s *Store) inRolledBack(fn func(tx *bolt.Tx) error) error {
	if s.db.IsReadOnly() {
		return s.db.View(fn)
	}
	tx, err := s.db.Begin(true)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	return fn(tx)
}

// CheckFile checks the database at path without writing to it, for a server that is not
// running: the read-only pass Open makes (the file's structure, every page, bbolt's
// check, every value's checksum, every value decoded), then Check. A file of an older
// schema, whose values have no checksums yet, is checked as that schema: Open would
// migrate it. It returns the file's schema version. A file a running server holds fails
// with ErrLocked after opts.Timeout: the server's own check command reads it live.
func CheckFile(path string, opts Options) (version int, err error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("check store %s: %w", path, err)
	}
	if fi.Size() == 0 {
		return 0, fmt.Errorf("check store %s: the file is empty (zero length): %w", path, ErrNotDatabase)
	}
	if _, version, _, err = inspect(path, timeout, fi.Size(), false); err != nil {
		return version, err
	}
	if version != SchemaVersion {
		return version, nil
	}
	db, err := openBolt(path, timeout, true, true)
	if err != nil {
		return version, classifyOpenError(path, timeout, true, err)
	}
	st := &Store{db: db, path: path}
	defer st.Close()
	return version, st.Check()
}

// The store keeps a server alone's knights' records.
var _ knights.Records = (*Store)(nil)
