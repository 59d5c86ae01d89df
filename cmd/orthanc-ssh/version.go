package main

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// stampedVersion is the version a build without VCS information is given with -ldflags
// "-X main.stampedVersion=V": the Dockerfile's, whose build is sent no .git. Empty
// otherwise; it wins over what the build information says.
var stampedVersion string

// version is this binary's version, read once from its build information.
var version = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = &debug.BuildInfo{}
	}
	return versionOf(info)
})

// versionOf names a build: the version stamped into it if any, else the module version
// when it was built as a module of that version (go install ...@v1.2.0) or, from Go 1.24,
// built in a clone (the commit's pseudo-version, "+dirty" when the work tree had
// changes), otherwise the commit it was built from with its time ("-dirty" likewise),
// otherwise "devel" (a build with -buildvcs=false, or out of a folder that is no
// repository).
func versionOf(info *debug.BuildInfo) string {
	if stampedVersion != "" {
		return stampedVersion
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	v := rev[:min(len(rev), 12)]
	if at != "" {
		v += "-" + at // no space: the version is a metric's label and a log value
	}
	if dirty {
		v += "-dirty"
	}
	return v
}

// goVersion is the Go release the binary was built with.
func goVersion() string { return runtime.Version() }
