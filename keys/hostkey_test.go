package keys

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
)

func TestLoadOrCreateHostKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "keys") // does not exist yet

	s1, path, created, err := LoadOrCreateHostKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !created {
		t.Error("first call did not report creating the key")
	}
	if want := filepath.Join(dir, HostKeyFile); path != want {
		t.Errorf("path = %s, want %s", path, want)
	}
	if s1.PublicKey().Type() != ssh.KeyAlgoED25519 {
		t.Errorf("key type %s, want %s", s1.PublicKey().Type(), ssh.KeyAlgoED25519)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := fi.Mode().Perm(); mode != 0o600 {
		t.Errorf("key file mode %o, want 600", mode)
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if mode := di.Mode().Perm(); mode != 0o700 {
		t.Errorf("key dir mode %o, want 700", mode)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n")) {
		t.Errorf("key file is not an OpenSSH PEM:\n%s", data)
	}

	s2, path2, created, err := LoadOrCreateHostKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	if created {
		t.Error("second call created a key again")
	}
	if path2 != path {
		t.Errorf("second path %s, first %s", path2, path)
	}
	if !bytes.Equal(s1.PublicKey().Marshal(), s2.PublicKey().Marshal()) {
		t.Error("second call returned a different key")
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, data) {
		t.Error("second call rewrote the key file")
	}
	onlyKeyFile(t, dir)
}

// onlyKeyFile fails if dir holds anything but the host key (a leftover temp file).
func onlyKeyFile(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != HostKeyFile {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("dir holds %v, want only %s", names, HostKeyFile)
	}
}

func TestLoadOrCreateHostKeyCorrupt(t *testing.T) {
	for name, content := range map[string][]byte{
		"garbage":   []byte("this is not a key\n"),
		"empty":     {},
		"truncated": []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, HostKeyFile)
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			signer, gotPath, created, err := LoadOrCreateHostKey(dir)
			if err == nil {
				t.Fatal("corrupt key file was accepted")
			}
			if signer != nil || created {
				t.Errorf("signer %v, created %v with an error", signer, created)
			}
			if gotPath != path {
				t.Errorf("path %s, want %s", gotPath, path)
			}
			if !bytes.Contains([]byte(err.Error()), []byte(path)) {
				t.Errorf("error %q does not name %s", err, path)
			}
			after, rerr := os.ReadFile(path)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if !bytes.Equal(after, content) {
				t.Error("corrupt key file was modified")
			}
			onlyKeyFile(t, dir)
		})
	}
}

// TestLoadOrCreateHostKeyRace starts several servers on one fresh dir at once:
// exactly one creates the key and all use it.
func TestLoadOrCreateHostKeyRace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	const n = 8
	var (
		wg      sync.WaitGroup
		signers [n]ssh.Signer
		created [n]bool
		errs    [n]error
	)
	for i := range n {
		wg.Go(func() { signers[i], _, created[i], errs[i] = LoadOrCreateHostKey(dir) })
	}
	wg.Wait()
	creators := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if created[i] {
			creators++
		}
		if !bytes.Equal(signers[i].PublicKey().Marshal(), signers[0].PublicKey().Marshal()) {
			t.Errorf("caller %d got a different key", i)
		}
	}
	if creators != 1 {
		t.Errorf("%d callers report creating the key, want 1", creators)
	}
	onlyKeyFile(t, dir)
}

// TestHostKeyReadableBySSHKeygen checks that OpenSSH reads the key file we
// write and computes the same fingerprint.
func TestHostKeyReadableBySSHKeygen(t *testing.T) {
	keygen := sshKeygen(t)
	signer, path, _, err := LoadOrCreateHostKey(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Fingerprint(signer.PublicKey()), keygenFingerprint(t, keygen, path); got != want {
		t.Errorf("Fingerprint = %s, ssh-keygen %s", got, want)
	}
}
