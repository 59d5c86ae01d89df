package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A command is what `ssh host NAME args...` runs when there is no game screen.
type command struct {
	name, usage, summary string
	run                  func(s *server, sess ssh.Session, args []string) int
}

var commands []command

func init() {
	commands = []command{
		{"help", "help [monsters] [--json]", "this list; help monsters prints the monster tables", (*server).cmdHelp},
		{"whoami", "whoami [--json]", "your knight: characteristics, hits, where it stands", (*server).cmdWhoami},
		{"who", "who [--json]", "the knights in the dungeon now", (*server).cmdWho},
		{"scores", "scores [--json]", "the hall of fame: the top three retired knights, and yours", (*server).cmdScores},
		{"play", "play [--plain]", "with a terminal (ssh -t): the game; --plain for screen-reader mode", (*server).cmdPlay},
		{"watch", "watch NAME", "with a terminal (ssh -t): watch a player's screen, read-only", (*server).cmdWatch},
	}
}

// runCommand runs a non-interactive command and ends the session with its exit status:
// 0 on success, 1 on any error (with one line on stderr).
func (s *server) runCommand(sess ssh.Session) {
	args := sess.Command()
	if len(args) == 0 {
		args = []string{"help"}
	}
	for _, c := range commands {
		if c.name == args[0] {
			_ = sess.Exit(c.run(s, sess, args[1:]))
			return
		}
	}
	if findAdmin(args[0]) != nil {
		// Every admin command goes through the one gate, with the key the session
		// authenticated with.
		_, _, pty := sess.Pty()
		_ = sess.Exit(s.runAdmin(sess.Context(), sess.PublicKey(), args, sess, sess.Stderr(), false, pty))
		return
	}
	fmt.Fprintf(sess.Stderr(), "orthanc: unknown command %q; try `help`\n", printable(args[0]))
	_ = sess.Exit(1)
}

// printable cuts a client-supplied word short and drops control characters, so an error
// message never echoes escape sequences back to a terminal.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 40 {
			b.WriteString("…")
			break
		}
		if r >= 0x20 && r != 0x7f && !(r >= 0x80 && r < 0xa0) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// jsonFlag accepts only --json; anything else is a usage error.
func jsonFlag(sess ssh.Session, usage string, args []string) (asJSON, ok bool) {
	for _, a := range args {
		if a != "--json" {
			fmt.Fprintf(sess.Stderr(), "orthanc: unexpected %q; usage: %s\n", printable(a), usage)
			return false, false
		}
		asJSON = true
	}
	return asJSON, true
}

func (s *server) cmdHelp(sess ssh.Session, args []string) int {
	if len(args) > 0 && args[0] == "monsters" {
		return cmdHelpMonsters(sess, args[1:])
	}
	if len(args) > 0 {
		fmt.Fprintf(sess.Stderr(), "orthanc: no help on %q; try `help` or `help monsters`\n", printable(args[0]))
		return 1
	}
	w := tabwriter.NewWriter(sess, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "Orthanc over SSH. Connect with a terminal to play: ssh -p PORT host")
	fmt.Fprintln(w, "Commands (ssh -p PORT host COMMAND):")
	for _, c := range commands {
		fmt.Fprintf(w, "  %s\t%s\n", c.usage, c.summary)
	}
	_ = w.Flush()
	if s.isAdmin(sess.PublicKey()) { // admin commands are listed to admins only
		fmt.Fprintln(sess)
		writeAdminHelp(sess, false)
	}
	return 0
}

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

func (s *server) cmdWhoami(sess ssh.Session, args []string) int {
	asJSON, ok := jsonFlag(sess, "whoami [--json]", args)
	if !ok {
		return 1
	}
	fp := keys.Fingerprint(sess.PublicKey())
	rec, online, err := s.engine.Lookup(sess.Context(), fp)
	if err == nil && !online {
		rec, err = s.saver.Load(fp)
	}
	if errors.Is(err, store.ErrNotFound) {
		fmt.Fprintf(sess.Stderr(), "orthanc: no knight for key %s yet; connect with a terminal to roll one\n", fp)
		return 1
	}
	if err != nil {
		s.log.Error("whoami", "fingerprint", fp, "err", err)
		fmt.Fprintln(sess.Stderr(), "orthanc: your knight could not be read just now; try again later")
		return 1
	}
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
	members, err := s.engine.Party(sess.Context(), fp)
	if err != nil {
		s.log.Error("whoami party", "fingerprint", fp, "err", err)
	}
	for _, m := range members {
		if m.Leader {
			out.Party.Leader = m.Name
		}
		out.Party.Members = append(out.Party.Members, m.Name)
	}
	if asJSON {
		return writeJSON(sess, out)
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
		fmt.Fprintf(sess, "%s: %v\n", kv[0], kv[1])
	}
	return 0
}

func (s *server) cmdWho(sess ssh.Session, args []string) int {
	asJSON, ok := jsonFlag(sess, "who [--json]", args)
	if !ok {
		return 1
	}
	who, err := s.engine.Who(sess.Context())
	if err != nil {
		fmt.Fprintln(sess.Stderr(), "orthanc: the world is not answering; try again later")
		return 1
	}
	if s.isAdmin(sess.PublicKey()) { // admins also see keys and addresses
		return s.writeAdminWho(sess, who, asJSON)
	}
	if asJSON {
		type entry struct {
			Name  string `json:"name"`
			Level int    `json:"level"`
			Depth int    `json:"depth"`
		}
		list := make([]entry, 0, len(who))
		for _, w := range who {
			list = append(list, entry{w.Name, w.Level, w.Depth})
		}
		return writeJSON(sess, list)
	}
	if len(who) == 0 {
		fmt.Fprintln(sess, "No one is in the dungeon.")
		return 0
	}
	w := tabwriter.NewWriter(sess, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tLEVEL\tWHERE")
	for _, e := range who {
		where := fmt.Sprintf("depth %d", e.Depth)
		if e.Depth == 0 {
			where = "outside"
		}
		fmt.Fprintf(w, "%s\t%d\t%s\n", e.Name, e.Level, where)
	}
	_ = w.Flush()
	return 0
}

func writeJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	if err := enc.Encode(v); err != nil {
		return 1
	}
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
func cmdHelpMonsters(sess ssh.Session, args []string) int {
	asJSON, ok := jsonFlag(sess, "help monsters [--json]", args)
	if !ok {
		return 1
	}
	if asJSON {
		list := make([]monsterJSON, 0, len(world.Monsters))
		for _, k := range world.Monsters {
			list = append(list, monsterJSON{k.Name, k.Class.String(), k.Level, k.HitDice.String(), k.AttackDice.String(),
				k.Dex, k.Experience, k.Speed, k.AttacksPerRound, k.Glyph})
		}
		return writeJSON(sess, list)
	}
	for _, l := range world.MonsterTableLines() {
		fmt.Fprintln(sess, l)
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

func (s *server) cmdScores(sess ssh.Session, args []string) int {
	asJSON, ok := jsonFlag(sess, "scores [--json]", args)
	if !ok {
		return 1
	}
	list, err := s.scores(keys.Fingerprint(sess.PublicKey()))
	if err != nil {
		s.log.Error("scores", "err", err)
		fmt.Fprintln(sess.Stderr(), "orthanc: the hall of fame could not be read just now; try again later")
		return 1
	}
	if asJSON {
		return writeJSON(sess, list)
	}
	for _, l := range scoreLines(list) {
		fmt.Fprintln(sess, l)
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
