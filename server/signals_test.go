package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// Regression (issue 30): SIGHUP (an operator's, or the terminal that runs the server
// closing) ended the process at once, saving nothing. It reloads the admins' keys, and
// the server plays on.
func TestSIGHUPReloadsTheAdminKeys(t *testing.T) {
	dir := t.TempDir()
	cmd, addr := startProcess(t, dir)
	admin := newKey(t)
	if _, errOut, code := runCmd(t, addr, admin, "stats"); code != 1 || !strings.Contains(errOut, permissionDenied) {
		t.Fatalf("stats before the key is an admin's: %d %q", code, errOut)
	}
	writeAdminKeys(t, dir, admin)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the new admin key to be read", func() bool {
		_, _, code := runCmdQuiet(addr, admin, "stats")
		return code == 0
	})
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	mustRun(t, addr, admin, "stats")
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the server ended on SIGHUP: %v", err)
	}
}

// Regression (issue 30): SIGTERM while the disk was full gave up after 2 s and dropped
// the records waiting. The server stopping retries for -save-retry, the players told and
// playing on; once the disk takes writes again it saves everything and exits 0.
func TestStoppingOnAFullDiskRetries(t *testing.T) {
	dir := t.TempDir()
	var full atomic.Bool
	full.Store(true)
	log := &lockedBuffer{}
	code := make(chan int, 1)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	hooks := testHooks{flush: func() error {
		if full.Load() {
			return errors.New("write orthanc.db: no space left on device")
		}
		return nil
	}}
	go func() {
		code <- runWith(ctx, []string{"-addr", "127.0.0.1:0", "-data", dir, "-tick", "5ms", "-save-retry", "30s"},
			func(string) string { return "" }, log, hooks)
	}()
	waitUntil(t, "the server to listen", func() bool { return listeningAddr.MatchString(log.String()) })
	addr := listeningAddr.FindStringSubmatch(log.String())[1]
	key := newKey(t)
	tm := openTerminal(t, addr, key, 100, 30, nil)
	tm.enterDungeon("Patient")
	moved := tm.stepOut("the step", whoamiJSON(t, addr, key), func() whoami { return whoamiJSON(t, addr, key) })

	stop() // as SIGTERM does
	tm.waitFor("cannot save just now")
	select {
	case c := <-code:
		t.Fatalf("the server exited %d while its disk was full:\n%s", c, log)
	default:
	}
	full.Store(false)
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit status %d once the disk took writes:\n%s", c, log)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not stop once the disk took writes:\n%s", log)
	}
	if !strings.Contains(log.String(), "cannot save: retrying") {
		t.Errorf("the retries were not logged:\n%s", log)
	}
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := loadKnightOfKey(t, st, key)
	if err != nil || a.X != moved.X || a.Y != moved.Y {
		t.Fatalf("the knight was not saved where it stood: %+v %v, was at %d,%d", a, err, moved.X, moved.Y)
	}
}

// Issue 32: SIGHUP reads the admin keys and the message of the day's file again without
// dropping a player, and logs each key added by its fingerprint and the message changed.
func TestSIGHUPReloadsWithoutDroppingAPlayer(t *testing.T) {
	dir := t.TempDir()
	first, second := newKey(t), newKey(t)
	writeAdminKeys(t, dir, first)
	addr, log, _ := runCrashing(t, dir, testHooks{})
	player := newKey(t)
	tm := openTerminal(t, addr, player, 100, 30, nil)
	tm.enterDungeon("Steadfast")

	keysFile := string(gossh.MarshalAuthorizedKey(first.PublicKey())) +
		strings.TrimSpace(string(gossh.MarshalAuthorizedKey(second.PublicKey()))) + " the second admin\n"
	if err := os.WriteFile(filepath.Join(dir, "admin_keys"), []byte(keysFile), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "motd"), []byte("The moat is closed today.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the reload to be logged", func() bool { return strings.Contains(log.String(), "msg=reloaded") })
	for _, want := range []string{
		`msg="reload: admin key added" fingerprint=` + keys.Fingerprint(second.PublicKey()) + ` comment="the second admin"`,
		`msg="reload: message of the day changed" from=` + filepath.Join(dir, "motd"),
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log has no %q:\n%s", want, log)
		}
	}
	mustRun(t, addr, second, "stats")
	if out := mustRun(t, addr, player, "motd"); out != "The moat is closed today.\n" {
		t.Errorf("motd after the reload: %q", out)
	}
	tm.chat("still here after the reload")
	tm.waitFor("still here after the reload")
	if who := mustRun(t, addr, second, "who"); !strings.Contains(who, "Steadfast") {
		t.Errorf("the player is not online after the reload:\n%s", who)
	}
}
