package store

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Reports are bounded, so that a few reporters cannot grow the database without end: a
// reporter has one open report about a knight, which a new one
// updates; the lines a report quotes are stored once, in reportlines, however many
// reports quote them; and the reports and their lines together are held under
// MaxReportBytes, the oldest closed reports dropped first. How often a knight may report
// is the world's to say, which tells the reporter.

// MaxReportBytes bounds what the reports and the lines they quote take in the file
// together (their encoded values).
const MaxReportBytes = 256 << 10

// The outcomes of a closed report.
const (
	Resolved  = "resolved"
	Dismissed = "dismissed"
)

// ErrClosed means the report was closed already.
var ErrClosed = errors.New("the report is closed already")

// Report is a player's report of a knight, as the admins' reports command lists it: who
// reported whom and why, and the lines the reported knight said lately, with when. The
// knights are named as they were then, with their ids (a guest's, "guest-…", was its
// session's: FromGuest and AboutGuest mark them). ID is the store's, given when it is
// first written; a new report of the same reporter about the same knight while this one
// is open updates it (Updated, Times, the newer reason and any new lines). An admin
// closes it (Outcome, Closed, ClosedBy).
type Report struct {
	ID          uint64       `json:"id"`
	Filed       time.Time    `json:"filed"`
	Updated     time.Time    `json:"updated,omitzero"`
	Times       int          `json:"times,omitempty"` // reports it stands for, when more than one
	From        string       `json:"from"`
	FromKnight  string       `json:"from_knight"`
	FromGuest   bool         `json:"from_guest,omitempty"`
	About       string       `json:"about"`
	AboutKnight string       `json:"about_knight,omitempty"`
	AboutGuest  bool         `json:"about_guest,omitempty"`
	Reason      string       `json:"reason"`
	Lines       []ReportLine `json:"lines"`
	Outcome     string       `json:"outcome,omitempty"` // Resolved or Dismissed once closed
	Closed      time.Time    `json:"closed,omitzero"`
	ClosedBy    string       `json:"closed_by,omitempty"` // the admin's key fingerprint
}

// Open reports whether no admin has closed the report.
func (r Report) Open() bool { return r.Outcome == "" }

// last is when the report was last filed or updated.
func (r Report) last() time.Time {
	if r.Updated.After(r.Filed) {
		return r.Updated
	}
	return r.Filed
}

// ReportLine is one line the reported knight said: when, where (say, emote, shout, a
// channel, or whisper, to the reporter) and the line as its listeners read it.
type ReportLine struct {
	At    time.Time `json:"at"`
	Where string    `json:"where"`
	Line  string    `json:"line"`
}

// reportRecord is a report as stored: its lines are keys of reportlines.
type reportRecord struct {
	Report
	Lines []string `json:"lines"`
}

type reportValue struct {
	V      int          `json:"v"`
	Report reportRecord `json:"report"`
}

type lineValue struct {
	V    int        `json:"v"`
	Line ReportLine `json:"line"`
}

// bucketReportLines holds the lines reports quote, each once, by lineKey.
var bucketReportLines = []byte("reportlines")

// reportKey is the key of report id: its number in ten digits, so the bucket is in the
// order reports were first written, and an error names it as the admins read it.
func reportKey(id uint64) []byte { return fmt.Appendf(nil, "%010d", id) }

// lineKey names a line by what it is: the same line of the same knight, quoted by any
// number of reports, is one entry.
func lineKey(about string, l ReportLine) string {
	h := sha256.New()
	for _, s := range []string{about, l.At.UTC().Format(time.RFC3339Nano), l.Where, l.Line} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// marshal is json.Marshal without HTML's escapes: a player's "<" is one byte, not six.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// reports is the reports and their lines in a transaction.
type reports struct{ byID, lines table }

func reportsIn(tx *bolt.Tx) reports {
	return reports{byID: open(tx, bucketReports), lines: open(tx, bucketReportLines)}
}

// list decodes every report with its lines.
func (rs reports) list() ([]Report, error) {
	out := []Report{}
	err := rs.byID.forEach(func(k, v []byte) error {
		r, err := rs.decode(k, v)
		if err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// decode decodes a report and reads its lines.
func (rs reports) decode(k, v []byte) (Report, error) {
	rec, err := decodeReport(k, v)
	if err != nil {
		return Report{}, err
	}
	r := rec.Report
	r.Lines = make([]ReportLine, 0, len(rec.Lines))
	for _, lk := range rec.Lines {
		lv, err := rs.lines.get([]byte(lk))
		if err != nil {
			return Report{}, fmt.Errorf("report %d: %w", r.ID, err)
		}
		if lv == nil {
			continue // dropped with a report that no longer needed it: never so, but no reason to fail
		}
		l, err := decodeLine([]byte(lk), lv)
		if err != nil {
			return Report{}, fmt.Errorf("report %d: %w", r.ID, err)
		}
		r.Lines = append(r.Lines, l)
	}
	return r, nil
}

// write stores r, its lines once each.
func (rs reports) write(r Report) error {
	rec := reportRecord{Report: r, Lines: make([]string, len(r.Lines))}
	rec.Report.Lines = nil
	for i, l := range r.Lines {
		lk := lineKey(r.AboutKnight+"/"+r.About, l)
		rec.Lines[i] = lk
		if rs.lines.has([]byte(lk)) {
			continue
		}
		data, err := marshal(lineValue{V: ValueVersion, Line: l})
		if err != nil {
			return fmt.Errorf("encode a line of report %d: %w", r.ID, err)
		}
		if err := rs.lines.put([]byte(lk), data); err != nil {
			return fmt.Errorf("put a line of report %d: %w", r.ID, err)
		}
	}
	data, err := marshal(reportValue{V: ValueVersion, Report: rec})
	if err != nil {
		return fmt.Errorf("encode report %d: %w", r.ID, err)
	}
	return rs.byID.put(reportKey(r.ID), data)
}

// file stores a new report, or updates the open one of the same reporter about the same
// knight: its reason is the newer one and its lines the newer ones with any older
// ones the newer do not have.
func (rs reports) file(r Report, all []Report) ([]Report, error) {
	for i, old := range all {
		if !old.Open() || old.FromKnight != r.FromKnight || old.AboutKnight != r.AboutKnight || old.About != r.About {
			continue
		}
		old.Updated, old.Reason, old.Times = r.Filed, r.Reason, max(old.Times, 1)+1
		old.Lines = mergeLines(old.Lines, r.Lines)
		all[i] = old
		return all, rs.write(old)
	}
	id, err := rs.byID.b.NextSequence()
	if err != nil {
		return all, err
	}
	r.ID = id
	return append(all, r), rs.write(r)
}

// mergeLines is the lines of both, each once, in the order said, the newest
// maxReportLines of them.
func mergeLines(a, b []ReportLine) []ReportLine {
	seen := map[ReportLine]bool{}
	out := slices.DeleteFunc(slices.Concat(a, b), func(l ReportLine) bool {
		l.At = l.At.UTC()
		dup := seen[l]
		seen[l] = true
		return dup
	})
	slices.SortStableFunc(out, func(x, y ReportLine) int { return x.At.Compare(y.At) })
	return out[max(0, len(out)-maxReportLines):]
}

// maxReportLines bounds the lines of a report updated by newer ones, as the world bounds
// one report's.
const maxReportLines = 100

// remove deletes report r (its lines stay until dropUnquoted).
func (rs reports) remove(r Report) error { return rs.byID.delete(reportKey(r.ID)) }

// trim drops reports until the reports and their lines take at most limit bytes: the
// oldest closed ones first, then the open ones updated longest ago, each with the lines
// no other report quotes. It returns how many it dropped.
func (rs reports) trim(all []Report, limit int) (int, error) {
	size := 0
	for _, t := range []table{rs.byID, rs.lines} {
		c := t.b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			size += len(k) + len(v)
		}
	}
	if size <= limit {
		return 0, nil
	}
	quotes := map[string]int{} // a line's key: how many reports quote it
	for _, r := range all {
		for _, l := range r.Lines {
			quotes[lineKey(r.AboutKnight+"/"+r.About, l)]++
		}
	}
	order := slices.Clone(all)
	slices.SortStableFunc(order, func(a, b Report) int {
		if a.Open() != b.Open() {
			if a.Open() {
				return 1
			}
			return -1
		}
		return a.last().Compare(b.last())
	})
	dropped := 0
	for _, r := range order {
		if size <= limit {
			break
		}
		k := reportKey(r.ID)
		size -= len(k) + len(rs.byID.b.Get(k))
		if err := rs.remove(r); err != nil {
			return dropped, err
		}
		dropped++
		for _, l := range r.Lines {
			lk := lineKey(r.AboutKnight+"/"+r.About, l)
			if quotes[lk]--; quotes[lk] > 0 {
				continue
			}
			size -= len(lk) + len(rs.lines.b.Get([]byte(lk)))
			if err := rs.lines.delete([]byte(lk)); err != nil {
				return dropped, err
			}
		}
	}
	return dropped, nil
}

// dropUnquoted deletes the lines no report of all but the dropped quotes.
func (rs reports) dropUnquoted(all []Report, dropped map[uint64]bool) error {
	quoted := map[string]bool{}
	for _, r := range all {
		if dropped[r.ID] {
			continue
		}
		for _, l := range r.Lines {
			quoted[lineKey(r.AboutKnight+"/"+r.About, l)] = true
		}
	}
	var gone [][]byte
	c := rs.lines.b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if !quoted[string(k)] {
			gone = append(gone, bytes.Clone(k))
		}
	}
	for _, k := range gone {
		if err := rs.lines.delete(k); err != nil {
			return err
		}
	}
	return nil
}

func putReports(tx *bolt.Tx, new []Report) error {
	if len(new) == 0 {
		return nil
	}
	rs := reportsIn(tx)
	all, err := rs.list()
	if err != nil {
		return fmt.Errorf("read reports: %w", err)
	}
	for _, r := range new {
		if all, err = rs.file(r, all); err != nil {
			return fmt.Errorf("put report: %w", err)
		}
	}
	if _, err := rs.trim(all, MaxReportBytes); err != nil {
		return fmt.Errorf("trim reports: %w", err)
	}
	return nil
}

// Reports lists the reports filed: the open ones first, the first filed first, then
// the closed ones, the latest closed first.
func (s *Store) Reports() ([]Report, error) {
	var out []Report
	err := s.db.View(func(tx *bolt.Tx) error {
		var err error
		out, err = reportsIn(tx).list()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read reports from %s: %w", s.path, err)
	}
	slices.SortStableFunc(out, func(a, b Report) int {
		switch {
		case a.Open() && b.Open():
			return cmp.Or(a.Filed.Compare(b.Filed), cmp.Compare(a.ID, b.ID))
		case a.Open():
			return -1
		case b.Open():
			return 1
		}
		return b.Closed.Compare(a.Closed)
	})
	return out, nil
}

// CloseReport closes report id with outcome (Resolved or Dismissed), by the admin whose
// key is by, at at. A closed report is kept until MaxReportBytes or its age drops it.
func (s *Store) CloseReport(id uint64, outcome, by string, at time.Time) (Report, error) {
	var r Report
	err := s.update(func(tx *bolt.Tx) error {
		rs := reportsIn(tx)
		v, err := rs.byID.get(reportKey(id))
		if err != nil {
			return err
		}
		if v == nil {
			return ErrNotFound
		}
		if r, err = rs.decode(reportKey(id), v); err != nil {
			return err
		}
		if !r.Open() {
			return fmt.Errorf("%w (%s)", ErrClosed, r.Outcome)
		}
		r.Outcome, r.ClosedBy, r.Closed = outcome, by, at.UTC()
		return rs.write(r)
	})
	if err != nil {
		return Report{}, fmt.Errorf("close report %d in %s: %w", id, s.path, err)
	}
	return r, nil
}

// ForgetReportsBefore deletes the reports last filed or updated before t, and the lines
// only they quoted, and reports how many it deleted.
func (s *Store) ForgetReportsBefore(t time.Time) (int, error) {
	n := 0
	err := s.update(func(tx *bolt.Tx) error {
		rs := reportsIn(tx)
		all, err := rs.list()
		if err != nil {
			return err
		}
		old := map[uint64]bool{}
		for _, r := range all {
			if r.last().Before(t) {
				if err := rs.remove(r); err != nil {
					return err
				}
				old[r.ID] = true
			}
		}
		n = len(old)
		if n == 0 {
			return nil
		}
		return rs.dropUnquoted(all, old)
	})
	if err != nil {
		return 0, fmt.Errorf("forget old reports in %s: %w", s.path, err)
	}
	return n, nil
}

func decodeReport(k, v []byte) (reportRecord, error) {
	var rv reportValue
	if err := json.Unmarshal(v, &rv); err != nil {
		return reportRecord{}, fmt.Errorf("decode report %s: %w", k, err)
	}
	if rv.V != ValueVersion {
		return reportRecord{}, fmt.Errorf("decode report %s: value version %d, this program knows %d: %w", k, rv.V, ValueVersion, ErrUnknownVersion)
	}
	return rv.Report, nil
}

func decodeLine(k, v []byte) (ReportLine, error) {
	var lv lineValue
	if err := json.Unmarshal(v, &lv); err != nil {
		return ReportLine{}, fmt.Errorf("decode report line %s: %w", k, err)
	}
	if lv.V != ValueVersion {
		return ReportLine{}, fmt.Errorf("decode report line %s: value version %d, this program knows %d: %w", k, lv.V, ValueVersion, ErrUnknownVersion)
	}
	return lv.Line, nil
}

// schema2Report is a report as schema 2 stored it: by the time it was filed and its
// reporter, with its lines in it.
type schema2Report struct {
	V      int    `json:"v"`
	Report Report `json:"report"`
}

// rekeyReports moves schema 2's reports (sealed already by sealAll) to schema 3's
// layout: numbered in the order filed, their lines in reportlines.
func rekeyReports(tx *bolt.Tx) error {
	if _, err := tx.CreateBucketIfNotExists(bucketReportLines); err != nil || tx.Bucket(bucketReports) == nil {
		return err
	}
	rs := reportsIn(tx)
	var old []Report
	var keys [][]byte
	err := rs.byID.forEach(func(k, v []byte) error {
		var rv schema2Report
		if err := json.Unmarshal(v, &rv); err != nil {
			return fmt.Errorf("decode report %s: %w", k, err)
		}
		old, keys = append(old, rv.Report), append(keys, bytes.Clone(k))
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := rs.byID.delete(k); err != nil {
			return err
		}
	}
	for _, r := range old {
		if r.ID, err = rs.byID.b.NextSequence(); err != nil {
			return err
		}
		if err := rs.write(r); err != nil {
			return err
		}
	}
	return nil
}
