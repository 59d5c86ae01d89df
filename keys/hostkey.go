package keys

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/crypto/ssh"
)

// HostKeyFile is the name of the host key file inside the directory given to
// LoadOrCreateHostKey, as OpenSSH names its own.
const HostKeyFile = "ssh_host_ed25519_key"

// LoadOrCreateHostKey returns the server's host key from <dir>/ssh_host_ed25519_key.
// On the first call the file does not exist: a new ed25519 key is generated
// and written as an OpenSSH-format PEM with mode 0600 (dir is created with
// mode 0700 if missing), and created is true. The key is written to a
// temporary file in dir and then linked into place, so a crash never leaves a
// partial key and two servers starting at once end up sharing one key. Later
// calls load the same key. A file that exists but cannot be parsed is an error
// naming the file; it is never overwritten, since replacing a host key makes
// every client warn about a changed server identity.
func LoadOrCreateHostKey(dir string) (signer ssh.Signer, path string, created bool, err error) {
	path = filepath.Join(dir, HostKeyFile)
	signer, err = loadHostKey(path)
	if err == nil {
		return signer, path, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, path, false, err
	}

	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, path, false, fmt.Errorf("create host key dir %s: %w", dir, err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, path, false, fmt.Errorf("generate host key: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "orthanc-ssh host key")
	if err != nil {
		return nil, path, false, fmt.Errorf("encode host key: %w", err)
	}
	won, err := writeNewFile(path, pem.EncodeToMemory(block))
	if err != nil {
		return nil, path, false, err
	}
	// If another process created the key between our load and our write,
	// its key is the one on disk: use that one.
	signer, err = loadHostKey(path)
	if err != nil {
		return nil, path, false, err
	}
	return signer, path, won, nil
}

// loadHostKey reads and parses the private key at path. A missing file comes
// back as an error matching fs.ErrNotExist.
func loadHostKey(path string) (ssh.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read host key %s: %w", path, err)
	}
	signer, err := ssh.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("parse host key %s (fix or remove the file; it is not replaced automatically): %w", path, err)
	}
	return signer, nil
}

// writeNewFile creates path with data and mode 0600 unless it already exists.
// The data goes to a synced temporary file first, which is then hard-linked to
// path, so path is either absent or complete. It reports whether this call
// created path; false with no error means the file was already there.
func writeNewFile(path string, data []byte) (created bool, err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return false, fmt.Errorf("create temporary host key in %s: %w", dir, err)
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName) // after the link, path keeps the data

	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return false, fmt.Errorf("chmod %s: %w", tmpName, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, fmt.Errorf("write %s: %w", tmpName, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return false, fmt.Errorf("sync %s: %w", tmpName, err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("close %s: %w", tmpName, err)
	}

	// Link fails if path exists, so a key that appeared meanwhile is never
	// replaced. Where hard links are unsupported, fall back to an exclusive
	// create of path, which can leave a partial file only on a crash mid-write.
	switch err := os.Link(tmpName, path); {
	case err == nil:
	case errors.Is(err, fs.ErrExist):
		return false, nil
	default:
		if created, err := writeExclusive(path, data); err != nil || !created {
			return created, err
		}
	}
	syncDir(dir)
	return true, nil
}

// writeExclusive writes data to path with O_EXCL, for file systems without
// hard links.
func writeExclusive(path string, data []byte) (created bool, err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("create host key %s: %w", path, err)
	}
	// The file is ours until we return, so a failed write removes it rather
	// than leave a partial key that later calls would refuse.
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return false, fmt.Errorf("write host key %s: %w", path, err)
	}
	return true, nil
}

// syncDir makes a new directory entry durable where the platform allows it.
// Failure only weakens durability, so it is ignored.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
