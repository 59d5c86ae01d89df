package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
	gossh "golang.org/x/crypto/ssh"
)

// The tests' terminals: a session with a PTY read through an emulator as a player sees
// it, its keys and waits, and reading parts of its screen.

// Terminals: a session with a PTY, read through a terminal emulator.

// terminal is a real SSH session with a PTY whose output feeds a terminal emulator, so a
// test reads the screen the way a player sees it.
type terminal struct {
	t      testing.TB
	client *gossh.Client
	sess   *gossh.Session
	proc   *exec.Cmd // a real client program's terminal (openSSHTerminal) in place of client and sess
	stdin  io.WriteCloser
	mu     sync.Mutex
	em     *vt.Emulator
	raw    bytes.Buffer // every byte the server sent
	done   chan struct{}
	// A synchronized update (DEC mode 2026: a frame the server sends in several
	// packets) shows whole, as a terminal that knows the mode shows it: while one is
	// coming the screen read is held as it was before it (held), and carry is the start
	// of a mark cut by a read, not given to the emulator yet.
	inSync bool
	held   string
	carry  []byte
}

// openTerminal opens the game on a new connection with key, with env set for the
// session.
func openTerminal(t testing.TB, addr string, key gossh.Signer, w, h int, env map[string]string) *terminal {
	t.Helper()
	return terminalOn(t, dial(t, addr, key), w, h, env, "")
}

// openTerminalCmd is openTerminal for a command run with a terminal (ssh -t host CMD),
// or the game's shell when cmd is empty.
func openTerminalCmd(t testing.TB, addr string, key gossh.Signer, w, h int, cmd string) *terminal {
	t.Helper()
	return terminalOn(t, dial(t, addr, key), w, h, nil, cmd)
}

// terminalOn opens a terminal on a connected client: env set, cmd run (the game's shell
// when empty). The end of the test closes it and the client.
func terminalOn(t testing.TB, c *gossh.Client, w, h int, env map[string]string, cmd string) *terminal {
	t.Helper()
	tm, err := startTerminal(t, c, w, h, env, cmd)
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	t.Cleanup(tm.close)
	return tm
}

// openTerminalNoCleanup opens a terminal for a goroutine that may outlive a server process
// (the kill loop): failures return nil instead of failing the test.
func openTerminalNoCleanup(t testing.TB, addr string, key gossh.Signer, w, h int) *terminal {
	c, err := gossh.Dial("tcp", addr, clientConfig(gossh.PublicKeys(key)))
	if err != nil {
		return nil
	}
	tm, err := startTerminal(t, c, w, h, nil, "")
	if err != nil {
		c.Close()
		return nil
	}
	return tm
}

// startTerminal opens a session with a PTY on a connected client, runs cmd (the game's
// shell when empty), and feeds its output to a terminal emulator; the emulator's answers to
// terminal queries go back as input, as a real terminal's would.
func startTerminal(t testing.TB, c *gossh.Client, w, h int, env map[string]string, cmd string) (*terminal, error) {
	s, err := c.NewSession()
	if err != nil {
		return nil, err
	}
	return startTerminalIn(t, c, s, w, h, env, cmd)
}

// startTerminalIn is startTerminal in a session channel of c opened already.
func startTerminalIn(t testing.TB, c *gossh.Client, s *gossh.Session, w, h int, env map[string]string, cmd string) (*terminal, error) {
	var err error
	for k, v := range env {
		if err := s.Setenv(k, v); err != nil {
			return nil, err
		}
	}
	if err := s.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		return nil, err
	}
	rawIn, err := s.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdin := &lockedWriter{w: rawIn} // keys and the emulator's answers share it
	stdout, err := s.StdoutPipe()
	if err != nil {
		return nil, err
	}
	tm := &terminal{t: t, client: c, sess: s, stdin: stdin, em: vt.NewEmulator(w, h), done: make(chan struct{})}
	if cmd == "" {
		err = s.Shell()
	} else {
		err = s.Start(cmd)
	}
	if err != nil {
		return nil, err
	}
	tm.pump(stdout)
	return tm, nil
}

// pump feeds what out shows to the emulator (and raw), closing done when out ends, and
// sends the emulator's answers to terminal queries back as input, as a real terminal's
// would.
func (tm *terminal) pump(out io.Reader) {
	go func() {
		buf := make([]byte, 256)
		for {
			n, err := tm.em.Read(buf)
			if n > 0 {
				_, _ = tm.stdin.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		defer close(tm.done)
		buf := make([]byte, 32*1024)
		for {
			n, err := out.Read(buf)
			if n > 0 {
				tm.mu.Lock()
				tm.raw.Write(buf[:n])
				tm.feed(buf[:n])
				tm.mu.Unlock()
			}
			if err != nil { // the session or the client has ended (EIO on a pseudo-terminal)
				return
			}
		}
	}()
}

// openSSHTerminal runs the real OpenSSH client with args (opensshArgs' and more) in a
// pseudo-terminal of w×h, as a person runs it in a terminal window, and reads what it
// shows through the emulator. The end of the test ends the client.
func openSSHTerminal(t *testing.T, w, h int, args ...string) *terminal {
	t.Helper()
	bin := clientBinary(t, "ssh", "openssh-client")
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(h), Cols: uint16(w)})
	if err != nil {
		t.Fatal(err)
	}
	tm := &terminal{t: t, proc: cmd, stdin: &lockedWriter{w: ptmx}, em: vt.NewEmulator(w, h), done: make(chan struct{})}
	tm.pump(ptmx)
	t.Cleanup(tm.close)
	return tm
}

// opensshArgs are the arguments of OpenSSH for a test's connection to addr: no config,
// no known hosts, no agent, the key file if one is given (else no key at all: a person
// who never made one), then more.
func opensshArgs(addr, keyPath string, more ...string) []string {
	host, port, _ := net.SplitHostPort(addr)
	args := []string{"-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "IdentityAgent=none", "-o", "ConnectTimeout=10", "-o", "LogLevel=ERROR", "-p", port}
	if keyPath == "" {
		args = append(args, "-o", "PubkeyAuthentication=no")
	} else {
		args = append(args, "-o", "IdentitiesOnly=yes", "-i", keyPath)
	}
	return append(append(args, more...), "player@"+host)
}

// dialGuest connects with no key, as a guest (keyboard-interactive, which asks nothing).
func dialGuest(addr string) (*gossh.Client, error) {
	return gossh.Dial("tcp", addr, clientConfig(gossh.KeyboardInteractive(
		func(string, string, []string, []bool) ([]string, error) { return nil, nil })))
}

// close closes the terminal's session and its client.
func (tm *terminal) close() {
	if tm.proc != nil {
		_ = tm.proc.Process.Kill()
		<-tm.done
		_ = tm.stdin.Close()
		return
	}
	_ = tm.sess.Close()
	_ = tm.client.Close()
	// The emulator is not closed: its Close races with the goroutine reading its answers
	// (vt v0.1.0 reads its closed flag unguarded); that goroutine just stays parked.
}

// The marks of synchronized output, around a frame the server sends in several packets.
var (
	syncOn  = []byte(ansi.SetModeSynchronizedOutput)
	syncOff = []byte(ansi.ResetModeSynchronizedOutput)
)

// feed gives the emulator b, the next bytes the server sent, and notes where a
// synchronized update begins and ends: its start holds the screen a test reads, its end
// lets it go. tm.mu is held.
func (tm *terminal) feed(b []byte) {
	data := append(tm.carry, b...)
	tm.carry = nil
	for len(data) > 0 {
		mark := syncOn
		if tm.inSync {
			mark = syncOff
		}
		i := bytes.Index(data, mark)
		if i < 0 {
			keep := cutMark(data, mark)
			_, _ = tm.em.Write(data[:len(data)-keep])
			tm.carry = append([]byte(nil), data[len(data)-keep:]...)
			return
		}
		_, _ = tm.em.Write(data[:i+len(mark)])
		data = data[i+len(mark):]
		if !tm.inSync {
			tm.held = tm.em.String()
		}
		tm.inSync = !tm.inSync
	}
}

// cutMark is how many bytes at the end of data are the start of mark: a mark a read cut.
func cutMark(data, mark []byte) int {
	for n := min(len(mark)-1, len(data)); n > 0; n-- {
		if bytes.HasSuffix(data, mark[:n]) {
			return n
		}
	}
	return 0
}

// screen is the text on the emulated screen now: during a synchronized update, as it
// was before the update, as a terminal shows it.
func (tm *terminal) screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if tm.inSync {
		return tm.held
	}
	return tm.em.String()
}

// resize changes the terminal's size, as a player does with the window.
func (tm *terminal) resize(w, h int) {
	tm.t.Helper()
	tm.mu.Lock()
	tm.em.Resize(w, h)
	tm.mu.Unlock()
	if err := tm.sess.WindowChange(h, w); err != nil {
		tm.t.Fatalf("window change to %d×%d: %v", w, h, err)
	}
}

// rawOutput is every byte received so far, escape sequences included.
func (tm *terminal) rawOutput() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.raw.String()
}

// Keys as a terminal sends them.
const (
	keyEnter = "\r"
	keyUp    = "\x1b[A"
	keyDown  = "\x1b[B"
	keyRight = "\x1b[C"
	keyLeft  = "\x1b[D"
	// A bracketed paste: the terminal sends the pasted text between these.
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// press types keys, each as the terminal sends it.
func (tm *terminal) press(keys ...string) {
	tm.t.Helper()
	for _, k := range keys {
		if _, err := io.WriteString(tm.stdin, k); err != nil {
			tm.t.Fatalf("send key %q: %v", k, err)
		}
	}
}

// chat opens the chat line, types a line and sends it.
func (tm *terminal) chat(line string) {
	tm.press(keyEnter, line, keyEnter)
}

// quit leaves the game as a player does (q, then y) and waits for the session to end.
func (tm *terminal) quit() {
	tm.t.Helper()
	tm.press("q")
	tm.waitFor("(y/n)")
	tm.press("y")
	if !tm.ended(10 * time.Second) {
		tm.t.Fatalf("q, y did not end the session:\n%s", tm.screen())
	}
	// Every way of leaving says goodbye (issue 31), a keyed player's as a guest's.
	if !strings.Contains(tm.rawOutput(), "Farewell") {
		tm.t.Fatalf("q, y left no goodbye:\n%s", tm.rawOutput())
	}
}

// enterDungeon takes a brand-new player from the title screen into the dungeon, naming
// the knight (or pressing Enter at every prompt when name is empty).
func (tm *terminal) enterDungeon(name string) string {
	tm.t.Helper()
	tm.waitFor("Press Enter to begin")
	tm.press(keyEnter)
	tm.waitFor("Press r to roll again")
	tm.press(keyEnter)
	tm.waitFor("Name your knight")
	tm.press(name, keyEnter)
	return tm.waitFor("level 1 of the dungeon", "Depth 1")
}

// continueKnight takes a player whose knight is stored from the title screen back into
// the dungeon.
func (tm *terminal) continueKnight() string {
	tm.t.Helper()
	tm.waitFor("Press Enter to continue your adventure")
	tm.press(keyEnter)
	return tm.waitFor("Depth ")
}

// enterPlain takes a brand-new player in screen-reader mode (play --plain) from the title
// into the dungeon, naming the knight.
func (tm *terminal) enterPlain(name string) {
	tm.t.Helper()
	tm.waitRaw("Screen-reader mode is on", "Press Enter to begin.")
	tm.press(keyEnter)
	tm.waitRaw("The dice have spoken")
	tm.press(keyEnter)
	tm.waitRaw("Name your knight")
	tm.press(name, keyEnter)
	tm.waitRaw("Welcome, " + name + ".")
}

// log opens the message log, waits until it holds every want, and returns to the game.
func (tm *terminal) log(want ...string) string {
	tm.t.Helper()
	tm.press("M")
	s := tm.waitFor(append([]string{"MESSAGES AND CHAT"}, want...)...)
	tm.press("q")
	tm.waitScreen("the game again", func(s string) bool { return !strings.Contains(s, "MESSAGES AND CHAT") })
	return s
}

// exitStatus waits for the session to end and returns its exit status.
func (tm *terminal) exitStatus() int {
	tm.t.Helper()
	if !tm.ended(10 * time.Second) {
		tm.t.Fatalf("the session did not end:\n%s", tm.screen())
	}
	if tm.proc != nil {
		_ = tm.proc.Wait()
		return tm.proc.ProcessState.ExitCode()
	}
	var exit *gossh.ExitError
	switch err := tm.sess.Wait(); {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitStatus()
	default:
		tm.t.Fatalf("wait: %v", err)
		return -1
	}
}

// rawGame opens a game session with a PTY on a fresh connection whose screen is thrown
// away (no terminal emulator, whose goroutines would outlive the test's count).
func rawGame(t *testing.T, addr string) (*gossh.Client, *gossh.Session, io.WriteCloser) {
	t.Helper()
	c := dial(t, addr, newKey(t))
	s, in := rawShell(t, c)
	return c, s, in
}

// rawShell opens the game's shell with an 80×24 PTY on a connected client, its output
// thrown away, and returns the session and its input.
func rawShell(t *testing.T, c *gossh.Client) (*gossh.Session, io.WriteCloser) {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	s.Stdout, s.Stderr = io.Discard, io.Discard
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	return s, in
}

// lockedWriter lets the test's key presses and the emulator's answers to terminal queries
// share the session's input without racing.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// Reading part of a screen.

// screenWords is text with its whitespace made single spaces.
func screenWords(s string) string { return strings.Join(strings.Fields(s), " ") }

// screenArea is columns [x0, x1) of every line of a screen, the lines joined with spaces:
// a text wrapped within those columns reads whole in it.
func screenArea(screen string, x0, x1 int) string {
	var b strings.Builder
	for _, l := range strings.Split(screen, "\n") {
		r := []rune(l)
		b.WriteString(string(r[min(x0, len(r)):min(x1, len(r))]))
		b.WriteByte(' ')
	}
	return screenWords(b.String())
}

// panelTitles begin the top line of the battle panel: in a battle, and once it is over.
var panelTitles = []string{"┌─ BATTLE", "┌─ FIGHT", "┌─ LAST FIGHT"}

// panelArea is the columns inside the battle panel of a screen (none when it has none).
func panelArea(screen string) (x0, x1 int) {
	for _, l := range strings.Split(screen, "\n") {
		for _, title := range panelTitles {
			if i := strings.Index(l, title); i >= 0 {
				x := len([]rune(l[:i]))
				return x + 2, x + len([]rune(l[i:])) - 2 // the panel's corner ends the line
			}
		}
	}
	return 0, 0
}

// panelText is the text inside the battle panel of a screen, its lines joined with spaces
// and its whitespace made single: a log line the panel wraps reads whole in it.
func panelText(screen string) string {
	x0, x1 := panelArea(screen)
	return screenArea(screen, x0, x1)
}

// The tests' terminal shows a synchronized update whole, its marks cut by reads or not:
// until the update's end the screen read is the one before it.
func TestTheTestTerminalShowsASynchronizedUpdateWhole(t *testing.T) {
	tm := &terminal{em: vt.NewEmulator(20, 3)}
	screen := func() string { return strings.TrimSpace(tm.screen()) }
	tm.feed([]byte("hello"))
	tm.feed(syncOn[:3])
	if s := screen(); s != "hello" {
		t.Fatalf("before the update: %q", s)
	}
	tm.feed(append(append([]byte(nil), syncOn[3:]...), "\r\nworld"...))
	tm.feed(syncOff[:4])
	if s := screen(); s != "hello" {
		t.Fatalf("during the update: %q", s)
	}
	tm.feed(append(append([]byte(nil), syncOff[4:]...), "!"...))
	if s := screen(); s != "hello\nworld!" {
		t.Fatalf("after the update: %q", s)
	}
	tm.feed([]byte("\x1b[2J\x1b[H" + string(syncOn) + "one" + string(syncOff) + " two"))
	if s := screen(); s != "one two" {
		t.Fatalf("an update in one read: %q", s)
	}
}
