package command

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Keyring is what the commands of a player's keys use: keys lists, adds and removes the
// keys of the key's knight; link gives a key to a knight with the code keys add made;
// claim gives a key a guest's knight with the code it was told as it left.
type Keyring struct {
	Log *slog.Logger
	// World is asked whether a knight plays now (a key is not given away under it), and
	// is told of a knight gone or claimed, for its letters.
	World *world.Engine
	// Knights are the knights' records: their keys, and where a key is given.
	Knights knights.Keeper
	// Codes are the one-time codes of keys add and of guests' claims.
	Codes *knights.CodeBook
	// Names is the name book: a knight gone, or a claim not made, lets its name go.
	Names *knights.NameBook
	// Sessions are the open sessions: a removed key's are closed.
	Sessions *edge.Registry
	// Now is the wall clock, for when a key given away entombs the knight it played.
	Now func() time.Time
	// ClaimName claims a name for a knight with a key, as the game claims one (the
	// server's name rules: none that looks like a guest's, none another knight or realm
	// holds), and reports whether it got it. It is the server's, since the game's
	// sessions claim names by the same rules.
	ClaimName func(name, knight string) bool
}

// CodeLifeWords says knights.CodeLife to a player.
const CodeLifeWords = "10 minutes"

// CodeNotKept is what a player reads instead of a code that could not be kept where the
// other realms take it.
const CodeNotKept = "the realms' records did not answer: no code could be made just now; try again later"

// guestMark starts the name of every guest's knight (app.GuestPrefix, which this package
// does not import): a claimed guest keeps its name without it.
const guestMark = "Guest "

// KeyRow is one row of `keys --json`.
type KeyRow struct {
	Fingerprint string `json:"fingerprint"`
	Type        string `json:"type,omitempty"`
	Kind        string `json:"kind,omitempty"` // "browser" for a key the play page made
	Comment     string `json:"comment,omitempty"`
	Added       string `json:"added"`
	LastUsed    string `json:"last_used,omitempty"`
	This        bool   `json:"this,omitempty"` // the key the command ran with
}

// Keys is keys's row.
func (k Keyring) Keys() Command {
	return Command{Name: "keys", Usage: "keys [add | remove FINGERPRINT] [--json]", Summary: "your knight's keys; add: a code to link another key",
		Help: "keys lists the keys that play your knight: fingerprint (as ssh-keygen -l prints it), type,\n" +
			"comment, when added and when last used.\n" +
			"keys add prints a one-time code, good once for " + CodeLifeWords + ": from your other key run\n" +
			"  ssh -p PORT host link CODE\n" +
			"keys remove FINGERPRINT takes a key from your knight; its last key stays.\n" +
			"A browser's own key, linked with a code on the play page, is listed as (browser).",
		Takes: TakesWords | TakesJSON, Run: k.keys}
}

// Link is link's row.
func (k Keyring) Link() Command {
	return Command{Name: "link", Usage: "link CODE [--replace] [--comment TEXT]", Summary: "from another key: play the knight whose `keys add` gave CODE",
		Help: "A key that already plays a living knight is refused unless --replace: that knight is then\n" +
			"retired into a tombstone (unless it has other keys, which keep it). --comment names the key\n" +
			"in `keys` (the comment in your key file never reaches the server).",
		Takes: TakesWords | TakesReplace | TakesComment, Run: k.link}
}

// Claim is claim's row.
func (k Keyring) Claim() Command {
	return Command{Name: "claim", Usage: "claim CODE [--replace]", Summary: "from a key: adopt the guest knight you played, with the code it was given",
		Help:  "A guest is told a code when it leaves; for " + CodeLifeWords + " a key may claim the knight with it, as it stood.",
		Takes: TakesWords | TakesReplace, Run: k.claim}
}

// keys is keys, keys add and keys remove FINGERPRINT: the keys of the key's knight.
func (k Keyring) keys(c *Call) int {
	if c.Knight == "" {
		return c.Fail("no knight for key %s yet; connect with a terminal to roll one", c.FP)
	}
	if len(c.Args) == 0 {
		return k.list(c)
	}
	switch c.Args[0] {
	case "add":
		if len(c.Args) > 1 || c.JSON {
			return c.UsageError("keys add takes nothing more")
		}
		return k.add(c)
	case "remove":
		if len(c.Args) != 2 || c.JSON {
			return c.UsageError("name the key by its fingerprint")
		}
		return k.remove(c, c.Args[1])
	}
	return c.UsageError("unknown %q", Printable(c.Args[0]))
}

// list is keys: the knight's keys, the first added first.
func (k Keyring) list(c *Call) int {
	if err := k.Knights.Flush(); err != nil { // a new key's binding is written with its knight
		k.Log.Error("keys: flush", "err", err)
	}
	list, err := k.Knights.KeysOf(c.Knight)
	if err != nil {
		k.Log.Error("keys", "fingerprint", c.FP, "err", err)
		return c.Fail("your keys could not be read just now; try again later")
	}
	rows := make([]KeyRow, 0, len(list))
	for _, key := range list {
		r := KeyRow{Fingerprint: key.Fingerprint, Type: key.Type, Kind: key.Kind, Comment: key.Comment,
			Added: key.Added.UTC().Format(time.RFC3339), This: key.Fingerprint == c.FP}
		if !key.LastUsed.IsZero() {
			r.LastUsed = key.LastUsed.UTC().Format(time.RFC3339)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Fingerprint, keyTypeText(r.Type, r.Kind), orDash(r.Comment), r.Added[:10], last, this)
	}
	_ = tw.Flush()
	return 0
}

// add is keys add: a one-time code another key links to the knight with.
func (k Keyring) add(c *Call) int {
	rec, err := k.Knights.Knight(c.Knight)
	if err == nil && rec.Ended() {
		return c.Fail("your knight is dead or retired; connect to roll a new one, then add keys to it")
	}
	if err != nil && !errors.Is(err, knights.ErrNotFound) {
		k.Log.Error("keys add", "fingerprint", c.FP, "err", err)
		return c.Fail("your knight could not be read just now; try again later")
	}
	code, err := k.Codes.Add(knights.CodeEntry{Kind: knights.CodeLink, Knight: c.Knight, Addr: c.Addr})
	if err != nil {
		k.Log.Error("keep a link code", "fingerprint", c.FP, "err", err)
	}
	if code == "" {
		return c.Fail("%s", CodeNotKept)
	}
	c.Result = "made a link code"
	fmt.Fprintf(c.Out, "Your code: %s (good once, for %s).\nFrom your other key, run:\n  %s link %s\n",
		code, CodeLifeWords, c.SSH(), code)
	return 0
}

// remove is keys remove FINGERPRINT: the key fp plays the knight no more.
func (k Keyring) remove(c *Call, fp string) int {
	key, err := k.Knights.KeyOf(fp)
	if err != nil || key.Knight != c.Knight {
		if err != nil && !errors.Is(err, knights.ErrNotFound) {
			k.Log.Error("keys remove", "fingerprint", c.FP, "err", err)
			return c.Fail("your keys could not be read just now; try again later")
		}
		return c.Fail("%s is not a key of your knight; `keys` lists them", Printable(fp))
	}
	if err := k.Knights.RemoveKey(fp); errors.Is(err, knights.ErrLastKey) {
		return c.Fail("that is your knight's only key; link another first (keys add)")
	} else if err != nil {
		k.Log.Error("keys remove", "fingerprint", c.FP, "removed", fp, "err", err)
		return c.Fail("the key could not be removed just now; try again later")
	}
	k.Sessions.CloseKey(fp, KickGrace) // a removed key plays no more
	k.Log.Info("key removed", "fingerprint", c.FP, "removed", fp, "knight", c.Knight)
	fmt.Fprintf(c.Out, "Removed %s from your knight.\n", fp)
	return 0
}

// keyTypeText is a key's TYPE column, as keys and knight print it: its type, and its
// kind after it for a browser's key ("ssh-ed25519 (browser)"), since the type alone
// cannot tell a browser's key from an SSH client's.
func keyTypeText(typ, kind string) string {
	if kind != "" {
		return orDash(typ) + " (" + kind + ")"
	}
	return orDash(typ)
}

// keyKind is the kind a key linked by the call is kept as: a browser's, or an SSH
// client's ("").
func keyKind(c *Call) string {
	if c.Browser {
		return knights.KindBrowser
	}
	return ""
}

// codeFailure says why a code was not taken.
func codeFailure(c *Call, err error, again string) int {
	if errors.Is(err, knights.ErrTooManyBad) {
		return c.Fail("too many wrong codes from this key or address; wait %s and try again", CodeLifeWords)
	}
	if errors.Is(err, knights.ErrCodesUnread) {
		return c.Fail("the codes could not be read just now; try again later")
	}
	return c.Fail("no such code, or it has expired or been used; %s", again)
}

// link is link CODE: the key joins the knight whose keys add gave the code.
func (k Keyring) link(c *Call) int {
	if len(c.Args) != 1 {
		return c.UsageError("give the code that `keys add` printed")
	}
	code := c.Args[0]
	e, err := k.Codes.Take(code, knights.CodeLink, c.FP, c.Addr)
	if err != nil {
		return codeFailure(c, err, "run `keys add` again with your other key")
	}
	if e.Knight == c.Knight {
		k.Codes.GiveBack(code, e)
		return c.Fail("this key already plays that knight")
	}
	// A knight playing would save its record over what the give changes: it leaves first.
	if inTheGame(c.Ctx, k.World, c.Knight) {
		k.Codes.GiveBack(code, e)
		return c.Fail("this key's knight is in the dungeon; leave the game first")
	}
	rec, err := k.Knights.Knight(e.Knight)
	if err != nil {
		return c.Fail("the knight of that code is gone")
	}
	if rec.Ended() {
		return c.Fail("the knight of that code, %s, has died or retired: its code is no good; roll a new knight and run `keys add` again", rec.Name)
	}
	key := knights.Key{Fingerprint: c.FP, Knight: e.Knight, Type: c.Key.Type(), Kind: keyKind(c), Comment: c.Comment, Added: time.Now().UTC()}
	return k.give(c, code, e, knights.Give{Key: key}, rec.Name)
}

// claim is claim CODE: the key adopts the guest knight that was given the code.
func (k Keyring) claim(c *Call) int {
	if len(c.Args) != 1 {
		return c.UsageError("give the code you were shown when your guest knight left")
	}
	code := c.Args[0]
	e, err := k.Codes.Take(code, knights.CodeClaim, c.FP, c.Addr)
	if err != nil {
		return codeFailure(c, err, "a guest knight's code is good for "+CodeLifeWords+" after it leaves")
	}
	if inTheGame(c.Ctx, k.World, c.Knight) {
		k.Codes.GiveBack(code, e)
		return c.Fail("this key's knight is in the dungeon; leave the game first")
	}
	rec := e.Guest.Clone()
	rec.ID, rec.Guest = knights.NewKnightID(), false
	rec.Name = k.keptName(rec.Name, rec.ID)
	key := knights.Key{Fingerprint: c.FP, Knight: rec.ID, Type: c.Key.Type(), Kind: keyKind(c), Comment: "claimed a guest", Added: time.Now().UTC()}
	status := k.give(c, code, e, knights.Give{Key: key, Knight: &rec}, rec.Name)
	if status != 0 { // never kept: its name is free again for the claim run anew
		if err := k.Knights.ReleaseName(rec.Name, rec.ID); err != nil {
			k.Log.Error("free the name of a claim not made", "knight", rec.ID, "err", err)
		}
		k.Names.Forget(rec.ID)
		return status
	}
	// Letters reach the claimed knight at once, not only once its key connects.
	if err := k.World.KnowKnight(c.Ctx, rec.ID, rec.Name); err != nil {
		k.Log.Warn("enter a claimed knight in the book of knights", "knight", rec.ID, "err", err)
	}
	return 0
}

// give gives the call's key to a knight (link and claim, g.Key), and says what became
// of the knight the key played before; the code is given back when it fails.
func (k Keyring) give(c *Call, code string, e knights.CodeEntry, g knights.Give, name string) int {
	g.Replace, g.At, g.Death = c.Replace, k.Now().UTC(), world.Death{Killer: knights.ReplacedKiller}
	given, err := k.Knights.Give(c.Ctx, g)
	switch {
	case errors.Is(err, knights.ErrHasKnight):
		k.Codes.GiveBack(code, e)
		old, _ := k.Knights.Knight(given.Left)
		if given.Left == "" {
			old, _ = k.Knights.Knight(c.Knight)
		}
		return c.Fail("this key plays a living knight, %s; run it again with --replace to retire %s into a tombstone", old.Name, old.Name)
	case err != nil:
		k.Codes.GiveBack(code, e)
		k.Log.Info("key not given", "fingerprint", c.FP, "knight", g.Key.Knight, "command", c.Cmd.Name, "err", err)
		return c.Fail("%s", giveKeyLine(err))
	}
	if given.Gone {
		forgetKnight(c.Ctx, k.Log, k.Names, k.World, given.Left)
	}
	k.Log.Info("key given to a knight", "fingerprint", c.FP, "knight", g.Key.Knight, "left", given.Left, "entombed", given.Entombed, "command", c.Cmd.Name)
	c.Result = "key given to " + g.Key.Knight
	fmt.Fprintf(c.Out, "This key now plays %s. Connect to play: %s\n", name, c.SSH())
	if given.Entombed {
		fmt.Fprintln(c.Out, "The knight it played before was retired into a tombstone.")
	}
	return 0
}

// keptName is the name a claimed guest keeps: its own without the guest's mark, or with
// a number added when another knight has it.
func (k Keyring) keptName(guestName, knight string) string {
	base := strings.TrimSpace(strings.TrimPrefix(guestName, guestMark))
	if base == "" {
		base = "Knight"
	}
	name := base
	for i := 2; !k.ClaimName(name, knight); i++ {
		name = fmt.Sprintf("%s %d", base[:min(len(base), world.MaxNameLen-3)], i)
	}
	return name
}
