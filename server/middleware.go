package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
)

// The middlewares every SSH session runs through, in the order a session meets them.
// The login (edge.Login) and the connection's place in the limits (edge.Slot) come
// before any of them.

// middleware is the chain, listed once. wish runs the last listed first, so a session
// goes through it from the bottom up:
//
//   - edge.RecoverPanics, outermost: a panic anywhere below ends only its own session;
//   - edge.HoldSlot: the first session of a connection takes a player's place, and is refused
//     when the server filled up while the connection logged in;
//   - logSessions: the session's start and end, with key, address and duration, and the
//     count of open sessions that shutdown waits for;
//   - track: who the session is (its key's knight, a new key's new knight id, or a
//     guest; identity.go), and the session in the registry the admin's who and stats read;
//     a key or an address banned since its connection logged in is turned away;
//   - edge.KeyLimits: a key's sessions past the per-key limit are refused, and a guest's past
//     the guests' limits;
//   - runProgram: the game for a session with a terminal (game.go), nothing for the
//     others;
//   - finish, innermost: after the game, the knight leaves the world (and is saved); a
//     session without a game runs the command line instead (commands.go).
func (s *Server) middleware() []wish.Middleware {
	return []wish.Middleware{
		s.finish,
		s.runProgram,
		s.perKey.Middleware,
		s.track,
		s.logSessions,
		edge.HoldSlot(s.refused),
		edge.RecoverPanics(s.log),
	}
}

// logSessions logs each session's end with its key, knight, address and duration (track
// logs its start, once the knight is known), and counts open sessions for shutdown.
func (s *Server) logSessions(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		s.sessions.Add(1)
		defer s.sessions.Done()
		defer s.ids.remove(sess)
		start := time.Now()
		next(sess)
		s.log.Info("session end", s.sessionAttrs(sess, "duration", time.Since(start).Round(time.Millisecond))...)
	}
}

// sessionAttrs are a session's log attributes, then more: its key's fingerprint ("guest"
// for none), its knight's name (its id until it has one) once the track middleware knows
// it, and its address.
func (s *Server) sessionAttrs(sess ssh.Session, more ...any) []any {
	fp := keys.Fingerprint(sess.PublicKey())
	if fp == "" {
		fp = "guest" // keyboard-interactive: no key (edge.Login)
	}
	attrs := []any{"fingerprint", fp}
	if id, ok := s.ids.get(sess); ok && id.knight != "" {
		name := s.book().NameOf(id.knight)
		if name == "" {
			name = id.knight
		}
		attrs = append(attrs, "knight", name)
	}
	return append(append(attrs, "addr", sess.RemoteAddr().String()), more...)
}

// track works out who the session is (identity.go), registers it for the admin's who
// and stats while it is open, and turns it away if its key or address is banned. The
// bans are read while the key's knight is (a realm far from its records waits one round
// trip for them all, not three): read before the session is registered, they are read
// again if a ban's close (edge.Registry.Closes) came meanwhile, which could not find it.
func (s *Server) track(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		_, _, pty := sess.Pty()
		cmd := sess.Command()
		sent, _ := sess.Context().Value(sentKey).(*atomic.Int64)
		if sent == nil {
			sent = new(atomic.Int64)
		}
		game := pty && (len(cmd) == 0 || cmd[0] == "play")
		closes := s.live.Closes()
		read := make(chan bans, 1)
		go func() { read <- s.bansOf(sess) }()
		id, kept, release, err := s.identify(sess, game)
		if errors.Is(err, knights.ErrTooManyKnights) {
			s.log.Info("refused a new knight", "fingerprint", id.fp, "addr", sess.RemoteAddr().String())
			edge.Refuse(sess, tooManyKnightsLine)
			return
		}
		if err != nil {
			s.log.Error("find the key's knight", "fingerprint", id.fp, "err", err)
			edge.Refuse(sess, "The server cannot read your knight just now; nothing was changed. Please try again later.")
			return
		}
		defer release()
		b := <-read
		s.ids.put(sess, id) // removed by logSessions, after the session's last line
		s.log.Info("session start", s.sessionAttrs(sess, "pty", pty, "command", len(cmd) > 0)...)
		s.touchRead(kept, edge.HostOf(sess.RemoteAddr()), false)
		remove := s.live.Add(edge.LiveSession{
			Fingerprint: id.fp, Knight: id.knight, Guest: id.guest, Addr: sess.RemoteAddr().String(), Start: time.Now(),
			Game: game, Sent: sent,
			Close: func() { _ = sess.Close() },
		})
		defer remove()
		if s.live.Closes() != closes {
			b = s.bansOf(sess)
		}
		if s.refuseBanned(sess, b) {
			return
		}
		next(sess)
	}
}

// bans is whether a session's key and its address are banned, as read.
type bans struct {
	key, addr bool
	err       error
}

// bansOf reads whether the session's key and its address are banned, the two at once.
func (s *Server) bansOf(sess ssh.Session) bans {
	fp := keys.Fingerprint(sess.PublicKey())
	var b bans
	var keyErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.key, keyErr = s.knights.IsBanned(fp, s.now())
	}()
	if a, err := netip.ParseAddr(edge.HostOf(sess.RemoteAddr())); err == nil {
		b.addr, _, b.err = s.knights.IsAddrBanned(a, s.now())
	}
	<-done
	b.err = cmp.Or(keyErr, b.err)
	return b
}

// refuseBanned turns a session of a banned key or address away, before the game or any
// command: one line (on the screen with a terminal, else on stderr) and status 1. It
// reports whether it did.
func (s *Server) refuseBanned(sess ssh.Session, b bans) bool {
	fp := keys.Fingerprint(sess.PublicKey())
	if b.err != nil {
		s.log.Error("check ban", "fingerprint", fp, "err", b.err)
		edge.Refuse(sess, "The server cannot check your key just now; please try again later.")
		return true
	}
	if !b.key && !b.addr {
		return false
	}
	s.log.Info("refused a banned key or address", "fingerprint", fp, "addr", sess.RemoteAddr().String())
	msg := edge.BannedMessage
	if b.addr {
		msg = edge.BannedAddrMessage
	}
	edge.Refuse(sess, msg)
	return true
}

// finish runs after the game ends (taking the knight out of the world, which saves it),
// or runs the command line for sessions without a game.
func (s *Server) finish(ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		gs, ok := s.games.take(sess)
		if gs.input != nil {
			gs.input.Stop() // the program has ended: nothing more is parsed for it
			if n := gs.input.Dropped(); n > 0 {
				s.log.Info("session input dropped", s.sessionAttrs(sess, "bytes", n)...)
			}
		}
		if gs.guard != nil {
			gs.guard.StopWatching()
		}
		if ok {
			if m := gs.model; m != nil {
				m.Close() // the player's own screen back, before anything more is written
				ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
				defer cancel()
				rec, left, err := m.Leave(ctx)
				if err != nil {
					s.log.Error("leave", s.sessionAttrs(sess, "err", err)...)
				}
				if id, _ := s.ids.get(sess); s.recorder != nil && !id.guest {
					s.recorder.Cut(id.knight) // its last seconds written
				}
				if id, _ := s.ids.get(sess); gs.held {
					s.unclaim(true, id.knight) // checked in: its newest record written, its claim let go
				}
				if why := m.Ended(); why != "" {
					fmt.Fprintln(sess, why) // the game screen is gone: keep the reason on the terminal
				}
				id, _ := s.ids.get(sess)
				s.touchKey(id.fp, edge.HostOf(sess.RemoteAddr()), true) // last seen: now
				if id.guest {
					s.guestGoodbye(sess, rec, left && err == nil, edge.AddrKey(sess.RemoteAddr()))
					s.book().Forget(id.knight) // a guest's names go with it (a claim takes one anew)
				} else if m.Ended() == "" {
					s.goodbye(sess, rec, left && err == nil)
				}
			}
			return
		}
		s.runCommand(sess)
	}
}
