package knights

import (
	"errors"
	"testing"
)

// The book reads the names kept once they can be read; a name is one knight's, folded as
// world.NameKey folds it; a rename lets the knight's other names go; a guest's names go
// with it.
func TestTheNameBookKeepsNamesUnique(t *testing.T) {
	reads, fail := 0, true
	var told []error
	b := NewNameBook(func() ([]KnightName, error) {
		reads++
		if fail {
			return nil, errors.New("etcd did not answer")
		}
		return []KnightName{{Knight: "K-1", Name: "Kay"}, {Knight: "K-2", Name: "Bors", Ended: true}}, nil
	}, func(err error) { told = append(told, err) })
	if b.Taken("Kay", "K-9") || !b.Claim("Gawain", "K-3") || len(told) != 2 {
		t.Fatalf("before the names could be read: %d reads, told %v", reads, told)
	}
	fail = false
	for _, tc := range []struct {
		name, id string
		taken    bool
	}{{"kay", "K-9", true}, {"KAY", "K-1", false}, {"Bors", "K-9", true}, {"gawain", "K-9", true}, {"Lancelot", "K-9", false}} {
		if got := b.Taken(tc.name, tc.id); got != tc.taken {
			t.Errorf("Taken(%q, %s) = %v, want %v", tc.name, tc.id, got, tc.taken)
		}
	}
	if reads != 3 {
		t.Errorf("the names were read %d times, want once after they could be", reads)
	}
	if b.Claim("Kay", "K-3") || !b.Rename("Sir Kay", "K-1") || b.NameOf("K-1") != "Sir Kay" || b.Taken("Kay", "K-3") {
		t.Errorf("a rename: %q, Kay taken %v", b.NameOf("K-1"), b.Taken("Kay", "K-3"))
	}
	if b.Rename("Gawain", "K-1") {
		t.Error("a rename to another knight's name")
	}
	b.Forget("K-3")
	if b.Taken("Gawain", "K-9") || b.NameOf("K-3") != "" {
		t.Error("a forgotten knight's name is still taken")
	}
}

// A knight read with more than one name (its old names still kept) is known by the first
// read, the one the keeper gives as its own; each name is still its.
func TestAKnightReadWithTwoNamesKeepsTheFirst(t *testing.T) {
	b := NewNameBook(func() ([]KnightName, error) {
		return []KnightName{{Knight: "K-1", Name: "Kay"}, {Knight: "K-1", Name: "Sir Kay"}}, nil
	}, nil)
	if b.NameOf("K-1") != "Kay" || !b.Taken("Sir Kay", "K-2") || b.Taken("Sir Kay", "K-1") {
		t.Errorf("a knight read with two names is %q", b.NameOf("K-1"))
	}
}
