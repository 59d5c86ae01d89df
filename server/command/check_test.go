package command

import (
	"fmt"
	"testing"
)

// check reads the live database and says it is sound, in words or in JSON.
func TestCheckSaysTheDatabaseIsSound(t *testing.T) {
	f := newOpsFixture(t)
	path := f.store.Path()
	for _, tc := range []struct {
		line []string
		want string
	}{
		{[]string{"check"}, path + " is sound: every page, checksum and record read.\n"},
		{[]string{"check", "--json"}, fmt.Sprintf("{\"path\":%q,\"sound\":true}\n", path)},
	} {
		if out, errOut, code := f.adminRun(tc.line...); out != tc.want || errOut != "" || code != 0 {
			t.Errorf("%q: out %q, err %q, exit %d; want %q", tc.line, out, errOut, code, tc.want)
		}
	}
}

// check takes --json and nothing else.
func TestCheckRefusesWhatItDoesNotTake(t *testing.T) {
	f := newOpsFixture(t)
	for line, want := range map[string]string{
		"--bogus": "orthanc: unknown flag \"--bogus\"; usage: check [--json]\n",
		"all":     "orthanc: unexpected \"all\"; usage: check [--json]\n",
	} {
		if out, errOut, code := f.adminRun("check", line); out != "" || errOut != want || code != 1 {
			t.Errorf("check %s: out %q, err %q, exit %d; want %q", line, out, errOut, code, want)
		}
	}
}
