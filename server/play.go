package server

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A browser's game (the web page's play socket, web.PlaySession): the same Bubble Tea
// program as an SSH session's, a guest knight as SSH's keyless guest, drawn on the page's
// terminal, which the web package keeps and sends to the page. It is let in by the same
// rules: the address's bans, the realm's state, guests allowed, a player's place counted
// with SSH's (edge.Listener.AdmitPlay) and the guests' limits (edge.KeyLimits), and its
// keys go through the same input pump, with its rate.

// playTerm is the terminal type a browser's game is drawn for: the page's terminal is
// x/vt's, which follows xterm (it erases in the background colour in effect).
const playTerm = "xterm-256color"

// playLines are what a browser refused its game reads.
const (
	playBannedLine = "Your address is banned from this server."
	playCheckLine  = "The server cannot check your address just now; please try again later."
)

// plays are the browsers' games open now, for the shutdown's farewell.
type plays struct {
	mu sync.Mutex
	m  map[*tea.Program]struct{}
}

func (p *plays) add(prog *tea.Program) (remove func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[*tea.Program]struct{}{}
	}
	p.m[prog] = struct{}{}
	return func() {
		p.mu.Lock()
		delete(p.m, prog)
		p.mu.Unlock()
	}
}

func (p *plays) programs() []*tea.Program {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*tea.Program, 0, len(p.m))
	for prog := range p.m {
		out = append(out, prog)
	}
	return out
}

// play runs a browser's game (web.PlayFunc) until it ends, or its page has gone past the
// grace (web.PlayResumeGrace): while the page is away the game runs on, the knight in the
// world as a quiet SSH player's, its place and goroutines held.
func (s *Server) play(ctx context.Context, p web.PlaySession) {
	say := func(line string) { fmt.Fprintf(p.Screen, "%s\r\n", line) }
	addr := edge.AddrKeyOf(p.Addr)
	who, tell, why := s.playIdentity(p) // play_key.go: the browser's key, or a guest
	if p.Tell != nil {
		p.Tell(tell)
	}
	attrs := []any{"fingerprint", who.logFP(), "addr", p.Remote, "client", p.Addr.String(), "web", true, "game", p.ID}
	if why == "" {
		why = s.playRefusal(p)
	}
	if why != "" {
		s.log.Info("web game refused", append(attrs, "reason", why)...)
		say(why)
		return
	}
	release, reason, msg := s.limits.AdmitPlay(addr)
	if release == nil {
		s.refusedPlay(reason, p)
		say(msg)
		return
	}
	defer release()
	give, refusal := who.take(s, addr)
	if give == nil {
		say(refusal)
		return
	}
	defer give()
	s.sessions.Add(1) // the shutdown waits for the knight to leave the world
	defer s.sessions.Done()

	id := who.knight
	if who.guest {
		id = knights.NewGuestID()
	}
	saved, held, refusal := s.playClaim(ctx, who, p.Screen)
	if refusal != "" {
		say(refusal)
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sent := new(atomic.Int64)
	// Listed by the client's address (through a trusted proxy, the one it is for), which
	// a ban of an address closes by: the newest page's, when one takes the game up from
	// another address (p.Moved). Its place in the caps stays where it was admitted.
	remove, move := s.live.AddMoving(edge.LiveSession{Fingerprint: who.fp, Knight: id, Guest: who.guest, Addr: netip.AddrPortFrom(p.Addr, 0).String(), Start: time.Now(), Game: true,
		Sent: sent, Close: cancel})
	defer remove()
	client := new(atomic.Pointer[netip.Addr]) // the newest page's address
	client.Store(&p.Addr)
	s.log.Info("session start", append(attrs, "pty", true)...)
	s.touchKey(who.fp, p.Addr.String(), false)
	start := time.Now()
	defer func() {
		s.log.Info("session end", append(attrs, "duration", time.Since(start).Round(time.Millisecond))...)
	}()

	var record world.Subscriber
	var fell func(context.Context) (app.ReplayControl, *app.ViewSlot, error)
	if s.recorder != nil && !who.guest { // a guest is not kept, nor its replays
		record, fell = s.recorder.For(id), s.fellFor(id)
	}
	m := app.New(ctx, app.Params{
		Fingerprint: id,
		Guest:       who.guest,
		Browser:     true,
		Saved:       saved,
		Record:      record,
		Fell:        fell,
		Admin:       s.consoleHook(ctx, who.key), // nil unless the key is an admin's
		MOTD:        s.motd(),
		Engine:      s.engine,
		Width:       p.Size.W,
		Height:      p.Size.H,
		Rand:        rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		Fame: func() []string {
			list, err := command.HallOfFame(s.knights, id)
			if err != nil {
				s.log.Error("scores", "err", err)
				return []string{"The hall of fame could not be read just now."}
			}
			return command.ScoreLines(list)
		},
		Board:        s.boardFor(id),
		Names:        s.namesFor(id, who.guest),
		FindKnight:   s.knightFinder(),
		Out:          p.Screen,
		Term:         playTerm,
		Tick:         s.cfg.Tick,
		Now:          s.now,
		PlainCommand: s.sshCommand("-t") + " play --plain",
		// Screen-reader mode's lines go to the page's log, which wraps them (web/playlog.go).
		Plain:         p.Plain,
		PlainUnbroken: true,
		PlainChanged:  p.ShowPlain,
	})
	prog := tea.NewProgram(m, tea.WithContext(ctx), tea.WithoutSignalHandler(), tea.WithoutRenderer(), tea.WithFPS(1),
		tea.WithInput(nil), tea.WithOutput(p.Screen), tea.WithColorProfile(colorprofile.TrueColor),
		tea.WithEnvironment([]string{"TERM=" + playTerm}), tea.WithWindowSize(p.Size.W, p.Size.H))
	defer s.plays.add(prog)()
	// Why the server closed the game, said once the game's screen is gone.
	var closed atomic.Pointer[string]
	closeFor := func(why string) {
		closed.CompareAndSwap(nil, &why)
		cancel()
	}
	onFlood := func() {
		closeFor(fmt.Sprintf(floodLine, edge.FloodClose))
		s.log.Info("session input flood: closing", attrs...)
	}
	keys := &typed{r: p.Keys}
	keys.last.Store(time.Now().UnixNano())
	idle := s.cfg.Limits.IdleTimeout
	if idle > 0 {
		stop := watchIdle(keys, idle, func() {
			s.log.Info("session idle: closing", append(attrs, "idle", idle)...)
			closeFor(fmt.Sprintf("You were idle for %v; your knight is saved where it stands.", idle))
		})
		defer stop()
	}
	input := edge.StartInput(keys, prog.Send, onFlood)
	defer input.Stop()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case sz := <-p.Resized:
				prog.Send(tea.WindowSizeMsg{Width: sz.W, Height: sz.H})
			case on := <-p.Plained: // the page's screen-reader switch
				prog.Send(app.PlainMsg(on))
			case a := <-p.Moved:
				// Listed at the new address, and checked against the bans again: one
				// written since the page was let in, while the listing still named the
				// old address, is not missed.
				client.Store(&a)
				move(netip.AddrPortFrom(a, 0).String())
				s.log.Info("web game moved", append(attrs, "to", a.String())...)
				if s.playBanned(a) == playBannedLine {
					closeFor(playBannedLine)
				}
			}
		}
	}()
	if _, err := prog.Run(); err != nil && ctx.Err() == nil {
		s.log.Error("web game", append(attrs, "err", err)...)
	}
	input.Stop()
	m.Close()
	if why := closed.Load(); why != nil {
		fmt.Fprint(p.Screen, *why)
	}
	lctx, lcancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer lcancel()
	rec, left, err := m.Leave(lctx)
	if err != nil {
		s.log.Error("leave", append(attrs, "err", err)...)
	}
	if why := m.Ended(); why != "" {
		say(why)
	}
	if !who.guest {
		if s.recorder != nil {
			s.recorder.Cut(id) // its last seconds written
		}
		s.unclaim(held, id) // checked in: its newest record written, its claim let go
		s.touchKey(who.fp, client.Load().String(), true)
		if m.Ended() == "" {
			playGoodbye(p.Screen, rec, left && err == nil)
		}
		return
	}
	s.playGuestGoodbye(p, who, rec, left && err == nil, addr) // play_key.go
	s.book().Forget(id)
}

// playRefusal is why a browser may not play, or "": its address banned, or the realm
// taking no one in (guests not let in is playIdentity's, which knows the page's key).
func (s *Server) playRefusal(p web.PlaySession) string {
	if s.knights.Err() != nil {
		return realmDownLine
	}
	return s.playBanned(p.Addr)
}

// playBanned is why a browser at addr may not play, or take up a game held for it
// (web.Options.PlayRefusal): its address banned, or the bans not to be read; else "".
// A game taken up from another address (a phone's changes with its network) is listed at
// the new one (PlaySession.Moved), and keeps its place in the caps at the one it began
// from.
func (s *Server) playBanned(addr netip.Addr) string {
	banned, _, err := s.knights.IsAddrBanned(addr, s.now())
	switch {
	case err != nil:
		s.log.Error("check ban", "addr", addr.String(), "err", err)
		return playCheckLine
	case banned:
		return playBannedLine
	}
	return ""
}

// refusedPlay logs and counts a browser's game the limits refuse, as a connection's.
func (s *Server) refusedPlay(reason string, p web.PlaySession) {
	s.obs.refusals.WithLabelValues(reason).Inc()
	s.log.Info("connection refused", "reason", reason, "addr", p.Remote, "client", p.Addr.String(), "web", true)
}

// typed is a browser's keys, noting when the last came, for the idle timeout.
type typed struct {
	r    io.Reader
	last atomic.Int64 // unix nanoseconds
}

func (t *typed) Read(b []byte) (int, error) {
	n, err := t.r.Read(b)
	if n > 0 {
		t.last.Store(time.Now().UnixNano())
	}
	return n, err
}

// watchIdle calls idle once no key has come for d (as SSH's idle timeout, edge.Guard);
// stop ends the watch.
func watchIdle(keys *typed, d time.Duration, idle func()) (stop func()) {
	var mu sync.Mutex
	stopped := false
	var timer *time.Timer
	timer = time.AfterFunc(d, func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		if left := d - time.Since(time.Unix(0, keys.last.Load())); left > 0 {
			timer.Reset(left)
			return
		}
		stopped = true
		idle()
	})
	return func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
		timer.Stop()
	}
}
