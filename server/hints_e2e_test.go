package server

import (
	"io"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// Behind -public-addr the lines that tell a player or an admin what to run name the
// address players reach, as they would type it: on port 22, without -p. (The scripts
// cover a server that names its listening port.)
func TestHintsNameThePublicAddress(t *testing.T) {
	dir := t.TempDir()
	admin, alice := newKey(t), newKey(t)
	writeAdminKeys(t, dir, admin)
	cfg := testConfig(dir, defaultSeed)
	cfg.PublicAddr = "play.example.org:22"
	ts, _ := startConfigured(t, cfg)
	a := openTerminal(t, ts.addr, alice, 80, 24, nil)
	a.enterDungeon("Kay")
	a.quit()

	for _, c := range []struct{ cmd, stdout, stderr string }{
		{cmd: "replay", stdout: "Your replays (ssh -t play.example.org replay N plays one):\n"},
		{cmd: "replay 1", stderr: "orthanc: replay needs a terminal to play one: ssh -t play.example.org replay 1\n"},
		{cmd: "play", stderr: "orthanc: play needs a terminal: ssh -t play.example.org play [--plain]\n"},
		{cmd: "help", stdout: "Orthanc over SSH. Connect with a terminal to play: ssh play.example.org\n" +
			"Commands (ssh play.example.org COMMAND):\n"},
		{cmd: "keys --help", stdout: "\n  ssh play.example.org link CODE\n"},
	} {
		out, errOut, _ := runCmd(t, ts.addr, alice, c.cmd)
		if !strings.Contains(out, c.stdout) || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%s: want %q and %q, got\n%s%s", c.cmd, c.stdout, c.stderr, out, errOut)
		}
	}
	// With a terminal: watch with no name, and a backup that a terminal would mangle.
	openTerminalCmd(t, ts.addr, alice, 80, 24, "watch").waitFor("usage: ssh -t play.example.org watch NAME")
	want := "orthanc: backup writes binary and a terminal would mangle it; run it without -t: ssh play.example.org backup > orthanc.db\r\n" // a terminal's line end
	if errOut := stderrWithTerminal(t, ts.addr, admin, "backup"); errOut != want {
		t.Errorf("backup with a terminal: %q, want %q", errOut, want)
	}
}

// stderrWithTerminal runs cmd in a session with a terminal and returns what it wrote to
// stderr.
func stderrWithTerminal(t *testing.T, addr string, key gossh.Signer, cmd string) string {
	t.Helper()
	c := dial(t, addr, key)
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	s.Stdout, s.Stderr = io.Discard, &errOut
	_ = s.Run(cmd) // it fails; its line is what is asked
	return errOut.String()
}
