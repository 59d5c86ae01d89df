package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
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

// The server's log says its version and Go's in its first line, so that every log says
// which build wrote it.
func TestTheFirstLogLineSaysTheVersion(t *testing.T) {
	_, log := startServer(t, "-data", t.TempDir())
	first, _, _ := strings.Cut(log.String(), "\n")
	if want := fmt.Sprintf("version=%s go=%s", version(), runtime.Version()); !strings.Contains(first, want) {
		t.Errorf("the first log line %q lacks %q", first, want)
	}
}
