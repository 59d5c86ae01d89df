package command

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

func TestKnightShowsItsKeysAndWhatHoldsIt(t *testing.T) {
	m := modStart(t)
	fp := m.keep("K-kay", "Kay", 2)
	if err := m.keeper.TouchKey(fp, m.now.Add(-time.Hour), "203.0.113.7"); err != nil {
		t.Fatal(err)
	}
	m.want("knight Kay", "knight        Kay (K-kay)\n"+
		"status        offline, level 1, depth 1\n"+
		"created       2025-02-27 12:00:00 UTC\n"+
		"last seen     2025-03-01 11:00:00 UTC\n"+
		"last address  203.0.113.7\n"+
		"\n"+
		fmt.Sprintf("%-52s", "KEY")+"TYPE         COMMENT  ADDED       LAST USED                LAST ADDRESS\n"+
		fp+"  ssh-ed25519  -        2025-02-27  2025-03-01 11:00:00 UTC  203.0.113.7\n"+
		"\n"+
		"No ban or silence holds it.\n", "", 0)

	m.run("ban 203.0.113.0/24 --for 2w --reason a bad neighbourhood")
	m.run("silence Kay 1h")
	out, errOut, code := m.run("knight Kay")
	want := "Banned: addr:203.0.113.0/24 since 2025-03-01 12:00:00, until 2025-03-15 12:00 UTC: a bad neighbourhood\n" +
		"Silenced until 2025-03-01 13:00 UTC: -\n"
	if code != 0 || errOut != "" || len(out) < len(want) || out[len(out)-len(want):] != want {
		t.Errorf("knight Kay, banned and silenced:\n%s%s", out, errOut)
	}
	out, _, _ = m.run("knight K-kay --json")
	var k KnightJSON
	if err := json.Unmarshal([]byte(out), &k); err != nil || k.Knight != "K-kay" || k.Status != "offline" || len(k.Keys) != 1 ||
		len(k.Bans) != 1 || len(k.Silences) != 1 || k.LastAddr != "203.0.113.7" {
		t.Errorf("knight --json = %+v, %v", k, err)
	}
}

// knight lists a browser's key as keys does, its kind after its type: an admin who
// reads the keys of a knight tells the browser the player linked from the SSH keys.
func TestKnightMarksABrowsersKey(t *testing.T) {
	m := modStart(t)
	m.keep("K-kay", "Kay", 2)
	browser := keys.Fingerprint(modKey(t, 3))
	if _, err := m.keeper.Give(context.Background(), knights.Give{Key: knights.Key{Fingerprint: browser, Knight: "K-kay",
		Type: "ssh-ed25519", Kind: knights.KindBrowser, Comment: "browser", Added: m.now}, At: m.now}); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := m.run("knight Kay")
	want := browser + "  ssh-ed25519 (browser)  browser  2025-03-01"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("knight Kay does not mark the browser's key; want a row starting %q:\n%s%s", want, out, errOut)
	}
	if strings.Count(out, "(browser)") != 1 {
		t.Errorf("knight Kay marks %d keys as a browser's; want only the browser's:\n%s", strings.Count(out, "(browser)"), out)
	}
}

func TestKnightOfAGuestOnlineAndOfAKnightElsewhere(t *testing.T) {
	m := modStart(t)
	guest := knights.NewGuestID()
	m.join(guest, "Guest Tom", 0, "203.0.113.7:50022")
	out, _, code := m.run("knight Guest Tom --json")
	var k KnightJSON
	if err := json.Unmarshal([]byte(out), &k); err != nil || code != 0 || !k.Guest || k.Status != "online" ||
		k.LastAddr != "203.0.113.7" || !k.LastSeen.Equal(m.now) || len(k.Keys) != 0 {
		t.Errorf("knight of a guest = %+v, %v", k, err)
	}

	m.keep("K-tristan", "Tristan", 2)
	if err := m.world.SetPresence(context.Background(), "north", []world.FarKnight{{ID: "K-tristan", Name: "Tristan", Level: 1}}); err != nil {
		t.Fatal(err)
	}
	out, _, _ = m.run("knight Tristan")
	if want := "knight        Tristan (K-tristan)\nstatus        online in realm north, level 1\n"; len(out) < len(want) || out[:len(want)] != want {
		t.Errorf("knight of a knight elsewhere:\n%s", out)
	}
}

func TestKnightSaysWhenAKnightIsDeadOrRetired(t *testing.T) {
	m := modStart(t)
	a := world.NewAdventurer("K-lot", "Lot", world.Stats{Str: 10, Int: 10, Con: 10, Dex: 10}, 12)
	a.Death = &world.Death{}
	m.keeper.Put(a)
	out, _, code := m.run("knight K-lot")
	if want := "knight        Lot (K-lot)\nstatus        dead, level 1, depth 1\ncreated       unknown (made before it was kept)\nlast seen     never since it was made\nlast address  -\n\nNo ban or silence holds it.\n"; out != want || code != 0 {
		t.Errorf("knight of a dead knight:\n%s", out)
	}
}
