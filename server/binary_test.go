package server

import (
	"os/exec"
	"strings"
	"testing"
)

// These tests run the command's binary as an operator does, against a server started in
// the test or on a data folder the test made.

// The binary dispatches `health` to the probe, as the image's HEALTHCHECK runs it.
func TestHealthSubcommandOfTheBinary(t *testing.T) {
	ts := startServer(t, t.TempDir())
	out, err := exec.Command(serverBinary(t), "health", "-addr", ts.addr).CombinedOutput()
	if err != nil {
		t.Fatalf("orthanc-ssh health: %v, output %q", err, out)
	}
	if !strings.Contains(string(out), "ok: "+ts.addr+" answered SSH-2.0-") {
		t.Errorf("orthanc-ssh health said %q; want ok and the server's version line", out)
	}
}
