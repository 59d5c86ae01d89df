package server

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// whoami is the --json shape of `whoami`; the text form prints the same keys as
// "key: value" lines.
type whoami struct {
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

func (s *Server) cmdWhoami(c *command.Call) int {
	if c.Knight == "" {
		return c.Fail("no knight for key %s yet; connect with a terminal to roll one", c.FP)
	}
	rec, online, err := s.engine.Lookup(c.Ctx, c.Knight)
	if err == nil && !online {
		rec, err = s.knights.Knight(c.Knight)
	}
	if errors.Is(err, store.ErrNotFound) {
		return c.Fail("no knight for key %s yet; connect with a terminal to roll one", c.FP)
	}
	if err != nil {
		s.log.Error("whoami", "fingerprint", c.FP, "err", err)
		return c.Fail("your knight could not be read just now; try again later")
	}
	out := whoamiOf(c.FP, rec, online)
	members, err := s.engine.Party(c.Ctx, c.Knight)
	if err != nil {
		s.log.Error("whoami party", "fingerprint", c.FP, "err", err)
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
		{"party", partyLine},
	} {
		fmt.Fprintf(c.Out, "%s: %v\n", kv[0], kv[1])
	}
	return 0
}

// whoamiOf is whoami of a knight's record, alone (its party comes from the world).
func whoamiOf(fp string, rec world.Adventurer, online bool) whoami {
	out := whoami{Fingerprint: fp, Knight: rec.ID, Name: rec.Name, Online: online, Dead: rec.Death != nil, Level: rec.Level,
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

// whoJSON is one row of `who --json`. Everyone sees how long each knight has been idle
// and whether it is away; only admins see the key fingerprint of a knight's game session,
// its address, time connected and bytes sent: for the others those fields are left out.
type whoJSON struct {
	Name             string  `json:"name"`
	Level            int     `json:"level"`
	Depth            int     `json:"depth"`
	Guest            bool    `json:"guest,omitempty"`
	IdleSeconds      float64 `json:"idle_seconds"`
	Away             bool    `json:"away"`
	AwayReason       string  `json:"away_reason,omitempty"`
	Knight           string  `json:"knight,omitempty"`
	Fingerprint      string  `json:"fingerprint,omitempty"`
	Addr             string  `json:"addr,omitempty"`
	ConnectedSeconds float64 `json:"connected_seconds,omitempty"`
	BytesSent        int64   `json:"bytes_sent,omitempty"`
	// Realm is the knight's realm, on a realm; a knight of another realm has no depth
	// here (0) and none of an admin's session fields.
	Realm string `json:"realm,omitempty"`
	far   bool
}

// cmdWho lists the knights in the world, then those of the other realms (realmtalk.go);
// an admin's list also has each knight's key and the address, time connected and bytes
// sent of its game session here.
func (s *Server) cmdWho(c *command.Call) int {
	who, err := s.engine.Who(c.Ctx)
	if err != nil {
		return c.Fail("the world is not answering; try again later")
	}
	rows := make([]whoJSON, 0, len(who))
	for _, e := range who {
		r := whoJSON{Name: e.Name, Level: e.Level, Depth: e.Depth, Guest: e.Guest, Away: e.Away, AwayReason: e.AwayReason,
			IdleSeconds: (time.Duration(e.IdleTurns) * s.cfg.Tick).Round(time.Second).Seconds(), Realm: s.cfg.Realm}
		if c.Admin {
			r.Knight = e.ID
			if ls, ok := s.live.Game(e.ID); ok {
				r.Fingerprint, r.Addr, r.BytesSent = ls.Fingerprint, ls.Addr, ls.Sent.Load()
				r.ConnectedSeconds = time.Since(ls.Start).Round(time.Second).Seconds()
			}
		}
		rows = append(rows, r)
	}
	rows = append(rows, s.farRows(c)...)
	if c.JSON {
		return c.WriteJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.Out, "No one is in the dungeon.")
		return 0
	}
	s.whoTable(c, rows)
	return 0
}

// farRows are who's rows of the knights of the other realms.
func (s *Server) farRows(c *command.Call) []whoJSON {
	var rows []whoJSON
	for _, k := range s.farWho(c.Ctx) {
		r := whoJSON{Name: k.Name, Level: k.Level, Guest: k.Guest, Away: k.Away, AwayReason: k.AwayReason,
			IdleSeconds: float64(k.IdleSeconds), Realm: k.Realm, far: true}
		if c.Admin {
			r.Knight = k.ID
		}
		rows = append(rows, r)
	}
	return rows
}

// whoTable writes who's rows as a table; a realm's has a column of each knight's realm.
func (s *Server) whoTable(c *command.Call, rows []whoJSON) {
	tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
	realm := slices.ContainsFunc(rows, func(r whoJSON) bool { return r.Realm != "" })
	heading := "NAME\tLEVEL\tWHERE\tIDLE"
	if realm {
		heading = "NAME\tREALM\tLEVEL\tWHERE\tIDLE"
	}
	if c.Admin {
		heading += "\tADDRESS\tCONNECTED\tSENT\tFINGERPRINT\tKNIGHT"
	}
	heading += "\tAWAY" // last: a reason is as long as its knight made it
	fmt.Fprintln(tw, heading)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t", r.Name) // a guest's name says so
		if realm {
			fmt.Fprintf(tw, "%s\t", r.Realm)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s", r.Level, r.where(), idleText(r.IdleSeconds))
		if c.Admin {
			fmt.Fprintf(tw, "\t%s\t%s\t%d KiB\t%s\t%s", orDash(r.Addr), time.Duration(r.ConnectedSeconds)*time.Second, r.BytesSent/1024, orDash(r.Fingerprint), r.Knight)
		}
		fmt.Fprintf(tw, "\t%s\n", awayText(r.Away, r.AwayReason))
	}
	_ = tw.Flush()
}

// where is a row's WHERE: its depth, outside, or for another realm's knight "-" (its
// realm says where).
func (r whoJSON) where() string {
	switch {
	case r.far:
		return "-"
	case r.Depth == 0:
		return "outside"
	}
	return fmt.Sprintf("depth %d", r.Depth)
}

// idleText is how long a knight has been idle, as who shows it: nothing under a minute,
// then minutes, then hours and minutes.
func idleText(seconds float64) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case d < time.Minute:
		return "-"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// awayText is a knight's away column in who.
func awayText(away bool, reason string) string {
	switch {
	case !away:
		return "-"
	case reason == "":
		return "away"
	}
	return "away: " + reason
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

// scores is the hall of fame as the knight fp (an id) sees it: the top three, then its
// own retirees.
func (s *Server) scores(fp string) ([]scoreJSON, error) {
	if err := s.knights.Flush(); err != nil {
		return nil, err
	}
	all, err := s.knights.Fame()
	if err != nil {
		return nil, err
	}
	out := []scoreJSON{}
	for i, f := range all {
		a := f.Adventurer
		mine := fp != "" && a.ID == fp
		if i < fameTop || mine {
			out = append(out, scoreJSON{i + 1, a.Name, a.Level, a.Experience, a.PercentKills(),
				f.Retired.UTC().Format("2006-01-02"), mine})
		}
	}
	return out, nil
}

func (s *Server) cmdScores(c *command.Call) int {
	list, err := s.scores(c.Knight)
	if err != nil {
		s.log.Error("scores", "err", err)
		return c.Fail("the hall of fame could not be read just now; try again later")
	}
	if c.JSON {
		return c.WriteJSON(list)
	}
	for _, l := range scoreLines(list) {
		fmt.Fprintln(c.Out, l)
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
func (s *Server) cmdPlay(c *command.Call) int {
	return c.Fail("play needs a terminal: %s play [--plain]", s.sshCommand("-t"))
}

func (s *Server) cmdWatch(c *command.Call) int {
	return c.Fail("watch needs a terminal: %s watch NAME", s.sshCommand("-t"))
}

// keyJSON is one row of `keys --json`.
type keyJSON struct {
	Fingerprint string `json:"fingerprint"`
	Type        string `json:"type,omitempty"`
	Comment     string `json:"comment,omitempty"`
	Added       string `json:"added"`
	LastUsed    string `json:"last_used,omitempty"`
	This        bool   `json:"this,omitempty"` // the key the command ran with
}

// cmdKeys is keys, keys add and keys remove FINGERPRINT: the keys of the key's knight.
func (s *Server) cmdKeys(c *command.Call) int {
	if c.Knight == "" {
		return c.Fail("no knight for key %s yet; connect with a terminal to roll one", c.FP)
	}
	if len(c.Args) == 0 {
		return s.listKeys(c)
	}
	switch c.Args[0] {
	case "add":
		if len(c.Args) > 1 || c.JSON {
			return c.UsageError("keys add takes nothing more")
		}
		rec, err := s.knights.Knight(c.Knight)
		if err == nil && rec.Ended() {
			return c.Fail("your knight is dead or retired; connect to roll a new one, then add keys to it")
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			s.log.Error("keys add", "fingerprint", c.FP, "err", err)
			return c.Fail("your knight could not be read just now; try again later")
		}
		code, err := s.codes.Add(knights.CodeEntry{Kind: knights.CodeLink, Knight: c.Knight, Addr: c.Addr})
		if err != nil {
			s.log.Error("keep a link code", "fingerprint", c.FP, "err", err)
		}
		if code == "" {
			return c.Fail("%s", codeNotKeptLine)
		}
		c.Result = "made a link code"
		fmt.Fprintf(c.Out, "Your code: %s (good once, for %s).\nFrom your other key, run:\n  %s link %s\n",
			code, codeLifeWords, s.sshCommand(), code)
		return 0
	case "remove":
		if len(c.Args) != 2 || c.JSON {
			return c.UsageError("name the key by its fingerprint")
		}
		fp := c.Args[1]
		k, err := s.knights.KeyOf(fp)
		if err != nil || k.Knight != c.Knight {
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				s.log.Error("keys remove", "fingerprint", c.FP, "err", err)
				return c.Fail("your keys could not be read just now; try again later")
			}
			return c.Fail("%s is not a key of your knight; `keys` lists them", command.Printable(fp))
		}
		if err := s.knights.RemoveKey(fp); errors.Is(err, knights.ErrLastKey) {
			return c.Fail("that is your knight's only key; link another first (keys add)")
		} else if err != nil {
			s.log.Error("keys remove", "fingerprint", c.FP, "removed", fp, "err", err)
			return c.Fail("the key could not be removed just now; try again later")
		}
		s.live.CloseKey(fp, kickGrace) // a removed key plays no more
		s.log.Info("key removed", "fingerprint", c.FP, "removed", fp, "knight", c.Knight)
		fmt.Fprintf(c.Out, "Removed %s from your knight.\n", fp)
		return 0
	}
	return c.UsageError("unknown %q", command.Printable(c.Args[0]))
}

// listKeys is keys: the knight's keys, the first added first.
func (s *Server) listKeys(c *command.Call) int {
	if err := s.knights.Flush(); err != nil { // a new key's binding is written with its knight
		s.log.Error("keys: flush", "err", err)
	}
	list, err := s.knights.KeysOf(c.Knight)
	if err != nil {
		s.log.Error("keys", "fingerprint", c.FP, "err", err)
		return c.Fail("your keys could not be read just now; try again later")
	}
	rows := make([]keyJSON, 0, len(list))
	for _, k := range list {
		r := keyJSON{Fingerprint: k.Fingerprint, Type: k.Type, Comment: k.Comment,
			Added: k.Added.UTC().Format(time.RFC3339), This: k.Fingerprint == c.FP}
		if !k.LastUsed.IsZero() {
			r.LastUsed = k.LastUsed.UTC().Format(time.RFC3339)
		}
		rows = append(rows, r)
	}
	if c.JSON {
		return c.WriteJSON(rows)
	}
	tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FINGERPRINT\tTYPE\tCOMMENT\tADDED\tLAST USED\t")
	for _, r := range rows {
		last, this := "-", ""
		if r.LastUsed != "" {
			last = r.LastUsed[:10]
		}
		if r.This {
			this = "(this key)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Fingerprint, orDash(r.Type), orDash(r.Comment), r.Added[:10], last, this)
	}
	_ = tw.Flush()
	return 0
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// codeFailure says why a code was not taken.
func codeFailure(c *command.Call, err error, again string) int {
	if errors.Is(err, knights.ErrTooManyBad) {
		return c.Fail("too many wrong codes from this key or address; wait %s and try again", codeLifeWords)
	}
	if errors.Is(err, knights.ErrCodesUnread) {
		return c.Fail("the codes could not be read just now; try again later")
	}
	return c.Fail("no such code, or it has expired or been used; %s", again)
}

// inTheGame reports whether the knight is in the world (or the world does not answer):
// a call that gives its key elsewhere waits until it has left, since its record there
// would be saved over what the call changes.
func (s *Server) inTheGame(c *command.Call, knight string) bool {
	if knight == "" {
		return false
	}
	_, online, err := s.engine.Lookup(c.Ctx, knight)
	return err != nil || online
}

// cmdLink is link CODE: the key joins the knight whose keys add gave the code.
func (s *Server) cmdLink(c *command.Call) int {
	if len(c.Args) != 1 {
		return c.UsageError("give the code that `keys add` printed")
	}
	code := c.Args[0]
	e, err := s.codes.Take(code, knights.CodeLink, c.FP, c.Addr)
	if err != nil {
		return codeFailure(c, err, "run `keys add` again with your other key")
	}
	if e.Knight == c.Knight {
		s.codes.GiveBack(code, e)
		return c.Fail("this key already plays that knight")
	}
	if s.inTheGame(c, c.Knight) {
		s.codes.GiveBack(code, e)
		return c.Fail("this key's knight is in the dungeon; leave the game first")
	}
	rec, err := s.knights.Knight(e.Knight)
	if err != nil {
		return c.Fail("the knight of that code is gone")
	}
	if rec.Ended() {
		return c.Fail("the knight of that code, %s, has died or retired: its code is no good; roll a new knight and run `keys add` again", rec.Name)
	}
	k := knights.Key{Fingerprint: c.FP, Knight: e.Knight, Type: c.Key.Type(), Comment: c.Comment, Added: time.Now().UTC()}
	return s.giveKey(c, code, e, knights.Give{Key: k}, rec.Name)
}

// giveKey gives the call's key to a knight (link and claim, g.Key), and says what
// became of the knight the key played before; the code is given back when it fails.
func (s *Server) giveKey(c *command.Call, code string, e knights.CodeEntry, g knights.Give, name string) int {
	g.Replace, g.At, g.Death = c.Replace, s.now().UTC(), world.Death{Killer: knights.ReplacedKiller}
	given, err := s.knights.Give(c.Ctx, g)
	switch {
	case errors.Is(err, knights.ErrHasKnight):
		s.codes.GiveBack(code, e)
		old, _ := s.knights.Knight(given.Left)
		if given.Left == "" {
			old, _ = s.knights.Knight(c.Knight)
		}
		return c.Fail("this key plays a living knight, %s; run it again with --replace to retire %s into a tombstone", old.Name, old.Name)
	case err != nil:
		s.codes.GiveBack(code, e)
		s.log.Info("key not given", "fingerprint", c.FP, "knight", g.Key.Knight, "command", c.Cmd.Name, "err", err)
		return c.Fail("%s", giveKeyLine(err))
	}
	if given.Gone {
		s.forgetKnight(c, given.Left)
	}
	s.log.Info("key given to a knight", "fingerprint", c.FP, "knight", g.Key.Knight, "left", given.Left, "entombed", given.Entombed, "command", c.Cmd.Name)
	c.Result = "key given to " + g.Key.Knight
	fmt.Fprintf(c.Out, "This key now plays %s. Connect to play: %s\n", name, s.sshCommand())
	if given.Entombed {
		fmt.Fprintln(c.Out, "The knight it played before was retired into a tombstone.")
	}
	return 0
}

// giveKeyLine is what a player or admin reads when a key could not be given.
func giveKeyLine(err error) string {
	var away *knights.ElsewhereError
	switch {
	case errors.Is(err, knights.ErrSameKnight):
		return "this key already plays that knight"
	case errors.As(err, &away) && away.Here:
		return "the knight is leaving the game just now; try again in a moment"
	case errors.As(err, &away):
		return fmt.Sprintf("the knight plays in realm %s; leave the game there first, then try again", away.Where)
	case errors.Is(err, knights.ErrKeyMoved):
		return "the key changed on another realm meanwhile; try again"
	}
	return "the key could not be given to the knight just now; try again later"
}

// cmdClaim is claim CODE: the key adopts the guest knight that was given the code.
func (s *Server) cmdClaim(c *command.Call) int {
	if len(c.Args) != 1 {
		return c.UsageError("give the code you were shown when your guest knight left")
	}
	code := c.Args[0]
	e, err := s.codes.Take(code, knights.CodeClaim, c.FP, c.Addr)
	if err != nil {
		return codeFailure(c, err, "a guest knight's code is good for "+codeLifeWords+" after it leaves")
	}
	if s.inTheGame(c, c.Knight) {
		s.codes.GiveBack(code, e)
		return c.Fail("this key's knight is in the dungeon; leave the game first")
	}
	rec := e.Guest.Clone()
	rec.ID, rec.Guest = knights.NewKnightID(), false
	rec.Name = s.keptName(rec.Name, rec.ID)
	k := knights.Key{Fingerprint: c.FP, Knight: rec.ID, Type: c.Key.Type(), Comment: "claimed a guest", Added: time.Now().UTC()}
	status := s.giveKey(c, code, e, knights.Give{Key: k, Knight: &rec}, rec.Name)
	if status != 0 { // never kept: its name is free again for the claim run anew
		if err := s.knights.ReleaseName(rec.Name, rec.ID); err != nil {
			s.log.Error("free the name of a claim not made", "knight", rec.ID, "err", err)
		}
		s.book().Forget(rec.ID)
		return status
	}
	// Letters reach the claimed knight at once, not only once its key connects.
	if err := s.engine.KnowKnight(c.Ctx, rec.ID, rec.Name); err != nil {
		s.log.Warn("enter a claimed knight in the book of knights", "knight", rec.ID, "err", err)
	}
	return 0
}

// keptName is the name a claimed guest keeps: its own without the guest's mark, or with
// a number added when another knight has it.
func (s *Server) keptName(guestName, knight string) string {
	base := strings.TrimSpace(strings.TrimPrefix(guestName, app.GuestPrefix))
	if base == "" {
		base = "Knight"
	}
	name := base
	for i := 2; !s.namesFor(knight, false).Claim(name); i++ {
		name = fmt.Sprintf("%s %d", base[:min(len(base), world.MaxNameLen-3)], i)
	}
	return name
}

// cmdMOTD prints the message of the day.
func (s *Server) cmdMOTD(c *command.Call) int {
	m := s.motd()
	if c.JSON {
		return c.WriteJSON(map[string]string{"motd": m})
	}
	if m == "" {
		fmt.Fprintln(c.Out, "No message of the day.")
		return 0
	}
	fmt.Fprintln(c.Out, m)
	return 0
}

// whoamiCommand is the row of whoami.
func (s *Server) whoamiCommand() command.Command {
	return command.Command{Name: "whoami", Usage: "whoami [--json]", Summary: "your knight: characteristics, hits, where it stands",
		Takes: command.TakesJSON, Run: s.cmdWhoami}
}

// whoCommand is the row of who.
func (s *Server) whoCommand() command.Command {
	return command.Command{Name: "who", Usage: "who [--json]", Summary: "the knights in the dungeon now",
		Help: "Everyone sees how long each knight has been idle and who is away (/afk), with the reason.\n" +
			"Guests are marked. Admins also see each knight's key fingerprint, address, time connected and bytes sent.",
		Guests: true, Takes: command.TakesJSON, Run: s.cmdWho}
}

// scoresCommand is the row of scores.
func (s *Server) scoresCommand() command.Command {
	return command.Command{Name: "scores", Usage: "scores [--json]", Summary: "the hall of fame: the top three retired knights, and yours",
		Guests: true, Takes: command.TakesJSON, Run: s.cmdScores}
}

// motdCommand is the row of motd.
func (s *Server) motdCommand() command.Command {
	return command.Command{Name: "motd", Usage: "motd [--json]", Summary: "the server's message of the day",
		Guests: true, Takes: command.TakesJSON, Run: s.cmdMOTD}
}

// keysCommand is the row of keys.
func (s *Server) keysCommand() command.Command {
	return command.Command{Name: "keys", Usage: "keys [add | remove FINGERPRINT] [--json]", Summary: "your knight's keys; add: a code to link another key",
		Help: "keys lists the keys that play your knight: fingerprint (as ssh-keygen -l prints it), type,\n" +
			"comment, when added and when last used.\n" +
			"keys add prints a one-time code, good once for " + codeLifeWords + ": from your other key run\n" +
			"  ssh -p PORT host link CODE\n" +
			"keys remove FINGERPRINT takes a key from your knight; its last key stays.",
		Takes: command.TakesWords | command.TakesJSON, Run: s.cmdKeys}
}

// linkCommand is the row of link.
func (s *Server) linkCommand() command.Command {
	return command.Command{Name: "link", Usage: "link CODE [--replace] [--comment TEXT]", Summary: "from another key: play the knight whose `keys add` gave CODE",
		Help: "A key that already plays a living knight is refused unless --replace: that knight is then\n" +
			"retired into a tombstone (unless it has other keys, which keep it). --comment names the key\n" +
			"in `keys` (the comment in your key file never reaches the server).",
		Takes: command.TakesWords | command.TakesReplace | command.TakesComment, Run: s.cmdLink}
}

// claimCommand is the row of claim.
func (s *Server) claimCommand() command.Command {
	return command.Command{Name: "claim", Usage: "claim CODE [--replace]", Summary: "from a key: adopt the guest knight you played, with the code it was given",
		Help:  "A guest is told a code when it leaves; for " + codeLifeWords + " a key may claim the knight with it, as it stood.",
		Takes: command.TakesWords | command.TakesReplace, Run: s.cmdClaim}
}

// playCommand is the row of play.
func (s *Server) playCommand() command.Command {
	return command.Command{Name: "play", Usage: "play [--plain]", Summary: "with a terminal (ssh -t): the game; --plain for screen-reader mode",
		Takes: command.TakesLine, Shell: "play opens a game of its own; run it from a shell: ssh -t -p PORT host play [--plain]",
		Run: s.cmdPlay}
}

// watchCommand is the row of watch.
func (s *Server) watchCommand() command.Command {
	return command.Command{Name: "watch", Usage: "watch NAME", Summary: "with a terminal (ssh -t): watch a player's screen, read-only",
		Takes: command.TakesLine, Shell: "watch opens a screen of its own; run it from a shell: ssh -t -p PORT host watch NAME, or press w in the game",
		Run: s.cmdWatch}
}
