package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testtools"
)

// unitFile is the systemd unit OPERATIONS installs, from this package's folder.
const unitFile = "../docs/orthanc-ssh.service"

// The unit file passes systemd-analyze verify, with no warning (an unknown key is only a
// warning to it), and keeps what OPERATIONS promises of it.
func TestSystemdUnitVerifies(t *testing.T) {
	text, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"User=orthanc", "StateDirectory=orthanc-ssh", "StateDirectoryMode=0700",
		"EnvironmentFile=-/etc/orthanc-ssh/env", "ExecStart=/usr/local/bin/orthanc-ssh\n",
		"ExecReload=/bin/kill -HUP $MAINPID", "NoNewPrivileges=yes", "ProtectSystem=strict",
		"CapabilityBoundingSet=\n", "#AmbientCapabilities=CAP_NET_BIND_SERVICE",
		"SystemCallFilter=@system-service",
	} {
		if !strings.Contains(string(text), "\n"+line) {
			t.Errorf("%s has no line %q", unitFile, strings.TrimSpace(line))
		}
	}
	analyze := testtools.Need(t, "systemd", "systemd-analyze") // else unitFile is not verified
	// verify wants ExecStart's binary to exist: point it at one that does.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(t.TempDir(), "orthanc-ssh.service")
	if err := os.WriteFile(unit, []byte(strings.ReplaceAll(string(text), "/usr/local/bin/orthanc-ssh", self)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", unit).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify %s: %v\n%s", unitFile, err, out)
	}
}
