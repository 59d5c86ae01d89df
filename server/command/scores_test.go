package command

import (
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// scores is the top three retirees, then the key's knight's own, for anyone (a guest
// too); the game's title screen shows the same lines.
func TestScoresIsTheHallOfFame(t *testing.T) {
	d := newPlayerDesk(t, "")
	kay := newKey(t)
	d.wantRun(nil, "scores", "No knight has retired yet.\n", "", 0)
	d.wantRun(nil, "scores --json", "[]\n", "", 0)

	kayID := d.knight("Kay", kay, time.Now())
	day := time.Date(2024, 5, 1, 23, 30, 0, 0, time.FixedZone("east", 3*3600)) // 20:30 UTC: the day is UTC's
	for i, r := range []struct {
		id, name          string
		level, xp, wealth int
	}{
		{"K-A", "Arthur", 9, 9000, 900}, {"K-B", "Bedivere", 8, 8000, 0}, {"K-C", "Cai", 7, 7000, 7000},
		{"K-D", "Dagonet", 6, 6000, 0}, {kayID, "Kay", 2, 500, 100},
	} {
		a := world.Adventurer{ID: r.id, Name: r.name, Level: r.level, Experience: r.xp, TreasureExperience: r.wealth}
		if r.name == "Arthur" { // a retired knight's deeds are in its entry
			a.Deeds = []world.Deed{{ID: world.DeedDragon, Turn: 5}, {ID: world.DeedRetired(9), Turn: 9}}
		}
		if err := d.keeper.Retire(knights.FameEntry{Retired: day.Add(time.Duration(i) * 24 * time.Hour), Adventurer: a}); err != nil {
			t.Fatal(err)
		}
	}
	table := "RANK  NAME      LEVEL  EXPERIENCE  KILLS  RETIRED     DEEDS\n" +
		"1     Arthur    9      9000        90%    2024-05-01  2\n" +
		"2     Bedivere  8      8000        100%   2024-05-02  0\n" +
		"3     Cai       7      7000        0%     2024-05-03  0\n"
	arthurs := "\nDeeds of Arthur (rank 1), newest first:\n  Honour of level 9\n  Dragonslayer\n"
	top := table + arthurs
	d.wantRun(nil, "scores", top, "", 0)
	d.wantRun(kay, "scores", table+
		"5     Kay       2      500         80%    2024-05-05  0      (yours)\n"+arthurs, "", 0)
	out, _, _ := d.run(kay, "scores --json")
	want := `[{"rank":1,"name":"Arthur","level":9,"experience":9000,"percent_kills":90,"retired":"2024-05-01","yours":false,` +
		`"deeds":[{"id":"dragon","title":"Dragonslayer","words":"slew the Dragon"},{"id":"retired-9","title":"Honour of level 9","words":"retired with honour at level 9"}]},` +
		`{"rank":2,"name":"Bedivere","level":8,"experience":8000,"percent_kills":100,"retired":"2024-05-02","yours":false,"deeds":[]},` +
		`{"rank":3,"name":"Cai","level":7,"experience":7000,"percent_kills":0,"retired":"2024-05-03","yours":false,"deeds":[]},` +
		`{"rank":5,"name":"Kay","level":2,"experience":500,"percent_kills":80,"retired":"2024-05-05","yours":true,"deeds":[]}]` + "\n"
	if out != want {
		t.Fatalf("scores --json:\n%s\nwant:\n%s", out, want)
	}

	// The title screen's lines are the command's.
	list, err := HallOfFame(d.keeper, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := ScoreLines(list); strings.Join(got, "\n")+"\n" != top {
		t.Fatalf("ScoreLines: %q", got)
	}
	d.wantRun(nil, "scores all", "", "orthanc: unexpected \"all\"; usage: scores [--board NAME [--week]] [--json]\n", 1)
}

// scores --board ranks the living by a board's tally, for all time or --week, in text or
// JSON, the key's knight's row marked; a board not known is answered with the names.
func TestScoresBoard(t *testing.T) {
	d := newPlayerDesk(t, "")
	kay := newKey(t)
	kayID := d.knight("Kay", kay, time.Now())
	week := world.WeekOf(time.Now())
	d.keeper.Put(world.Adventurer{ID: "K-A", Name: "Arthur", Level: 3, Deepest: 5, Slain: 7},
		world.Adventurer{ID: kayID, Name: "Kay", Level: 2, Deepest: 2, Slain: 9, Week: world.WeekTally{Name: week, Deepest: 2, Slain: 1}})
	d.wantRun(kay, "scores --board slain", "Monsters slain, for all time\n"+
		"RANK  NAME    LEVEL  SLAIN\n"+
		"1     Kay     2      9      (yours)\n"+
		"2     Arthur  3      7\n", "", 0)
	d.wantRun(nil, "scores --board=deepest --week --json",
		`{"board":"deepest","title":"Deepest level reached","week":"`+week+`","rows":[{"rank":1,"name":"Kay","level":2,"value":2,"yours":false}]}`+"\n", "", 0)
	d.wantRun(nil, "scores --board gold --week", "Gold won, this week ("+week+")\nNo knight is on this board this week yet.\n", "", 0)
	d.wantRun(nil, "scores --board kills", "", "orthanc: there is no board \"kills\"; the boards are deepest, slain, gold, deeds\n", 1)
	d.wantRun(nil, "scores --week", "", "orthanc: --week is a board's: give --board NAME (deepest, slain, gold, deeds); usage: scores [--board NAME [--week]] [--json]\n", 1)
}
