package keys

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// newKey returns a fresh ed25519 public key and its authorized_keys text
// ("ssh-ed25519 AAAA...", no comment, no newline).
func newKey(t testing.TB) (ssh.PublicKey, string) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pk, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk)))
}

// lineErr asserts that err is a *LineError for line n wrapping want.
func lineErr(t *testing.T, err error, n int, want error) {
	t.Helper()
	var le *LineError
	if !errors.As(err, &le) {
		t.Fatalf("error %v is %T, not *LineError", err, err)
	}
	if le.Line != n {
		t.Errorf("error %q is for line %d, want line %d", err, le.Line, n)
	}
	if !strings.HasPrefix(err.Error(), "line "+strconv.Itoa(n)+": ") {
		t.Errorf("error %q does not start with %q", err, "line "+strconv.Itoa(n)+": ")
	}
	if want != nil && !errors.Is(err, want) {
		t.Errorf("error %q does not wrap %v", err, want)
	}
}

func TestParseAllowList(t *testing.T) {
	k1, a1 := newKey(t)
	k2, a2 := newKey(t)
	k3, a3 := newKey(t)
	k4, a4 := newKey(t)
	outsider, _ := newKey(t)
	rsaBlob := strings.Fields(a1)[1]
	garbageBlob := base64.StdEncoding.EncodeToString([]byte("\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x03abc"))
	dsaBlob := base64.StdEncoding.EncodeToString([]byte("\x00\x00\x00\x07ssh-dss\x00\x00\x00\x01\x01"))

	lines := []string{
		"# orthanc admins",        // 1 comment
		"",                        // 2 blank
		a1 + " alice@example.org", // 3 good, comment
		`from="10.0.0.1, 10.0.0.2",no-pty,command="echo \"hi there\"" ` + a2 + " bob's laptop", // 4 options with quoted spaces
		"  \t" + a3 + "\r",                 // 5 leading blanks, CRLF
		"ssh-ed25519 !!!not-base64!!!",     // 6 bad base64
		"ssh-foo AAAAC3NzaC1lZDI1NTE5",     // 7 unknown type
		"ssh-ed25519",                      // 8 type without key
		"ssh-rsa " + rsaBlob + " liar",     // 9 declared type differs from key
		`no-pty,from="10.0.0.1 ` + a4,      // 10 unterminated quote
		"ssh-ed25519 " + garbageBlob,       // 11 base64 of a broken key
		"    # indented comment",           // 12 comment
		a1 + " alice again",                // 13 duplicate, not an error
		"restrict " + a4 + " carol",        // 14 single option
		"ssh-ed25519-cert-v01@openssh.com", // 15 certificate type alone
		"\t",                               // 16 blank
		"ssh-dss " + dsaBlob + " old box",  // 17 a DSA key
		"no-pty ssh-dss " + dsaBlob,        // 18 a DSA key after options
	}
	al, errs := ParseAllowList(strings.NewReader(strings.Join(lines, "\n") + "\n"))

	want := []struct {
		line int
		err  error
	}{
		{6, ErrBadKeyData},
		{7, ErrUnknownKeyType},
		{8, ErrMalformedLine},
		{9, ErrBadKeyData},
		{10, ErrMalformedLine},
		{11, ErrBadKeyData},
		{15, ErrUnknownKeyType},
		{17, ErrDSAKey},
		{18, ErrDSAKey},
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d errors, want %d: %v", len(errs), len(want), errs)
	}
	for i, w := range want {
		lineErr(t, errs[i], w.line, w.err)
	}

	for name, k := range map[string]ssh.PublicKey{"plain": k1, "options": k2, "crlf": k3, "restrict": k4} {
		if !al.Contains(k) {
			t.Errorf("%s key not on the list", name)
		}
	}
	if al.Contains(outsider) {
		t.Error("outsider key is on the list")
	}
	if al.Contains(nil) {
		t.Error("nil key is on the list")
	}
	if al.Len() != 4 {
		t.Errorf("Len = %d, want 4", al.Len())
	}
	wantFPs := []string{Fingerprint(k1), Fingerprint(k2), Fingerprint(k3), Fingerprint(k4)}
	if got := al.Fingerprints(); !reflect.DeepEqual(got, wantFPs) {
		t.Errorf("Fingerprints = %v, want %v", got, wantFPs)
	}
	al.Fingerprints()[0] = "changed"
	if al.Fingerprints()[0] != wantFPs[0] {
		t.Error("Fingerprints returned the list's own slice")
	}
}

// TestParseAllowListAgreesWithXCrypto checks that every key this parser loads
// from a good line is the key x/crypto's own authorized_keys parser finds.
func TestParseAllowListAgreesWithXCrypto(t *testing.T) {
	_, a := newKey(t)
	for _, line := range []string{
		a,
		a + " comment with  spaces",
		`command="x y",no-port-forwarding ` + a + " c",
		"restrict,pty " + a,
	} {
		al, errs := ParseAllowList(strings.NewReader(line))
		if len(errs) != 0 || al.Len() != 1 {
			t.Fatalf("%q: errs %v, len %d", line, errs, al.Len())
		}
		pk, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
		if err != nil {
			t.Fatalf("x/crypto: %q: %v", line, err)
		}
		if !al.Contains(pk) {
			t.Errorf("%q: list lacks the key x/crypto parsed", line)
		}
	}
}

// A DSA key in the admin file is refused with a line that says why and what to list
// instead (the server takes no DSA signatures, so it could never log in); the other
// lines still load.
func TestADSAKeyIsRefusedWithAReason(t *testing.T) {
	k, a := newKey(t)
	dsa := "ssh-dss " + base64.StdEncoding.EncodeToString([]byte("\x00\x00\x00\x07ssh-dss")) + " old box"
	al, errs := ParseAllowList(strings.NewReader(dsa + "\n" + a + "\n"))
	if len(errs) != 1 {
		t.Fatalf("errs %v, want one", errs)
	}
	lineErr(t, errs[0], 1, ErrDSAKey)
	const want = "line 1: DSA key refused: ssh-dss keys cannot log in to this server; list an ed25519 key instead"
	if errs[0].Error() != want {
		t.Errorf("the refusal says %q, want %q", errs[0], want)
	}
	if al.Len() != 1 || !al.Contains(k) {
		t.Error("the line after a DSA key did not load")
	}
}

func TestParseAllowListEdges(t *testing.T) {
	k, a := newKey(t)

	t.Run("no trailing newline", func(t *testing.T) {
		al, errs := ParseAllowList(strings.NewReader("# x\n" + a))
		if len(errs) != 0 || !al.Contains(k) {
			t.Fatalf("errs %v, contains %v", errs, al.Contains(k))
		}
	})
	t.Run("empty", func(t *testing.T) {
		al, errs := ParseAllowList(strings.NewReader(""))
		if al == nil || al.Len() != 0 || len(errs) != 0 {
			t.Fatalf("al %v, errs %v", al, errs)
		}
	})
	t.Run("overlong line", func(t *testing.T) {
		long := "ssh-ed25519 " + strings.Repeat("A", maxLineBytes+10)
		al, errs := ParseAllowList(strings.NewReader(long + "\n" + a + "\n"))
		if len(errs) != 1 {
			t.Fatalf("errs %v, want one", errs)
		}
		lineErr(t, errs[0], 1, ErrMalformedLine)
		if !al.Contains(k) {
			t.Error("the line after an overlong line did not load")
		}
	})
	t.Run("read error", func(t *testing.T) {
		al, errs := ParseAllowList(&failingReader{data: a + "\n"})
		if len(errs) != 1 || !al.Contains(k) {
			t.Fatalf("errs %v, contains %v", errs, al.Contains(k))
		}
		lineErr(t, errs[0], 2, errReadFailed)
	})
}

var errReadFailed = errors.New("disk on fire")

// failingReader returns data, then an error.
type failingReader struct{ data string }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, errReadFailed
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestNilAllowList(t *testing.T) {
	var al *AllowList
	k, _ := newKey(t)
	if al.Contains(k) || al.Len() != 0 || al.Fingerprints() != nil {
		t.Error("nil AllowList is not empty")
	}
}

func TestLoadAllowList(t *testing.T) {
	dir := t.TempDir()
	k, a := newKey(t)

	t.Run("missing file", func(t *testing.T) {
		al, lineErrs, err := LoadAllowList(filepath.Join(dir, "nope", "admins"))
		if err != nil || len(lineErrs) != 0 {
			t.Fatalf("err %v, lineErrs %v", err, lineErrs)
		}
		if al == nil || al.Len() != 0 || al.Contains(k) {
			t.Fatal("missing file did not give an empty list")
		}
	})
	t.Run("file", func(t *testing.T) {
		path := filepath.Join(dir, "admins")
		if err := os.WriteFile(path, []byte("# admins\n"+a+" me\nbogus line\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		al, lineErrs, err := LoadAllowList(path)
		if err != nil {
			t.Fatal(err)
		}
		if !al.Contains(k) || al.Len() != 1 {
			t.Errorf("contains %v, len %d", al.Contains(k), al.Len())
		}
		if len(lineErrs) != 1 {
			t.Fatalf("lineErrs %v, want one", lineErrs)
		}
		lineErr(t, lineErrs[0], 3, nil)
	})
	t.Run("directory", func(t *testing.T) {
		al, _, err := LoadAllowList(dir)
		if err == nil {
			t.Fatal("reading a directory was not an error")
		}
		if al != nil {
			t.Error("list returned with an error")
		}
		if !strings.Contains(err.Error(), dir) {
			t.Errorf("error %q does not name %s", err, dir)
		}
	})
}

func FuzzParseAllowList(f *testing.F) {
	_, a := newKey(f)
	f.Add(a + " c\n# x\n\nfrom=\"a b\" " + a)
	f.Add("ssh-rsa AAAA\n\"\"\" ssh-ed25519\r\n")
	f.Add(`a="\` + "\n" + `\"`)
	f.Fuzz(func(t *testing.T, in string) {
		al, errs := ParseAllowList(strings.NewReader(in))
		if al == nil {
			t.Fatal("nil list")
		}
		maxLine := strings.Count(in, "\n") + 1
		for _, err := range errs {
			var le *LineError
			if !errors.As(err, &le) || le.Line < 1 || le.Line > maxLine {
				t.Fatalf("bad error %v", err)
			}
		}
	})
}

// Bad lines x/crypto's parser refuses, or takes but the list does not, each refused
// with its reason; the good line among them still loads.
func TestParseAllowListBadLines(t *testing.T) {
	k, a := newKey(t)
	ed := strings.Fields(a)[1]
	ca, err := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	cert := &ssh.Certificate{Key: k, CertType: ssh.UserCert, ValidPrincipals: []string{"admin"}, ValidBefore: ssh.CertTimeInfinity}
	if err := cert.SignCert(rand.Reader, ca); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line string
		want error
		says string
	}{
		{strings.TrimSpace(string(ssh.MarshalAuthorizedKey(cert))) + " a cert", ErrUnknownKeyType, "not a certificate"},
		{"restrict ssh-rsa " + ed, ErrBadKeyData, "mismatch"},    // declared type after options differs
		{"ssh-ed25519 " + ed[:20], ErrBadKeyData, "ssh-ed25519"}, // cut short
		{"no-pty,restrict", ErrMalformedLine, "neither a key type"},
		{`from="10.0.0.1" ssh-foo ` + ed, ErrUnknownKeyType, "no key type"},
		{`command="echo hi ` + a, ErrMalformedLine, "unterminated quote"},
		{"ssh-ed25519-cert-v01@openssh.com " + ed, ErrUnknownKeyType, "not a certificate"},
		{"ssh-dss", ErrDSAKey, "ed25519"},
	} {
		al, errs := ParseAllowList(strings.NewReader(tc.line + "\n" + a + "\n"))
		if len(errs) != 1 {
			t.Errorf("%q: errors %v, want one", tc.line, errs)
			continue
		}
		lineErr(t, errs[0], 1, tc.want)
		if !strings.Contains(errs[0].Error(), tc.says) {
			t.Errorf("%q: %q does not say %q", tc.line, errs[0], tc.says)
		}
		if al.Len() != 1 || !al.Contains(k) {
			t.Errorf("%q: the good line after it did not load", tc.line)
		}
	}
}
