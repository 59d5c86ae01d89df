package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A session with a terminal plays the game: runProgram (in the middleware chain) runs the
// model the program handler builds in the session's own loop (sessionLoop), and finish
// ends it. Spectating builds its own (spectate.go).

// runProgram runs the loop of a session with a terminal (program), or passes a session
// without one on. It is wish's program middleware without a tea.Program and without a
// goroutine a session: the loop quits when the session's context ends
// (context.AfterFunc), and the terminal's size changes reach it from whichever goroutine
// answers the session's requests (edge.WatchWindow).
func (s *Server) runProgram(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		loop := s.program(sess)
		if loop == nil {
			next(sess)
			return
		}
		ptyReq, _, _ := sess.Pty() // the size the loop begins with
		stopWatching := edge.WatchWindow(sess.Context(), ptyReq.Window.Width, ptyReq.Window.Height, loop.resized)
		stopQuit := context.AfterFunc(sess.Context(), loop.Quit)
		if err := loop.run(); err != nil {
			s.log.Error("game program", s.sessionAttrs(sess, "err", err)...)
		}
		stopQuit()
		stopWatching()
		next(sess)
	}
}

// program builds the game for a session with a terminal; sessions without one (or with a
// command other than play) get nil and go on to the command line.
func (s *Server) program(sess ssh.Session) *sessionLoop {
	ptyReq, _, isPty := sess.Pty()
	cmd := sess.Command()
	if isPty && len(cmd) > 0 && cmd[0] == "watch" {
		return s.watchProgram(sess, cmd[1:]) // spectate.go
	}
	if isPty && len(cmd) > 0 && cmd[0] == "replay" && command.ReadReplayArgs(cmd[1:]).Plays() {
		return s.replayProgram(sess, cmd[1:]) // commands_replay.go; a list is a command
	}
	if !isPty || (len(cmd) > 0 && cmd[0] != "play") {
		return nil
	}
	plain, ok := playArgs(cmd)
	if !ok {
		edge.Refuse(sess, "usage: play [--plain]   (--plain: screen-reader mode)")
		s.games.put(sess, gameSession{})
		return nil
	}
	key := sess.PublicKey()  // the key that authenticated, not one the client only offered
	id, _ := s.ids.get(sess) // the track middleware found the knight (or gave a new id)
	fp := id.knight
	var saved *world.Adventurer
	// A knight already in the world (played elsewhere, with this key or another of its
	// keys) is the newest record; joining then takes it over. Otherwise the saver has the
	// newest.
	held, err := s.claimFor(sess, id)
	if err != nil {
		s.log.Info("realm: claim refused", "fingerprint", id.fp, "knight", fp, "err", err)
		wish.Fatalln(sess, claimLine(err))
		s.games.put(sess, gameSession{})
		return nil
	}
	rec, online, err := s.engine.Lookup(sess.Context(), fp)
	if err == nil && !online {
		rec, err = s.knights.Knight(fp)
	}
	switch {
	case err == nil:
		saved = &rec // a dead or retired knight's record: the title offers a new roll
	case !errors.Is(err, store.ErrNotFound):
		s.log.Error("load adventurer", "fingerprint", id.fp, "knight", fp, "err", err)
		wish.Fatalln(sess, "Your knight could not be loaded just now; nothing was changed. Please try again later.")
		s.games.put(sess, gameSession{})
		s.unclaim(held, fp)
		return nil
	}
	g := s.guardIO(sess)
	var record world.Subscriber
	var fell func(context.Context) (app.ReplayControl, *app.ViewSlot, error)
	if s.recorder != nil && !id.guest { // a guest is not kept, nor its replays
		record, fell = s.recorder.For(fp), s.fellFor(fp)
	}
	m := app.New(sess.Context(), app.Params{
		Fingerprint: fp,
		Guest:       id.guest,
		Record:      record,
		Fell:        fell,
		MOTD:        s.motd(),
		Saved:       saved,
		Engine:      s.engine,
		Width:       ptyReq.Window.Width,
		Height:      ptyReq.Window.Height,
		Rand:        rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		Fame: func() []string {
			list, err := command.HallOfFame(s.knights, fp)
			if err != nil {
				s.log.Error("scores", "err", err)
				return []string{"The hall of fame could not be read just now."}
			}
			return command.ScoreLines(list)
		},
		Board:      s.boardFor(fp),
		Admin:      s.consoleHook(sess.Context(), key), // nil unless the key is an admin's
		Plain:      plain,
		Names:      s.namesFor(fp, id.guest),
		FindKnight: s.knightFinder(),
		Out:        g,
		Term:       ptyReq.Term,
		Tick:       s.cfg.Tick,
		Now:        s.now,
		// The web page's command, with the host and port players reach the server at.
		PlainCommand: s.sshCommand("-t") + " play --plain",
		KeyFrameGap:  app.KeyFrameGap, // keys faster than anyone types drawn together
		ViewsWaited:  true,            // by the input pump (newProgram)
	})
	prog := s.newProgram(sess, m, g)
	s.games.hold(sess, held)
	return prog
}

// The lines a player reads whose knight could not be claimed for its game.
const (
	realmDownLine  = "This realm has lost touch with the realms' records and takes no one in just now; try again in a minute, or on another realm."
	callingLine    = "Your knight is in realm %s; calling it here (a few seconds)..."
	stillThereLine = "Your knight is still in realm %s; try again in a moment."
	unreachLine    = "This realm cannot reach the realms' records just now; nothing was changed. Please try again later."
)

// claimFor claims the knight of a keyed session (knights.Keeper.Claim), telling the
// player while it is called from another realm; held tells that the session holds it,
// to let go when it ends. A guest's knight is its session's alone.
func (s *Server) claimFor(sess ssh.Session, id ident) (held bool, err error) {
	if id.guest {
		return false, nil
	}
	calling := func(where string) { fmt.Fprintf(sess, callingLine+"\r\n", where) }
	if err := s.knights.Claim(sess.Context(), id.knight, calling); err != nil {
		return true, err
	}
	s.keeperNeeds.claimed(id.knight)
	return true, nil
}

// unclaim lets go of a session's hold of knight id, taken by claimFor.
func (s *Server) unclaim(held bool, id string) {
	if !held {
		return
	}
	if err := s.knights.Leave(context.Background(), id); err != nil {
		s.log.Error("check a knight in", "knight", id, "err", err)
	}
}

// claimLine is what a player whose knight could not be claimed reads.
func claimLine(err error) string {
	var away *knights.ElsewhereError
	switch {
	case errors.Is(err, knights.ErrStopped):
		return realmDownLine
	case errors.As(err, &away):
		return fmt.Sprintf(stillThereLine, away.Where)
	}
	return unreachLine
}

// gameSessions keeps each game session's model, input and output guard from the program
// handler to finish. They cannot be kept in the session's context: that is its
// connection's, shared by every session on the connection, so a command run beside a
// game on one connection (as a multiplexing OpenSSH client does) found the game's model
// there when it finished, and took the knight out of the world.
type gameSessions struct {
	mu sync.Mutex
	m  map[ssh.Session]gameSession
}

// gameSession is what finish needs of a session the program handler took: its model and
// guard (nil for a session it refused with a message), and its input pump.
type gameSession struct {
	model *app.Model
	guard *edge.Guard
	input *edge.InputPump
	prog  *sessionLoop // for the farewell at shutdown
	// held is set when the session holds its knight's claim (a realm's), to let go of
	// when it ends.
	held bool
}

// put records what the program handler made of a session.
func (g *gameSessions) put(sess ssh.Session, gs gameSession) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[ssh.Session]gameSession{}
	}
	g.m[sess] = gs
}

// programs lists the programs of the game sessions open now.
func (g *gameSessions) programs() []*sessionLoop {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*sessionLoop
	for _, gs := range g.m {
		if gs.prog != nil {
			out = append(out, gs.prog)
		}
	}
	return out
}

// hold records that the session holds its knight's claim.
func (g *gameSessions) hold(sess ssh.Session, held bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if gs, ok := g.m[sess]; ok {
		gs.held = held
		g.m[sess] = gs
	}
}

// programsWhere lists the programs of the game sessions open now that match.
func (g *gameSessions) programsWhere(match func(ssh.Session) bool) []*sessionLoop {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*sessionLoop
	for sess, gs := range g.m {
		if gs.prog != nil && match(sess) {
			out = append(out, gs.prog)
		}
	}
	return out
}

// programsOfKey lists the programs of the game sessions open now with the key fp.
func (g *gameSessions) programsOfKey(fp string) []*sessionLoop {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*sessionLoop
	for sess, gs := range g.m {
		if gs.prog != nil && fp != "" && keys.Fingerprint(sess.PublicKey()) == fp {
			out = append(out, gs.prog)
		}
	}
	return out
}

// holding reports whether a game session holds its knight's claim: one of a realm's
// term that stopped holds it until it ends, and a new term waits for it.
func (g *gameSessions) holding() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, gs := range g.m {
		if gs.held {
			return true
		}
	}
	return false
}

// take returns and forgets what the program handler made of a session; ok is false for a
// session it left to the command line.
func (g *gameSessions) take(sess ssh.Session) (gs gameSession, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gs, ok = g.m[sess]
	delete(g.m, sess)
	return gs, ok
}

// stalledLogLabel is the log line of a session closed by the stall timeout.
const stalledLogLabel = "session stalled: closing"

// guardIO wraps a game session's input and output (edge.Guard): the input marks the last
// keystroke, for the idle timeout, and a write the client does not take in within the
// stall timeout closes the session, so one stalled client never holds anything but itself.
func (s *Server) guardIO(sess ssh.Session) *edge.Guard {
	keyFrame := func(d time.Duration) { s.obs.keyFrame.Observe(d.Seconds()) }
	g := edge.NewGuard(sess, s.cfg.Limits.StallTimeout, keyFrame, func() {
		s.log.Warn(stalledLogLabel, s.sessionAttrs(sess)...)
		edge.CloseConn(sess)
	})
	g.WatchIdle(s.cfg.Limits.IdleTimeout, func() {
		g.Say(fmt.Sprintf("\r\nYou were idle for %v; your knight is saved where it stands.\r\n", s.cfg.Limits.IdleTimeout))
		s.log.Info("session idle: closing", s.sessionAttrs(sess, "idle", s.cfg.Limits.IdleTimeout)...)
		edge.CloseConn(sess)
	})
	return g
}

// floodLine is what a session closed for sending keys past the input pump's rate reads.
const floodLine = "\r\nYou sent keys faster than anyone types, for %v without a pause: this session is closed. " +
	"Your knight is saved where it stands.\r\n"

// newProgram makes the loop of a game session (sessionLoop), which runs the model on the
// session's goroutine. The model draws its own frames as the cells that changed (app's
// terminal), where Bubble Tea's renderer parses each whole frame back into cells and
// compares them all, which cost two thirds of the server's CPU at 1000 players
// (docs/PERFORMANCE.md). The session's keys come through an input pump
// (edge.InputPump), whose parser the loop runs in, and which finish stops when the loop
// has ended; its connection's reads are paced (edge.PaceReads).
func (s *Server) newProgram(sess ssh.Session, m *app.Model, g *edge.Guard) *sessionLoop {
	edge.PaceReads(sess.Context()) // packets faster than anyone types read together
	onFlood := func() {
		g.Say(fmt.Sprintf(floodLine, edge.FloodClose))
		s.log.Info("session input flood: closing", s.sessionAttrs(sess)...)
		edge.CloseConn(sess)
	}
	// The pump waits for the world's views beside the keys, and answers the session's
	// requests: a goroutine fewer a session for each.
	arm, ready, msg := m.ViewWait()
	input := edge.NewGameInput(sess.Context(), g, onFlood, edge.Wait{Arm: arm, Ready: ready, Msg: msg})
	ptyReq, _, _ := sess.Pty()
	loop := newSessionLoop(m, input, ptyReq.Window.Width, ptyReq.Window.Height, sessionProfile(sess, g), s.drawers)
	s.games.put(sess, gameSession{model: m, guard: g, input: input, prog: loop})
	return loop
}

// sessionProfile is the colours a session's terminal shows, as wish tells a program: from
// the session's environment and its terminal's name.
func sessionProfile(sess ssh.Session, out io.Writer) colorprofile.Profile {
	ptyReq, _, _ := sess.Pty()
	env := append(sess.Environ(), "TERM="+ptyReq.Term)
	if sess.EmulatedPty() {
		return colorprofile.Env(env)
	}
	return colorprofile.Detect(out, env)
}

// playArgs reads the arguments of `play`: --plain asks for screen-reader mode. ok is
// false for anything else. A session with no command plays without it.
func playArgs(cmd []string) (plain, ok bool) {
	if len(cmd) == 0 {
		return false, true
	}
	for _, a := range cmd[1:] {
		if a != "--plain" {
			return false, false
		}
		plain = true
	}
	return plain, true
}
