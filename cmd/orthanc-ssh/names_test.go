package main

import (
	"errors"
	"testing"
	"time"
)

// One-time codes: good once, for codeLife; a refused use gives the
// code back; wrong codes are counted per key and address; at most maxCodes are kept.
func TestCodeBook(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cb := &codeBook{now: func() time.Time { return now }}
	code := cb.add(codeEntry{kind: codeLink, knight: "K-A"})
	e, err := cb.take(code, codeLink, "fp")
	if err != nil || e.knight != "K-A" {
		t.Fatalf("take = %+v, %v", e, err)
	}
	if _, err := cb.take(code, codeLink, "fp"); !errors.Is(err, errBadCode) {
		t.Errorf("a code taken twice: %v", err)
	}
	cb.giveBack(code, e)
	if _, err := cb.take(code, codeLink, "other"); err != nil {
		t.Errorf("a code given back: %v", err)
	}
	code = cb.add(codeEntry{kind: codeLink, knight: "K-B"})
	now = now.Add(codeLife)
	if _, err := cb.take(code, codeLink, "other"); !errors.Is(err, errBadCode) {
		t.Errorf("an expired code: %v", err)
	}
	cb = &codeBook{now: func() time.Time { return now }}
	for range maxCodes + 10 {
		cb.add(codeEntry{kind: codeLink})
	}
	if n := cb.len(); n != maxCodes {
		t.Errorf("%d codes kept, want %d", n, maxCodes)
	}
}
