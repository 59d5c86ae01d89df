package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// FuzzAdminCommandLine runs arbitrary admin command lines, as an admin and as a player, in a
// running server: every line gets an exit status and at most a few lines of answer, nothing
// panics, and a player is only ever told "permission denied" for an admin command.
func FuzzAdminCommandLine(f *testing.F) {
	for _, s := range []string{
		"regen 1 --seed 5", "regen all --json", "regen 0", "regen 99", "regen -1 --seed x", "regen 1 --seed 18446744073709551616",
		"revert", "revert 3 --json", "revert all extra", "kick", "kick \x1b]52;c;aGk=\x07", "ban", "ban SHA256:nope reason",
		"unban nobody", "broadcast \x1b[2J\x9bhello\u202e", "stats --json", "stats --bogus", "bans --json", "who --json",
		"regen --help", "backup --help", "broadcast " + strings.Repeat("x", 5000), "\xff\xfe", "",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	admin, player := newKey(f), newKey(f)
	if err := os.WriteFile(filepath.Join(dir, "admin_keys"), gossh.MarshalAuthorizedKey(admin.PublicKey()), 0o600); err != nil {
		f.Fatal(err)
	}
	srv, err := newServer(testConfig(dir, defaultSeed), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		f.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.engine.Run(ctx, nil); close(done) }()
	f.Cleanup(func() { cancel(); <-done; srv.close() })
	adminKey, _ := ssh.ParsePublicKey(admin.PublicKey().Marshal())
	playerKey, _ := ssh.ParsePublicKey(player.PublicKey().Marshal())
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		if len(args) == 0 || args[0] == "backup" { // backup streams the whole file: not a line answer
			return
		}
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var out, errOut bytes.Buffer
		code := srv.runAdmin(c, adminKey, args, &out, &errOut, false, false)
		if code != 0 && code != 1 {
			t.Fatalf("%q: exit %d", line, code)
		}
		if code == 1 && errOut.Len() == 0 {
			t.Fatalf("%q failed without saying why", line)
		}
		out.Reset()
		errOut.Reset()
		if code := srv.runAdmin(c, playerKey, args, &out, &errOut, false, false); code != 1 ||
			strings.TrimSpace(errOut.String()) != permissionDenied || out.Len() != 0 {
			t.Fatalf("player ran %q: exit %d, %q %q", line, code, out.String(), errOut.String())
		}
	})
}
