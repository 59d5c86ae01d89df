package server

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
)

// Regression (issue 17): a world-readable host key, a data folder anyone could write,
// a database anyone could read and an admin keys file anyone could write gave no warning.

// The server warns at start, and in stats, of a host key or database other users can
// read and of a data folder or admin keys file they can write; the warnings go once the
// modes are fixed.
func TestPermissionWarnings(t *testing.T) {
	dir := t.TempDir()
	admin := newKey(t)
	writeAdminKeys(t, dir, admin)
	ts := startServer(t, dir)
	_ = ts.stop()
	files := map[string]os.FileMode{
		dir:                                  0o777,
		filepath.Join(dir, keys.HostKeyFile): 0o644,
		filepath.Join(dir, "orthanc.db"):     0o666,
		filepath.Join(dir, "admin_keys"):     0o666,
	}
	for path, mode := range files {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	var log lockedBuffer
	ts, _ = startLogging(t, testConfig(dir, defaultSeed), &log)
	for path, mode := range files {
		want := fmt.Sprintf("path=%s mode=%04o", path, mode)
		if !strings.Contains(log.String(), want) {
			t.Errorf("no warning with %s at start:\n%s", want, log.String())
		}
	}
	if n := strings.Count(log.String(), `level=WARN msg="permissions: `); n != len(files) {
		t.Errorf("%d permission warnings at start, want %d:\n%s", n, len(files), log.String())
	}
	st := statsJSONOf(t, ts.addr, admin)
	if len(st.Warnings) != len(files) {
		t.Fatalf("stats --json has %d warnings, want %d: %+v", len(st.Warnings), len(files), st.Warnings)
	}
	out, _, _ := runCmd(t, ts.addr, admin, "stats")
	if !strings.Contains(out, "warning") || !strings.Contains(out, "chmod 600 "+filepath.Join(dir, keys.HostKeyFile)) {
		t.Fatalf("stats does not show the warnings:\n%s", out)
	}
	for path := range files {
		mode := os.FileMode(0o600)
		if path == dir {
			mode = 0o700
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	if st := statsJSONOf(t, ts.addr, admin); len(st.Warnings) != 0 {
		t.Fatalf("warnings after the modes were fixed: %+v", st.Warnings)
	}
}

// A server that cannot read its host key refuses to start saying so. Run as root (who
// reads any file), the test starts the server binary as the user nobody.
func TestUnreadableHostKeyRefusesToStart(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	ts := startServer(t, data)
	_ = ts.stop()
	key := filepath.Join(data, keys.HostKeyFile)
	var out string
	var code int
	if os.Geteuid() != 0 {
		if err := os.Chmod(key, 0); err != nil {
			t.Fatal(err)
		}
		code, out = runBinary(t, "-addr", "127.0.0.1:0", "-data", data)
	} else {
		bin := serverBinary(t)
		// nobody may pass through the folders and run the binary, and read nothing else.
		for _, d := range []string{filepath.Dir(dir), dir, data, filepath.Dir(bin)} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-data", data)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		b, err := cmd.CombinedOutput()
		out = string(b)
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("the server as nobody: %v\n%s", err, out)
		}
		code = exit.ExitCode()
	}
	if code != 1 || !strings.Contains(out, key+" cannot be read") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}
