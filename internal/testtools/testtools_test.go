package testtools

import (
	"strings"
	"testing"
)

// A program that is nowhere skips the test, and the summary names the program, its
// package and every test that wanted it, one line for each program, sorted.
func TestNeedSkipsAndTheSummaryTells(t *testing.T) {
	if s := Summary("pkg"); s != "" {
		t.Fatalf("a summary before any skip: %q", s)
	}
	for _, name := range []string{"first", "second"} {
		t.Run(name, func(t *testing.T) {
			Need(t, "no-such-package", "no-such-program-of-orthanc", "nor-this-one-of-orthanc")
			t.Error("Need did not skip")
		})
	}
	t.Run("other", func(t *testing.T) { Need(t, "pkg-b", "another-missing-program-of-orthanc") })
	t.Cleanup(func() { clear(skips.by) }) // the package's own summary stays empty
	want := "pkg: some tests were skipped for want of a program (" + InstallHint + "):\n" +
		"  another-missing-program-of-orthanc (Debian package pkg-b) missing: skipped TestNeedSkipsAndTheSummaryTells/other\n" +
		"  no-such-program-of-orthanc (Debian package no-such-package) missing: skipped TestNeedSkipsAndTheSummaryTells/first, TestNeedSkipsAndTheSummaryTells/second\n"
	if got := Summary("pkg"); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	if p := Need(t, "coreutils", "no-such-program-of-orthanc", "sh"); !strings.HasSuffix(p, "/sh") {
		t.Errorf("Need found %q, want the second name's sh", p)
	}
}
