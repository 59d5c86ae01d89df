package server

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// These tests run the command's binary as an operator does, against a server started in
// the test or on a data folder the test made.

// The binary dispatches `health` to the probe, as the image's HEALTHCHECK runs it.
func TestHealthSubcommandOfTheBinary(t *testing.T) {
	t.Parallel()
	ts := startServer(t, t.TempDir())
	out, err := exec.Command(serverBinary(t), "health", "-addr", ts.addr).CombinedOutput()
	if err != nil {
		t.Fatalf("orthanc-ssh health: %v, output %q", err, out)
	}
	if !strings.Contains(string(out), "ok: "+ts.addr+" answered SSH-2.0-") {
		t.Errorf("orthanc-ssh health said %q; want ok and the server's version line", out)
	}
}

// -version prints the version of the binary and exits 0, starting nothing.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(serverBinary(t), "-version", "-data", t.TempDir()).Output()
	if err != nil {
		t.Fatalf("-version: %v", err)
	}
	if !regexp.MustCompile(`^orthanc-ssh \S+ ` + regexp.QuoteMeta(runtime.Version()) + "\n$").Match(out) {
		t.Errorf("-version printed %q, want orthanc-ssh VERSION %s", out, runtime.Version())
	}
}

// An ORTHANC_ variable the server does not read is warned about right after the version
// line, with the known one closest to it when one is close.
func TestUnknownVariablesAreWarnedAbout(t *testing.T) {
	cmd := exec.Command(serverBinary(t), "-check", "-data", t.TempDir())
	cmd.Env = append(os.Environ(), "ORTHANC_MAX_SESION=5", "ORTHANC_COLOUR=red")
	out, _ := cmd.CombinedOutput()
	for _, w := range []string{
		`level=WARN msg="unknown variable ignored" variable=ORTHANC_MAX_SESION did_you_mean=ORTHANC_MAX_SESSIONS`,
		`level=WARN msg="unknown variable ignored" variable=ORTHANC_COLOUR` + "\n",
	} {
		if !strings.Contains(string(out), w) {
			t.Errorf("the server's log lacks %q:\n%s", w, out)
		}
	}
}

// runBinary runs the server binary with args, and none of the test's ORTHANC_ variables,
// until it exits by itself (within 30 s), and returns its exit code and what it said.
func runBinary(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, serverBinary(t), args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ORTHANC_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if exit := (*exec.ExitError)(nil); err != nil && !errors.As(err, &exit) {
		t.Fatalf("orthanc-ssh %q: %v\n%s", args, err, out)
	}
	if ctx.Err() != nil {
		t.Fatalf("orthanc-ssh %q did not exit by itself:\n%s", args, out)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}
