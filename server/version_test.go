package server

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// A build is named by its module version when it has one, else by its commit and the
// commit's time (dirty when the work tree had changes), else "devel": a build with
// -buildvcs=false has no commit to name.
func TestVersionOfABuild(t *testing.T) {
	vcs := func(rev, at, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"a release", "v1.2.0", vcs(rev, "2026-12-01T10:00:00Z", "false"), "v1.2.0"},
		{"a commit", "(devel)", vcs(rev, "2026-12-01T10:00:00Z", "false"), "0123456789ab-2026-12-01T10:00:00Z"},
		{"a changed work tree", "(devel)", vcs(rev, "2026-12-01T10:00:00Z", "true"), "0123456789ab-2026-12-01T10:00:00Z-dirty"},
		{"no time", "", vcs(rev, "", "false"), "0123456789ab"},
		{"no VCS information", "(devel)", []debug.BuildSetting{{Key: "-buildvcs", Value: "false"}}, "devel"},
		{"nothing at all", "", nil, "devel"},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/orthanc-ssh/orthanc-ssh", Version: c.version}, Settings: c.settings}
		if got := versionOf(info); got != c.want {
			t.Errorf("%s: versionOf = %q, want %q", c.name, got, c.want)
		}
	}
	if strings.ContainsAny(version(), " \t\n") || version() == "" {
		t.Errorf("version() = %q: want one word, a metric's label", version())
	}
}

// A version stamped in by the linker (the Docker build's, which has no .git) is the
// version, whatever the build information says.
func TestAStampedVersionWins(t *testing.T) {
	stampedVersion = "0123456789ab"
	defer func() { stampedVersion = "" }()
	info := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "-buildvcs", Value: "false"}}}
	if got := versionOf(info); got != "0123456789ab" {
		t.Errorf("versionOf with a stamped version = %q", got)
	}
}

// -version prints the version of the binary and exits 0, starting nothing.
func TestVersionFlag(t *testing.T) {
	out, err := exec.Command(serverBinary(t), "-version", "-data", t.TempDir()).Output()
	if err != nil {
		t.Fatalf("-version: %v", err)
	}
	if !regexp.MustCompile(`^orthanc-ssh \S+ ` + regexp.QuoteMeta(runtime.Version()) + "\n$").Match(out) {
		t.Errorf("-version printed %q, want orthanc-ssh VERSION %s", out, runtime.Version())
	}
}

// The server says its version: in its first log line, and in stats, as text and JSON.
func TestTheServerSaysItsVersion(t *testing.T) {
	dir := t.TempDir()
	admin := newKey(t)
	writeAdminKeys(t, dir, admin)
	log := &lockedBuffer{}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"-addr", "127.0.0.1:0", "-data", dir, "-tick", "5ms"}, func(string) string { return "" }, log)
	}()
	var addr string
	waitUntil(t, "the server to listen", func() bool {
		m := listeningAddr.FindStringSubmatch(log.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	})
	first, _, _ := strings.Cut(log.String(), "\n")
	if want := fmt.Sprintf("version=%s go=%s", version(), runtime.Version()); !strings.Contains(first, want) {
		t.Errorf("the first log line %q lacks %q", first, want)
	}
	if st := statsJSONOf(t, addr, admin); st.Version != version() || st.GoVersion != runtime.Version() {
		t.Errorf("stats --json: version %q, go %q; want %q, %q", st.Version, st.GoVersion, version(), runtime.Version())
	}
	out, _, _ := runCmd(t, addr, admin, "stats")
	if want := fmt.Sprintf("version         %s (%s)", version(), runtime.Version()); !strings.Contains(out, want) {
		t.Errorf("stats lacks %q:\n%s", want, out)
	}
	stop()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit code %d after the stop", c)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the server did not stop")
	}
}
