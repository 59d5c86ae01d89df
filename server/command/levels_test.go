package command

import (
	"errors"
	"strings"
	"testing"

	"charm.land/ssh"
)

// regen and revert rebuild levels through the world, save them, and say so; bad levels
// and extra words are usage errors naming what was wrong.
func TestRegenAndRevert(t *testing.T) {
	e := runningWorld(t)
	saves := 0
	l := Levels{Log: quietLog(), World: e, Save: func() error { saves++; return nil }, Seed: 1977}
	admin := newKey(t)
	tb := testTable([]ssh.PublicKey{admin}, nil, l.Regen(), l.Revert())

	a := runLine(t, tb, admin, "regen 2 --seed 7")
	if a.code != 0 || !strings.HasPrefix(a.out, "Regenerated with dungeon seed 7:\nLEVEL  SEED") || saves != 1 {
		t.Fatalf("regen 2 --seed 7: %+v, %d saves", a, saves)
	}
	if a := runLine(t, tb, admin, "revert 2 --json"); a.code != 0 || !strings.HasPrefix(a.out, `{"dungeon_seed":1977,"levels":[{`) || saves != 2 {
		t.Fatalf("revert 2 --json: %+v, %d saves", a, saves)
	}
	for line, want := range map[string]string{
		"regen":              "orthanc: name one level, or all; usage: regen <level|all> [--seed N] [--json]\n",
		"regen 0":            "orthanc: level \"0\": want a level number from 1, or all; usage: regen <level|all> [--seed N] [--json]\n",
		"regen 99":           "orthanc: there is no such level: the dungeon has levels 1 to 10\n",
		"regen 1 --seed x":   "orthanc: seed \"x\" is not a whole number from 0 to 18446744073709551615; usage: regen <level|all> [--seed N] [--json]\n",
		"regen 1 --seed":     "orthanc: --seed needs a number; usage: regen <level|all> [--seed N] [--json]\n",
		"revert 1 2":         "orthanc: name one level, or all; usage: revert [level|all] [--json]\n",
		"revert --seed 1":    "orthanc: unknown flag \"--seed\"; usage: revert [level|all] [--json]\n",
		"revert high":        "orthanc: level \"high\": want a level number from 1, or all; usage: revert [level|all] [--json]\n",
		"regen 1 --frob\x1b": "orthanc: unknown flag \"--frob\"; usage: regen <level|all> [--seed N] [--json]\n",
	} {
		if a := runLine(t, tb, admin, line); a.code != 1 || a.errOut != want || a.out != "" {
			t.Errorf("%q: %+v, want %q", line, a, want)
		}
	}
	if saves != 2 {
		t.Errorf("refused lines saved: %d saves", saves)
	}
	if a := runLine(t, tb, newKey(t), "regen 1"); a.code != 1 || a.errOut != PermissionDenied+"\n" {
		t.Errorf("regen as a player: %+v", a)
	}

	l.Save = func() error { return errors.New("disk full") }
	tb = testTable([]ssh.PublicKey{admin}, nil, l.Regen())
	if a := runLine(t, tb, admin, "regen all --seed 3"); a.code != 0 || !strings.Contains(a.errOut, "not yet saved (disk full)") {
		t.Errorf("regen with the saver failing: %+v", a)
	}
}

// broadcast reaches every knight in the world and counts them; nothing to say is refused.
func TestBroadcast(t *testing.T) {
	e := runningWorld(t)
	admin := newKey(t)
	tb := testTable([]ssh.PublicKey{admin}, nil, Broadcast(e, nil, nil))
	if a := runLine(t, tb, admin, "broadcast the --json gate closes"); a.code != 0 || a.out != "Sent to 0 knights: [admin] the --json gate closes\n" {
		t.Errorf("broadcast: %+v", a)
	}
	if a := runLine(t, tb, admin, "broadcast"); a.code != 1 || a.errOut != "orthanc: say something; usage: broadcast <text>\n" {
		t.Errorf("empty broadcast: %+v", a)
	}
	if a := runLine(t, tb, admin, "broadcast \x1b\x07"); a.code != 1 || a.errOut != "orthanc: nothing is left to send once control characters are removed\n" {
		t.Errorf("broadcast of control characters: %+v", a)
	}
}
