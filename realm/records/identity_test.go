package records

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

func TestKeysLeadToTheirKnight(t *testing.T) {
	onBoth(t, func(t *testing.T, st backend) {
		at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
		if _, err := st.KeyOf("SHA256:none"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a key never given: %v, want ErrNotFound", err)
		}
		kay := world.Adventurer{ID: "K-1", Name: "Kay"}
		first := store.Key{Fingerprint: "SHA256:a", Knight: "K-1", Type: "ssh-ed25519", Comment: "laptop", Added: at}
		if err := st.addKey(kay, first); err != nil {
			t.Fatal(err)
		}
		if err := st.addKey(world.Adventurer{ID: "K-2", Name: "Bors"},
			store.Key{Fingerprint: "SHA256:c", Knight: "K-2", Added: at}); err != nil {
			t.Fatal(err)
		}
		k, err := st.KeyOf("SHA256:a")
		if err != nil || k != first {
			t.Fatalf("KeyOf = %+v, %v; want %+v", k, err, first)
		}
		if err := st.TouchKey("SHA256:a", at.Add(time.Hour), "203.0.113.9"); err != nil {
			t.Fatal(err)
		}
		if err := st.TouchKey("SHA256:a", at.Add(2*time.Hour), ""); err != nil {
			t.Fatal(err)
		}
		if err := st.TouchKey("SHA256:none", at, "203.0.113.9"); err != nil {
			t.Fatalf("touching a key that plays no knight: %v", err)
		}
		k, _ = st.KeyOf("SHA256:a")
		if !k.LastUsed.Equal(at.Add(2*time.Hour)) || k.LastAddr != "203.0.113.9" || k.Comment != "laptop" {
			t.Fatalf("touched key = %+v", k)
		}
		if err := st.RemoveKey("SHA256:a"); !errors.Is(err, store.ErrLastKey) {
			t.Fatalf("removing a knight's last key: %v, want ErrLastKey", err)
		}
		if err := st.RemoveKey("SHA256:none"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("removing a key that plays no knight: %v, want ErrNotFound", err)
		}
		keys, err := st.KeysOf("K-1")
		if err != nil || len(keys) != 1 || keys[0].Fingerprint != "SHA256:a" {
			t.Fatalf("KeysOf = %+v, %v", keys, err)
		}
	})
}

func TestNamesAreKnightsNames(t *testing.T) {
	onBoth(t, func(t *testing.T, st backend) {
		for id, name := range map[string]string{"K-1": "Kay", "K-2": "Bors"} {
			if err := st.name(id, name); err != nil {
				t.Fatal(err)
			}
		}
		names, err := st.KnightNames()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range names {
			got = append(got, n.Knight+"="+n.Name)
		}
		slices.Sort(got)
		if want := []string{"K-1=Kay", "K-2=Bors"}; !slices.Equal(got, want) {
			t.Errorf("names = %v, want %v", got, want)
		}
	})
}

func TestLettersWaitInTheirMailbox(t *testing.T) {
	onBoth(t, func(t *testing.T, st backend) {
		at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
		ls := []world.Letter{{From: "Kay", Text: "Meet me at the market.", Sent: at}}
		if err := st.putMail("K-2", ls); err != nil {
			t.Fatal(err)
		}
		if err := st.putMail("K-3", []world.Letter{{From: "Bors", Text: "hi", Sent: at}}); err != nil {
			t.Fatal(err)
		}
		if err := st.putMail("K-3", nil); err != nil {
			t.Fatal(err)
		}
		mail, err := st.Mail()
		if err != nil {
			t.Fatal(err)
		}
		if len(mail) != 1 || len(mail["K-2"]) != 1 || mail["K-2"][0].Text != ls[0].Text || !mail["K-2"][0].Sent.Equal(at) {
			t.Errorf("mail = %+v", mail)
		}
	})
}

// A name is one knight's in every realm: a second knight's claim is refused, whatever
// the case, and its own knight may claim it again.
func TestANameIsClaimedOnce(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	for _, tc := range []struct {
		name, knight string
		ok           bool
	}{{"Kay", "K-1", true}, {"kay", "K-2", false}, {"KAY", "K-1", true}, {"Bors", "K-2", true}} {
		if ok, err := st.ClaimName(tc.name, tc.knight); ok != tc.ok || err != nil {
			t.Errorf("ClaimName(%q, %s) = %v, %v; want %v", tc.name, tc.knight, ok, err, tc.ok)
		}
	}
}

// One knight's mailbox is read alone, as a realm reads it when another wrote it.
func TestAMailboxIsReadAlone(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	if ls, err := st.MailOf("K-9"); err != nil || len(ls) != 0 {
		t.Fatalf("no mailbox: %v, %v", ls, err)
	}
	if err := st.PutMail("K-9", []world.Letter{{From: "Kay", Text: "hi"}}); err != nil {
		t.Fatal(err)
	}
	if ls, err := st.MailOf("K-9"); err != nil || len(ls) != 1 || ls[0].From != "Kay" {
		t.Fatalf("the mailbox: %v, %v", ls, err)
	}
}
