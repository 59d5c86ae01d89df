package server

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// The server says the version it is given (the command's, whose log's first line says
// it too) in stats, as text and JSON, with Go's.
func TestTheServerSaysItsVersion(t *testing.T) {
	ts, admin := startAdminServer(t)
	if st := statsJSONOf(t, ts.addr, admin); st.Version != testVersion || st.GoVersion != runtime.Version() {
		t.Errorf("stats --json: version %q, go %q; want %q, %q", st.Version, st.GoVersion, testVersion, runtime.Version())
	}
	out, _, _ := runCmd(t, ts.addr, admin, "stats")
	if want := fmt.Sprintf("version         %s (%s)", testVersion, runtime.Version()); !strings.Contains(out, want) {
		t.Errorf("stats lacks %q:\n%s", want, out)
	}
	if err := ts.stop(); err != nil {
		t.Errorf("the stop: %v", err)
	}
}
