package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The import's check: every record imported is read back from etcd through the records'
// readers, the realms' own way in. A record written now or found the same must read as
// the store's; one etcd kept must be there. Each failure is a line.

var (
	errNotThere = errors.New("not in etcd")
	errDiffers  = errors.New("reads back otherwise than the store has it")
)

// verify reads back src's records not refused and returns how many failed.
func (im *importer) verify(src standalone) int {
	var errs []error
	for _, check := range []func(standalone) ([]error, error){im.verifyKnights, im.verifyKeys, im.verifyEnds, im.verifyLetters, im.verifyBans, im.verifySilences} {
		e, err := check(src)
		if err != nil {
			e = append(e, err)
		}
		errs = append(errs, e...)
	}
	for _, err := range errs {
		im.log.Error("import: check", "err", err)
	}
	if len(errs) == 0 {
		im.log.Info("import: read back", "records", len(im.done))
	}
	return len(errs)
}

// verifyKnights checks each knight's name and, when written now or before, its sheet.
func (im *importer) verifyKnights(src standalone) ([]error, error) {
	names, err := im.recs.KnightNames()
	if err != nil {
		return nil, err
	}
	named := map[string]string{}
	for _, n := range names {
		named[n.Knight] = world.NameKey(n.Name)
	}
	var errs []error
	for i := range src.knights {
		a := &src.knights[i]
		if im.refused[a.ID] {
			continue
		}
		if named[a.ID] != world.NameKey(a.Name) {
			errs = append(errs, importLine("name", a.Name, errNotThere))
		}
		if o, _ := im.outcome("knights", a.ID); o == records.Written || o == records.Same {
			errs = append(errs, im.sameSheet(a)...)
		}
	}
	return errs, nil
}

// sameSheet checks that etcd's sheet of a is a's.
func (im *importer) sameSheet(a *world.Adventurer) []error {
	got, err := im.recs.LoadAdventurer(a.ID)
	if err != nil {
		return []error{importLine("knight", a.ID, err)}
	}
	want, err1 := records.SheetWrite(a, im.realmOf(a.ID))
	have, err2 := records.SheetWrite(&got, im.realmOf(a.ID))
	if err := errors.Join(err1, err2); err != nil {
		return []error{importLine("knight", a.ID, err)}
	}
	if !bytes.Equal(want.Value, have.Value) {
		return []error{importLine("knight", a.ID, errDiffers)}
	}
	return nil
}

// verifyKeys checks that each key imported plays its knight in etcd.
func (im *importer) verifyKeys(src standalone) ([]error, error) {
	var errs []error
	for _, k := range src.keys {
		if o, ok := im.outcome("keys", k.Fingerprint); !ok || o == records.Refused {
			continue
		}
		got, err := im.recs.KeyOf(k.Fingerprint)
		switch {
		case errors.Is(err, store.ErrNotFound):
			errs = append(errs, importLine("key", k.Fingerprint, errNotThere))
		case err != nil:
			return errs, err
		case got.Knight != k.Knight:
			errs = append(errs, importLine("key", k.Fingerprint, errDiffers))
		}
	}
	return errs, nil
}

// verifyEnds checks that each fame entry and tombstone imported is in etcd.
func (im *importer) verifyEnds(src standalone) ([]error, error) {
	fame, err := im.recs.Fame()
	if err != nil {
		return nil, err
	}
	tombs, err := im.recs.Tombstones()
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, e := range fame {
		have["fame/"+endID(e.Adventurer.ID, e.Retired)] = true
	}
	for _, t := range tombs {
		have["tombstones/"+endID(t.Adventurer.ID, t.Died)] = true
	}
	var errs []error
	for id := range im.done {
		if kind, _, _ := strings.Cut(id, "/"); (kind == "fame" || kind == "tombstones") && !have[id] {
			errs = append(errs, importLine("", id, errNotThere))
		}
	}
	return errs, nil
}

// verifyLetters checks each mailbox: the store's when written now or before, there when
// etcd kept its own.
func (im *importer) verifyLetters(src standalone) ([]error, error) {
	mail, err := im.recs.Mail()
	if err != nil {
		return nil, err
	}
	var errs []error
	for to, ls := range src.mail {
		o, ok := im.outcome("letters", to)
		got, there := mail[to]
		switch {
		case !ok:
		case !there:
			errs = append(errs, importLine("letters of", to, errNotThere))
		case o != records.Kept && !sameJSON(got, ls):
			errs = append(errs, importLine("letters of", to, errDiffers))
		}
	}
	return errs, nil
}

// verifyBans checks that each ban imported is in force in etcd.
func (im *importer) verifyBans(src standalone) ([]error, error) {
	now := time.Now()
	bans, err := im.recs.Bans(now)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, b := range bans {
		have[banID(b)] = true
	}
	var errs []error
	for _, b := range src.bans {
		if !have[banID(b)] && !b.Lapsed(now) {
			errs = append(errs, importLine("ban", banID(b), errNotThere))
		}
	}
	return errs, nil
}

// verifySilences checks that each silence imported is running in etcd.
func (im *importer) verifySilences(src standalone) ([]error, error) {
	now := time.Now()
	running, err := im.recs.Silences(now)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, sl := range running {
		have[sl.Knight] = true
	}
	var errs []error
	for _, sl := range src.silence {
		if !im.refused[sl.Knight] && !have[sl.Knight] && now.Before(sl.Until) {
			errs = append(errs, importLine("silence", sl.Knight, errNotThere))
		}
	}
	return errs, nil
}

// sameJSON reports whether a and b encode alike.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
