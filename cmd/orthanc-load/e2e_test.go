package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/bench"
)

// serve runs srv on a loopback port until the test ends and returns the address.
func serve(t *testing.T, srv func(ctx context.Context, ln net.Listener) error) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("server did not stop")
		}
	})
	return ln.Addr().String()
}

// TestLoadBare drives the bare reference server in this process with five sessions for
// two seconds and checks the report is sane.
func TestLoadBare(t *testing.T) {
	t.Parallel()
	b, addr := serveBare(t)
	rep, err := Run(t.Context(), Config{
		Addr: addr, N: 5, Active: 3, Rate: 5, Duration: 2 * time.Second, Ramp: 200 * time.Millisecond,
		Mode: ModeBare, ServerPID: os.Getpid(), Drain: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *rep)
	if rep.Established != 5 || rep.Failed != 0 || rep.Dropped != 0 || len(rep.Errors) != 0 {
		t.Fatalf("established %d, failed %d, dropped %d, errors %v %v", rep.Established, rep.Failed, rep.Dropped, rep.Errors, rep.ErrorExamples)
	}
	if rep.WindowSeconds < 1.9 || rep.WindowSeconds > 3 {
		t.Errorf("window %.2f s, want about 2", rep.WindowSeconds)
	}
	checkBareKeys(t, rep)
	checkBareOutput(t, rep)
	if rep.Server == nil || rep.Server.RSSKB <= 0 || rep.Server.PID != os.Getpid() {
		t.Errorf("server stats %+v", rep.Server)
	}
	checkAllClosed(t, b)
}

// serveBare serves a new bare reference on a loopback port until the test ends.
func serveBare(t *testing.T) (*bench.Bare, string) {
	t.Helper()
	b, err := bench.New(bench.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return b, serve(t, b.Serve)
}

// checkBareKeys checks the keys and times of TestLoadBare's run: three sessions at 5
// keys/s for 2 s send about 30 keys, each answered by a redraw; every session's first
// frame is its arrival.
func checkBareKeys(t *testing.T, rep *Report) {
	t.Helper()
	if k := rep.Keys; k.Sent < 15 || k.Sent > 45 || k.Answered+k.Unanswered != k.Sent || k.Unanswered > 2 {
		t.Errorf("keys %+v", k)
	}
	if l := rep.Latency; l.Count != rep.Keys.Answered || l.P50 <= 0 || l.P50 > l.P95 || l.P95 > l.P99 || l.P99 > l.Max || l.Max > 2000 {
		t.Errorf("latency %+v", l)
	}
	if f := rep.FirstFrame; f.Count != 5 || f.P50 <= 0 || f.Max > 5000 || rep.Arrival != f {
		t.Errorf("first frame %+v, arrival %+v (the same in bare mode)", f, rep.Arrival)
	}
}

// checkBareOutput checks TestLoadBare's output rates: the reference redraws at 10 Hz, so
// every session gets bytes, idle ones too.
func checkBareOutput(t *testing.T, rep *Report) {
	t.Helper()
	if rep.BytesIdle.Sessions != 2 || rep.BytesActive.Sessions != 3 || rep.BytesIdle.Mean < 500 {
		t.Errorf("bytes/s idle %+v, active %+v", rep.BytesIdle, rep.BytesActive)
	}
	if u := rep.BurstsIdle.Mean; u < 3 || u > 20 {
		t.Errorf("idle bursts %.1f/s, want about 10", u)
	}
}

// checkAllClosed checks that the bare server has no session left open after the run.
func checkAllClosed(t *testing.T, b *bench.Bare) {
	t.Helper()
	if b.Sessions() != 0 {
		// Closing is asynchronous on the server's side: give it a moment.
		deadline := time.Now().Add(5 * time.Second)
		for b.Sessions() != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := b.Sessions(); n != 0 {
			t.Errorf("%d sessions still open on the server after the run", n)
		}
	}
}

// TestLoadGameMode walks sessions through start screens like the game's (title, roll,
// name, dungeon) on a small stand-in server, and checks the active ones turn at walls.
func TestLoadGameMode(t *testing.T) {
	t.Parallel()
	addr := serve(t, fakeGame(t))
	rep, err := Run(t.Context(), Config{
		Addr: addr, N: 4, Active: 2, Rate: 8, Duration: 1500 * time.Millisecond, Ramp: 100 * time.Millisecond,
		Mode: ModeGame, Drain: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", *rep)
	if rep.Established != 4 || rep.Failed != 0 || rep.Dropped != 0 || len(rep.Errors) != 0 {
		t.Fatalf("established %d, failed %d, dropped %d, errors %v %v", rep.Established, rep.Failed, rep.Dropped, rep.Errors, rep.ErrorExamples)
	}
	if rep.Arrival.P50 <= rep.FirstFrame.P50 {
		t.Errorf("arrival %+v not after the first frame %+v", rep.Arrival, rep.FirstFrame)
	}
	// The stand-in's walls stop a knight after two steps one way; a session that did not
	// turn would press into the wall, leave its messages as they were and go unanswered.
	// (Overlapped keys are not bounded here: how many keys go out before the last one's
	// frame comes back depends on how busy the machine is, not on the walker.)
	if k := rep.Keys; k.Sent < 10 || k.Unanswered > 1 {
		t.Errorf("keys %+v", k)
	}
	// Idle sessions of the stand-in get no output at all after arriving.
	if rep.BytesIdle.Sessions != 2 || rep.BytesIdle.Max != 0 {
		t.Errorf("idle bytes %+v", rep.BytesIdle)
	}
}

func TestWalker(t *testing.T) {
	wk := newWalker(gameScript, termWidth, termHeight, "Bot abc")
	screens := []struct {
		text    string
		send    []string
		arrived bool
	}{
		{"\x1b[2J\x1b[HORTHANC", nil, false}, // part of a frame: nothing yet
		{"\r\nPress Enter to begin", []string{keyEnter}, false},
		{"\r\nstill the title", nil, false}, // the roll has not come yet
		{"\x1b[2J\x1b[HStrength 12\r\nPress r to roll again, Enter to keep this knight.", []string{keyEnter}, false},
		{"\r\nName your knight, or press Enter to be Sir Kay.", []string{"Bot abc", keyEnter}, false},
		{"\x1b[2J\x1b[HEntering the dungeon...", nil, false},
		// Other knights' news has pushed the welcome off the messages: the status line counts.
		{"\x1b[2J\x1b[HLancelot joins the game.\r\nBot abc │ Level 1 │ Depth 1", nil, true},
	}
	for i, s := range screens {
		send, arrived := wk.feed([]byte(s.text))
		if !slices.Equal(send, s.send) || arrived != s.arrived {
			t.Fatalf("screen %d: feed = %q, %v; want %q, %v\n%s", i, send, arrived, s.send, s.arrived, wk.screen())
		}
	}
	if got := wk.lines(0, 1); !strings.HasPrefix(got, "Lancelot joins") || !strings.HasSuffix(got, "\n") {
		t.Errorf("lines(0, 1) = %q", got)
	}
}

// fakeGame is a stand-in for the game with its start screens, its dungeon screen's
// message lines and walls two steps away in every direction.
func fakeGame(t *testing.T) func(ctx context.Context, ln net.Listener) error {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := wish.NewServer(
		func(s *ssh.Server) error { s.AddHostKey(signer); return nil },
		wish.WithPublicKeyAuth(func(ssh.Context, ssh.PublicKey) bool { return true }),
		wish.WithMiddleware(bubbletea.Middleware(func(ssh.Session) (tea.Model, []tea.ProgramOption) {
			return &fakeModel{}, nil
		})),
	)
	if err != nil {
		t.Fatal(err)
	}
	return func(ctx context.Context, ln net.Listener) error {
		go func() { <-ctx.Done(); _ = srv.Close() }()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, ssh.ErrServerClosed) {
			return err
		}
		return nil
	}
}

type fakeModel struct {
	screen int // 0 title, 1 roll, 2 name, 3 dungeon, 4 map
	x, y   int
	msgs   []string
	name   string
}

func (m *fakeModel) Init() tea.Cmd { return nil }

func (m *fakeModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	s := k.String()
	switch {
	case m.screen == 2 && s != "enter":
		m.name += k.Text // the name prompt takes what is typed
	case m.screen < 3:
		if s == "enter" {
			if m.screen == 2 && !strings.HasPrefix(m.name, "Bot ") {
				return m, nil // the stand-in wants the session's own name, as the game's unique names do
			}
			m.screen++
		}
	case m.screen == 4:
		m.screen = 3
	case s == "m" || s == "?":
		m.screen = 4
	default:
		dx, dy, name := 0, 0, ""
		switch s {
		case "up":
			dy, name = -1, "north"
		case "down":
			dy, name = 1, "south"
		case "left":
			dx, name = -1, "west"
		case "right":
			dx, name = 1, "east"
		default:
			return m, nil
		}
		if abs(m.x+dx) > 2 || abs(m.y+dy) > 2 {
			m.msgs = append(m.msgs, "A wall blocks the way "+name+".")
		} else {
			m.x, m.y = m.x+dx, m.y+dy
		}
	}
	return m, nil
}

func abs(x int) int { return max(x, -x) }

func (m *fakeModel) View() tea.View {
	lines := make([]string, termHeight)
	switch m.screen {
	case 0:
		lines[5] = "Press Enter to begin"
	case 1:
		lines[5] = "Press r to roll again, Enter to keep this knight."
	case 2:
		lines[5] = "Press r to roll again, Enter to keep this knight."
		lines[7] = "Name your knight, or press Enter to be Sir Kay."
	case 3:
		lines[0] = "You enter level 1 of the dungeon."
		lines[10] = fmt.Sprintf("at %d,%d", m.x, m.y)
		msgs := m.msgs
		if len(msgs) > 3 {
			msgs = msgs[len(msgs)-3:]
		}
		copy(lines[msgFirst:msgEnd], msgs)
		lines[termHeight-1] = m.name + " │ Level 1 │ Depth 1"
	case 4:
		lines[0] = "the map"
	}
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	return v
}

func TestRecoveryKey(t *testing.T) {
	s := newSession(0, true, &window{})
	if got := s.recoveryKey(); got != keyEnter {
		t.Errorf("no screen: %q, want Enter", got)
	}
	s.walk = newWalker(gameScript, termWidth, termHeight, "Bot abc")
	s.walk.feed([]byte("\x1b[2J\x1b[HYou were slain by a Balrog.\r\nPress Enter to roll a new knight."))
	if got := s.recoveryKey(); got != keyEnter {
		t.Errorf("death screen: %q, want Enter", got)
	}
	s.walk.feed([]byte("\x1b[2J\x1b[H\x1b[24;1HSir Kay │ Level 1 │ Depth 3"))
	if got := s.recoveryKey(); got != keyEsc {
		t.Errorf("dungeon screen: %q, want Esc\n%s", got, s.walk.screen())
	}
}

// walkingSession is an active game-mode session with a screen whose keys are recorded.
func walkingSession(t *testing.T) (*session, *strings.Builder) {
	s := newSession(0, true, &window{})
	keys := &strings.Builder{}
	s.stdin = keys
	s.walk = newWalker(gameScript, termWidth, termHeight, "Bot abc")
	return s, keys
}

// In a battle a walker fights when the panel says it is its move, and sends nothing while
// the battle waits for others: an arrow there changes nothing on the screen, so it would
// count as a key the server never answered.
func TestWalkersFightTheirBattles(t *testing.T) {
	s, keys := walkingSession(t)
	rng := mrand.New(mrand.NewPCG(1, 2))
	s.walk.feed([]byte("\x1b[2J\x1b[H\x1b[10;1HYour move! ██████░░░░\x1b[24;1HSir Kay │ Level 1 │ Depth 1"))
	if err := s.press(rng); err != nil || keys.String() != keyFight {
		t.Fatalf("on its move the walker sent %q (%v), want f", keys.String(), err)
	}
	keys.Reset()
	s.pending = nil
	// A knight alone is never hurried: its move has no countdown.
	s.walk.feed([]byte("\x1b[2J\x1b[H\x1b[10;1HYour move. The battle waits for you.\x1b[24;1HSir Kay │ Level 1 │ Depth 1"))
	if err := s.press(rng); err != nil || keys.String() != keyFight {
		t.Fatalf("on its move alone the walker sent %q (%v), want f", keys.String(), err)
	}
	keys.Reset()
	s.pending = nil
	s.walk.feed([]byte("\x1b[2J\x1b[H\x1b[10;1HWaiting for Bors...\x1b[24;1HSir Kay │ Level 1 │ Depth 1"))
	if err := s.press(rng); err != nil || keys.Len() != 0 || len(s.pending) != 0 {
		t.Fatalf("waiting in a battle, the walker sent %q (%d pending, %v)", keys.String(), len(s.pending), err)
	}
	s.walk.feed([]byte("\x1b[2J\x1b[H\x1b[24;1HSir Kay │ Level 1 │ Depth 1"))
	if err := s.press(rng); err != nil || keys.Len() == 0 || keys.String() == keyFight {
		t.Fatalf("out of the battle the walker sent %q (%v), want a walking key", keys.String(), err)
	}
}

// Walkers in game mode say a line in the chat now and then (pChat of their keys: Enter,
// the line, Enter, written at once); sessions without a screen (bare mode) never do.
func TestWalkersChatNowAndThen(t *testing.T) {
	count := func(s *session) (chats, keys int) {
		var out strings.Builder
		s.stdin = &out
		rng := mrand.New(mrand.NewPCG(3, 4))
		for range 5000 {
			out.Reset()
			s.pending = nil
			if err := s.press(rng); err != nil {
				t.Fatal(err)
			}
			keys++
			if out.String() == keyEnter+chatText+keyEnter {
				chats++
			}
		}
		return chats, keys
	}
	s := newSession(0, true, &window{})
	s.walk = newWalker(gameScript, termWidth, termHeight, "Bot abc")
	s.walk.feed([]byte("\x1b[2J\x1b[H\x1b[24;1HSir Kay │ Level 1 │ Depth 1"))
	chats, keys := count(s)
	if share := float64(chats) / float64(keys); share < 0.012 || share > 0.03 {
		t.Fatalf("%d chat lines in %d keys (%.3f), want about %.2f", chats, keys, share, pChat)
	}
	if chats, _ := count(newSession(1, true, &window{})); chats != 0 {
		t.Fatalf("a session without a screen chatted %d times", chats)
	}
}

// After a death a walker rolls a new knight and walks back in at its own pace, a key a
// tick, instead of waiting to be found stuck.
func TestWalkersStartAgainAfterDeath(t *testing.T) {
	s, keys := walkingSession(t)
	rng := mrand.New(mrand.NewPCG(5, 6))
	for _, tc := range []struct{ screen, want string }{
		{"You were slain by a Balrog.\r\nDeath is permanent. Press Enter to roll a new knight, q to leave.", keyEnter},
		{"Str 12 Int 9\r\nPress r to roll again, Enter to keep this knight.", keyEnter},
		{"Press r to roll again, Enter to keep this knight.\r\nName your knight, or press Enter to be Sir Kay.", "Bot abc" + keyEnter},
	} {
		keys.Reset()
		s.pending = nil
		s.walk.feed([]byte("\x1b[2J\x1b[H" + tc.screen))
		if err := s.press(rng); err != nil || keys.String() != tc.want {
			t.Fatalf("on %q the walker sent %q (%v), want %q", tc.screen, keys.String(), err, tc.want)
		}
	}
}
