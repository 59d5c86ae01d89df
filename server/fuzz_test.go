package server

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server/command"
)

// FuzzAdminCommandLine runs arbitrary command lines, as an admin and as a player, through
// the gate of a running server: every line gets an exit status and says why it failed,
// nothing panics, a player is only ever told "permission denied" for an admin command, and
// nothing else a player runs answers as it answers an admin.
func FuzzAdminCommandLine(f *testing.F) {
	for _, s := range []string{
		"regen 1 --seed 5", "regen all --json", "regen 0", "regen 99", "regen -1 --seed x", "regen 1 --seed 18446744073709551616",
		"revert", "revert 3 --json", "revert all extra", "kick", "kick \x1b]52;c;aGk=\x07", "ban", "ban SHA256:nope reason",
		"unban nobody", "broadcast \x1b[2J\x9bhello\u202e", "stats --json", "stats --bogus", "bans --json", "who --json",
		"regen --help", "backup --help", "broadcast " + strings.Repeat("x", 5000), "\xff\xfe", "",
		"silence", "silence Kay", "silence Kay 1x", "silence SHA256:nope 2h --reason \x1b]52;c;aGk=\x07", "silence nobody 7d",
		"unsilence", "unsilence nobody", "silences --json", "reports", "reports --json", "ban SHA256:nope --for 0s",
		"ban SHA256:nope --for 400d", "ban SHA256:nope --for=2w --reason spam", "ban SHA256:nope --for",
	} {
		f.Add(s)
	}
	admin, player := newKey(f), newKey(f)
	srv := startWorld(f, admin)
	adminKey, playerKey := publicKey(f, admin), publicKey(f, player)
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		if len(args) == 0 || args[0] == "backup" { // backup streams the whole file: not a line answer
			return
		}
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var out, errOut bytes.Buffer
		code := srv.runCommandLine(c, adminKey, args, &out, &errOut)
		if code != 0 && code != 1 {
			t.Fatalf("%q: exit %d", line, code)
		}
		if code == 1 && errOut.Len() == 0 {
			t.Fatalf("%q failed without saying why", line)
		}
		out.Reset()
		errOut.Reset()
		code = srv.runCommandLine(c, playerKey, args, &out, &errOut)
		if cmd, _ := srv.commands.Find(args); cmd != nil && cmd.Admin {
			if code != 1 || strings.TrimSpace(errOut.String()) != command.PermissionDenied || out.Len() != 0 {
				t.Fatalf("player ran %q: exit %d, %q %q", line, code, out.String(), errOut.String())
			}
			return
		}
		// Everyone's commands, and names that are no command: an answer, never an admin's.
		if code != 0 && code != 1 || code == 1 && errOut.Len() == 0 {
			t.Fatalf("player's %q: exit %d, %q", line, code, errOut.String())
		}
		if strings.Contains(out.String(), "FINGERPRINT") || strings.Contains(out.String(), "Admin commands") {
			t.Fatalf("player's %q was answered as an admin's:\n%s", line, out.String())
		}
	})
}
