// Package store owns the game's persistent state: one bbolt file holding the
// adventurers (keyed by SSH key fingerprint) and, in later schema versions,
// level state, the hall of fame and tombstones. It also owns the write-behind
// Saver that keeps disk latency out of the game engine.
//
// It must not import anything terminal- or SSH-related, must not hold game
// rules (it stores world.Adventurer records as given and never judges them),
// and the engine's turn loop must not call the Store directly: it hands
// records to a Saver, whose Put never waits on disk.
//
// The file's bucket layout:
//
//	<file>.db
//	├── adventurers      fingerprint ("SHA256:...") → {"v":1,"adventurer":{...}}
//	├── levels           depth (uint32, big-endian) → JSON {"v":1,"level":LevelState}
//	├── fame             fingerprint/RFC 3339 time → JSON {"v":1,...FameEntry}
//	├── tombstones       fingerprint/RFC 3339 time → JSON {"v":1,...Tombstone}
//	├── bans             fingerprint → {"v":1,"ban":{fingerprint, name, reason, by, at}}
//	└── meta
//	    └── version      SchemaVersion as decimal ASCII ("1")
//
// SchemaVersion versions the layout above; the "v" in each value versions
// that value's encoding. A program refuses a file or a value whose version it
// does not know rather than guess at it.
package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the version of the bucket layout this package reads and
// writes, stored under meta/version.
const SchemaVersion = 1

// DefaultTimeout is how long Open waits for another process to release the
// file when Options.Timeout is zero.
const DefaultTimeout = time.Second

// Bucket and key names of the layout drawn in the package comment.
var (
	bucketAdventurers = []byte("adventurers")
	bucketLevels      = []byte("levels")
	bucketFame        = []byte("fame")
	bucketTombstones  = []byte("tombstones")
	bucketBans        = []byte("bans")
	bucketMeta        = []byte("meta")
	keyVersion        = []byte("version")

	// allBuckets are created at Open when missing. A bucket added later (bans) is created
	// in an older file on its first Open, with no version change: older programs ignore it.
	allBuckets = [][]byte{bucketAdventurers, bucketLevels, bucketFame, bucketTombstones, bucketBans, bucketMeta}
)

var (
	// ErrLocked means another process has the database file open; bbolt
	// allows one writer process per file.
	ErrLocked = errors.New("store locked")

	// ErrUnknownVersion means the file's schema version, or a stored value's
	// version, is not one this program knows (usually: written by a newer
	// version). The data is left as it is.
	ErrUnknownVersion = errors.New("unknown version")

	// ErrNotDatabase means the file exists but is not a bbolt database, or
	// its header pages are damaged. The file is left as it is.
	ErrNotDatabase = errors.New("not a bbolt database or damaged")

	// ErrNotFound means no adventurer is stored under the fingerprint.
	ErrNotFound = errors.New("not found")
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
}

// Open opens the store at path, creating the file (and its parent folder,
// mode 0700) if missing. A file another process holds fails after
// opts.Timeout with ErrLocked; a file that is not a bbolt database fails with
// ErrNotDatabase; a file of an unknown schema version fails with
// ErrUnknownVersion. Refused files are not modified.
func Open(path string, opts Options) (st *Store, err error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store %s: create folder: %w", path, err)
	}
	fi, statErr := os.Stat(path)
	hadData := statErr == nil && fi.Mode().IsRegular() && fi.Size() > 0

	db, err := openBolt(path, timeout)
	if err != nil {
		return nil, classifyOpenError(path, timeout, hadData, err)
	}
	if err := initSchema(db); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return &Store{db: db, path: path}, nil
}

// openBolt opens the bbolt file, turning a panic or memory fault while
// reading a damaged file into an error.
func openBolt(path string, timeout time.Duration) (db *bolt.DB, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if db != nil {
				_ = db.Close()
			}
			db, err = nil, fmt.Errorf("%w: bbolt: %v", ErrNotDatabase, r)
		}
	}()
	return bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout})
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

// initSchema checks the schema version and creates any missing bucket, all in
// one transaction; on refusal the transaction rolls back and nothing is written.
func initSchema(db *bolt.DB) error {
	return db.Update(func(tx *bolt.Tx) error {
		var stored []byte
		if meta := tx.Bucket(bucketMeta); meta != nil {
			stored = meta.Get(keyVersion)
		}
		if stored != nil {
			v, err := strconv.Atoi(string(stored))
			if err != nil {
				return fmt.Errorf("schema version %q: %w", stored, ErrUnknownVersion)
			}
			if v != SchemaVersion {
				return fmt.Errorf("schema version %d, this program knows %d: %w", v, SchemaVersion, ErrUnknownVersion)
			}
		} else if b := tx.Bucket(bucketAdventurers); b != nil {
			if k, _ := b.Cursor().First(); k != nil {
				return fmt.Errorf("adventurers stored but no schema version: %w", ErrUnknownVersion)
			}
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

// Check runs bbolt's consistency check over the whole file and decodes every
// stored adventurer, returning all problems found joined in one error, or nil.
func (s *Store) Check() error {
	var problems []error
	err := s.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			problems = append(problems, err)
		}
		for _, name := range allBuckets {
			if tx.Bucket(name) == nil {
				problems = append(problems, fmt.Errorf("bucket %s missing", name))
			}
		}
		if b := tx.Bucket(bucketBans); b != nil {
			_ = b.ForEach(func(k, v []byte) error {
				if _, err := decodeBan(k, v); err != nil {
					problems = append(problems, err)
				}
				return nil
			})
		}
		if b := tx.Bucket(bucketAdventurers); b != nil {
			return b.ForEach(func(k, v []byte) error {
				if _, err := decodeAdventurer(string(k), bytes.Clone(v)); err != nil {
					problems = append(problems, err)
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
