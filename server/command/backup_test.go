package command

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// backup writes the database, a file bbolt opens and the store's check passes.
func TestBackupWritesTheDatabase(t *testing.T) {
	f := newOpsFixture(t)
	out, errOut, code := f.adminRun("backup")
	if code != 0 || errOut != "" || out == "" {
		t.Fatalf("backup: exit %d, err %q, %d bytes", code, errOut, len(out))
	}
	path := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CheckFile(path, store.Options{}); err != nil {
		t.Fatalf("the copy does not check: %v", err)
	}
}

// backup refuses a terminal, which would mangle binary, and the console, which is one;
// both name the command line that works.
func TestBackupRefusesATerminal(t *testing.T) {
	f := newOpsFixture(t)
	for _, tc := range []struct {
		from Session
		line []string
		want string
	}{
		{Session{PTY: true}, []string{"backup"}, "orthanc: backup writes binary and a terminal would mangle it; run it without -t: ssh -p 2222 orthanc.test backup > orthanc.db\n"},
		{Session{Console: true}, []string{"backup"}, "orthanc: backup streams the database as binary; run it from a shell: ssh -p 2222 orthanc.test backup > orthanc.db\n"},
		{Session{}, []string{"backup", "now"}, "orthanc: unexpected \"now\"; usage: backup\n"},
		{Session{}, []string{"backup", "--json"}, "orthanc: unknown flag \"--json\"; usage: backup\n"},
	} {
		out, errOut, code := f.run(tc.from, tc.line...)
		if out != "" || errOut != tc.want || code != 1 {
			t.Errorf("%q (pty %v, console %v): out %q, err %q, exit %d; want err %q", tc.line, tc.from.PTY, tc.from.Console, out, errOut, code, tc.want)
		}
	}
}
