// Package bench holds the bare reference server that the load tool (cmd/orthanc-load)
// measures the game against: wish and Bubble Tea v2 with the game server's middleware
// shape (recover, log, track, the program, finish), one Bubble Tea program per session
// drawing an 80×24 screen that it redraws on a 10 Hz ticker, and no game. Whatever the
// game server costs beyond this reference is the game's own cost.
package bench

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"
)

// DefaultInterval is the reference's redraw period: 10 Hz.
const DefaultInterval = 100 * time.Millisecond

// Screen size the reference draws, whatever the terminal's size.
const (
	Width  = 80
	Height = 24
)

// Config says how to build a Bare server.
type Config struct {
	// Log receives one line per session start and end, as the game server logs them;
	// nil discards them.
	Log *slog.Logger
	// Interval is the redraw period of every session; DefaultInterval when zero.
	Interval time.Duration
}

// Bare is the reference server: a wish server whose sessions run a Bubble Tea program
// that redraws on a ticker.
type Bare struct {
	cfg      Config
	log      *slog.Logger
	srv      *ssh.Server
	sessions sync.WaitGroup

	mu   sync.Mutex
	live map[uint64]ssh.Session // open sessions, as the game's registry keeps them
	next uint64

	// sent counts the bytes written to all connections, as the game server counts them
	// for its metrics: nothing reads it, but the reference pays what the game pays.
	sent atomic.Int64
}

// New builds the reference server with a fresh in-memory ed25519 host key.
func New(cfg Config) (*Bare, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	b := &Bare{cfg: cfg, log: cfg.Log, live: map[uint64]ssh.Session{}}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate host key: %w", err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		return nil, fmt.Errorf("host key signer: %w", err)
	}
	b.srv, err = wish.NewServer(
		func(srv *ssh.Server) error {
			srv.AddHostKey(signer)
			srv.ConnCallback = b.wrapConn
			return nil
		},
		wish.WithPublicKeyAuth(func(ssh.Context, ssh.PublicKey) bool { return true }),
		// The same order as the game server: recover, log, track, then the program or
		// the command line.
		wish.WithMiddleware(
			b.finish,
			bubbletea.MiddlewareWithProgramHandler(b.program),
			b.track,
			b.logSessions,
			b.recoverPanics,
		),
	)
	if err != nil {
		return nil, fmt.Errorf("ssh server: %w", err)
	}
	return b, nil
}

// Serve accepts connections on ln until ctx ends, then closes every connection and waits
// (at most five seconds) for the sessions to end.
func (b *Bare) Serve(ctx context.Context, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- b.srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	_ = b.srv.Close()
	if errors.Is(err, ssh.ErrServerClosed) {
		err = nil
	}
	done := make(chan struct{})
	go func() { b.sessions.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// Sessions is the number of open sessions.
func (b *Bare) Sessions() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.live)
}

// countingConn counts what the server writes, as the game server does for its metrics.
type countingConn struct {
	net.Conn
	sent *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.sent.Add(int64(n))
	return n, err
}

func (b *Bare) wrapConn(_ ssh.Context, c net.Conn) net.Conn {
	return &countingConn{Conn: c, sent: &b.sent}
}

func (b *Bare) recoverPanics(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		defer func() {
			if r := recover(); r != nil {
				b.log.Error("session panic", "panic", r, "stack", string(debug.Stack()))
				_ = sess.Exit(1)
			}
		}()
		next(sess)
	}
}

func (b *Bare) logSessions(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		b.sessions.Add(1)
		defer b.sessions.Done()
		start := time.Now()
		fp := gossh.FingerprintSHA256(sess.PublicKey())
		_, _, pty := sess.Pty()
		b.log.Info("session start", "fingerprint", fp, "addr", sess.RemoteAddr().String(), "pty", pty)
		next(sess)
		b.log.Info("session end", "fingerprint", fp, "addr", sess.RemoteAddr().String(), "duration", time.Since(start).Round(time.Millisecond))
	}
}

func (b *Bare) track(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		b.mu.Lock()
		b.next++
		id := b.next
		b.live[id] = sess
		b.mu.Unlock()
		defer func() {
			b.mu.Lock()
			delete(b.live, id)
			b.mu.Unlock()
		}()
		next(sess)
	}
}

// program gives a session with a terminal its Bubble Tea program; others get nil and go
// on to finish.
func (b *Bare) program(sess ssh.Session) *tea.Program {
	if _, _, pty := sess.Pty(); !pty {
		return nil
	}
	m := newModel(b.cfg.Interval)
	opts := append(bubbletea.MakeOptions(sess), tea.WithoutSignalHandler())
	return tea.NewProgram(m, opts...)
}

// finish answers sessions without a terminal: the reference has no commands.
func (b *Bare) finish(ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if _, _, pty := sess.Pty(); pty {
			return
		}
		fmt.Fprintln(sess.Stderr(), "the bare reference server has no commands")
		_ = sess.Exit(1)
	}
}

// tickMsg is one redraw of the ticker.
type tickMsg time.Time

// model is the reference screen: a title, a field of dots with the player's @ and a
// sweeping bar, and a status line with the tick count, all in a few colours so the
// renderer has styles to write, as the game's screens do.
type model struct {
	interval time.Duration
	ticks    uint64
	x, y     int
	keys     int
	last     string

	title, field, self, bar, status lipgloss.Style
}

func newModel(interval time.Duration) *model {
	return &model{
		interval: interval,
		x:        Width / 2, y: (Height - 4) / 2,
		title:  lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#ffb000")),
		field:  lipgloss.NewStyle().Foreground(lipgloss.Color("#606060")),
		self:   lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#ffff00")),
		bar:    lipgloss.NewStyle().Foreground(lipgloss.Color("#00c0ff")),
		status: lipgloss.NewStyle().Reverse(true),
	}
}

func (m *model) tick() tea.Cmd {
	return tea.Tick(m.interval, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Init starts the ticker.
func (m *model) Init() tea.Cmd { return m.tick() }

// Update moves the @ with the arrows, counts other keys, and redraws on every tick.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tickMsg:
		m.ticks++
		return m, m.tick()
	case tea.KeyPressMsg:
		s := msg.String()
		m.keys++
		m.last = s
		switch s {
		case "ctrl+c", "q":
			return m, tea.Quit
		case "up", "k":
			m.y = max(0, m.y-1)
		case "down", "j":
			m.y = min(Height-5, m.y+1)
		case "left", "h":
			m.x = max(0, m.x-1)
		case "right", "l":
			m.x = min(Width-1, m.x+1)
		}
	}
	return m, nil
}

// View draws the 80×24 screen: a title line, twenty rows of field, a blank line and a
// status line.
func (m *model) View() tea.View {
	var sb strings.Builder
	sb.Grow(4096)
	sb.WriteString(m.title.Render(fmt.Sprintf("%-*s", Width, "bare reference: wish + Bubble Tea v2, redrawn at 10 Hz")))
	sb.WriteByte('\n')
	rows := Height - 4
	barCol := int(m.ticks % Width)
	dots := strings.Repeat(".", Width)
	for y := range rows {
		left, right := dots[:barCol], dots[barCol+1:]
		bar := m.bar.Render("|")
		if y == m.y {
			// The @ stands on the field; the bar passes under it.
			line := []byte(dots)
			line[barCol] = '|'
			sb.WriteString(m.field.Render(string(line[:m.x])))
			sb.WriteString(m.self.Render("@"))
			sb.WriteString(m.field.Render(string(line[m.x+1:])))
		} else {
			sb.WriteString(m.field.Render(left))
			sb.WriteString(bar)
			sb.WriteString(m.field.Render(right))
		}
		sb.WriteByte('\n')
	}
	sb.WriteByte('\n')
	status := fmt.Sprintf(" tick %d  keys %d  last %-10s  at %2d,%2d", m.ticks, m.keys, m.last, m.x, m.y)
	sb.WriteString(m.status.Render(fmt.Sprintf("%-*s", Width, status)))
	sb.WriteByte('\n')
	v := tea.NewView(sb.String())
	v.AltScreen = true
	return v
}
