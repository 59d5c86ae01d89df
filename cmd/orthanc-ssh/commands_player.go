package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// whoami is the --json shape of `whoami`; the text form prints the same keys as
// "key: value" lines.
type whoami struct {
	Fingerprint string `json:"fingerprint"`
	Name        string `json:"name"`
	Online      bool   `json:"online"`
	Dead        bool   `json:"dead"`
	KilledBy    string `json:"killed_by,omitempty"`
	Level       int    `json:"level"`
	Experience  int    `json:"experience"`
	Hits        int    `json:"hits"`
	MaxHits     int    `json:"max_hits"`
	SpellUnits  int    `json:"spell_units"`
	Str         int    `json:"str"`
	Int         int    `json:"int"`
	Con         int    `json:"con"`
	Dex         int    `json:"dex"`
	Depth       int    `json:"depth"`
	X           int    `json:"x"`
	Y           int    `json:"y"`

	Gold               int         `json:"gold"`
	TreasureExperience int         `json:"treasure_experience"`
	PercentKills       int         `json:"percent_kills"`
	Equipment          []equipment `json:"equipment"`
	Effects            []string    `json:"effects"`
	Party              party       `json:"party"`
}

// party is the knight's party in whoami: its leader and every member (the leader first),
// both empty when the knight is alone. Parties live in the world and are not saved, so
// a knight who is not online is alone.
type party struct {
	Leader  string   `json:"leader"`
	Members []string `json:"members"`
}

// equipment is one carried item in whoami.
type equipment struct {
	Name string `json:"name"`
	Worn bool   `json:"worn,omitempty"`
}

func (s *server) cmdWhoami(c *call) int {
	rec, online, err := s.engine.Lookup(c.ctx, c.fp)
	if err == nil && !online {
		rec, err = s.saver.Load(c.fp)
	}
	if errors.Is(err, store.ErrNotFound) {
		return c.fail("no knight for key %s yet; connect with a terminal to roll one", c.fp)
	}
	if err != nil {
		s.log.Error("whoami", "fingerprint", c.fp, "err", err)
		return c.fail("your knight could not be read just now; try again later")
	}
	out := whoamiOf(c.fp, rec, online)
	members, err := s.engine.Party(c.ctx, c.fp)
	if err != nil {
		s.log.Error("whoami party", "fingerprint", c.fp, "err", err)
	}
	for _, m := range members {
		if m.Leader {
			out.Party.Leader = m.Name
		}
		out.Party.Members = append(out.Party.Members, m.Name)
	}
	if c.json {
		return c.writeJSON(out)
	}
	partyLine := "none"
	if len(members) > 0 {
		partyLine = strings.Join(out.Party.Members, ", ") + " (led by " + out.Party.Leader + ")"
	}
	for _, kv := range [][2]any{
		{"fingerprint", out.Fingerprint}, {"name", out.Name}, {"online", out.Online}, {"dead", out.Dead},
		{"level", out.Level}, {"experience", out.Experience}, {"hits", out.Hits},
		{"max_hits", out.MaxHits}, {"spell_units", out.SpellUnits}, {"str", out.Str},
		{"int", out.Int}, {"con", out.Con}, {"dex", out.Dex}, {"depth", out.Depth},
		{"x", out.X}, {"y", out.Y}, {"gold", out.Gold},
		{"treasure_experience", out.TreasureExperience}, {"percent_kills", out.PercentKills},
		{"party", partyLine},
	} {
		fmt.Fprintf(c.out, "%s: %v\n", kv[0], kv[1])
	}
	return 0
}

// whoamiOf is whoami of a knight's record, alone (its party comes from the world).
func whoamiOf(fp string, rec world.Adventurer, online bool) whoami {
	out := whoami{Fingerprint: fp, Name: rec.Name, Online: online, Dead: rec.Death != nil, Level: rec.Level,
		Experience: rec.Experience, Hits: rec.Hits, MaxHits: rec.MaxHits, SpellUnits: rec.SpellUnits,
		Str: rec.Str, Int: rec.Int, Con: rec.Con, Dex: rec.Dex, Depth: rec.Depth, X: rec.X, Y: rec.Y}
	if rec.Death != nil {
		out.KilledBy = rec.Death.Killer
	}
	out.Gold, out.TreasureExperience, out.PercentKills = rec.Gold, rec.TreasureExperience, rec.PercentKills()
	out.Equipment, out.Effects = []equipment{}, []string{}
	for _, it := range rec.Items {
		out.Equipment = append(out.Equipment, equipment{it.Name(), it.Worn})
		if it.Worn {
			out.Effects = append(out.Effects, it.Name())
		}
	}
	for _, ef := range rec.Effects {
		out.Effects = append(out.Effects, ef.String())
	}
	for _, st := range rec.Status {
		out.Effects = append(out.Effects, st.String())
	}
	out.Party.Members = []string{}
	return out
}

// whoJSON is one row of `who --json`. Only admins see a knight's fingerprint, address,
// time connected and bytes sent: for the others those fields are left out.
type whoJSON struct {
	Name             string  `json:"name"`
	Level            int     `json:"level"`
	Depth            int     `json:"depth"`
	Fingerprint      string  `json:"fingerprint,omitempty"`
	Addr             string  `json:"addr,omitempty"`
	ConnectedSeconds float64 `json:"connected_seconds,omitempty"`
	BytesSent        int64   `json:"bytes_sent,omitempty"`
}

// cmdWho lists the knights in the world; an admin's list also has each knight's key and
// the address, time connected and bytes sent of its game session.
func (s *server) cmdWho(c *call) int {
	who, err := s.engine.Who(c.ctx)
	if err != nil {
		return c.fail("the world is not answering; try again later")
	}
	rows := make([]whoJSON, 0, len(who))
	for _, e := range who {
		r := whoJSON{Name: e.Name, Level: e.Level, Depth: e.Depth}
		if c.admin {
			r.Fingerprint = e.Fingerprint
			if ls, ok := s.live.game(e.Fingerprint); ok {
				r.Addr, r.BytesSent = ls.addr, ls.sent.Load()
				r.ConnectedSeconds = time.Since(ls.start).Round(time.Second).Seconds()
			}
		}
		rows = append(rows, r)
	}
	if c.json {
		return c.writeJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.out, "No one is in the dungeon.")
		return 0
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	heading := "NAME\tLEVEL\tWHERE"
	if c.admin {
		heading += "\tADDRESS\tCONNECTED\tSENT\tFINGERPRINT"
	}
	fmt.Fprintln(tw, heading)
	for _, r := range rows {
		where := fmt.Sprintf("depth %d", r.Depth)
		if r.Depth == 0 {
			where = "outside"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s", r.Name, r.Level, where)
		if c.admin {
			fmt.Fprintf(tw, "\t%s\t%s\t%d KiB\t%s", r.Addr, time.Duration(r.ConnectedSeconds)*time.Second, r.BytesSent/1024, r.Fingerprint)
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
	return 0
}

// monsterJSON is one row of `help monsters --json`.
type monsterJSON struct {
	Name            string `json:"name"`
	Class           string `json:"class"`
	Level           int    `json:"level"`
	HitDice         string `json:"hit_dice"`
	AttackDice      string `json:"attack_dice"`
	Dexterity       int    `json:"dexterity"`
	Experience      int    `json:"experience"`
	Speed           int    `json:"speed"`
	AttacksPerRound int    `json:"attacks_per_round"`
	Glyph           string `json:"glyph"`
}

// cmdHelpMonsters prints the monster tables, as the seed's help lesson did.
func cmdHelpMonsters(c *call) int {
	if c.json {
		list := make([]monsterJSON, 0, len(world.Monsters))
		for _, k := range world.Monsters {
			list = append(list, monsterJSON{k.Name, k.Class.String(), k.Level, k.HitDice.String(), k.AttackDice.String(),
				k.Dex, k.Experience, k.Speed, k.AttacksPerRound, k.Glyph})
		}
		return c.writeJSON(list)
	}
	for _, l := range world.MonsterTableLines() {
		fmt.Fprintln(c.out, l)
	}
	return 0
}

// fameTop is how many retirees the hall of fame shows server-wide (seed 000: "The top three
// retirees are saved.").
const fameTop = 3

// scoreJSON is one row of `scores --json`.
type scoreJSON struct {
	Rank         int    `json:"rank"`
	Name         string `json:"name"`
	Level        int    `json:"level"`
	Experience   int    `json:"experience"`
	PercentKills int    `json:"percent_kills"`
	Retired      string `json:"retired"`
	Yours        bool   `json:"yours"`
}

// scores is the hall of fame as fp sees it: the top three, then fp's own retirees.
func (s *server) scores(fp string) ([]scoreJSON, error) {
	if err := s.saver.Flush(); err != nil {
		return nil, err
	}
	all, err := s.store.Fame()
	if err != nil {
		return nil, err
	}
	out := []scoreJSON{}
	for i, f := range all {
		a := f.Adventurer
		mine := a.Fingerprint == fp
		if i < fameTop || mine {
			out = append(out, scoreJSON{i + 1, a.Name, a.Level, a.Experience, a.PercentKills(),
				f.Retired.UTC().Format("2006-01-02"), mine})
		}
	}
	return out, nil
}

func (s *server) cmdScores(c *call) int {
	list, err := s.scores(c.fp)
	if err != nil {
		s.log.Error("scores", "err", err)
		return c.fail("the hall of fame could not be read just now; try again later")
	}
	if c.json {
		return c.writeJSON(list)
	}
	for _, l := range scoreLines(list) {
		fmt.Fprintln(c.out, l)
	}
	return 0
}

// scoreLines writes the hall of fame as lines of text, for the command and the game screen.
func scoreLines(list []scoreJSON) []string {
	if len(list) == 0 {
		return []string{"No knight has retired yet."}
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "RANK\tNAME\tLEVEL\tEXPERIENCE\tKILLS\tRETIRED\t")
	for _, e := range list {
		mine := ""
		if e.Yours {
			mine = "(yours)"
		}
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%d%%\t%s\t%s\n", e.Rank, e.Name, e.Level, e.Experience, e.PercentKills, e.Retired, mine)
	}
	_ = w.Flush()
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

// cmdPlay and cmdWatch answer play and watch run without a terminal: they need one. With
// a terminal, the program handler runs them (game.go, spectate.go).
func (s *server) cmdPlay(c *call) int {
	return c.fail("play needs a terminal: ssh -t -p PORT host play [--plain]")
}

func (s *server) cmdWatch(c *call) int {
	return c.fail("watch needs a terminal: ssh -t -p PORT host watch NAME")
}
