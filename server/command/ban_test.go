package command

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

func TestBanRefusesAKnightsKeysAndRemovesIt(t *testing.T) {
	m := modStart(t)
	gawain := m.join("K-gawain", "Gawain", 2, "")
	fp := keys.Fingerprint(modKey(t, 2))
	m.want("ban Gawain --for 2h --reason cheating", "Banned Gawain ("+fp+") until 2025-03-01 14:00 UTC. Its knight was removed from the dungeon.\n", "", 0)
	if got, want := gawain.end(), world.KickedFor("cheating"); got != want {
		t.Errorf("Gawain's game ended with %q, want %q", got, want)
	}
	if banned, err := m.keeper.IsBanned(fp, m.now.Add(time.Hour)); !banned || err != nil {
		t.Errorf("the key is not banned within the two hours: %v", err)
	}
	if banned, _ := m.keeper.IsBanned(fp, m.now.Add(3*time.Hour)); banned {
		t.Error("the key is banned past the two hours")
	}
	told := m.toldRealms()
	if len(told) != 1 || told[0] != (talk.Moderation{Kind: talk.ModBan, Knight: "K-gawain", Reason: "cheating"}) {
		t.Errorf("the realms were told %+v", told)
	}
}

func TestBanOfAGuestOrAnAddressBansTheAddress(t *testing.T) {
	m := modStart(t)
	guest := knights.NewGuestID()
	m.join(guest, "Guest Tom", 0, "203.0.113.7:50022")
	m.want("ban guest tom", "Banned Guest Tom (203.0.113.7/32). Its knight was removed from the dungeon.\n", "", 0)
	m.want("ban 2001:db8::1", "Banned 2001:db8::/64.\n", "", 0)
	for _, addr := range []string{"203.0.113.7", "2001:db8::99"} {
		if banned, _, err := m.keeper.IsAddrBanned(netip.MustParseAddr(addr), m.now); !banned || err != nil {
			t.Errorf("%s is not banned: %v", addr, err)
		}
	}
	out, _, code := m.run("ban 198.51.100.0/24 --json")
	var got actionJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 || got.Addr != "198.51.100.0/24" || !got.Banned || got.Kicked {
		t.Errorf("ban --json: %q %d: %+v %v", out, code, got, err)
	}
}

func TestBansListsAndUnbanLifts(t *testing.T) {
	m := modStart(t)
	m.want("bans", "No key is banned.\n", "", 0)
	fp := m.keep("K-kay", "Kay", 2)
	m.want("ban Kay --reason rude", "Banned Kay ("+fp+").\n", "", 0)
	m.want("ban 203.0.113.0/24 --for 7d", "Banned 203.0.113.0/24 until 2025-03-08 12:00 UTC.\n", "", 0)
	m.want("bans", fmt.Sprintf("%-52s", "FINGERPRINT OR ADDRESS")+"KNIGHT  SINCE                UNTIL                 REASON\n"+
		fp+"  Kay     2025-03-01 12:00:00  unban                 rude\n"+
		fmt.Sprintf("%-52s", "addr:203.0.113.0/24")+"        2025-03-01 12:00:00  2025-03-08 12:00 UTC  \n", "", 0)
	m.want("unban kay", "Lifted the ban on "+fp+".\n", "", 0)
	m.want("unban Kay", "", "orthanc: no banned knight is named \"Kay\"; `bans` lists the bans\n", 1)
	m.want("unban "+fp, "", "orthanc: "+fp+" is not banned\n", 1)
	m.want("unban 203.0.113.9/24", "Lifted the ban on addr:203.0.113.0/24.\n", "", 0)
	m.want("bans", "No key is banned.\n", "", 0)
}

func TestBanRefusesWhatItCannotDo(t *testing.T) {
	m := modStart(t)
	adminFP := m.keep("K-arthur", "Arthur", 1) // the admin's own key plays Arthur
	m.keep("K-bors1", "Bors", 3)
	m.keep("K-bors2", "Bors", 4)
	const usage = "; usage: ban <name|fingerprint|address> [--for DURATION] [--reason TEXT] [--json]\n"
	m.want("ban Arthur", "", "orthanc: "+adminFP+" is an admin's key; take it out of the admin keys file first\n", 1)
	m.want("ban Bors", "", "orthanc: several knights are named \"Bors\"; ban one by fingerprint: K-bors1, K-bors2\n", 1)
	m.want("ban Nobody", "", "orthanc: no knight \"Nobody\", online or stored; ban by fingerprint\n", 1)
	m.want("ban", "", "orthanc: name the knight, the key or the address"+usage, 1)
	m.want("ban Bors --for", "", "orthanc: --for needs a duration, such as 2h or 7d"+usage, 1)
	m.want("ban Bors --for 2y", "", "orthanc: duration \"2y\": want one such as 30m, 2h, 7d or 2w"+usage, 1)
	m.want("unban", "", "orthanc: name the knight, the key or the address; usage: unban <name|fingerprint|address> [--json]\n", 1)
	m.want("bans Bors", "", "orthanc: unexpected \"Bors\"; usage: bans [--json]\n", 1)
	if bans, _ := m.keeper.Bans(m.now); len(bans) != 0 {
		t.Errorf("bans kept: %v", bans)
	}
	if len(m.toldRealms()) != 0 {
		t.Errorf("the realms were told %v", m.toldRealms())
	}
	if _, online, _ := m.world.Lookup(context.Background(), "K-arthur"); online {
		t.Error("Arthur is online")
	}
}

// A ban of a knight that plays on another realm says so: that realm was told, and
// removes it.
func TestBanOfAKnightOfAnotherRealmNamesItsRealm(t *testing.T) {
	m := modStart(t)
	m.keep("K-tristan", "Tristan", 2)
	if err := m.world.SetPresence(context.Background(), "north", []world.FarKnight{{ID: "K-tristan", Name: "Tristan"}}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := m.run("ban Tristan")
	if code != 0 || !strings.HasPrefix(out, "Banned Tristan (SHA256:") || !strings.HasSuffix(out, "). It plays in realm north, which has been told.\n") {
		t.Fatalf("ban of a knight of another realm (exit %d): %q %q", code, out, errOut)
	}
	if told := m.toldRealms(); len(told) != 1 || told[0] != (talk.Moderation{Kind: talk.ModBan, Knight: "K-tristan"}) {
		t.Errorf("the realms were told %+v", told)
	}
}
