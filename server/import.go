package server

import (
	"bufio"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// -import (with -data, -realm, -etcd) moves a server alone's knights into etcd, for it
// to become realm -realm: a flag like -check, since it reads the same -data and -etcd
// the server is given (its unit's settings), and exits. The store is opened as the
// server opens it, so a running server's lock refuses the import: stop it first. -data
// may name a file instead: a copy of a server alone's database (backup's), or a realm
// world's export (export's), which restores it into an etcd.
//
// The rule: each record is written only where etcd has none (records.Import*), so what
// etcd has stands (a knight a realm claims or has played since is never overwritten),
// and a second run writes nothing. A knight whose name another knight has in etcd is
// refused whole, with a line; so is a key that plays another knight. Then every record
// is read back from etcd and checked.

// importKinds are the kinds of records, in the order imported and reported.
var importKinds = []string{"knights", "names", "keys", "fame", "tombstones", "letters", "bans", "silences"}

// standalone is what a server alone keeps of its knights, read whole from its store, or
// a realm world from its export.
type standalone struct {
	knights []world.Adventurer
	// realms are the realms that wrote the sheets of an export, by knight id; a knight
	// not there (every one of a server alone's) is the importing realm's.
	realms  map[string]string
	keys    []knights.Key
	bans    []knights.Ban
	silence []knights.Silence
	fame    []knights.FameEntry
	tombs   []knights.Tombstone
	mail    map[string][]world.Letter
}

// Import is -import: it copies the knights of the server alone in cfg.Data into the etcd
// of cfg.Etcd, as realm cfg.Realm's, logging to log. It reports whether every record is
// in etcd (written now or before): not when one was refused, did not read back, or the
// store or etcd could not be read. advise is the fix an operator is told for an error
// opening either, the command's advice at start.
func Import(cfg Config, log *slog.Logger, advise func(error) string) bool {
	src, ok := readSource(cfg.Data, log, advise)
	if !ok {
		return false
	}
	cli, err := openEtcd(cfg)
	if err != nil {
		log.Error("import", "etcd", cfg.Etcd, "err", err, "fix", advise(err))
		return false
	}
	defer cli.Close()
	im := newImporter(records.New(cli, records.Options{}), cfg.Realm, log)
	return im.run(src)
}

// readSource reads what data holds: a server alone's folder, or a file, which is an
// export or a database's copy. It logs why it could not.
func readSource(data string, log *slog.Logger, advise func(error) string) (standalone, bool) {
	db := filepath.Join(data, "orthanc.db")
	if fi, err := os.Stat(data); err == nil && fi.Mode().IsRegular() {
		db = data
		if export, err := readExportFile(data); err != nil || export != nil {
			if err != nil {
				log.Error("import: read the export", "file", data, "err", err,
					"fix", "take the export again (ssh -p PORT host export > FILE) and import that")
				return standalone{}, false
			}
			log.Info("import: an export of a realm world", "file", data, "revision", export.Revision,
				"taken", export.Taken.Format(time.RFC3339), "records", export.Records)
			return exportedStandalone(export), true
		}
	}
	st, err := store.Open(db, store.Options{Timeout: time.Second})
	if err != nil {
		fix := advise(err)
		if errors.Is(err, store.ErrLocked) {
			fix = "stop the server first: the import reads the database whole, and a running server holds it"
		}
		log.Error("import", "db", db, "err", err, "fix", fix)
		return standalone{}, false
	}
	defer st.Close()
	src, err := readStandalone(st, time.Now())
	if err != nil {
		log.Error("import: read the store", "db", db, "err", err)
		return standalone{}, false
	}
	return src, true
}

// readExportFile reads the file path as an export, nil when it is none (a database).
func readExportFile(path string) (*records.Exported, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(64)
	if !records.IsExport(head) {
		return nil, nil
	}
	x, err := records.ReadExport(br, time.Now())
	return &x, err
}

// exportedStandalone is the records of an export, to import as a server alone's are.
func exportedStandalone(x *records.Exported) standalone {
	src := standalone{realms: map[string]string{}, keys: x.Keys, bans: x.Bans, silence: x.Silences,
		fame: x.Fame, tombs: x.Tombstones, mail: x.Mail}
	for _, k := range x.Knights {
		src.knights = append(src.knights, k.Adventurer)
		src.realms[k.Adventurer.ID] = k.Realm
	}
	return src
}

// readStandalone reads every knight's records from st; bans and silences ended at now
// are left.
func readStandalone(st *store.Store, now time.Time) (src standalone, err error) {
	names, err := st.KnightNames()
	if err != nil {
		return src, err
	}
	for _, n := range names {
		a, err := st.LoadAdventurer(n.Knight)
		if err != nil {
			return src, err
		}
		src.knights = append(src.knights, a)
	}
	if src.keys, err = st.AllKeys(); err != nil {
		return src, err
	}
	if src.bans, err = st.Bans(now); err != nil {
		return src, err
	}
	if src.silence, err = st.Silences(now); err != nil {
		return src, err
	}
	if src.fame, err = st.Fame(); err != nil {
		return src, err
	}
	if src.tombs, err = st.Tombstones(); err != nil {
		return src, err
	}
	src.mail, err = st.Mail()
	return src, err
}

// importer copies a standalone into etcd and counts what it did.
type importer struct {
	recs  *records.Store
	realm string
	log   *slog.Logger
	// counts are by kind, then by records.Outcome.
	counts map[string]*[4]int
	// refused are the knights left out whole.
	refused map[string]bool
	// realms are the realms of an export's sheets (standalone.realms).
	realms map[string]string
	// done is each record's outcome by kind and id, for the check.
	done map[string]records.Outcome
}

func newImporter(recs *records.Store, realmName string, log *slog.Logger) *importer {
	im := &importer{recs: recs, realm: realmName, log: log, counts: map[string]*[4]int{},
		refused: map[string]bool{}, done: map[string]records.Outcome{}}
	for _, k := range importKinds {
		im.counts[k] = new([4]int)
	}
	return im
}

// run imports src, reports the counts, reads it all back, and reports whether every
// record is in etcd.
func (im *importer) run(src standalone) bool {
	im.realms = src.realms
	err := im.importAll(src)
	im.report()
	if err != nil {
		im.log.Error("import stopped", "err", err, "fix", "run it again when etcd answers: what was written stands")
		return false
	}
	bad := im.verify(src)
	refused := 0
	for _, c := range im.counts {
		refused += c[records.Refused]
	}
	if bad > 0 || refused > 0 {
		im.log.Error("import: not all is in etcd", "refused", refused, "unread", bad)
		return false
	}
	im.log.Info("import: every record is in etcd, read back", "realm", im.realm)
	return true
}

// note counts r as kind's record id.
func (im *importer) note(kind, id string, r records.Imported) {
	im.counts[kind][r.Outcome]++
	im.done[kind+"/"+id] = r.Outcome
}

// outcome is what was done with kind's record id, and whether it was tried.
func (im *importer) outcome(kind, id string) (records.Outcome, bool) {
	o, ok := im.done[kind+"/"+id]
	return o, ok
}

// report logs one line of counts a kind.
func (im *importer) report() {
	for _, k := range importKinds {
		c := im.counts[k]
		im.log.Info("import", "kind", k, "written", c[records.Written], "unchanged", c[records.Same],
			"kept", c[records.Kept], "refused", c[records.Refused])
	}
}

// importAll imports every kind of record in turn: the knights first, whose refusals
// leave out their keys, ends and letters.
func (im *importer) importAll(src standalone) error {
	for i := range src.knights {
		if err := im.knight(&src.knights[i]); err != nil {
			return err
		}
	}
	for _, step := range []func(standalone) error{im.keys, im.ends, im.letters, im.bans, im.silences} {
		if err := step(src); err != nil {
			return err
		}
	}
	return nil
}

// knight imports a knight's name, then its sheet; a name another knight has in etcd
// refuses the knight whole.
func (im *importer) knight(a *world.Adventurer) error {
	r, err := im.recs.ImportName(a.Name, a.ID)
	if err != nil {
		return err
	}
	im.note("names", a.ID, r)
	if r.Outcome == records.Refused {
		im.refused[a.ID] = true
		im.counts["knights"][records.Refused]++
		im.log.Warn("import: refused: the name is another knight's in etcd", "knight", a.ID, "name", a.Name, "other", r.By)
		return nil
	}
	r, err = im.recs.ImportSheet(a, im.realmOf(a.ID))
	if err != nil {
		return err
	}
	im.note("knights", a.ID, r)
	if r.Outcome == records.Kept {
		im.log.Info("import: etcd's sheet stands", "knight", a.ID, "name", a.Name, "holder", r.By)
	}
	return nil
}

// realmOf is the realm knight's sheet is written as: the one that wrote it, for an
// export's; the importing realm, for a server alone's.
func (im *importer) realmOf(knight string) string {
	if r, ok := im.realms[knight]; ok {
		return r
	}
	return im.realm
}

// keys imports every key of a knight not refused; one another knight plays in etcd is
// refused with a line.
func (im *importer) keys(src standalone) error {
	for _, k := range src.keys {
		if im.refused[k.Knight] {
			im.counts["keys"][records.Refused]++
			continue
		}
		r, err := im.recs.ImportKey(k)
		if err != nil {
			return err
		}
		im.note("keys", k.Fingerprint, r)
		if r.Outcome == records.Refused {
			im.log.Warn("import: refused: the key plays another knight in etcd", "key", k.Fingerprint, "knight", k.Knight, "other", r.By)
		}
	}
	return nil
}

// ends imports the hall of fame and the tombstones of the knights not refused.
func (im *importer) ends(src standalone) error {
	for _, e := range src.fame {
		if err := im.one("fame", e.Adventurer.ID, endID(e.Adventurer.ID, e.Retired), func() (records.Imported, error) {
			return im.recs.ImportFame(e)
		}); err != nil {
			return err
		}
	}
	for _, t := range src.tombs {
		if err := im.one("tombstones", t.Adventurer.ID, endID(t.Adventurer.ID, t.Died), func() (records.Imported, error) {
			return im.recs.ImportTombstone(t)
		}); err != nil {
			return err
		}
	}
	return nil
}

// letters imports the mailboxes of the knights not refused.
func (im *importer) letters(src standalone) error {
	for to, ls := range src.mail {
		if err := im.one("letters", to, to, func() (records.Imported, error) {
			return im.recs.ImportMail(to, ls)
		}); err != nil {
			return err
		}
	}
	return nil
}

// bans imports the bans in force.
func (im *importer) bans(src standalone) error {
	for _, b := range src.bans {
		if err := im.one("bans", "", banID(b), func() (records.Imported, error) {
			return im.recs.ImportBan(b)
		}); err != nil {
			return err
		}
	}
	return nil
}

// silences imports the silences running, of the knights not refused.
func (im *importer) silences(src standalone) error {
	for _, sl := range src.silence {
		if err := im.one("silences", sl.Knight, sl.Knight, func() (records.Imported, error) {
			return im.recs.ImportSilence(sl)
		}); err != nil {
			return err
		}
	}
	return nil
}

// one imports kind's record id of knight (empty: of none) unless the knight is refused.
func (im *importer) one(kind, knight, id string, put func() (records.Imported, error)) error {
	if im.refused[knight] {
		im.counts[kind][records.Refused]++
		return nil
	}
	r, err := put()
	if err != nil {
		return err
	}
	im.note(kind, id, r)
	return nil
}

// endID names a fame entry or a tombstone: its knight and its time.
func endID(knight string, at time.Time) string {
	return knight + "/" + at.UTC().Format(time.RFC3339Nano)
}

// banID names a ban as the bans listing does: its fingerprint, or "addr:" and its prefix.
func banID(b knights.Ban) string {
	if b.Addr != "" {
		return "addr:" + b.Addr
	}
	return b.Fingerprint
}

// importLine is one record's verification failure, for the log.
func importLine(kind, id string, err error) error {
	return fmt.Errorf("%s %s: %w", kind, id, err)
}
