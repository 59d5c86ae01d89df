package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Who a browser's game plays as. The play page proves a key of its own on the socket
// (web.PlaySession.Key, an Ed25519 key the browser made); it is taken as the ssh-ed25519
// key it is, so its fingerprint is an SSH key's and the records, bans and the admin
// allow-list treat it as one. A key that plays a knight plays it, as an SSH key does; a
// key that plays none is a guest until the page links it (web.PlayLinkFunc, with the code
// of `keys add`): unlike SSH, a browser never rolls a knight of its own, so a page opened
// once makes no knight nobody can find again. A page with no key is a guest, as SSH's
// keyless login.

// playWho is who a browser's game plays as: a guest, or the key's knight.
type playWho struct {
	key    gossh.PublicKey // the browser's key; nil for a page that proved none
	fp     string          // its fingerprint
	knight string          // the knight it plays; a guest's id is made for the game
	guest  bool
}

// The lines a browser's page is told (web.PlayWho.Why) or reads on its screen.
const (
	playNotLinkedWhy = "this browser's key plays no knight yet"
	playKeyBannedWhy = "This browser's key is banned from this server."
	playKeyCheckLine = "The server cannot check your key just now; please try again later."
	// playOnlyLinkedLine is an unlinked browser's key on a server that takes no guests:
	// the page offers the link box with it.
	playOnlyLinkedLine = "This server plays only knights of linked keys, and takes no guests: link this browser to your knight."
	// playNoGuestsLine is a page with no key on such a server: both ways in.
	playNoGuestsLine = "This server takes no guests: play your knight over SSH with its key, " +
		"or link a browser that can keep a key of its own (a page over https) to it."
)

// playIdentity decides who a browser's game plays as, as the SSH login and the track
// middleware do: what the page is told, and a refusal ("" for none) for a banned key or
// records that do not answer. A page with no key, or whose key plays no knight, is a guest.
func (s *Server) playIdentity(p web.PlaySession) (who playWho, tell web.PlayWho, refusal string) {
	if p.Key == nil {
		if !s.cfg.Guests {
			return playWho{guest: true}, web.PlayWho{Guest: true, Refused: true, Why: playNoGuestsLine}, playNoGuestsLine
		}
		return playWho{guest: true}, web.PlayWho{Guest: true, Why: p.NoKey}, ""
	}
	key, err := gossh.NewPublicKey(p.Key)
	if err != nil { // an ed25519.PublicKey of the right size always wraps
		return playWho{guest: true}, web.PlayWho{Guest: true, Why: "this browser's key could not be read"}, ""
	}
	fp := keys.Fingerprint(key)
	banned, err := s.knights.IsBanned(fp, s.now())
	switch {
	case err != nil:
		s.log.Error("check ban", "fingerprint", fp, "err", err)
		return playWho{}, web.PlayWho{Key: fp}, playKeyCheckLine
	case banned:
		return playWho{}, web.PlayWho{Key: fp}, playKeyBannedWhy
	}
	knight, err := s.knightOf(fp)
	if err != nil {
		s.log.Error("find the key's knight", "fingerprint", fp, "err", err)
		return playWho{}, web.PlayWho{Key: fp}, "The server cannot read your knight just now; nothing was changed. Please try again later."
	}
	if knight == "" {
		tell := web.PlayWho{Guest: true, Key: fp, Why: playNotLinkedWhy, Link: true, Add: s.sshCommand() + " keys add"}
		if !s.cfg.Guests {
			tell.Refused, tell.Why = true, playOnlyLinkedLine
			return playWho{guest: true, fp: fp}, tell, playOnlyLinkedLine
		}
		return playWho{guest: true, fp: fp}, tell, ""
	}
	return playWho{key: key, fp: fp, knight: knight}, web.PlayWho{Key: fp}, ""
}

// take counts the game in the limits: a guest's by its address, a key's by its key.
func (w playWho) take(s *Server, addr string) (give func(), refusal string) {
	if w.guest {
		return s.perKey.TakeGuest(addr)
	}
	return s.perKey.TakeKey(w.fp)
}

// logFP is the fingerprint the game's log lines name: "guest" for a guest's.
func (w playWho) logFP() string {
	if w.guest {
		return "guest"
	}
	return w.fp
}

// claim claims a key's knight for the game (knights.Keeper.Claim: on a realm, calling
// it from another), and loads its newest record: the world's if it plays now, else the
// saved one. A guest's game claims nothing. held tells that the game holds the claim;
// a refusal is the line to show.
func (s *Server) playClaim(ctx context.Context, w playWho, screen io.Writer) (saved *world.Adventurer, held bool, refusal string) {
	if w.guest {
		return nil, false, ""
	}
	calling := func(where string) { fmt.Fprintf(screen, callingLine+"\r\n", where) }
	if err := s.knights.Claim(ctx, w.knight, calling); err != nil {
		s.log.Info("realm: claim refused", "fingerprint", w.fp, "knight", w.knight, "err", err, "web", true)
		return nil, false, claimLine(err)
	}
	s.keeperNeeds.claimed(w.knight)
	rec, online, err := s.engine.Lookup(ctx, w.knight)
	if err == nil && !online {
		rec, err = s.knights.Knight(w.knight)
	}
	switch {
	case err == nil:
		return &rec, true, ""
	case errors.Is(err, store.ErrNotFound):
		return nil, true, ""
	}
	s.log.Error("load adventurer", "fingerprint", w.fp, "knight", w.knight, "err", err, "web", true)
	s.unclaim(true, w.knight)
	return nil, false, "Your knight could not be loaded just now; nothing was changed. Please try again later."
}

// playLink links a browser's key to a knight with the code of `keys add`, or keeps a
// guest's knight with its claim code (web.PlayLinkFunc): the link or claim command, run
// for the browser's key as a key's session runs it, with the bans and the realm's state
// checked first as SSH's login checks them.
func (s *Server) playLink(ctx context.Context, l web.PlayLink) (bool, string) {
	key, err := gossh.NewPublicKey(l.Key)
	if err != nil {
		return false, "this browser's key could not be read"
	}
	fp := keys.Fingerprint(key)
	if s.knights.Err() != nil {
		return false, realmDownLine
	}
	banned, err := s.knights.IsBanned(fp, s.now())
	if err == nil && !banned {
		banned, _, err = s.knights.IsAddrBanned(l.Addr, s.now())
	}
	switch {
	case err != nil:
		s.log.Error("check ban", "fingerprint", fp, "err", err)
		return false, playKeyCheckLine
	case banned:
		s.log.Info("refused a banned key or address", "fingerprint", fp, "client", l.Addr.String(), "web", true)
		return false, playKeyBannedWhy
	}
	args := []string{"link", strings.TrimSpace(l.Code), "--comment", "browser"}
	if l.Claim { // a guest's knight, kept as claim keeps it over SSH
		args = []string{"claim", strings.TrimSpace(l.Code)}
	}
	var out bytes.Buffer
	code := s.commands.Run(ctx, command.Session{Key: key, Addr: edge.AddrKeyOf(l.Addr), Out: &out, ErrOut: &out, Browser: true}, args)
	if code != 0 {
		return false, strings.TrimSpace(strings.TrimPrefix(out.String(), "orthanc: "))
	}
	name := ""
	if knight, err := s.knightOf(fp); err == nil && knight != "" {
		name = s.book().NameOf(knight)
	}
	if name == "" {
		return true, "This browser now plays your knight."
	}
	return true, fmt.Sprintf("This browser now plays %s.", name)
}

// playGoodbye is what a keyed browser's page keeps when its game ends by its own choice.
func playGoodbye(w io.Writer, rec world.Adventurer, left bool) {
	if left && rec.Name != "" && !rec.Ended() {
		fmt.Fprintf(w, "\r\nFarewell, %s. Your knight is saved where it stands.\r\n", rec.Name)
		return
	}
	fmt.Fprint(w, "\r\nFarewell.\r\n")
}

// playGuestGoodbye is what a browser guest's page keeps when its game ends: as SSH's
// guestGoodbye, a knight that left alive is given a claim code, but the words are the
// page's. A page with a key of its own is told the code (web.PlayWho.Keep) and offers
// "Keep this knight", which claims it for that key; a page without one is told how to
// keep it from a browser that can keep a key, or over SSH, both.
func (s *Server) playGuestGoodbye(p web.PlaySession, who playWho, rec world.Adventurer, left bool, addr string) {
	fmt.Fprint(p.Screen, "\r\nFarewell. You played as a guest: nothing was saved.\r\n")
	if !left || !rec.Guest || rec.Ended() {
		fmt.Fprint(p.Screen, "A guest's knight that leaves the game alive can be kept, with the code it is given.\r\n")
		return
	}
	code, err := s.codes.Add(knights.CodeEntry{Kind: knights.CodeClaim, Guest: &rec, Addr: addr})
	if err != nil {
		s.log.Error("keep a guest's claim code", "err", err, "web", true)
	}
	if code == "" {
		fmt.Fprintf(p.Screen, "%s\r\n", command.CodeNotKept)
		return
	}
	claim := s.sshCommand() + " claim " + code
	if who.fp != "" {
		fmt.Fprintf(p.Screen, "To keep %s as it stands, choose Keep this knight on this page\r\n"+
			"within %s. Or, from an SSH key:\r\n  %s\r\n", rec.Name, command.CodeLifeWords, claim)
	} else {
		fmt.Fprintf(p.Screen, "To keep %s as it stands, within %s, use its code %s:\r\n"+
			"  in a browser that can keep a key (a page over https), under\r\n"+
			"  Keep a guest's knight; or over SSH, from a key (ssh-keygen -t ed25519):\r\n"+
			"  %s\r\n", rec.Name, command.CodeLifeWords, code, claim)
	}
	if p.Tell != nil {
		p.Tell(web.PlayWho{Guest: true, Key: who.fp, Keep: code, Name: rec.Name, Within: command.CodeLifeWords})
	}
}
