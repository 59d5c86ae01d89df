package server

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A knight with a key may not take a guest's name; a guest may.
func TestAGuestsNameIsAGuests(t *testing.T) {
	for name, want := range map[string]bool{"Guest": true, "guest tom": true, "GUEST-Tom": true, "Guest's": true,
		"Guestwick": true, "GUESTLY": true, "Tom Guest": false, "Sir Kay": false, "Gues": false} {
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
	code, _ := cb.add(codeEntry{kind: codeLink, knight: "K-A"})
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
	code, _ = cb.add(codeEntry{kind: codeLink, knight: "K-B"})
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

// memKeeper is a codeKeeper in memory, as the store keeps them.
type memKeeper map[string]knights.Code

func (m memKeeper) PutCode(c knights.Code) error { m[c.Code] = c; return nil }
func (m memKeeper) DeleteCode(code string) error { delete(m, code); return nil }

// Regression (issue 30): 1010 keys add in 56 s evicted a guest's claim code, and a restart
// lost every code. A knight has one link code waiting (a new one replaces it); an address
// has maxCodesPerAddr (its oldest goes); link codes, however many, never evict a claim;
// every code is kept in the keeper, and a book loaded from it takes them.
func TestCodesAreBoundedAndKept(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keep := memKeeper{}
	cb := &codeBook{now: func() time.Time { return now }, keep: keep}
	guest := world.Adventurer{ID: "guest-1", Name: "Guest Tom", Guest: true}
	claim, _ := cb.add(codeEntry{kind: codeClaim, rec: &guest, addr: "192.0.2.9"})
	first, _ := cb.add(codeEntry{kind: codeLink, knight: "K-A", addr: "192.0.2.1"})
	second, _ := cb.add(codeEntry{kind: codeLink, knight: "K-A", addr: "192.0.2.1"})
	if _, err := cb.take(first, codeLink, "fp"); !errors.Is(err, errBadCode) {
		t.Errorf("a knight's first link code after its second: %v", err)
	}
	if e, ok := cb.codes[second]; !ok || e.knight != "K-A" {
		t.Error("a knight's second link code is not waiting")
	}
	var mine []string
	for i := range maxCodesPerAddr + 2 {
		code, _ := cb.add(codeEntry{kind: codeLink, knight: fmt.Sprint("K-B", i), addr: "192.0.2.2"})
		mine = append(mine, code)
	}
	for i, code := range mine {
		_, ok := cb.codes[code]
		if want := i >= 2; ok != want {
			t.Errorf("code %d of an address past its %d: kept %v, want %v", i, maxCodesPerAddr, ok, want)
		}
	}
	for i := range maxCodes + 10 {
		if _, err := cb.add(codeEntry{kind: codeLink, knight: fmt.Sprint("K-C", i), addr: fmt.Sprint("198.51.100.", i%250, "/", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := cb.codes[claim]; !ok {
		t.Fatal("the link codes evicted a guest's claim code")
	}
	if len(keep) != len(cb.codes) || len(cb.codes) != maxCodes+1 {
		t.Errorf("%d codes in the book, %d kept; want %d link codes and the claim", len(cb.codes), len(keep), maxCodes)
	}

	// A restart: a new book from what was kept, the claim in it, good as before.
	again := &codeBook{now: func() time.Time { return now.Add(codeLife / 2) }, keep: keep}
	codes := make([]knights.Code, 0, len(keep))
	for _, c := range keep {
		codes = append(codes, c)
	}
	again.load(codes)
	e, err := again.take(claim, codeClaim, "fp")
	if err != nil || e.rec == nil || e.rec.Name != "Guest Tom" || e.addr != "192.0.2.9" {
		t.Fatalf("the claim code after a restart: %+v, %v", e, err)
	}
	if _, ok := keep[claim]; ok {
		t.Error("a code taken is still kept")
	}
}

// Regression (issue 30): one address made 45 knights in 9 s, and a keyed knight took the
// name Guestly. An address makes -new-knights-per-hour knights in an hour; a game left
// before a knight was made does not count; the next new key reads why it is refused, and
// a key with a knight plays on. A name that begins with "Guest" is refused a keyed knight.
func TestNewKnightsPerAddressAreLimited(t *testing.T) {
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.Limits.NewKnightsPerHour = 2
	ts, _ := startConfigured(t, cfg)
	left := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	left.waitFor("Press Enter to begin")
	left.close()
	first := newKey(t)
	tm := openTerminal(t, ts.addr, first, 80, 24, nil)
	tm.waitFor("Press Enter to begin")
	tm.press(keyEnter)
	tm.waitFor("Press r to roll again")
	tm.press(keyEnter)
	tm.waitFor("Name your knight")
	tm.press("Guestly", keyEnter)
	tm.waitFor("Names that begin with Guest are kept for guests")
	tm.press(strings.Repeat("\x7f", 10), "Kay", keyEnter)
	tm.waitFor("level 1 of the dungeon", "Depth 1")
	tm.quit()
	openTerminal(t, ts.addr, newKey(t), 80, 24, nil).enterDungeon("Bors")
	refused := openTerminal(t, ts.addr, newKey(t), 80, 24, nil)
	refused.waitRaw("Too many new knights were made from your address in the last hour")
	again := openTerminal(t, ts.addr, first, 80, 24, nil)
	again.continueKnight()
}
