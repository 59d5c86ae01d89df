package records

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// What a knight claimed here brings besides its sheet, its mailbox and its silence as
// other realms left them, is what its claim read, handed on once: a letter or a silence
// changed since comes by the talk. A session that joins a knight held here reads them
// anew.
func TestAClaimReadsTheMailboxAndTheSilenceWithIt(t *testing.T) {
	st := New(newClient(t), Options{Prefix: prefixOf(t)})
	a := keeperOf(t, st, "A")
	ctx := context.Background()
	const kay = "K-KAY"
	sent := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	first := world.Letter{From: "Bors", To: "Kay", Text: "written on B", Sent: sent}
	second := world.Letter{From: "Bors", To: "Kay", Text: "written on B later", Sent: sent.Add(time.Minute)}
	until := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	if err := st.PutMail(kay, []world.Letter{first}); err != nil {
		t.Fatal(err)
	}
	if err := st.Silence(knights.Silence{Knight: kay, By: "SHA256:admin", At: time.Now().UTC(), Until: until}); err != nil {
		t.Fatal(err)
	}
	if err := a.Claim(ctx, kay, func(string) { t.Error("A called a knight no realm holds") }); err != nil {
		t.Fatal(err)
	}
	if err := st.PutMail(kay, []world.Letter{first, second}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Unsilence(kay); err != nil {
		t.Fatal(err)
	}
	got, err := a.Arrived(kay)
	if err != nil {
		t.Fatal(err)
	}
	if !got.MailOK || !slices.Equal(texts(got.Letters), []string{"written on B"}) {
		t.Errorf("the mailbox the claim read: %q (%v)", texts(got.Letters), got.MailOK)
	}
	if !got.SilenceOK || !got.Silenced || !got.Silence.Until.Equal(until) || got.Renamed != "" {
		t.Errorf("the silence the claim read: %+v", got)
	}
	if err := a.Claim(ctx, kay, func(string) {}); err != nil { // a second session joins
		t.Fatal(err)
	}
	got, err = a.Arrived(kay)
	if err != nil {
		t.Fatal(err)
	}
	if !got.MailOK || !slices.Equal(texts(got.Letters), []string{"written on B", "written on B later"}) {
		t.Errorf("the mailbox read for a session joining: %q (%v)", texts(got.Letters), got.MailOK)
	}
	if !got.SilenceOK || got.Silenced {
		t.Errorf("the silence read for a session joining: %+v", got)
	}
}
