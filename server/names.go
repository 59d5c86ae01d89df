package server

import (
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// book is the name book (knights.NameBook), read from the keeper the first time it is
// needed.
func (s *Server) book() *knights.NameBook { return s.names }

// sessionNames is the name book as one knight's session sees it (app.Names).
type sessionNames struct {
	s     *Server
	fp    string // the knight's id
	guest bool
}

// namesFor is the app's view of the name book for the knight fp (an id). A guest's
// names are the app's, which puts guestPrefix before them; a knight with a key may not
// take a name that looks like a guest's.
func (s *Server) namesFor(fp string, guest bool) app.Names { return sessionNames{s, fp, guest} }

// Taken implements app.Names.
func (n sessionNames) Taken(name string) bool {
	return (!n.guest && looksLikeAGuest(name)) || n.s.book().Taken(name, n.fp)
}

// Claim implements app.Names.
func (n sessionNames) Claim(name string) bool {
	if !n.guest && looksLikeAGuest(name) {
		return false
	}
	if !n.guest && !n.s.claimSharedName(name, n.fp) {
		return false
	}
	return n.s.book().Claim(name, n.fp)
}

// claimSharedName claims a name for knight id wherever the knights are kept (a guest's
// is this server's only): a name another realm's knight took is refused.
func (s *Server) claimSharedName(name, id string) bool {
	ok, err := s.knights.ClaimName(name, id)
	if err != nil {
		s.log.Error("claim a name", "knight", id, "err", err)
	}
	return ok && err == nil
}

// looksLikeAGuest reports whether a name is a guest's: any name that begins with "Guest"
// as names are told apart (world.NameKey: in any case, with hyphens, apostrophes and
// spaces left out, and look-alike characters as one), so that moderators never take a
// keyed knight named "Guestly", "Gu-est Kay" or "Gue5t" for a guest.
func looksLikeAGuest(name string) bool {
	return strings.HasPrefix(world.NameKey(name), guestKey)
}

// guestKey is "Guest" as NameKey folds it.
var guestKey = world.NameKey("Guest")

// checkNewName checks a new name for the knight id as the name prompt checks one: the
// name cleaned, or why it is refused, in the prompt's words (rename's CheckName).
func (s *Server) checkNewName(raw, id string) (string, string) {
	name, err := world.CleanName(raw)
	switch {
	case err != nil:
		return "", app.BadNameNote
	case looksLikeAGuest(name):
		return "", app.GuestNameNote
	case s.book().Taken(name, id):
		return "", app.TakenNameNote
	}
	return name, ""
}
