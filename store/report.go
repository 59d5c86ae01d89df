package store

import (
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Report is a player's report of a knight, as the admins' reports command lists it: who
// reported whom and why, and the lines the reported knight said lately, with when. The
// knights are named as they were then, with their ids (a guest's, "guest-…", was its
// session's: FromGuest and AboutGuest mark them).
type Report struct {
	Filed       time.Time    `json:"filed"`
	From        string       `json:"from"`
	FromKnight  string       `json:"from_knight"`
	FromGuest   bool         `json:"from_guest,omitempty"`
	About       string       `json:"about"`
	AboutKnight string       `json:"about_knight,omitempty"`
	AboutGuest  bool         `json:"about_guest,omitempty"`
	Reason      string       `json:"reason"`
	Lines       []ReportLine `json:"lines"`
}

// ReportLine is one line the reported knight said: when, where (say, emote, shout, a
// channel, or whisper, to the reporter) and the line as its listeners read it.
type ReportLine struct {
	At    time.Time `json:"at"`
	Where string    `json:"where"`
	Line  string    `json:"line"`
}

type reportValue struct {
	V      int    `json:"v"`
	Report Report `json:"report"`
}

// reportKey orders reports by when they were filed; the reporter's knight id keeps two
// of the same moment apart.
func reportKey(r Report) []byte {
	return []byte(r.Filed.UTC().Format(time.RFC3339Nano) + "/" + r.FromKnight)
}

func putReports(tx *bolt.Tx, rs []Report) error {
	b := open(tx, bucketReports)
	for _, r := range rs {
		data, err := json.Marshal(reportValue{V: ValueVersion, Report: r})
		if err != nil {
			return fmt.Errorf("encode report: %w", err)
		}
		if err := b.put(reportKey(r), data); err != nil {
			return fmt.Errorf("put report: %w", err)
		}
	}
	return nil
}

// Reports lists the reports filed, oldest first.
func (s *Store) Reports() ([]Report, error) {
	out := []Report{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return open(tx, bucketReports).forEach(func(k, v []byte) error {
			r, err := decodeReport(k, v)
			if err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read reports from %s: %w", s.path, err)
	}
	return out, nil
}

// ForgetReportsBefore deletes the reports filed before t and reports how many it deleted.
func (s *Store) ForgetReportsBefore(t time.Time) (int, error) {
	n := 0
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := open(tx, bucketReports)
		var old [][]byte
		err := b.forEach(func(k, v []byte) error {
			r, err := decodeReport(k, v)
			if err != nil {
				return err
			}
			if r.Filed.Before(t) {
				old = append(old, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range old {
			if err := b.delete(k); err != nil {
				return err
			}
		}
		n = len(old)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("forget old reports in %s: %w", s.path, err)
	}
	return n, nil
}

func decodeReport(k, v []byte) (Report, error) {
	var rv reportValue
	if err := json.Unmarshal(v, &rv); err != nil {
		return Report{}, fmt.Errorf("decode report %s: %w", k, err)
	}
	if rv.V != ValueVersion {
		return Report{}, fmt.Errorf("decode report %s: value version %d, this program knows %d: %w", k, rv.V, ValueVersion, ErrUnknownVersion)
	}
	return rv.Report, nil
}
