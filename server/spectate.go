package server

import (
	"errors"
	"math/rand/v2"
	"strings"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Spectating over SSH: `ssh -t -p PORT host watch NAME` shows another player's screen,
// live and read-only, at this terminal's size. The session registers with the engine as
// a watcher of the knight before the program starts, so a name that is not in the game
// (or a knight who refuses spectators) gets one clear line and status 1 at once.

// watchUsage is the usage line of watch (through withSSH).
const watchUsage = "usage: ssh -t -p PORT host watch NAME"

// watchProgram builds the spectator's program for `watch NAME...` (the words after
// watch are the name: names may hold spaces), or refuses the session and returns nil.
func (s *Server) watchProgram(sess ssh.Session, args []string) *sessionLoop {
	refuse := func(msg string) *sessionLoop {
		edge.Refuse(sess, msg)
		s.games.put(sess, gameSession{})
		return nil
	}
	name := strings.TrimSpace(strings.Join(args, " "))
	if name == "" || strings.HasPrefix(name, "-") {
		return refuse(s.commands.WithSSH(watchUsage))
	}
	ptyReq, _, _ := sess.Pty()
	fp := keys.Fingerprint(sess.PublicKey())
	// The watcher is shown to the watched player by its own knight's name, if it has one.
	me, opts := "a visitor", world.Options{}
	if rec, err := s.loadKnightOf(fp); err == nil {
		opts = rec.Options
		if !rec.Ended() {
			me = rec.Name
		}
	}
	box := app.NewViewSlot()
	w, err := s.engine.Watch(sess.Context(), name, me, box)
	if err != nil {
		if !errors.Is(err, world.ErrNotOnline) && !errors.Is(err, world.ErrNoSpectators) && !errors.Is(err, world.ErrAmbiguousName) {
			s.log.Error("watch", s.sessionAttrs(sess, "err", err)...)
		}
		return refuse(app.WatchError(err, name))
	}
	s.log.Info("watch", s.sessionAttrs(sess, "watched", w.Name())...)
	g := s.guardIO(sess)
	m := app.New(sess.Context(), app.Params{
		Fingerprint: fp,
		Engine:      s.engine,
		Width:       ptyReq.Window.Width,
		Height:      ptyReq.Window.Height,
		Rand:        rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		Watch:       w,
		Views:       box,
		Options:     opts,
		Out:         g,
		Term:        ptyReq.Term,
		Tick:        s.cfg.Tick,
		KeyFrameGap: app.KeyFrameGap, // keys faster than anyone types drawn together
	})
	return s.newProgram(sess, m, g)
}
