package knights

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// clocked is cb on the clock now.
func clocked(cb *CodeBook, now func() time.Time) *CodeBook {
	cb.SetClock(now)
	return cb
}

// One-time codes: good once, of their own kind, for CodeLife; a refused use gives the
// code back; wrong codes are counted per key and address; at most MaxCodes are kept.
func TestCodeBook(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cb := clocked(NewCodeBook(nil, nil), func() time.Time { return now })
	code, _ := cb.Add(CodeEntry{Kind: CodeLink, Knight: "K-A"})
	if _, err := cb.Take(code, CodeClaim, "fp"); !errors.Is(err, ErrWrongKind) {
		t.Errorf("a link code taken as a claim: %v", err)
	}
	e, err := cb.Take(code, CodeLink, "fp")
	if err != nil || e.Knight != "K-A" {
		t.Fatalf("take = %+v, %v", e, err)
	}
	if _, err := cb.Take(code, CodeLink, "fp"); !errors.Is(err, ErrBadCode) {
		t.Errorf("a code taken twice: %v", err)
	}
	cb.GiveBack(code, e)
	if _, err := cb.Take(code, CodeLink, "other"); err != nil {
		t.Errorf("a code given back: %v", err)
	}
	code, _ = cb.Add(CodeEntry{Kind: CodeLink, Knight: "K-B"})
	now = now.Add(CodeLife)
	if _, err := cb.Take(code, CodeLink, "other"); !errors.Is(err, ErrBadCode) {
		t.Errorf("an expired code: %v", err)
	}
	cb = clocked(NewCodeBook(nil, nil), func() time.Time { return now })
	for range MaxCodes + 10 {
		cb.Add(CodeEntry{Kind: CodeClaim})
	}
	if n := cb.Len(); n != MaxCodes {
		t.Errorf("%d codes kept, want %d", n, MaxCodes)
	}
	for i := range MaxTriers + 10 {
		_, _ = cb.Take("AAAA-AAAA", CodeLink, fmt.Sprint("SHA256:guesser", i))
	}
	if n := len(cb.tries); n > MaxTriers {
		t.Errorf("%d guessers remembered, more than %d", n, MaxTriers)
	}
}

// memKeeper is a CodeKeeper in memory, as the store keeps them.
type memKeeper map[string]Code

func (m memKeeper) PutCode(c Code) error         { m[c.Code] = c; return nil }
func (m memKeeper) DeleteCode(code string) error { delete(m, code); return nil }

// A flood of keys add must not evict a guest's claim code, nor a restart lose the codes.
// A knight has one link code waiting (a new one replaces it); an address has
// MaxCodesPerAddr (its oldest goes); link codes, however many, never evict a claim; every
// code is kept in the keeper, and a book loaded from it takes them.
func TestCodesAreBoundedAndKept(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keep := memKeeper{}
	cb := clocked(NewCodeBook(keep, nil), func() time.Time { return now })
	guest := world.Adventurer{ID: "guest-1", Name: "Guest Tom", Guest: true}
	claim, _ := cb.Add(CodeEntry{Kind: CodeClaim, Guest: &guest, Addr: "192.0.2.9"})
	first, _ := cb.Add(CodeEntry{Kind: CodeLink, Knight: "K-A", Addr: "192.0.2.1"})
	second, _ := cb.Add(CodeEntry{Kind: CodeLink, Knight: "K-A", Addr: "192.0.2.1"})
	if _, err := cb.Take(first, CodeLink, "fp"); !errors.Is(err, ErrBadCode) {
		t.Errorf("a knight's first link code after its second: %v", err)
	}
	if e, ok := cb.codes[second]; !ok || e.Knight != "K-A" {
		t.Error("a knight's second link code is not waiting")
	}
	var mine []string
	for i := range MaxCodesPerAddr + 2 {
		code, _ := cb.Add(CodeEntry{Kind: CodeLink, Knight: fmt.Sprint("K-B", i), Addr: "192.0.2.2"})
		mine = append(mine, code)
	}
	for i, code := range mine {
		_, ok := cb.codes[code]
		if want := i >= 2; ok != want {
			t.Errorf("code %d of an address past its %d: kept %v, want %v", i, MaxCodesPerAddr, ok, want)
		}
	}
	for i := range MaxCodes + 10 {
		if _, err := cb.Add(CodeEntry{Kind: CodeLink, Knight: fmt.Sprint("K-C", i), Addr: fmt.Sprint("198.51.100.", i%250, "/", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := cb.codes[claim]; !ok {
		t.Fatal("the link codes evicted a guest's claim code")
	}
	if len(keep) != len(cb.codes) || len(cb.codes) != MaxCodes+1 {
		t.Errorf("%d codes in the book, %d kept; want %d link codes and the claim", len(cb.codes), len(keep), MaxCodes)
	}

	// A restart: a new book from what was kept, the claim in it, good as before.
	again := clocked(NewCodeBook(keep, nil), func() time.Time { return now.Add(CodeLife / 2) })
	codes := make([]Code, 0, len(keep))
	for _, c := range keep {
		codes = append(codes, c)
	}
	again.Load(codes)
	e, err := again.Take(claim, CodeClaim, "fp")
	if err != nil || e.Guest == nil || e.Guest.Name != "Guest Tom" || e.Addr != "192.0.2.9" {
		t.Fatalf("the claim code after a restart: %+v, %v", e, err)
	}
	if _, ok := keep[claim]; ok {
		t.Error("a code taken is still kept")
	}
}

// Guests leaving from many addresses, each given its claim code, fill the book: past
// MaxCodes the oldest code of the address that made the most goes, so one guest's code
// from another address outlives a flood of 334 addresses' three each, the flood's own
// codes going first; when every address has made as many, the oldest goes.
func TestAFloodOfClaimsFromManyAddressesKeepsAnotherGuestsCode(t *testing.T) {
	cb := NewCodeBook(nil, nil)
	guest := &world.Adventurer{ID: "guest-1", Name: "Guest Tom"}
	mine, err := cb.Add(CodeEntry{Kind: CodeClaim, Guest: guest, Addr: "203.0.113.7"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 334 * MaxCodesPerAddr {
		addr := fmt.Sprintf("198.51.%d.%d", i/MaxCodesPerAddr/250, i/MaxCodesPerAddr%250)
		if _, err := cb.Add(CodeEntry{Kind: CodeClaim, Guest: guest, Addr: addr}); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := cb.codes[mine]; !ok {
		t.Fatal("a flood of claims from 334 addresses evicted another address's claim code")
	}
	if n := cb.Len(); n != MaxCodes {
		t.Fatalf("%d codes kept, want %d", n, MaxCodes)
	}
	for i := range MaxCodes { // as many addresses as codes: the oldest, mine, goes at last
		if _, err := cb.Add(CodeEntry{Kind: CodeClaim, Guest: guest, Addr: fmt.Sprintf("192.0.%d.%d", i/250, i%250)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := cb.codes[mine]; ok {
		t.Fatal("the oldest code outlived a thousand addresses with one code each")
	}
}
