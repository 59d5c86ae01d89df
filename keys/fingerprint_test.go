package keys

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testtools"
)

// TestFingerprintFixtures checks Fingerprint against what ssh-keygen printed
// for the committed public keys in testdata, so the check runs without
// ssh-keygen installed.
func TestFingerprintFixtures(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "fingerprints.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line) // file bits fingerprint (TYPE)
		if len(fields) != 4 {
			t.Fatalf("bad fixture line %q", line)
		}
		file, want := fields[0], fields[2]
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			pk, _, _, _, err := ssh.ParseAuthorizedKey(data)
			if err != nil {
				t.Fatal(err)
			}
			if got := Fingerprint(pk); got != want {
				t.Errorf("Fingerprint = %s, ssh-keygen printed %s", got, want)
			}
		})
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		t.Fatalf("only %d fixtures in testdata/fingerprints.txt", n)
	}
}

// sshKeygen returns the path of ssh-keygen or skips the test.
func sshKeygen(t *testing.T) string {
	t.Helper()
	return testtools.Need(t, "openssh-client", "ssh-keygen")
}

// keygenFingerprint runs `ssh-keygen -l -E sha256 -f file` and returns the
// fingerprint field it prints.
func keygenFingerprint(t *testing.T, keygen, file string) string {
	t.Helper()
	out, err := exec.Command(keygen, "-l", "-E", "sha256", "-f", file).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen -l -f %s: %v\n%s", file, err, out)
	}
	fields := strings.Fields(string(out)) // bits fingerprint comment (TYPE)
	if len(fields) < 2 || !strings.HasPrefix(fields[1], "SHA256:") {
		t.Fatalf("unexpected ssh-keygen output %q", out)
	}
	return fields[1]
}

// TestFingerprintMatchesSSHKeygen generates keys of each type with the real
// ssh-keygen and compares fingerprints of both the public key file and the
// key read back from the private key file.
func TestFingerprintMatchesSSHKeygen(t *testing.T) {
	keygen := sshKeygen(t)
	for _, tc := range []struct{ name, typ, bits string }{
		{"ed25519", "ed25519", ""},
		{"rsa2048", "rsa", "2048"},
		{"ecdsa256", "ecdsa", "256"},
		{"ecdsa384", "ecdsa", "384"},
		{"ecdsa521", "ecdsa", "521"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			priv := filepath.Join(t.TempDir(), "id_"+tc.name)
			args := []string{"-q", "-t", tc.typ, "-N", "", "-C", "test@orthanc", "-f", priv}
			if tc.bits != "" {
				args = append(args, "-b", tc.bits)
			}
			if out, err := exec.Command(keygen, args...).CombinedOutput(); err != nil {
				t.Fatalf("ssh-keygen %v: %v\n%s", args, err, out)
			}
			want := keygenFingerprint(t, keygen, priv+".pub")

			pubData, err := os.ReadFile(priv + ".pub")
			if err != nil {
				t.Fatal(err)
			}
			pk, _, _, _, err := ssh.ParseAuthorizedKey(pubData)
			if err != nil {
				t.Fatal(err)
			}
			if got := Fingerprint(pk); got != want {
				t.Errorf("public key: Fingerprint = %s, ssh-keygen %s", got, want)
			}

			privData, err := os.ReadFile(priv)
			if err != nil {
				t.Fatal(err)
			}
			signer, err := ssh.ParsePrivateKey(privData)
			if err != nil {
				t.Fatal(err)
			}
			if got := Fingerprint(signer.PublicKey()); got != want {
				t.Errorf("private key: Fingerprint = %s, ssh-keygen %s", got, want)
			}
		})
	}
}

func TestFingerprintNil(t *testing.T) {
	if got := Fingerprint(nil); got != "" {
		t.Errorf("Fingerprint(nil) = %q, want empty", got)
	}
}

// TestMain runs the tests, then says which were skipped for want of ssh-keygen, once.
func TestMain(m *testing.M) { testtools.Main(m) }
