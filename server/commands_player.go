package server

import (
	"errors"
	"fmt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
)

// The player's commands are in package command (whoami.go, who.go, scores.go, motd.go,
// keys.go, play.go). What is left here is what the server's other commands still use.

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
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
