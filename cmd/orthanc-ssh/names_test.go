package main

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// A knight with a key may not take a guest's name; a guest may.
func TestAGuestsNameIsAGuests(t *testing.T) {
	for name, want := range map[string]bool{"Guest": true, "guest tom": true, "GUEST-Tom": true, "Guest's": true,
		"Guestwick": false, "Tom Guest": false, "Sir Kay": false} {
		if got := looksLikeAGuest(name); got != want {
			t.Errorf("looksLikeAGuest(%q) = %v", name, got)
		}
	}
	srv := startWorld(t)
	if n := srv.namesFor("K-KEYED", false); !n.Taken("Guest Tom") || n.Claim("Guest Tom") {
		t.Error("a keyed knight may take a guest's name")
	}
	if n := srv.namesFor("guest-1", true); n.Taken("Guest Tom") || !n.Claim("Guest Tom") {
		t.Error("a guest may not take its own name")
	}
}

// One-time codes: good once, of their own kind, for codeLife; a refused use gives the
// code back; wrong codes are counted per key and address; at most maxCodes are kept.
func TestCodeBook(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cb := &codeBook{now: func() time.Time { return now }}
	code := cb.add(codeEntry{kind: codeLink, knight: "K-A"})
	if _, err := cb.take(code, codeClaim, "fp"); !errors.Is(err, errWrongKind) {
		t.Errorf("a link code taken as a claim: %v", err)
	}
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
		cb.add(codeEntry{kind: codeClaim})
	}
	if n := cb.len(); n != maxCodes {
		t.Errorf("%d codes kept, want %d", n, maxCodes)
	}
	for i := range maxTriers + 10 {
		_, _ = cb.take("AAAA-AAAA", codeLink, fmt.Sprint("SHA256:guesser", i))
	}
	if n := len(cb.tries); n > maxTriers {
		t.Errorf("%d guessers remembered, more than %d", n, maxTriers)
	}
}
