package command

import (
	"strings"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
)

// reload says what the server read again: each admin key added or removed, each bad
// line skipped (their escapes dropped), and where the message of the day came from.
func TestReloadSaysWhatChanged(t *testing.T) {
	f := newOpsFixture(t)
	asked := 0
	r := Reloaded{AdminKeysFile: "/etc/orthanc/admin_keys", Admins: 2,
		Added:   []keys.Entry{{Fingerprint: "SHA256:added", Type: "ssh-ed25519", Comment: "\x1b[31mnew admin"}},
		Removed: []keys.Entry{{Fingerprint: "SHA256:gone-for-good", Type: "ssh-ed25519", Comment: "old"}},
		Skipped: []string{"line 3: not a key\a"}, MOTDChanged: true}
	f.ops.ReadAgain = func() Reloaded { asked++; return r }
	want := "Admin keys: 2, from /etc/orthanc/admin_keys.\n" +
		"  added    SHA256:added          new admin\n" +
		"  removed  SHA256:gone-for-good  old\n" +
		"  skipped line 3: not a key\n" +
		"Message of the day: changed, from the stored message (motd set).\n"
	if out, errOut, code := f.adminRun("reload"); out != want || errOut != "" || code != 0 {
		t.Errorf("reload: exit %d, err %q, out\n%s\nwant\n%s", code, errOut, out, want)
	}

	r = Reloaded{AdminKeysFile: "/etc/orthanc/admin_keys", Admins: 1, Added: []keys.Entry{}, Removed: []keys.Entry{},
		KeysError: "open /etc/orthanc/admin_keys: permission denied", MOTDFile: "/data/motd", MOTDError: "read /data/motd: is a directory"}
	want = "Admin keys: kept as they were (1): open /etc/orthanc/admin_keys: permission denied\n" +
		"Message of the day: kept as it was: read /data/motd: is a directory\n"
	if out, errOut, code := f.adminRun("reload"); out != want || errOut != "" || code != 0 {
		t.Errorf("reload that read nothing: exit %d, err %q, out\n%s\nwant\n%s", code, errOut, out, want)
	}

	r = Reloaded{AdminKeysFile: "/etc/orthanc/admin_keys", Admins: 1, Added: []keys.Entry{}, Removed: []keys.Entry{}, MOTDFile: "/data/motd"}
	want = "Admin keys: 1, from /etc/orthanc/admin_keys.\nMessage of the day: unchanged, from /data/motd.\n"
	if out, errOut, code := f.adminRun("reload"); out != want || errOut != "" || code != 0 {
		t.Errorf("reload of nothing new: exit %d, err %q, out\n%s\nwant\n%s", code, errOut, out, want)
	}
	want = `{"admin_keys_file":"/etc/orthanc/admin_keys","admin_keys":1,"admin_keys_added":[],"admin_keys_removed":[],"motd_file":"/data/motd","motd_changed":false}` + "\n"
	if out, errOut, code := f.adminRun("reload", "--json"); out != want || errOut != "" || code != 0 {
		t.Errorf("reload --json: exit %d, err %q, out %s want %s", code, errOut, out, want)
	}
	if asked != 4 {
		t.Errorf("the server was asked to reload %d times, want 4", asked)
	}
	if out, errOut, code := f.adminRun("reload", "now"); out != "" || errOut != "orthanc: unexpected \"now\"; usage: reload [--json]\n" || code != 1 || asked != 4 {
		t.Errorf("reload now: out %q, err %q, exit %d, reloads %d", out, errOut, code, asked)
	}
}

// admins lists the admin keys loaded, in words or in JSON; none is [] in JSON.
func TestAdminsListsTheAdminKeys(t *testing.T) {
	f := newOpsFixture(t)
	fp := keys.Fingerprint(f.admin)
	want := "1 admin keys, from /etc/orthanc/admin_keys:\n" +
		"FINGERPRINT" + strings.Repeat(" ", len(fp)-len("FINGERPRINT")+2) + "TYPE         COMMENT\n" +
		fp + "  ssh-ed25519  the admin\n"
	if out, errOut, code := f.adminRun("admins"); out != want || errOut != "" || code != 0 {
		t.Errorf("admins: exit %d, err %q, out\n%s\nwant\n%s", code, errOut, out, want)
	}
	want = `[{"fingerprint":"` + fp + `","type":"ssh-ed25519","comment":"the admin"}]` + "\n"
	if out, errOut, code := f.adminRun("admins", "--json"); out != want || errOut != "" || code != 0 {
		t.Errorf("admins --json: exit %d, err %q, out %s want %s", code, errOut, out, want)
	}
	// The list the gate reads is the server's; the one admins shows may be empty.
	f.ops.AdminKeys = func() *keys.AllowList { list, _ := keys.ParseAllowList(strings.NewReader("")); return list }
	if out, errOut, code := f.adminRun("admins", "--json"); out != "[]\n" || errOut != "" || code != 0 {
		t.Errorf("admins --json of none: exit %d, err %q, out %q", code, errOut, out)
	}
	if out, errOut, code := f.adminRun("admins"); out != "0 admin keys, from /etc/orthanc/admin_keys:\nFINGERPRINT  TYPE  COMMENT\n" || errOut != "" || code != 0 {
		t.Errorf("admins of none: exit %d, err %q, out %q", code, errOut, out)
	}
}
