package command

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Player is what the commands that tell a player about the game use (whoami, who,
// scores, motd): they read, and change nothing.
type Player struct {
	Log *slog.Logger
	// World is where the knights online are (who, and whoami of a knight playing now).
	World *world.Engine
	// Knights are the knights' records: whoami of a knight not online, the hall of fame.
	Knights knights.Keeper
	// Boards are the boards of the living, read from Knights.
	Boards *knights.Standings
	// Sessions are the open sessions: an admin's who shows each knight's game session.
	Sessions *edge.Registry
	// Tick is the wall time of one of the world's turns, for how long a knight is idle.
	Tick time.Duration
	// Realm is this server's realm, "" for a server alone: who has a column of realms on
	// a realm.
	Realm string
	// MessageOfTheDay is the message of the day as last set, "" for none: the server
	// keeps it, and an admin or a reload changes it while the server runs.
	MessageOfTheDay func() string
}

// Whoami is the --json shape of `whoami`; the text form prints the same keys as
// "key: value" lines.
type Whoami struct {
	// Fingerprint is the key the command ran with; Knight the knight's id, the same from
	// each of its keys.
	Fingerprint string `json:"fingerprint"`
	Knight      string `json:"knight"`
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

	Gold               int          `json:"gold"`
	TreasureExperience int          `json:"treasure_experience"`
	PercentKills       int          `json:"percent_kills"`
	Equipment          []WhoamiItem `json:"equipment"`
	Effects            []string     `json:"effects"`
	Party              WhoamiParty  `json:"party"`
	// Deeds are the knight's deeds in the order earned; always a list, [] for none.
	Deeds []Deed `json:"deeds"`
}

// Deed is a deed as whoami and the hall of fame tell it: its id (which never changes),
// its title and what was done.
type Deed struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Words string `json:"words"`
}

// DeedsOf are the deeds, as Deed, in their order; [] for none.
func DeedsOf(deeds []world.Deed) []Deed {
	out := []Deed{}
	for _, r := range world.DeedRows(deeds) {
		out = append(out, Deed{r.ID, r.Title, r.Words})
	}
	return out
}

// deedsLine is whoami's line of deeds: how many, and their titles newest first.
func deedsLine(ds []Deed) string {
	if len(ds) == 0 {
		return "0"
	}
	titles := make([]string, len(ds))
	for i, d := range ds {
		titles[len(ds)-1-i] = d.Title
	}
	return fmt.Sprintf("%d (newest first: %s)", len(ds), strings.Join(titles, ", "))
}

// WhoamiParty is the knight's party in whoami: its leader and every member (the leader
// first), both empty when the knight is alone. Parties live in the world and are not
// saved, so a knight who is not online is alone.
type WhoamiParty struct {
	Leader  string   `json:"leader"`
	Members []string `json:"members"`
}

// WhoamiItem is one carried item in whoami.
type WhoamiItem struct {
	Name string `json:"name"`
	Worn bool   `json:"worn,omitempty"`
}

// Whoami is whoami's row.
func (p Player) Whoami() Command {
	return Command{Name: "whoami", Usage: "whoami [--json]", Summary: "your knight: characteristics, hits, where it stands, its deeds",
		Takes: TakesJSON, Run: p.whoami}
}

// whoami tells the key's knight: its live record when it plays now, else its kept one.
func (p Player) whoami(c *Call) int {
	if c.Knight == "" {
		return c.Fail("no knight for key %s yet; connect with a terminal to roll one", c.FP)
	}
	rec, online, err := p.World.Lookup(c.Ctx, c.Knight)
	if err == nil && !online {
		rec, err = p.Knights.Knight(c.Knight)
	}
	if errors.Is(err, knights.ErrNotFound) {
		return c.Fail("no knight for key %s yet; connect with a terminal to roll one", c.FP)
	}
	if err != nil {
		p.Log.Error("whoami", "fingerprint", c.FP, "err", err)
		return c.Fail("your knight could not be read just now; try again later")
	}
	out := whoamiOf(c.FP, rec, online)
	members, err := p.World.Party(c.Ctx, c.Knight)
	if err != nil {
		p.Log.Error("whoami party", "fingerprint", c.FP, "err", err)
	}
	for _, m := range members {
		if m.Leader {
			out.Party.Leader = m.Name
		}
		out.Party.Members = append(out.Party.Members, m.Name)
	}
	if c.JSON {
		return c.WriteJSON(out)
	}
	partyLine := "none"
	if len(members) > 0 {
		partyLine = strings.Join(out.Party.Members, ", ") + " (led by " + out.Party.Leader + ")"
	}
	for _, kv := range [][2]any{
		{"fingerprint", out.Fingerprint}, {"knight", out.Knight}, {"name", out.Name}, {"online", out.Online}, {"dead", out.Dead},
		{"level", out.Level}, {"experience", out.Experience}, {"hits", out.Hits},
		{"max_hits", out.MaxHits}, {"spell_units", out.SpellUnits}, {"str", out.Str},
		{"int", out.Int}, {"con", out.Con}, {"dex", out.Dex}, {"depth", out.Depth},
		{"x", out.X}, {"y", out.Y}, {"gold", out.Gold},
		{"treasure_experience", out.TreasureExperience}, {"percent_kills", out.PercentKills},
		{"party", partyLine}, {"deeds", deedsLine(out.Deeds)},
	} {
		fmt.Fprintf(c.Out, "%s: %v\n", kv[0], kv[1])
	}
	return 0
}

// whoamiOf is whoami of a knight's record, alone (its party comes from the world).
func whoamiOf(fp string, rec world.Adventurer, online bool) Whoami {
	out := Whoami{Fingerprint: fp, Knight: rec.ID, Name: rec.Name, Online: online, Dead: rec.Death != nil, Level: rec.Level,
		Experience: rec.Experience, Hits: rec.Hits, MaxHits: rec.MaxHits, SpellUnits: rec.SpellUnits,
		Str: rec.Str, Int: rec.Int, Con: rec.Con, Dex: rec.Dex, Depth: rec.Depth, X: rec.X, Y: rec.Y}
	if rec.Death != nil {
		out.KilledBy = rec.Death.Killer
	}
	out.Gold, out.TreasureExperience, out.PercentKills = rec.Gold, rec.TreasureExperience, rec.PercentKills()
	out.Equipment, out.Effects = []WhoamiItem{}, []string{}
	for _, it := range rec.Items {
		out.Equipment = append(out.Equipment, WhoamiItem{it.Name(), it.Worn})
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
	out.Deeds = DeedsOf(rec.Deeds)
	return out
}
