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

func (s *Server) cmdWhoami(c *call) int {
	if c.knight == "" {
		return c.fail("no knight for key %s yet; connect with a terminal to roll one", c.fp)
	}
	rec, online, err := s.engine.Lookup(c.ctx, c.knight)
	if err == nil && !online {
		rec, err = s.knights.Knight(c.knight)
	}
	if errors.Is(err, store.ErrNotFound) {
		return c.fail("no knight for key %s yet; connect with a terminal to roll one", c.fp)
	}
	if err != nil {
		s.log.Error("whoami", "fingerprint", c.fp, "err", err)
		return c.fail("your knight could not be read just now; try again later")
	}
	out := whoamiOf(c.fp, rec, online)
	members, err := s.engine.Party(c.ctx, c.knight)
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
		{"fingerprint", out.Fingerprint}, {"knight", out.Knight}, {"name", out.Name}, {"online", out.Online}, {"dead", out.Dead},
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
func (s *Server) cmdWho(c *call) int {
	who, err := s.engine.Who(c.ctx)
	if err != nil {
		return c.fail("the world is not answering; try again later")
	}
	rows := make([]whoJSON, 0, len(who))
	for _, e := range who {
		r := whoJSON{Name: e.Name, Level: e.Level, Depth: e.Depth, Guest: e.Guest, Away: e.Away, AwayReason: e.AwayReason,
			IdleSeconds: (time.Duration(e.IdleTurns) * s.cfg.Tick).Round(time.Second).Seconds(), Realm: s.cfg.Realm}
		if c.admin {
			r.Knight = e.ID
			if ls, ok := s.live.Game(e.ID); ok {
				r.Fingerprint, r.Addr, r.BytesSent = ls.Fingerprint, ls.Addr, ls.Sent.Load()
				r.ConnectedSeconds = time.Since(ls.Start).Round(time.Second).Seconds()
			}
		}
		rows = append(rows, r)
	}
	rows = append(rows, s.farRows(c)...)
	if c.json {
		return c.writeJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.out, "No one is in the dungeon.")
		return 0
	}
	s.whoTable(c, rows)
	return 0
}

// farRows are who's rows of the knights of the other realms.
func (s *Server) farRows(c *call) []whoJSON {
	var rows []whoJSON
	for _, k := range s.farWho(c.ctx) {
		r := whoJSON{Name: k.Name, Level: k.Level, Guest: k.Guest, Away: k.Away, AwayReason: k.AwayReason,
			IdleSeconds: float64(k.IdleSeconds), Realm: k.Realm, far: true}
		if c.admin {
			r.Knight = k.ID
		}
		rows = append(rows, r)
	}
	return rows
}

// whoTable writes who's rows as a table; a realm's has a column of each knight's realm.
func (s *Server) whoTable(c *call, rows []whoJSON) {
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	realm := slices.ContainsFunc(rows, func(r whoJSON) bool { return r.Realm != "" })
	heading := "NAME\tLEVEL\tWHERE\tIDLE"
	if realm {
		heading = "NAME\tREALM\tLEVEL\tWHERE\tIDLE"
	}
	if c.admin {
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
		if c.admin {
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

func (s *Server) cmdScores(c *call) int {
	list, err := s.scores(c.knight)
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
func (s *Server) cmdPlay(c *call) int {
	return c.fail("play needs a terminal: %s play [--plain]", s.sshCommand("-t"))
}

func (s *Server) cmdWatch(c *call) int {
	return c.fail("watch needs a terminal: %s watch NAME", s.sshCommand("-t"))
}

// guestNeedsKey is what a guest is told of a command that needs a key (through withSSH).
const guestNeedsKey = "orthanc: guests have no key, and this needs one. Make a key (ssh-keygen -t ed25519) and connect again;\n" +
	"a guest knight can be kept with the code it is given when it leaves: ssh -p PORT host claim CODE"

// maxCommentRunes is the longest comment of a key.
const maxCommentRunes = 40

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
func (s *Server) cmdKeys(c *call) int {
	if c.knight == "" {
		return c.fail("no knight for key %s yet; connect with a terminal to roll one", c.fp)
	}
	if len(c.args) == 0 {
		return s.listKeys(c)
	}
	switch c.args[0] {
	case "add":
		if len(c.args) > 1 || c.json {
			return c.usageError("keys add takes nothing more")
		}
		rec, err := s.knights.Knight(c.knight)
		if err == nil && rec.Ended() {
			return c.fail("your knight is dead or retired; connect to roll a new one, then add keys to it")
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			s.log.Error("keys add", "fingerprint", c.fp, "err", err)
			return c.fail("your knight could not be read just now; try again later")
		}
		code, err := s.codes.Add(knights.CodeEntry{Kind: knights.CodeLink, Knight: c.knight, Addr: c.addr})
		if err != nil {
			s.log.Error("keep a link code", "fingerprint", c.fp, "err", err)
		}
		if code == "" {
			return c.fail("%s", codeNotKeptLine)
		}
		c.result = "made a link code"
		fmt.Fprintf(c.out, "Your code: %s (good once, for %s).\nFrom your other key, run:\n  %s link %s\n",
			code, codeLifeWords, s.sshCommand(), code)
		return 0
	case "remove":
		if len(c.args) != 2 || c.json {
			return c.usageError("name the key by its fingerprint")
		}
		fp := c.args[1]
		k, err := s.knights.KeyOf(fp)
		if err != nil || k.Knight != c.knight {
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				s.log.Error("keys remove", "fingerprint", c.fp, "err", err)
				return c.fail("your keys could not be read just now; try again later")
			}
			return c.fail("%s is not a key of your knight; `keys` lists them", printable(fp))
		}
		if err := s.knights.RemoveKey(fp); errors.Is(err, knights.ErrLastKey) {
			return c.fail("that is your knight's only key; link another first (keys add)")
		} else if err != nil {
			s.log.Error("keys remove", "fingerprint", c.fp, "removed", fp, "err", err)
			return c.fail("the key could not be removed just now; try again later")
		}
		s.live.CloseKey(fp, kickGrace) // a removed key plays no more
		s.log.Info("key removed", "fingerprint", c.fp, "removed", fp, "knight", c.knight)
		fmt.Fprintf(c.out, "Removed %s from your knight.\n", fp)
		return 0
	}
	return c.usageError("unknown %q", printable(c.args[0]))
}

// listKeys is keys: the knight's keys, the first added first.
func (s *Server) listKeys(c *call) int {
	if err := s.knights.Flush(); err != nil { // a new key's binding is written with its knight
		s.log.Error("keys: flush", "err", err)
	}
	list, err := s.knights.KeysOf(c.knight)
	if err != nil {
		s.log.Error("keys", "fingerprint", c.fp, "err", err)
		return c.fail("your keys could not be read just now; try again later")
	}
	rows := make([]keyJSON, 0, len(list))
	for _, k := range list {
		r := keyJSON{Fingerprint: k.Fingerprint, Type: k.Type, Comment: k.Comment,
			Added: k.Added.UTC().Format(time.RFC3339), This: k.Fingerprint == c.fp}
		if !k.LastUsed.IsZero() {
			r.LastUsed = k.LastUsed.UTC().Format(time.RFC3339)
		}
		rows = append(rows, r)
	}
	if c.json {
		return c.writeJSON(rows)
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
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
func (c *call) codeFailure(err error, again string) int {
	if errors.Is(err, knights.ErrTooManyBad) {
		return c.fail("too many wrong codes from this key or address; wait %s and try again", codeLifeWords)
	}
	if errors.Is(err, knights.ErrCodesUnread) {
		return c.fail("the codes could not be read just now; try again later")
	}
	return c.fail("no such code, or it has expired or been used; %s", again)
}

// inTheGame reports whether the knight is in the world (or the world does not answer):
// a call that gives its key elsewhere waits until it has left, since its record there
// would be saved over what the call changes.
func (s *Server) inTheGame(c *call, knight string) bool {
	if knight == "" {
		return false
	}
	_, online, err := s.engine.Lookup(c.ctx, knight)
	return err != nil || online
}

// cmdLink is link CODE: the key joins the knight whose keys add gave the code.
func (s *Server) cmdLink(c *call) int {
	if len(c.args) != 1 {
		return c.usageError("give the code that `keys add` printed")
	}
	code := c.args[0]
	e, err := s.codes.Take(code, knights.CodeLink, c.fp, c.addr)
	if err != nil {
		return c.codeFailure(err, "run `keys add` again with your other key")
	}
	if e.Knight == c.knight {
		s.codes.GiveBack(code, e)
		return c.fail("this key already plays that knight")
	}
	if s.inTheGame(c, c.knight) {
		s.codes.GiveBack(code, e)
		return c.fail("this key's knight is in the dungeon; leave the game first")
	}
	rec, err := s.knights.Knight(e.Knight)
	if err != nil {
		return c.fail("the knight of that code is gone")
	}
	if rec.Ended() {
		return c.fail("the knight of that code, %s, has died or retired: its code is no good; roll a new knight and run `keys add` again", rec.Name)
	}
	k := knights.Key{Fingerprint: c.fp, Knight: e.Knight, Type: c.key.Type(), Comment: c.comment, Added: time.Now().UTC()}
	return s.giveKey(c, code, e, knights.Give{Key: k}, rec.Name)
}

// giveKey gives the call's key to a knight (link and claim, g.Key), and says what
// became of the knight the key played before; the code is given back when it fails.
func (s *Server) giveKey(c *call, code string, e knights.CodeEntry, g knights.Give, name string) int {
	g.Replace, g.At, g.Death = c.replace, s.now().UTC(), world.Death{Killer: knights.ReplacedKiller}
	given, err := s.knights.Give(c.ctx, g)
	switch {
	case errors.Is(err, knights.ErrHasKnight):
		s.codes.GiveBack(code, e)
		old, _ := s.knights.Knight(given.Left)
		if given.Left == "" {
			old, _ = s.knights.Knight(c.knight)
		}
		return c.fail("this key plays a living knight, %s; run it again with --replace to retire %s into a tombstone", old.Name, old.Name)
	case err != nil:
		s.codes.GiveBack(code, e)
		s.log.Info("key not given", "fingerprint", c.fp, "knight", g.Key.Knight, "command", c.cmd.name, "err", err)
		return c.fail("%s", giveKeyLine(err))
	}
	if given.Gone {
		s.forgetKnight(c, given.Left)
	}
	s.log.Info("key given to a knight", "fingerprint", c.fp, "knight", g.Key.Knight, "left", given.Left, "entombed", given.Entombed, "command", c.cmd.name)
	c.result = "key given to " + g.Key.Knight
	fmt.Fprintf(c.out, "This key now plays %s. Connect to play: %s\n", name, s.sshCommand())
	if given.Entombed {
		fmt.Fprintln(c.out, "The knight it played before was retired into a tombstone.")
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
func (s *Server) cmdClaim(c *call) int {
	if len(c.args) != 1 {
		return c.usageError("give the code you were shown when your guest knight left")
	}
	code := c.args[0]
	e, err := s.codes.Take(code, knights.CodeClaim, c.fp, c.addr)
	if err != nil {
		return c.codeFailure(err, "a guest knight's code is good for "+codeLifeWords+" after it leaves")
	}
	if s.inTheGame(c, c.knight) {
		s.codes.GiveBack(code, e)
		return c.fail("this key's knight is in the dungeon; leave the game first")
	}
	rec := e.Guest.Clone()
	rec.ID, rec.Guest = knights.NewKnightID(), false
	rec.Name = s.keptName(rec.Name, rec.ID)
	k := knights.Key{Fingerprint: c.fp, Knight: rec.ID, Type: c.key.Type(), Comment: "claimed a guest", Added: time.Now().UTC()}
	status := s.giveKey(c, code, e, knights.Give{Key: k, Knight: &rec}, rec.Name)
	if status != 0 { // never kept: its name is free again for the claim run anew
		if err := s.knights.ReleaseName(rec.Name, rec.ID); err != nil {
			s.log.Error("free the name of a claim not made", "knight", rec.ID, "err", err)
		}
		s.book().Forget(rec.ID)
		return status
	}
	// Letters reach the claimed knight at once, not only once its key connects.
	if err := s.engine.KnowKnight(c.ctx, rec.ID, rec.Name); err != nil {
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
func (s *Server) cmdMOTD(c *call) int {
	m := s.motd()
	if c.json {
		return c.writeJSON(map[string]string{"motd": m})
	}
	if m == "" {
		fmt.Fprintln(c.out, "No message of the day.")
		return 0
	}
	fmt.Fprintln(c.out, m)
	return 0
}
