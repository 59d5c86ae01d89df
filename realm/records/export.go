package records

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The export (an admin's `export` on a realm): every record a realm world keeps of its
// knights, read from etcd at one revision, so the copy is consistent while knights
// play, and written as lines of JSON that -import reads back into an etcd (ReadExport).
// Each record is its key after the prefix and its value as etcd keeps it, so nothing is
// lost to a translation and a record of a later kind is one line more:
//
//	{"orthanc":"export","v":1,"revision":R,"taken":TIME}   the header
//	{"key":"knight/ID","value":{"v":1,...}}                 one line a record
//	{"end":true,"records":N}                                the last line: a file without it was cut short
//
// What lives on a lease (a realm's name, claims, releases, one-time codes) is the
// running realms' and is not exported.

// exportKinds are the prefixes of the records exported, in the order written.
var exportKinds = []string{"name/", "knight/", "key/", "fame/", "tombstone/", "letters/", "ban/", "silence/", "rename/"}

// exportFormat names an export file in its header; exportVersion versions its layout.
const (
	exportFormat  = "export"
	exportVersion = 1
)

// exportPage is how many records one read of an export asks etcd for: a sheet is a few
// kilobytes, so a page stays well within etcd's 1.5 MiB request.
const exportPage = 200

// exportHeader is an export file's first line.
type exportHeader struct {
	Orthanc  string    `json:"orthanc"`
	V        int       `json:"v"`
	Revision int64     `json:"revision"`
	Taken    time.Time `json:"taken"`
}

// exportLine is every other line: a record, or the end.
type exportLine struct {
	Key     string          `json:"key,omitempty"`
	Value   json.RawMessage `json:"value,omitempty"`
	End     bool            `json:"end,omitempty"`
	Records int             `json:"records,omitempty"`
}

// ErrNotExport is a file that is not an export, or one cut short.
var ErrNotExport = errors.New("not a whole export of a realm world")

// Export writes every knight's records to w, read at one revision of etcd, taken at
// now; it counts what it wrote. A knight that plays is written as of its last
// checkpoint.
func (s *Store) Export(ctx context.Context, w io.Writer, now time.Time) (knights.Tally, error) {
	rev, err := s.revision(ctx)
	if err != nil {
		return knights.Tally{}, fmt.Errorf("export: %w", err)
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(exportHeader{Orthanc: exportFormat, V: exportVersion, Revision: rev, Taken: now.UTC()}); err != nil {
		return knights.Tally{}, fmt.Errorf("export: %w", err)
	}
	t := knights.Tally{Revision: rev}
	n := 0
	for _, kind := range exportKinds {
		err := s.scan(ctx, kind, rev, func(key string, value []byte) error {
			n++
			if err := tally(&t, kind, value, now); err != nil {
				return fmt.Errorf("%s%s: %w", kind, key, err)
			}
			return enc.Encode(exportLine{Key: kind + key, Value: value})
		})
		if err != nil {
			return t, fmt.Errorf("export %s: %w", strings.TrimSuffix(kind, "/"), err)
		}
	}
	if err := enc.Encode(exportLine{End: true, Records: n}); err != nil {
		return t, fmt.Errorf("export: %w", err)
	}
	return t, wrap("export", bw.Flush())
}

// revision is etcd's revision now.
func (s *Store) revision(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	resp, err := s.cli.Get(ctx, s.prefix, clientv3.WithCountOnly())
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}

// scan calls fn with every record of kind (its key after the kind) as etcd held them at
// rev, a page at a time, in key order.
func (s *Store) scan(ctx context.Context, kind string, rev int64, fn func(key string, value []byte) error) error {
	pre := s.prefix + kind
	end := clientv3.GetPrefixRangeEnd(pre)
	from := pre
	for {
		cctx, cancel := context.WithTimeout(ctx, s.timeout)
		resp, err := s.cli.Get(cctx, from, clientv3.WithRange(end), clientv3.WithRev(rev), clientv3.WithLimit(exportPage))
		cancel()
		if err != nil {
			return err
		}
		for _, kv := range resp.Kvs {
			if err := fn(string(kv.Key[len(pre):]), kv.Value); err != nil {
				return err
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// Tally counts what etcd holds of the knights, at one revision: stats' numbers. Bans
// and silences are those in force at now.
func (s *Store) Tally(ctx context.Context, now time.Time) (knights.Tally, error) {
	rev, err := s.revision(ctx)
	if err != nil {
		return knights.Tally{}, fmt.Errorf("count the records: %w", err)
	}
	t := knights.Tally{Revision: rev}
	counted := map[string]*int{"knight/": &t.Knights, "name/": &t.Names, "key/": &t.Keys, "fame/": &t.Fame, "tombstone/": &t.Tombstones}
	for _, kind := range exportKinds {
		if n, ok := counted[kind]; ok { // their values say nothing more: counted by etcd
			cctx, cancel := context.WithTimeout(ctx, s.timeout)
			resp, err := s.cli.Get(cctx, s.prefix+kind, clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithCountOnly())
			cancel()
			if err != nil {
				return t, fmt.Errorf("count the records: %w", err)
			}
			*n = int(resp.Count)
			continue
		}
		err := s.scan(ctx, kind, rev, func(key string, value []byte) error {
			return wrap(kind+key, tally(&t, kind, value, now))
		})
		if err != nil {
			return t, fmt.Errorf("count the records: %w", err)
		}
	}
	return t, nil
}

// tally counts one record of kind, valued value, in t: a knight, a mailbox and its
// letters, a ban or silence in force at now, ...
func tally(t *knights.Tally, kind string, value []byte, now time.Time) error {
	k := []byte(kind)
	switch kind {
	case "knight/":
		t.Knights++
	case "name/":
		t.Names++
	case "key/":
		t.Keys++
	case "fame/":
		t.Fame++
	case "tombstone/":
		t.Tombstones++
	case "letters/":
		var lv lettersValue
		if err := decodeVersioned(k, value, &lv, &lv.V); err != nil {
			return err
		}
		if len(lv.Letters) > 0 {
			t.Mailboxes++
			t.Letters += len(lv.Letters)
		}
	case "ban/":
		b, err := decodeBan(k, value)
		if err != nil {
			return err
		}
		if !b.Lapsed(now) {
			t.Bans++
		}
	case "silence/":
		var sv silenceValue
		if err := decodeVersioned(k, value, &sv, &sv.V); err != nil {
			return err
		}
		if now.Before(sv.Silence.Until) {
			t.Silences++
		}
	case "rename/":
		t.Renames++
	}
	return nil
}

// Exported is a realm world as an export holds it, each record read.
type Exported struct {
	// Revision is etcd's revision the export was read at, Taken when.
	Revision int64
	Taken    time.Time
	// Knights are the sheets, each with the realm that wrote it; a rename an admin made
	// while the knight played elsewhere is applied.
	Knights    []ExportedKnight
	Keys       []knights.Key
	Fame       []knights.FameEntry
	Tombstones []knights.Tombstone
	// Mail is every mailbox with letters, by the recipient's id.
	Mail map[string][]world.Letter
	// Bans and Silences are those in force when read (ReadExport's now).
	Bans     []knights.Ban
	Silences []knights.Silence
	// Records is how many records the file holds, names and renames among them.
	Records int
}

// ExportedKnight is a knight's sheet and the realm that wrote it, where its position
// means something.
type ExportedKnight struct {
	Adventurer world.Adventurer
	Realm      string
}

// IsExport reports whether head, a file's first bytes, starts an export.
func IsExport(head []byte) bool {
	return strings.HasPrefix(string(head), `{"orthanc":"`+exportFormat+`"`)
}

// ReadExport reads an export from r, whole: a file cut short, or with a record this
// program cannot read, is an error naming the line. Bans and silences ended at now are
// left out.
func ReadExport(r io.Reader, now time.Time) (Exported, error) {
	dec := json.NewDecoder(bufio.NewReader(r))
	var h exportHeader
	if err := dec.Decode(&h); err != nil || h.Orthanc != exportFormat {
		return Exported{}, fmt.Errorf("read export: the first line: %w", ErrNotExport)
	}
	if h.V != exportVersion {
		return Exported{}, fmt.Errorf("read export: version %d, this program knows %d: %w", h.V, exportVersion, knights.ErrUnknownVersion)
	}
	x := exportReader{out: Exported{Revision: h.Revision, Taken: h.Taken, Mail: map[string][]world.Letter{}},
		renames: map[string]renameValue{}, now: now}
	for line := 2; ; line++ {
		var l exportLine
		if err := dec.Decode(&l); err != nil {
			return Exported{}, fmt.Errorf("read export: line %d: %w (%w)", line, ErrNotExport, err)
		}
		if l.End {
			if l.Records != x.out.Records {
				return Exported{}, fmt.Errorf("read export: %d records, the end says %d: %w", x.out.Records, l.Records, ErrNotExport)
			}
			break
		}
		if err := x.record(l.Key, l.Value); err != nil {
			return Exported{}, fmt.Errorf("read export: line %d: %w", line, err)
		}
		x.out.Records++
	}
	x.rename()
	return x.out, nil
}

// exportReader reads an export's records one by one.
type exportReader struct {
	out     Exported
	renames map[string]renameValue // by knight id
	now     time.Time
}

// record reads one record.
func (x *exportReader) record(key string, value []byte) error {
	kind, id, _ := strings.Cut(key, "/")
	k := []byte(key)
	switch kind {
	case "name":
		var n nameValue
		return decodeVersioned(k, value, &n, &n.V) // a name comes with its knight's sheet
	case "knight":
		a, realmName, err := DecodeSheet(id, value)
		x.out.Knights = append(x.out.Knights, ExportedKnight{Adventurer: a, Realm: realmName})
		return err
	case "key":
		key, err := decodeKey(id, value)
		x.out.Keys = append(x.out.Keys, key)
		return err
	case "fame":
		var f fameValue
		if err := decodeVersioned(k, value, &f, &f.V); err != nil {
			return err
		}
		x.out.Fame = append(x.out.Fame, f.FameEntry)
	case "tombstone":
		var t tombstoneValue
		if err := decodeVersioned(k, value, &t, &t.V); err != nil {
			return err
		}
		x.out.Tombstones = append(x.out.Tombstones, t.Tombstone)
	case "letters":
		var lv lettersValue
		if err := decodeVersioned(k, value, &lv, &lv.V); err != nil {
			return err
		}
		if len(lv.Letters) > 0 {
			x.out.Mail[id] = lv.Letters
		}
	case "ban":
		b, err := decodeBan(k, value)
		if err == nil && !b.Lapsed(x.now) {
			x.out.Bans = append(x.out.Bans, b)
		}
		return err
	case "silence":
		var sv silenceValue
		if err := decodeVersioned(k, value, &sv, &sv.V); err != nil {
			return err
		}
		if x.now.Before(sv.Silence.Until) {
			x.out.Silences = append(x.out.Silences, sv.Silence)
		}
	case "rename":
		var v renameValue
		if err := decodeVersioned(k, value, &v, &v.V); err != nil {
			return err
		}
		x.renames[id] = v
	default:
		return fmt.Errorf("a record of an unknown kind, %q", key)
	}
	return nil
}

// rename applies the pending renames to the sheets they were made from, as the realm
// that next claimed each knight would (Keeper.takeRename).
func (x *exportReader) rename() {
	for i := range x.out.Knights {
		a := &x.out.Knights[i].Adventurer
		if v, ok := x.renames[a.ID]; ok && world.NameKey(a.Name) == world.NameKey(v.Old) {
			a.Name = v.Name
		}
	}
}
