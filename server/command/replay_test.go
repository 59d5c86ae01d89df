package command

import (
	"errors"
	"slices"
	"testing"
	"time"

	"charm.land/ssh"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/replay"
)

// The words of replay: a number of one's own list, a name with --death or --retired, an
// admin's --report N; --plain anywhere; and what is wrong with anything else.
func TestReadReplayArgs(t *testing.T) {
	for _, tc := range []struct {
		words string
		want  ReplayArgs
	}{
		{"", ReplayArgs{Idle: replay.IdleCut}},
		{"2", ReplayArgs{N: 2, Idle: replay.IdleCut}},
		{"Sir Kay --death --plain", ReplayArgs{Name: "Sir Kay", Kind: "death", Plain: true, Idle: replay.IdleCut}},
		{"--retired Aled", ReplayArgs{Name: "Aled", Kind: "retired", Idle: replay.IdleCut}},
		{"--report 4", ReplayArgs{Report: 4, Idle: replay.IdleCut}},
		{"--report", ReplayArgs{Problem: "--report needs a report's number", Idle: replay.IdleCut}},
		{"--report 0", ReplayArgs{Report: 0, Problem: "--report needs a report's number", Idle: replay.IdleCut}},
		{"--report 3 Kay", ReplayArgs{Report: 3, Problem: "--report N takes no name", Idle: replay.IdleCut}},
		{"0", ReplayArgs{N: 0, Problem: "a replay's number is 1 or more", Idle: replay.IdleCut}},
		{"Kay", ReplayArgs{Problem: "say whose: NAME --death or NAME --retired", Idle: replay.IdleCut}},
		{"--death", ReplayArgs{Kind: "death", Problem: "--death needs a knight's name", Idle: replay.IdleCut}},
		{"--fast", ReplayArgs{Problem: `unknown flag "--fast"`, Idle: replay.IdleCut}},
		{"2 --idle 0", ReplayArgs{N: 2}},
		{"2 --idle 30", ReplayArgs{N: 2, Idle: 30 * time.Second}},
		{"2 --idle", ReplayArgs{Problem: "--idle needs a number of seconds, 0 to 3600"}},
		{"2 --idle -1", ReplayArgs{Problem: "--idle needs a number of seconds, 0 to 3600"}},
		{"2 --idle x", ReplayArgs{Problem: "--idle needs a number of seconds, 0 to 3600"}},
	} {
		if got := ReadReplayArgs(splitWords(tc.words)); got != tc.want {
			t.Errorf("replay %s: %+v, want %+v", tc.words, got, tc.want)
		}
	}
}

// replay lists a key's records, numbered; playing one needs a terminal; a key with no
// knight, a server without replays and a list that cannot be read are each told so.
func TestReplayList(t *testing.T) {
	key := newKey(t)
	fp := keys.Fingerprint(key)
	var lines []string
	var fail error
	r := Replays{Log: quietLog(), Recording: func() bool { return true }, Own: func(knight string) ([]string, error) {
		if knight != "K-1" {
			t.Errorf("the list of %q, want K-1's", knight)
		}
		return lines, fail
	}}
	tb := testTable(nil, map[string]string{fp: "K-1"}, r.Row())
	if a := runLine(t, tb, key, "replay"); a.code != 0 || a.out != "You have no replays yet: a knight's last 10 minutes are kept as it plays.\n" {
		t.Errorf("replay with none: %+v", a)
	}
	lines = []string{"your last 10 minutes, as they are now", "Cador died"}
	want := "Your replays (ssh -t -p 2222 example.org replay N plays one):\n  1  your last 10 minutes, as they are now\n  2  Cador died\n"
	if a := runLine(t, tb, key, "replay"); a.code != 0 || a.out != want {
		t.Errorf("replay: %+v, want %q", a, want)
	}
	if a := runLine(t, tb, key, "replay 2"); a.code != 1 || a.errOut != "orthanc: replay needs a terminal to play one: ssh -t -p 2222 example.org replay 2\n" {
		t.Errorf("replay 2 without a terminal: %+v", a)
	}
	if a := runLine(t, tb, key, "replay Kay"); a.code != 1 || a.errOut != "orthanc: say whose: NAME --death or NAME --retired; usage: "+ReplayUsage+"\n" {
		t.Errorf("replay Kay: %+v", a)
	}
	fail = errors.New("bbolt: timeout")
	if a := runLine(t, tb, key, "replay"); a.code != 1 || a.errOut != "orthanc: the replays could not be read just now; try again later\n" {
		t.Errorf("replay failing: %+v", a)
	}
	other := newKey(t)
	if a := runLine(t, tb, other, "replay"); a.code != 1 || a.errOut != "orthanc: no knight for key "+keys.Fingerprint(other)+" yet; connect with a terminal to roll one\n" {
		t.Errorf("replay with no knight: %+v", a)
	}
	tb = testTable(nil, nil, Replays{Log: quietLog(), Recording: func() bool { return false }}.Row())
	if a := runLine(t, tb, key, "replay"); a.code != 1 || a.errOut != "orthanc: this server records no replays\n" {
		t.Errorf("replay without replays: %+v", a)
	}
}

// An admin removes a kept replay by its id or as NAME --death / --retired; what it
// removed is said and logged; bad words, an id that is no replay's and a server without
// replays are each told so; a player may not.
func TestReplayRemove(t *testing.T) {
	admin := newKey(t)
	type asked struct{ id, name, kind string }
	var got []asked
	r := Replays{Log: quietLog(), Recording: func() bool { return true }, Remove: func(id, name, kind string) (string, error) {
		got = append(got, asked{id, name, kind})
		if id == "ffffffffffffffff" {
			return "", ErrNoReplay
		}
		return "Kay's death (3f2a9c1d0b7e6a45)", nil
	}}
	tb := testTable([]ssh.PublicKey{admin}, nil, r.Row(), r.RemoveRow())
	for _, tc := range []struct {
		line, out, errOut string
	}{
		{"replay remove 3f2a9c1d0b7e6a45", "Removed the replay of Kay's death (3f2a9c1d0b7e6a45).\n", ""},
		{"replay remove Sir Kay --death", "Removed the replay of Kay's death (3f2a9c1d0b7e6a45).\n", ""},
		{"replay remove --retired Kay", "Removed the replay of Kay's death (3f2a9c1d0b7e6a45).\n", ""},
		{"replay remove ffffffffffffffff", "", "orthanc: no such replay is kept: ffffffffffffffff\n"},
		{"replay remove", "", "orthanc: say which: an ID, or NAME --death or NAME --retired; usage: replay remove <ID | NAME --death | NAME --retired>\n"},
		{"replay remove Kay", "", "orthanc: say which: an ID, or NAME --death or NAME --retired; usage: replay remove <ID | NAME --death | NAME --retired>\n"},
		{"replay remove 3F2A9C1D0B7E6A45", "", "orthanc: say which: an ID, or NAME --death or NAME --retired; usage: replay remove <ID | NAME --death | NAME --retired>\n"},
		{"replay remove --report 2", "", "orthanc: say which: an ID, or NAME --death or NAME --retired; usage: replay remove <ID | NAME --death | NAME --retired>\n"},
		{"replay remove --death", "", "orthanc: say which: an ID, or NAME --death or NAME --retired; usage: replay remove <ID | NAME --death | NAME --retired>\n"},
	} {
		a := runLine(t, tb, admin, tc.line)
		if a.out != tc.out || a.errOut != tc.errOut || a.code != map[bool]int{true: 0, false: 1}[tc.errOut == ""] {
			t.Errorf("%q: %+v, want %q %q", tc.line, a, tc.out, tc.errOut)
		}
	}
	want := []asked{{"3f2a9c1d0b7e6a45", "", ""}, {"", "Sir Kay", "death"}, {"", "Kay", "retired"}, {"ffffffffffffffff", "", ""}}
	if !slices.Equal(got, want) {
		t.Errorf("asked to remove %+v, want %+v", got, want)
	}
	if a := runLine(t, tb, newKey(t), "replay remove 3f2a9c1d0b7e6a45"); a.code != 1 || a.errOut != PermissionDenied+"\n" || len(got) != 4 {
		t.Errorf("a player's replay remove: %+v", a)
	}
	r.Recording = func() bool { return false }
	tb = testTable([]ssh.PublicKey{admin}, nil, r.RemoveRow())
	if a := runLine(t, tb, admin, "replay remove 3f2a9c1d0b7e6a45"); a.code != 1 || a.errOut != "orthanc: this server records no replays\n" {
		t.Errorf("replay remove without replays: %+v", a)
	}
}
