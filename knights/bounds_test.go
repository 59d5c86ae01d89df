package knights

import (
	"errors"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The numbers of docs/DESIGN.md's "One-time codes" and "Several keys" rulings, written out
// here rather than read from the constants, which a test would follow wherever they went.
const (
	rulingCodeLife     = 10 * time.Minute
	rulingCodesPerAddr = 3
	rulingCodeTries    = 5
	rulingMaxCodes     = 1000
	rulingTriers       = 10000
)

// A code is two groups of four from the 31 letters and digits that do not look alike.
func TestACodeIsTwoGroupsOfFour(t *testing.T) {
	form := regexp.MustCompile(`^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{4}-[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{4}$`)
	for range 100 {
		if c := newCode(); !form.MatchString(c) {
			t.Fatalf("code %q is not two groups of four of the alphabet", c)
		}
	}
	if len(codeAlphabet) != 31 {
		t.Errorf("the alphabet has %d letters and digits, want 31", len(codeAlphabet))
	}
}

// A code is good for ten minutes from its making, and no longer: a second before, it is
// taken; at ten minutes it is refused, and one given back after that is not kept.
func TestACodeIsGoodForTenMinutes(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	cb := clocked(NewCodeBook(nil, nil), func() time.Time { return now })
	code, _ := cb.Add(CodeEntry{Kind: CodeLink, Knight: "K-A"})
	now = start.Add(rulingCodeLife - time.Second)
	e, err := cb.Take(code, CodeLink, "fp")
	if err != nil {
		t.Fatalf("a code a second before ten minutes: %v", err)
	}
	if !e.Expires.Equal(start.Add(rulingCodeLife)) {
		t.Errorf("a code made at %v expires at %v, want ten minutes on", start, e.Expires)
	}
	now = start.Add(rulingCodeLife)
	cb.GiveBack(code, e) // the key was refused, but the code has run out meanwhile
	if _, ok := cb.codes[code]; ok {
		t.Error("a code given back after it expired is kept")
	}
	code, _ = cb.Add(CodeEntry{Kind: CodeLink, Knight: "K-B"})
	now = now.Add(rulingCodeLife)
	if _, err := cb.Take(code, CodeLink, "fp"); !errors.Is(err, ErrBadCode) {
		t.Errorf("a code at ten minutes: %v, want ErrBadCode", err)
	}
	// Expired codes go from the book at its next use, at most a second later.
	code, _ = cb.Add(CodeEntry{Kind: CodeLink, Knight: "K-C"})
	now = now.Add(rulingCodeLife + time.Second)
	cb.Add(CodeEntry{Kind: CodeLink, Knight: "K-D"})
	if _, ok := cb.codes[code]; ok || cb.Len() != 1 {
		t.Errorf("an expired code is still in the book (%d codes)", cb.Len())
	}
}

// An address has three codes waiting: its fourth takes its oldest's place; another
// address's codes stay.
func TestAnAddressHasThreeCodes(t *testing.T) {
	cb := NewCodeBook(nil, nil)
	other, _ := cb.Add(CodeEntry{Kind: CodeClaim, Guest: &world.Adventurer{ID: "guest-1"}, Addr: "192.0.2.9"})
	var mine []string
	for i := range rulingCodesPerAddr + 1 {
		code, _ := cb.Add(CodeEntry{Kind: CodeClaim, Guest: &world.Adventurer{ID: fmt.Sprint("guest-", i+2)}, Addr: "192.0.2.1"})
		mine = append(mine, code)
	}
	if _, ok := cb.codes[mine[0]]; ok {
		t.Errorf("an address's first code outlived its fourth")
	}
	for _, code := range append(mine[1:], other) {
		if _, ok := cb.codes[code]; !ok {
			t.Errorf("code %s is not waiting", code)
		}
	}
}

// Five wrong codes from a key or an address in ten minutes refuse even a right one; ten
// minutes after the first wrong one, it may try again; a right code is no wrong one.
func TestFiveWrongCodesInTenMinutes(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	cb := clocked(NewCodeBook(nil, nil), func() time.Time { return now })
	code, _ := cb.Add(CodeEntry{Kind: CodeLink, Knight: "K-A"})
	for i := range rulingCodeTries - 1 {
		if _, err := cb.Take(fmt.Sprintf("WRNG-000%d", i), CodeLink, "SHA256:guesser", "192.0.2.1"); !errors.Is(err, ErrBadCode) {
			t.Fatalf("wrong code %d: %v", i+1, err)
		}
		now = now.Add(time.Minute)
	}
	right, _ := cb.Add(CodeEntry{Kind: CodeLink, Knight: "K-B"})
	if _, err := cb.Take(right, CodeLink, "SHA256:guesser", "192.0.2.1"); err != nil {
		t.Fatalf("a right code after %d wrong ones: %v", rulingCodeTries-1, err)
	}
	cb.Take("WRNG-LAST", CodeLink, "SHA256:other", "192.0.2.1") // the fifth from the address, by another key
	if _, err := cb.Take(code, CodeLink, "SHA256:third", "192.0.2.1"); !errors.Is(err, ErrTooManyBad) {
		t.Fatalf("a right code from an address after five wrong ones: %v, want ErrTooManyBad", err)
	}
	cb.Take("WRNG-FIFT", CodeLink, "SHA256:guesser", "198.51.100.1") // the key's fifth, from another address
	if _, err := cb.Take(code, CodeLink, "SHA256:guesser", "198.51.100.2"); !errors.Is(err, ErrTooManyBad) {
		t.Fatalf("a right code from a key after five wrong ones: %v, want ErrTooManyBad", err)
	}
	// Half a second before, then at ten minutes: the book sweeps old counts at most once a
	// second, so it is the count's own time that lets the key in.
	now = start.Add(rulingCodeLife - time.Second/2)
	if _, err := cb.Take(code, CodeLink, "SHA256:third", "192.0.2.1"); !errors.Is(err, ErrTooManyBad) {
		t.Fatalf("half a second before ten minutes from the first wrong code: %v, want ErrTooManyBad", err)
	}
	now = start.Add(rulingCodeLife)
	if _, err := cb.Take(code, CodeLink, "SHA256:third", "192.0.2.1"); !errors.Is(err, ErrBadCode) { // it expired meanwhile
		t.Fatalf("ten minutes after the first wrong code: %v, want the code's own answer", err)
	}
	// The count starts again then: five more wrong codes refuse the address again.
	now = now.Add(2 * time.Second)
	code, _ = cb.Add(CodeEntry{Kind: CodeLink, Knight: "K-C"})
	for i := range rulingCodeTries {
		cb.Take(fmt.Sprintf("AGIN-000%d", i), CodeLink, "192.0.2.1")
	}
	if _, err := cb.Take(code, CodeLink, "192.0.2.1"); !errors.Is(err, ErrTooManyBad) {
		t.Fatalf("five wrong codes in the address's next ten minutes: %v, want ErrTooManyBad", err)
	}
}

// Wrong codes are counted for 10000 keys and addresses at once; past it the counts start
// again, so a guesser with many keys cannot grow the book without end.
func TestWrongCodesAreCountedForTenThousand(t *testing.T) {
	cb := NewCodeBook(nil, nil)
	for i := range rulingTriers {
		cb.Take("WRNG-CODE", CodeLink, fmt.Sprint("SHA256:guesser", i))
	}
	if n := len(cb.tries); n != rulingTriers {
		t.Fatalf("%d guessers counted, want %d", n, rulingTriers)
	}
	cb.Take("WRNG-CODE", CodeLink, "SHA256:one-more")
	if n := len(cb.tries); n != 1 {
		t.Errorf("past %d guessers %d are counted, want the counts started again", rulingTriers, n)
	}
}

// A thousand codes of a kind are kept, not one more.
func TestAThousandCodesOfAKind(t *testing.T) {
	cb := NewCodeBook(nil, nil)
	for i := range rulingMaxCodes + 1 {
		cb.Add(CodeEntry{Kind: CodeLink, Knight: fmt.Sprint("K-", i), Addr: fmt.Sprint("198.51.100.", i%250, "/", i)})
	}
	if n := cb.Len(); n != rulingMaxCodes {
		t.Errorf("%d link codes kept, want %d", n, rulingMaxCodes)
	}
}

// failingKeeper keeps codes in memory, but fails every write while fail, and every
// delete while failDelete.
type failingKeeper struct {
	memKeeper
	fail, failDelete bool
}

func (f *failingKeeper) PutCode(c Code) error {
	if f.fail {
		return errors.New("disk full")
	}
	return f.memKeeper.PutCode(c)
}

func (f *failingKeeper) DeleteCode(code string) error {
	if f.fail || f.failDelete {
		return errors.New("disk full")
	}
	return f.memKeeper.DeleteCode(code)
}

func (f *failingKeeper) TakeCode(code, kind string, now time.Time) (Code, error) {
	c, ok := f.memKeeper[code]
	if !ok {
		return Code{}, ErrNotFound
	}
	delete(f.memKeeper, code)
	return c, nil
}

// A code the keeper could not write works all the same on a server alone (until a
// restart), and the caller is told; shared with other servers, it is no code, for no
// other could take it. A keeper that cannot delete a replaced code says so too.
func TestACodeNotKept(t *testing.T) {
	keep := &failingKeeper{memKeeper: memKeeper{}}
	alone := NewCodeBook(keep, nil)
	old, err := alone.Add(CodeEntry{Kind: CodeLink, Knight: "K-A"})
	if err != nil {
		t.Fatal(err)
	}
	keep.failDelete = true
	replaced, err := alone.Add(CodeEntry{Kind: CodeLink, Knight: "K-A"}) // replaces old, whose delete fails
	if replaced == "" || err == nil {
		t.Fatalf("a code whose forebear could not be forgotten: %q, %v; want the code and the error", replaced, err)
	}
	keep.fail = true
	code, err := alone.Add(CodeEntry{Kind: CodeLink, Knight: "K-A"})
	if code == "" || err == nil {
		t.Fatalf("a code not kept on a server alone: %q, %v; want the code and the error", code, err)
	}
	if _, err := alone.Take(code, CodeLink, "fp"); err != nil {
		t.Errorf("the code not kept, taken: %v", err)
	}
	for _, c := range []string{old, replaced} {
		if _, err := alone.Take(c, CodeLink, "fp"); !errors.Is(err, ErrBadCode) {
			t.Errorf("a replaced code: %v", err)
		}
	}

	shared := &failingKeeper{memKeeper: memKeeper{}, fail: true}
	realm := NewCodeBook(shared, shared)
	if code, err := realm.Add(CodeEntry{Kind: CodeLink, Knight: "K-B"}); code != "" || !errors.Is(err, ErrCodeNotKept) || realm.Len() != 0 {
		t.Errorf("a shared code not kept: %q, %v, %d in the book; want none and ErrCodeNotKept", code, err, realm.Len())
	}
	shared.fail = false
	if code, err := realm.Add(CodeEntry{Kind: CodeLink, Knight: "K-B"}); code == "" || err != nil {
		t.Errorf("a shared code kept: %q, %v", code, err)
	}
}

// Codes are kept as "link" and "claim", and a book loaded from them takes both kinds, and
// counts the loaded oldest first: an address's fourth code after a restart pushes out
// its code that expires first.
func TestCodesLoadedAreTakenOldestFirst(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keep := memKeeper{}
	cb := clocked(NewCodeBook(keep, nil), func() time.Time { return now })
	var codes []string
	for i := range rulingCodesPerAddr {
		code, _ := cb.Add(CodeEntry{Kind: CodeLink, Knight: fmt.Sprint("K-", i), Addr: "192.0.2.1"})
		codes = append(codes, code)
		now = now.Add(time.Minute)
	}
	claim, _ := cb.Add(CodeEntry{Kind: CodeClaim, Guest: &world.Adventurer{ID: "guest-1"}, Addr: "192.0.2.9"})
	if keep[codes[0]].Kind != "link" || keep[claim].Kind != "claim" {
		t.Fatalf("kept as %q and %q, want link and claim", keep[codes[0]].Kind, keep[claim].Kind)
	}
	again := clocked(NewCodeBook(keep, nil), func() time.Time { return now })
	var kept []Code
	for i := len(codes) - 1; i >= 0; i-- { // in any order
		kept = append(kept, keep[codes[i]])
	}
	again.Load(append(kept, keep[claim]))
	again.Add(CodeEntry{Kind: CodeLink, Knight: "K-new", Addr: "192.0.2.1"})
	if _, err := again.Take(codes[0], CodeLink, "fp"); !errors.Is(err, ErrBadCode) {
		t.Errorf("the address's oldest code outlived its fourth after a restart: %v", err)
	}
	for _, code := range codes[1:] {
		if _, err := again.Take(code, CodeLink, "fp"); err != nil {
			t.Errorf("a loaded link code: %v", err)
		}
	}
	if _, err := again.Take(claim, CodeClaim, "fp"); err != nil {
		t.Errorf("a loaded claim code: %v", err)
	}
}
