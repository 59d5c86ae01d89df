package testtools

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
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

// Waiting raises the parallel tests' number when the command line does not give one,
// and leaves a -parallel given alone. The test binary runs itself to see it from a
// fresh command line.
func TestWaitingSetsParallelUnlessGiven(t *testing.T) {
	if os.Getenv("TESTTOOLS_WAITING") != "" {
		Waiting(7)
		fmt.Printf("parallel=%s\n", flag.Lookup("test.parallel").Value)
		return
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "parallel=7"},
		{[]string{"-test.parallel=3"}, "parallel=3"},
	} {
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestWaitingSetsParallelUnlessGiven$"}, c.args...)...)
		cmd.Env = append(os.Environ(), "TESTTOOLS_WAITING=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		if !strings.Contains(string(out), c.want+"\n") {
			t.Errorf("with %q the tests run %q at once; want %s", c.args, out, c.want)
		}
	}
}
