package command

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// who lists the knights in the world, then those of the other realms; an admin also
// sees each one's key and game session, and no one else does.
func TestWhoListsTheKnights(t *testing.T) {
	d := newPlayerDesk(t, "")
	kay, bors := newKey(t), newKey(t)
	d.wantRun(nil, "who", "No one is in the dungeon.\n", "", 0)
	d.wantRun(nil, "who --json", "[]\n", "", 0)

	kayID, borsID := d.knight("Kay", kay, time.Now()), d.knight("Bors", bors, time.Now())
	if err := d.join(kayID).Away(d.ctx, "gone fishing"); err != nil {
		t.Fatal(err)
	}
	d.join(borsID)
	d.wantRun(nil, "who", "NAME  LEVEL  WHERE    IDLE  AWAY\n"+
		"Kay   1      depth 1  -     away: gone fishing\n"+
		"Bors  1      depth 1  -     -\n", "", 0)
	out, _, _ := d.run(bors, "who --json")
	if out != `[{"name":"Kay","level":1,"depth":1,"idle_seconds":0,"away":true,"away_reason":"gone fishing"},`+
		`{"name":"Bors","level":1,"depth":1,"idle_seconds":0,"away":false}]`+"\n" {
		t.Fatalf("who --json, not an admin's:\n%s", out)
	}

	// An admin sees the key, address, time connected and bytes sent of Kay's game.
	d.admin = bors
	sent := new(atomic.Int64)
	sent.Store(5000)
	d.sessions.Add(edge.LiveSession{Fingerprint: keys.Fingerprint(kay), Knight: kayID, Addr: "192.0.2.7:4000",
		Start: time.Now().Add(-90 * time.Second), Game: true, Sent: sent, Close: func() {}})
	out, _, _ = d.run(bors, "who --json")
	var rows []WhoRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 {
		t.Fatalf("who --json, an admin's: %s (%v)", out, err)
	}
	if r := rows[0]; r.Knight != kayID || r.Fingerprint != keys.Fingerprint(kay) || r.Addr != "192.0.2.7:4000" ||
		r.BytesSent != 5000 || r.ConnectedSeconds < 90 || r.ConnectedSeconds > 120 {
		t.Fatalf("who --json, an admin's row of a knight playing: %+v", r)
	}
	if r := rows[1]; r.Knight != borsID || r.Fingerprint != "" || r.Addr != "" {
		t.Fatalf("who --json, an admin's row of a knight with no session: %+v", r)
	}
	out, _, _ = d.run(bors, "who")
	lines := strings.Split(out, "\n")
	if len(lines) != 4 || lines[3] != "" {
		t.Fatalf("who, an admin's:\n%s", out)
	}
	cells := make([]string, 3)
	for i := range cells {
		f := strings.Fields(lines[i])
		if i == 1 && len(f) > 6 {
			f[6] = "TIME" // how long Kay's session has been open: 1m30s, give or take the test's time
		}
		cells[i] = strings.Join(f, " ")
	}
	if cells[0] != "NAME LEVEL WHERE IDLE ADDRESS CONNECTED SENT FINGERPRINT KNIGHT AWAY" ||
		cells[1] != "Kay 1 depth 1 - 192.0.2.7:4000 TIME 4 KiB "+keys.Fingerprint(kay)+" "+kayID+" away: gone fishing" ||
		cells[2] != "Bors 1 depth 1 - - - - - "+borsID+" -" {
		t.Fatalf("who, an admin's:\n%s", out)
	}

	d.wantRun(nil, "who Kay", "", "orthanc: unexpected \"Kay\"; usage: who [--json]\n", 1)
}

// On a realm, who has a column of realms, and lists the knights of the other realms the
// world heard of after its own: where they stand is their realm's to say.
func TestWhoOnARealmListsTheOtherRealms(t *testing.T) {
	d := newPlayerDesk(t, "south")
	kay := newKey(t)
	d.join(d.knight("Kay", kay, time.Now()))
	far := []world.FarKnight{{Name: "Gawain", ID: "K-GAWAIN", Level: 3, IdleSeconds: 3725, Away: true},
		{Name: "Guest Tom", ID: "guest-tom", Level: 1, IdleSeconds: 61, Guest: true}}
	if err := d.world.SetPresence(d.ctx, "north", far); err != nil {
		t.Fatal(err)
	}
	d.wantRun(kay, "who", "NAME       REALM  LEVEL  WHERE    IDLE   AWAY\n"+
		"Kay        south  1      depth 1  -      -\n"+
		"Gawain     north  3      -        1h02m  away\n"+
		"Guest Tom  north  1      -        1m     -\n", "", 0)
	out, _, _ := d.run(kay, "who --json")
	if !strings.Contains(out, `{"name":"Gawain","level":3,"depth":0,"idle_seconds":3725,"away":true,"realm":"north"}`) ||
		strings.Contains(out, "K-GAWAIN") {
		t.Fatalf("who --json on a realm, not an admin's:\n%s", out)
	}
	d.admin = kay
	out, _, _ = d.run(kay, "who --json")
	if !strings.Contains(out, `"knight":"K-GAWAIN","realm":"north"}`) {
		t.Fatalf("who --json on a realm, an admin's:\n%s", out)
	}
	// Another realm's knight has no session here: its session's figures are not known.
	out, _, _ = d.run(kay, "who")
	if !regexp.MustCompile(`(?m)^Gawain +north +3 +- +1h02m +- +- +- +- +K-GAWAIN +away$`).MatchString(out) {
		t.Fatalf("who on a realm, an admin's:\n%s", out)
	}
}

// How long a knight has been idle, and whether it is away, as who writes them.
func TestWhoSaysIdleAndAway(t *testing.T) {
	for seconds, want := range map[float64]string{0: "-", 59: "-", 60: "1m", 3599: "59m", 3600: "1h00m", 7322: "2h02m"} {
		if got := idleText(seconds); got != want {
			t.Errorf("idleText(%v) = %q, want %q", seconds, got, want)
		}
	}
	if awayText(false, "x") != "-" || awayText(true, "") != "away" || awayText(true, "tea") != "away: tea" {
		t.Error("awayText")
	}
}
