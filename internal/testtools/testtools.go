// Package testtools is how a test that needs a program of the machine (an SSH client, a
// browser, promtool) finds it or skips, and how a package's tests then say, once, at the
// end of the run, which of them were skipped for want of which program. Each package
// with such tests runs them through Main (its TestMain); scripts/install-test-tools
// installs every program they use.
package testtools

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// InstallHint is what every skip and the summary say to do about a missing program.
const InstallHint = "scripts/install-test-tools installs the test tools"

// skips are the tests skipped so far, by program missing; a package's tests may run in
// parallel.
var skips = struct {
	sync.Mutex
	by map[string]*missing
}{by: map[string]*missing{}}

type missing struct {
	pkg   string // the Debian package that has the program
	tests []string
}

// Need returns the path of the first of names found on the PATH, or skips t, saying
// which Debian package, pkg, has it, and notes the skip for Main's summary.
func Need(t testing.TB, pkg string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	note(names[0], pkg, t.Name())
	t.Skipf("%s not installed (Debian package %s); %s", names[0], pkg, InstallHint)
	return ""
}

// note records that test was skipped for want of program.
func note(program, pkg, test string) {
	skips.Lock()
	defer skips.Unlock()
	m := skips.by[program]
	if m == nil {
		m = &missing{pkg: pkg}
		skips.by[program] = m
	}
	m.tests = append(m.tests, test)
}

// Summary is what the run skipped: a line naming the package's tests, then one line for
// each program missing, with the tests that needed it; empty when nothing was skipped.
func Summary(tests string) string {
	skips.Lock()
	defer skips.Unlock()
	if len(skips.by) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: some tests were skipped for want of a program (%s):\n", tests, InstallHint)
	for _, program := range slices.Sorted(maps.Keys(skips.by)) {
		m := skips.by[program]
		fmt.Fprintf(&b, "  %s (Debian package %s) missing: skipped %s\n", program, m.pkg, strings.Join(m.tests, ", "))
	}
	return b.String()
}

// Main runs a package's tests, then each of after (what the tests left to clean up once
// all have run: a binary built for them), tells the summary of what they skipped, and
// exits with the tests' code.
func Main(m *testing.M, after ...func()) {
	code := m.Run()
	for _, f := range after {
		f()
	}
	if s := Summary(strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")); s != "" {
		tell(s)
	}
	os.Exit(code)
}

// Waiting sets how many of a package's t.Parallel tests run at once, n, unless the
// command line says (-parallel): go test's default is the number of cores, which suits
// tests that compute, while end-to-end tests spend most of their time waiting on
// processes, sockets and the game's clock, so more of them fit on a core. A TestMain
// calls it before Main.
func Waiting(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}

// tell writes s where whoever runs go test sees it. `go test ./...` shows what a passing
// package's tests print only with -v, so s goes to the terminal itself when there is
// one (a person at it), and to the standard error otherwise (CI's log, shown with -v or
// when a test fails).
func tell(s string) {
	var out io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		out = tty
	}
	_, _ = io.WriteString(out, s)
}
