package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	gossh "golang.org/x/crypto/ssh"
)

// Keys as a terminal sends them.
const (
	keyEnter = "\r"
	keyUp    = "\x1b[A"
	keyDown  = "\x1b[B"
	keyRight = "\x1b[C"
	keyLeft  = "\x1b[D"
	// keyBack leaves the map or the help page: the game takes any key that is not a
	// scrolling key back to the dungeon, and x does nothing on the dungeon screen.
	keyBack = "x"
	keyEsc  = "\x1b"
)

var arrows = [4]string{keyUp, keyRight, keyDown, keyLeft}

// bumpText is in the game's message when a wall or a door stops a knight ("A wall blocks
// the way north.").
const bumpText = "blocks the way"

// In a battle the panel says whose move it is: yourMoveText when it is the knight's (it
// fights: keyFight), battleText while the battle waits for others or goes on (it waits:
// an arrow would change nothing on the screen, and the key would count against the
// server as an answer the game never owed). A knight's move reads "Your move! ▓▓░░ 12 s"
// when it holds up other heroes and "Your move. The battle waits for you." when it
// fights alone.
const (
	yourMoveText = "Your move"
	keyFight     = "f"
)

var battleTexts = []string{"Waiting for ", "The battle goes on..."}

// chatText is what a walker says in the chat: every knight in sight reads it.
const chatText = "Well met, knights of the load test!"

// The game's dungeon screen ends with three message lines and the status line.
const (
	msgFirst = termHeight - 4
	msgEnd   = termHeight - 1
)

// Screen size and terminal type of every session.
const (
	termWidth  = 80
	termHeight = 24
	termType   = "xterm-256color"
)

// Tuning of a session:
//
//	constant     value   effect
//	stuckAfter   5 s     a key without output for this long is unanswered; the session gets Enter
//	burstGap     5 ms    output this long after the previous output starts a new burst (about a frame)
//	pMap         5 %     share of keys that open the map (the next key closes it)
//	pHelp        2 %     share of keys that open the help page (the next key closes it)
//	pChat        2 %     share of keys that say a line in the chat (game mode: Enter, the line, Enter)
//	pTurn        30 %    share of moves that change direction (the rest keep walking one way)
const (
	stuckAfter = 5 * time.Second
	burstGap   = 5 * time.Millisecond
	pMap       = 0.05
	pHelp      = 0.02
	pChat      = 0.02
	pTurn      = 0.30
)

// window is the measured steady state. Keys written and output bursts seen inside it
// count; before it starts and after it ends they do not.
type window struct {
	start atomic.Int64 // unix nanoseconds; 0 until it starts
	end   atomic.Int64 // unix nanoseconds; 0 while open
}

func (w *window) in(t time.Time) bool {
	s, e, n := w.start.Load(), w.end.Load(), t.UnixNano()
	return s != 0 && n >= s && (e == 0 || n < e)
}

// pendingKey is a key written and not yet followed by output.
type pendingKey struct {
	at       time.Time
	measured bool // written inside the window, and not a recovery key
}

// session is one simulated player: an SSH connection with a PTY.
type session struct {
	id     int
	active bool
	win    *window
	// signer is the session's key: a keys file's (a returning player), or made at its
	// first connection and kept, so that it comes back as the same knight after a restart.
	signer gossh.Signer
	// script is the way into the game: gameScript for a new key, returningScript for a
	// known one; nil in bare mode.
	script []step
	// seekDoors steers the knight towards doors and through them (-scenario rooms), where
	// the others walk at random; typist types on the chat line instead (-scenario type),
	// typeBurst keys a write.
	seekDoors, typist bool
	typeBurst         int

	// webURL, when set, makes the session a browser's: it opens the play page's socket
	// of the web page there (websession.go) instead of an SSH session.
	webURL string

	conn   net.Conn
	client *gossh.Client
	ws     *websocket.Conn    // a browser's socket
	wsStop context.CancelFunc // ends the socket's reads
	webScr *webScreen         // a browser's screen, while it keeps one
	stdin  io.Writer

	dialAt     time.Time
	firstFrame time.Duration // dial to first output byte; 0 until then
	arrival    time.Duration // dial to in the dungeon; 0 until then
	arrived    chan struct{} // closed on arrival
	readDone   chan struct{} // closed when the reader ends
	bytes      atomic.Int64

	mu      sync.Mutex
	walk    *walker // the screen: nil in bare mode, and once an idle session is in
	closing bool    // the run is closing the session: its end is not a drop
	readErr error   // why the reader ended, unless the run closed it
	lastOut time.Time
	bursts  int
	// frameSizes are the bytes of each frame in the window: a browser's frame message,
	// or a terminal's burst of output; frameBytes is the frame under way's, and
	// frameIn whether it began in the window.
	frameSizes []int32
	frameBytes int64
	frameIn    bool
	pending    []pendingKey
	latencies  []time.Duration
	answered   []int64 // when each of latencies' keys was answered, unix nanoseconds
	sent       int
	unanswered int
	recoveries int
	overlapped int    // measured keys written while an earlier key still waited for output
	msgs       string // the message lines at the last key (active sessions in game mode)
	back       bool   // the last key opened the map or help: the next one closes it
	dir        int    // the direction it is walking in

	// Held by mu as well: the scenarios' state. serverGoing says the server is being
	// restarted (-restart-after): the server's end of the connection is no drop either.
	serverGoing bool
	handshakeAt time.Time  // when the SSH handshake finished; zero until then
	depth       int        // the level the status line showed on arrival (0 outside); -1 until then
	fight       fightWatch // the battles its screen showed
	doors       doorSeeker // the way to the next door (-scenario rooms)
	typing      typing     // the line being typed (-scenario type)

	stallAfterArrival bool // stop reading output once in the dungeon (a hung client)
}

func newSession(id int, active bool, win *window) *session {
	return &session{id: id, active: active, win: win, arrived: make(chan struct{}), readDone: make(chan struct{}), depth: -1,
		doors: doorSeeker{crossed: -1}}
}

// failure is an error with the kind it is counted under.
type failure struct {
	kind string
	err  error
}

func (f *failure) Error() string { return f.kind + ": " + f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

func fail(kind string, err error) error { return &failure{kind: kind, err: err} }

// connect dials addr, authenticates with the session's key (a fresh ed25519 key when it
// has none yet), asks for an 80×24 xterm-256color PTY and starts the shell, then reads
// the output on its own goroutine. In game mode the output goes through a walker that
// presses Enter through the start screens (s.script); in bare mode the first frame is
// the arrival. The deadline bounds the handshake.
func (s *session) connect(ctx context.Context, addr string, deadline time.Time) error {
	if s.webURL != "" {
		return s.connectWeb(ctx, deadline)
	}
	if s.signer == nil {
		_, priv, err := ed25519.GenerateKey(nil)
		if err != nil {
			return fail("key", fmt.Errorf("generate key: %w", err))
		}
		if s.signer, err = gossh.NewSignerFromKey(priv); err != nil {
			return fail("key", fmt.Errorf("signer: %w", err))
		}
	}
	signer := s.signer
	s.dialAt = time.Now()
	d := net.Dialer{Timeout: time.Until(deadline)}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fail("dial", fmt.Errorf("dial %s: %w", addr, err))
	}
	s.mu.Lock()
	s.conn = conn
	closing := s.closing
	s.mu.Unlock()
	if closing {
		_ = conn.Close()
		return fail("dial", errors.New("run ended while dialling"))
	}
	_ = conn.SetDeadline(deadline)
	cc, chans, reqs, err := gossh.NewClientConn(conn, addr, &gossh.ClientConfig{
		User:            "load",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), // loopback load test: any host key
	})
	if err != nil {
		_ = conn.Close()
		return fail("handshake", fmt.Errorf("ssh handshake: %w", err))
	}
	s.mu.Lock()
	s.handshakeAt = time.Now()
	s.mu.Unlock()
	client := gossh.NewClient(cc, chans, reqs)
	sess, err := client.NewSession()
	if err != nil {
		_ = client.Close()
		return fail("session", fmt.Errorf("new session: %w", err))
	}
	if err := sess.RequestPty(termType, termHeight, termWidth, gossh.TerminalModes{}); err != nil {
		_ = client.Close()
		return fail("session", fmt.Errorf("request pty: %w", err))
	}
	stdin, err := sess.StdinPipe()
	if err != nil {
		_ = client.Close()
		return fail("session", fmt.Errorf("stdin: %w", err))
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		_ = client.Close()
		return fail("session", fmt.Errorf("stdout: %w", err))
	}
	s.mu.Lock()
	s.client, s.stdin = client, stdin
	if s.script != nil {
		s.walk = newWalker(s.script, termWidth, termHeight, knightName(rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))))
	}
	s.mu.Unlock()
	if err := sess.Shell(); err != nil {
		_ = client.Close()
		return fail("session", fmt.Errorf("shell: %w", err))
	}
	_ = conn.SetDeadline(time.Time{})
	go s.read(stdout)
	return nil
}

// read takes the session's output until it ends: it counts bytes, times the first
// frame, walks the start screens, and answers the keys waiting for output.
func (s *session) read(stdout io.Reader) {
	defer close(s.readDone)
	buf := make([]byte, 32*1024)
	for {
		if s.stallAfterArrival {
			select {
			case <-s.arrived:
				<-s.stalled() // hung: read nothing more until the run closes the session
				return
			default:
			}
		}
		n, err := stdout.Read(buf)
		if n > 0 {
			s.output(time.Now(), buf[:n])
		}
		if err != nil {
			s.mu.Lock()
			if !s.closing && !s.serverGoing {
				s.readErr = err
			}
			s.walk = nil
			s.mu.Unlock()
			return
		}
	}
}

// output handles one read of output that arrived at now.
func (s *session) output(now time.Time, b []byte) {
	s.bytes.Add(int64(len(b)))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.firstFrame == 0 {
		s.firstFrame = max(now.Sub(s.dialAt), time.Nanosecond)
		if s.walk == nil { // bare mode: the first frame is the arrival
			s.arrive(now)
		}
	}
	if s.walk != nil && s.arrival > 0 {
		_, _ = s.walk.text.Write(b) // an active session keeps its screen, to steer by
	} else if s.walk != nil {
		send, arrived := s.walk.feed(b)
		for _, k := range send {
			_, _ = io.WriteString(s.stdin, k) // a failure shows as a walk-in timeout
		}
		if arrived {
			s.depth = screenDepth(s.walk.screen())
			if !s.active {
				s.walk = nil
			}
			s.arrive(now)
		}
	}
	s.answer(now, len(b), now.Sub(s.lastOut) > burstGap)
}

// answer takes size bytes of output that arrived at now, newFrame when they begin a
// frame: they answer every key waiting, and count in the window's frames. s.mu is held.
func (s *session) answer(now time.Time, size int, newFrame bool) {
	for _, p := range s.pending {
		if p.measured {
			s.latencies = append(s.latencies, now.Sub(p.at))
			s.answered = append(s.answered, now.UnixNano())
		}
	}
	s.pending = s.pending[:0]
	if newFrame {
		s.endFrame()
		s.frameIn = s.win.in(now)
		if s.frameIn {
			s.bursts++
		}
	}
	s.frameBytes += int64(size)
	s.lastOut = now
}

// endFrame counts the frame under way, if it began in the window; s.mu is held.
func (s *session) endFrame() {
	if s.frameIn {
		s.frameSizes = append(s.frameSizes, int32(min(s.frameBytes, 1<<31-1)))
	}
	s.frameIn, s.frameBytes = false, 0
}

// arrive marks the session in the dungeon; s.mu is held.
func (s *session) arrive(now time.Time) {
	if s.arrival == 0 {
		s.arrival = max(now.Sub(s.dialAt), time.Nanosecond)
		close(s.arrived)
	}
}

// screen is the emulated screen while walking in, for the walk-in timeout's message.
func (s *session) screen() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.walk == nil {
		return ""
	}
	return s.walk.screen()
}

// play sends keys at rate a second until ctx ends, on a fixed schedule with a random
// phase and ±10 % jitter. The schedule does not wait for answers (an open loop), so a
// slow server shows as latency rather than as fewer keys.
func (s *session) play(ctx context.Context, rate float64, rng *rand.Rand) error {
	interval := time.Duration(float64(time.Second) / rate)
	next := time.Now().Add(time.Duration(rng.Int64N(int64(interval) + 1)))
	t := time.NewTimer(time.Until(next))
	defer t.Stop()
	s.dir = rng.IntN(len(arrows))
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.readDone:
			return nil
		case <-t.C:
		}
		if err := s.press(rng); err != nil {
			s.mu.Lock()
			going := s.serverGoing
			s.mu.Unlock()
			if ctx.Err() != nil || going {
				return nil
			}
			return fail("write", err)
		}
		jitter := time.Duration((rng.Float64()*0.2 - 0.1) * float64(interval))
		next = next.Add(interval + jitter)
		now := time.Now()
		if next.Before(now) {
			next = now
		}
		t.Reset(next.Sub(now))
	}
}

// press writes the next key: mostly an arrow, sometimes the map or the help page and
// then a key back, and now and then (game mode) a line in the chat; in a battle f on the
// knight's move and nothing while it waits for others; after a death the keys of a new
// knight (startKey); and a recovery key when the keys have gone unanswered for
// stuckAfter (see recoveryKey). It reads the screen for the battles it shows. A door
// seeker's arrows go towards a door and through it (steer.go). While the server goes
// down for a restart it sends nothing.
func (s *session) press(rng *rand.Rand) error {
	s.mu.Lock()
	if s.serverGoing { // a restart: the knight waits for the server to go
		s.mu.Unlock()
		return nil
	}
	now := time.Now()
	key, measured := s.nextKey(now, rng)
	if key == "" {
		s.mu.Unlock()
		return nil // a player waits for its move
	}
	n := 1
	if s.typist {
		n = len(key) // a typist's keys are a byte each (typer.go): a burst is its bytes
	}
	if measured && len(s.pending) > 0 && s.win.in(now) {
		s.overlapped += n
	}
	measured = measured && s.win.in(now)
	if measured {
		s.sent += n
	}
	for range n { // each key of a burst waits for the same output
		s.pending = append(s.pending, pendingKey{at: now, measured: measured})
	}
	stdin := s.stdin
	s.mu.Unlock()
	if _, err := io.WriteString(stdin, key); err != nil {
		return fmt.Errorf("write key: %w", err)
	}
	return nil
}

// nextKey is the key to press at now, and whether it is measured (a recovery key is
// not); "" when the knight waits in a battle. s.mu is held.
func (s *session) nextKey(now time.Time, rng *rand.Rand) (key string, measured bool) {
	var scr string // the screen, read once a key by the sessions that keep one
	if s.walk != nil {
		scr = s.walk.screen()
		s.fight.watch(scr, s.win.in(now))
	}
	if len(s.pending) > 0 && now.Sub(s.pending[0].at) > stuckAfter {
		return s.recover(), false
	}
	if s.back {
		s.back = false
		return keyBack, true
	}
	switch start := startKey(scr, s.walk); {
	case start != "":
		return start, true
	case strings.Contains(scr, yourMoveText):
		return keyFight, true
	case waitingInBattle(scr):
		return "", false
	}
	return s.playKey(scr, rng), true
}

// recover gives up the keys waiting for an answer, counting the measured ones as
// unanswered, and is the recovery key; s.mu is held.
func (s *session) recover() string {
	for _, p := range s.pending {
		if p.measured {
			s.unanswered++
		}
	}
	s.pending = s.pending[:0]
	s.recoveries++
	s.back = false
	return s.recoveryKey()
}

// playKey is a key of play on the screen scr: mostly an arrow, sometimes the map or the
// help page (the next key then goes back), in game mode now and then a line in the chat,
// and for a door seeker the way to a door; a typist's next key on the chat line; s.mu is
// held.
func (s *session) playKey(scr string, rng *rand.Rand) string {
	if s.typist && s.walk != nil {
		return s.typing.keys(scr, len(s.pending) > 0, s.typeBurst)
	}
	switch r := rng.Float64(); {
	case r < pMap:
		s.back = true
		return "m"
	case r < pMap+pHelp:
		s.back = true
		return "?"
	case s.walk != nil && r < pMap+pHelp+pChat:
		// Enter opens the chat line and Enter sends it; written at once, as a quick
		// typist's keys arrive, and answered by the line in the message area.
		return keyEnter + chatText + keyEnter
	case s.seekDoors && s.walk != nil && len(s.pending) == 0 && s.doors.next(s.walk, scr, rng):
		// -scenario rooms: towards a door the screen shows, and through it (steer.go);
		// where it shows none, or the last key changed nothing, the knight walks as
		// the others do.
		return s.doors.key
	}
	return s.walkKey(rng)
}

// walkKey is an arrow: on the way the knight walks, or turning; s.mu is held.
func (s *session) walkKey(rng *rand.Rand) string {
	switch {
	case s.blocked() || len(s.pending) > 0:
		// A wall or a door is in the way, or the last key changed nothing on the
		// screen (the third bump into the same wall leaves the message lines as they
		// were): a player would turn, so turn.
		s.dir = (s.dir + 1 + rng.IntN(len(arrows)-1)) % len(arrows)
	case rng.Float64() < pTurn:
		s.dir = rng.IntN(len(arrows))
	}
	return arrows[s.dir]
}

// startKey is the key that takes a knight that died (or retired) back into the dungeon
// from the screen scr, as the walk in does: Enter for a new knight, to keep the roll and
// to begin, the walker's name and Enter at the name prompt; "" on any other screen.
func startKey(scr string, w *walker) string {
	switch {
	case strings.Contains(scr, "Name your knight"):
		return w.name + keyEnter
	case strings.Contains(scr, "Press Enter to roll a new knight"), strings.Contains(scr, "Press r to roll again"),
		strings.Contains(scr, "Press Enter to begin"):
		return keyEnter
	}
	return ""
}

// waitingInBattle reports whether the screen scr shows a battle waiting for others.
func waitingInBattle(scr string) bool {
	for _, t := range battleTexts {
		if strings.Contains(scr, t) {
			return true
		}
	}
	return false
}

// recoveryKey is the key for a session whose keys go unanswered; s.mu is held. On the
// dungeon screen it is Esc, which closes whatever line or overlay took the keys (the
// game's chat line, opened by Enter, takes arrows); elsewhere (the knight died, or a
// session without a screen) it is Enter, which goes from the death screen through a
// new roll and name back into the dungeon, one screen per recovery.
func (s *session) recoveryKey() string {
	if s.walk != nil && strings.Contains(s.walk.lines(termHeight-1, termHeight), dungeonStatus) {
		return keyEsc
	}
	return keyEnter
}

// blocked reports whether a new message since the last key says a wall or a door
// blocks the way; s.mu is held. Only sessions that keep a screen (active, game mode)
// can tell.
func (s *session) blocked() bool {
	if s.walk == nil {
		return false
	}
	msgs := s.walk.lines(msgFirst, msgEnd)
	changed := msgs != s.msgs
	s.msgs = msgs
	last := msgs[strings.LastIndexByte(msgs[:len(msgs)-1], '\n')+1:]
	return changed && strings.Contains(last, bumpText)
}

// close ends the session; its end is then not counted as a drop.
func (s *session) close() {
	s.mu.Lock()
	s.closing = true
	client, conn, ws, wsStop := s.client, s.conn, s.ws, s.wsStop
	s.mu.Unlock()
	if ws != nil {
		closeWeb(ws, wsStop)
	} else if client != nil {
		_ = client.Close()
	} else if conn != nil {
		_ = conn.Close()
	}
}

// result is what a session measured, read once the run has stopped it.
type result struct {
	established bool
	dropped     bool
	readErr     error
	firstFrame  time.Duration
	arrival     time.Duration
	latencies   []time.Duration
	answered    []int64 // when each latency's key was answered, unix nanoseconds
	sent        int
	unanswered  int
	recoveries  int
	overlapped  int
	bursts      int
	depth       int // the level it arrived on (0 outside, -1 unknown)
	fights      fightCounts
	reads       bool // it kept its screen, and so could tell its battles
	web         bool // a browser's session
	frameSizes  []int32
}

// add takes in what the session that came back after a restart measured: a slot's keys,
// latencies, battles and drops are those of both its sessions.
func (r *result) add(b result) {
	r.dropped = r.dropped || b.dropped
	if r.readErr == nil {
		r.readErr = b.readErr
	}
	r.latencies = append(r.latencies, b.latencies...)
	r.answered = append(r.answered, b.answered...)
	r.sent += b.sent
	r.unanswered += b.unanswered
	r.recoveries += b.recoveries
	r.overlapped += b.overlapped
	r.bursts += b.bursts
	r.fights.add(b.fights)
	r.frameSizes = append(r.frameSizes, b.frameSizes...)
}

// result collects the session's measurements; keys still waiting are unanswered.
func (s *session) result() result {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endFrame()
	r := result{web: s.webURL != "", frameSizes: s.frameSizes,
		established: s.arrival > 0, firstFrame: s.firstFrame, arrival: s.arrival,
		latencies: s.latencies, answered: s.answered, sent: s.sent, unanswered: s.unanswered, recoveries: s.recoveries, overlapped: s.overlapped, bursts: s.bursts,
		depth: s.depth, fights: s.fight.n, reads: s.active && s.script != nil,
	}
	for _, p := range s.pending {
		if p.measured {
			r.unanswered++
		}
	}
	if r.established && s.readErr != nil {
		r.dropped, r.readErr = true, s.readErr
	}
	return r
}

// trimScreen shortens an emulated screen for an error message: its non-blank lines,
// joined with " | ", at most 300 characters.
func trimScreen(screen string) string {
	var lines []string
	for l := range strings.SplitSeq(screen, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	s := strings.Join(lines, " | ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// stalled is closed when the run closes the session; a stalled session waits on it.
func (s *session) stalled() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		for {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				close(ch)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	return ch
}
