package command

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/orthanc-ssh/orthanc-ssh/world"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
)

func TestSilenceIsKeptByTheKnightsID(t *testing.T) {
	m := modStart(t)
	m.keep("K-kay", "Kay", 2)
	m.join("K-gawain", "Gawain", 3, "")
	m.want("silence silences", "", "orthanc: name the knight, then how long; usage: silence <name|fingerprint> <DURATION> [--reason TEXT] [--json]\n", 1)
	m.want("silence Kay 2h --reason rude words", "Silenced Kay (K-kay) until 2025-03-01 14:00 UTC.\n", "", 0)
	m.want("silence Gawain 30m", "Silenced Gawain (K-gawain) until 2025-03-01 12:30 UTC. Its knight has been told.\n", "", 0)
	list, err := m.keeper.Silences(m.now)
	if err != nil || len(list) != 2 || list[0].Knight != "K-gawain" || list[1].Knight != "K-kay" || list[1].Reason != "rude words" {
		t.Errorf("silences kept: %+v %v", list, err)
	}
	told := m.toldRealms()
	want := talk.Moderation{Kind: talk.ModSilence, Knight: "K-kay", For: 2 * time.Hour, Until: "2025-03-01 14:00 UTC", Reason: "rude words"}
	if len(told) != 2 || told[0] != want {
		t.Errorf("the realms were told %+v", told)
	}
	m.want("silences", "KNIGHT    NAME    UNTIL                 REASON\n"+
		"K-gawain  Gawain  2025-03-01 12:30 UTC  \n"+
		"K-kay     Kay     2025-03-01 14:00 UTC  rude words\n", "", 0)
	out, _, code := m.run("silences --json")
	var rows []SilenceJSON
	if err := json.Unmarshal([]byte(out), &rows); err != nil || code != 0 || len(rows) != 2 || !rows[0].Online || rows[1].Online {
		t.Errorf("silences --json: %q %d: %v", out, code, err)
	}
	m.want("unsilence kay", "Lifted the silence of Kay (K-kay).\n", "", 0)
	m.want("unsilence Kay", "", "orthanc: Kay (K-kay) is not silenced\n", 1)
	m.want("unsilence Gawain", "Lifted the silence of Gawain (K-gawain).\n", "", 0)
	m.want("silences", "No knight is silenced.\n", "", 0)
	if told := m.toldRealms(); len(told) != 5 || told[2] != (talk.Moderation{Kind: talk.ModUnsilence, Knight: "K-kay"}) {
		t.Errorf("the realms were told %+v", told)
	}
}

func TestAGuestsSilenceLastsWhileItPlays(t *testing.T) {
	m := modStart(t)
	guest := knights.NewGuestID()
	m.join(guest, "Guest Tom", 0, "203.0.113.7:50022")
	m.want("silence Guest Tom 1h", fmt.Sprintf("Silenced Guest Tom (%s) until 2025-03-01 13:00 UTC. Its knight has been told. "+
		"A guest's silence lasts while it plays, not kept in the database; to keep it out, ban it (its address).\n", guest), "", 0)
	if list, _ := m.keeper.Silences(m.now); len(list) != 0 {
		t.Errorf("a guest's silence was kept: %+v", list)
	}
	m.want("silences", fmt.Sprintf("KNIGHT%sNAME                                  UNTIL                 REASON\n", pad(guest, "KNIGHT"))+
		guest+"  Guest Tom (a guest: for its session)  2025-03-01 13:00 UTC  \n", "", 0)
	m.want("unsilence Guest Tom", fmt.Sprintf("Lifted the silence of Guest Tom (%s).\n", guest), "", 0)
	if got := m.guests.Running(m.now, map[string]bool{guest: true}); len(got) != 0 {
		t.Errorf("the guest's silence is still kept: %+v", got)
	}
}

// pad is the spaces after head in a column as wide as cell and two spaces.
func pad(cell, head string) string { return fmt.Sprintf("%*s", len(cell)+2-len(head), "") }

func TestGuestSilencesEndAndGoWithTheirGuest(t *testing.T) {
	var b GuestSilences
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	b.Put(knights.Silence{Knight: "guest-a", Until: now.Add(2 * time.Hour)})
	b.Put(knights.Silence{Knight: "guest-b", Until: now.Add(time.Hour)})
	b.Put(knights.Silence{Knight: "guest-c", Until: now.Add(time.Hour)})
	got := b.Running(now, map[string]bool{"guest-a": true, "guest-b": true})
	if len(got) != 2 || got[0].Knight != "guest-b" || got[1].Knight != "guest-a" {
		t.Errorf("running = %+v, want b then a", got)
	}
	if got := b.Running(now.Add(90*time.Minute), map[string]bool{"guest-a": true, "guest-b": true, "guest-c": true}); len(got) != 1 || got[0].Knight != "guest-a" {
		t.Errorf("running later = %+v, want a alone (b ended, c left)", got)
	}
	b.Remove("guest-a")
	if got := b.Running(now, map[string]bool{"guest-a": true}); len(got) != 0 {
		t.Errorf("running after remove = %+v", got)
	}
}

func TestSilenceRefusesWhatItCannotDo(t *testing.T) {
	m := modStart(t)
	m.keep("K-arthur", "Arthur", 1) // played by the admin's own key
	m.keep("K-kay", "Kay", 2)
	const usage = "; usage: silence <name|fingerprint> <DURATION> [--reason TEXT] [--json]\n"
	m.want("silence Arthur 1h", "", "orthanc: Arthur (K-arthur) is played by an admin's key; take it out of the admin keys file first\n", 1)
	m.want("silence Kay", "", "orthanc: name the knight, then how long"+usage, 1)
	m.want("silence Kay 10s", "", "orthanc: duration \"10s\": want one from a minute to a year"+usage, 1)
	m.want("silence Kay soon", "", "orthanc: duration \"soon\": want one such as 30m, 2h, 7d or 2w"+usage, 1)
	m.want("silence 203.0.113.7 1h", "", "orthanc: silence names a knight or a key, not an address"+usage, 1)
	m.want("silence Nobody 1h", "", "orthanc: no knight \"Nobody\", online or stored; silence by fingerprint\n", 1)
	m.want("unsilence", "", "orthanc: name the knight or the key; usage: unsilence <name|fingerprint> [--json]\n", 1)
	m.want("unsilence Nobody", "", "orthanc: no knight \"Nobody\", online or stored; unsilence by fingerprint\n", 1)
	if list, _ := m.keeper.Silences(m.now); len(list) != 0 {
		t.Errorf("silences kept: %+v", list)
	}
}

// A silence of a knight that plays on another realm says so: that realm was told.
func TestSilenceOfAKnightOfAnotherRealmNamesItsRealm(t *testing.T) {
	m := modStart(t)
	m.keep("K-tristan", "Tristan", 2)
	if err := m.world.SetPresence(context.Background(), "north", []world.FarKnight{{ID: "K-tristan", Name: "Tristan"}}); err != nil {
		t.Fatal(err)
	}
	m.want("silence Tristan 1h", "Silenced Tristan (K-tristan) until 2025-03-01 13:00 UTC. It plays in realm north, which has been told.\n", "", 0)
	out, _, code := m.run("silence Tristan 2h --json")
	var got SilenceJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || !got.Online || got.Realm != "north" {
		t.Errorf("silence --json: %q %d: %+v %v", out, code, got, err)
	}
}
