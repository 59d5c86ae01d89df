package server

import (
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
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// Regression (issue 30): SIGHUP (an operator's, or the terminal that runs the server
// closing) ended the process at once, saving nothing. It reloads the admins' keys, and
// the server plays on.
func TestSIGHUPReloadsTheAdminKeys(t *testing.T) {
	dir := t.TempDir()
	cmd, addr := startProcess(t, dir)
	admin := newKey(t)
	if _, errOut, code := runCmd(t, addr, admin, "stats"); code != 1 || !strings.Contains(errOut, command.PermissionDenied) {
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
	hooks := testHooks{flush: func() error {
		if full.Load() {
			return errors.New("write orthanc.db: no space left on device")
		}
		return nil
	}}
	cfg := testConfig(dir, defaultSeed)
	cfg.SaveRetry = 30 * time.Second
	h := startHooked(t, cfg, hooks)
	addr, log := h.addr, h.log
	key := newKey(t)
	tm := openTerminal(t, addr, key, 100, 30, nil)
	tm.enterDungeon("Patient")
	moved := tm.stepOut("the step", whoamiJSON(t, addr, key), func() command.Whoami { return whoamiJSON(t, addr, key) })

	h.stop() // as SIGTERM does
	tm.waitFor("cannot save just now")
	select {
	case err := <-h.served:
		t.Fatalf("the server stopped (%v) while its disk was full:\n%s", err, log)
	default:
	}
	full.Store(false)
	select {
	case err := <-h.served:
		if err != nil {
			t.Fatalf("Serve returned %v once the disk took writes, want nil (exit status 0):\n%s", err, log)
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

// Issue 32: SIGHUP (Reload; the command's test sends the signal) reads the admin keys and
// the message of the day's file again without dropping a player, and logs each key added
// by its fingerprint and the message changed.
func TestReloadWithoutDroppingAPlayer(t *testing.T) {
	dir := t.TempDir()
	first, second := newKey(t), newKey(t)
	writeAdminKeys(t, dir, first)
	h := startHooked(t, testConfig(dir, defaultSeed), testHooks{})
	addr, log := h.addr, h.log
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
	h.srv.Reload()
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
