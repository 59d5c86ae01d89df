package command

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// fakeShared is a realm's shared records that write a line, or fail half way.
type fakeShared struct{ fail error }

func (f fakeShared) Export(_ context.Context, w io.Writer, _ time.Time) (knights.Tally, error) {
	_, _ = io.WriteString(w, "{\"orthanc\":\"export\"}\n")
	return knights.Tally{Revision: 9, Knights: 1, Keys: 1}, f.fail
}

func (f fakeShared) Tally(context.Context, time.Time) (knights.Tally, error) {
	return knights.Tally{}, f.fail
}

// export on a realm refuses a terminal and the console, naming the command line that
// works; one that fails half way says the file is not whole, and exits 1.
func TestExportRefusesATerminalAndSaysWhenItFailed(t *testing.T) {
	f := newOpsFixture(t)
	f.ops.Shared = fakeShared{}
	for _, tc := range []struct {
		from Session
		want string
	}{
		{Session{PTY: true}, "orthanc: export writes a file and a terminal is no place for it; run it without -t: ssh -p 2222 orthanc.test export > world.export\n"},
		{Session{Console: true}, "orthanc: export streams every knight's records; run it from a shell: ssh -p 2222 orthanc.test export > world.export\n"},
	} {
		if out, errOut, code := f.run(tc.from, "export"); out != "" || errOut != tc.want || code != 1 {
			t.Errorf("pty %v, console %v: out %q, err %q, exit %d; want err %q", tc.from.PTY, tc.from.Console, out, errOut, code, tc.want)
		}
	}
	out, errOut, code := f.run(Session{}, "export")
	if code != 0 || out != "{\"orthanc\":\"export\"}\n" || errOut != "exported 1 knight, 1 key, 0 letters in 0 mailboxes, 0 in the hall of fame, 0 tombstones, 0 bans, 0 silences, at etcd's revision 9\n" {
		t.Errorf("export: out %q, err %q, exit %d", out, errOut, code)
	}
	f.ops.Shared = fakeShared{fail: errors.New("etcd went away")}
	if _, errOut, code := f.run(Session{}, "export"); code != 1 || errOut != "orthanc: export failed: etcd went away; the file is not whole (-import refuses it), take it again\n" {
		t.Errorf("a failed export: err %q, exit %d", errOut, code)
	}
}
