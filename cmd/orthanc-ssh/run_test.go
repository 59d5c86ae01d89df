package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/server"
)

// A server that cannot start says why and what to do, and exits 1.

// A second server on the same data folder fails at once, naming the locked file.
func TestSecondServerOnTheSameDataFailsFast(t *testing.T) {
	dir := t.TempDir()
	startServer(t, "-data", dir)
	var stderr strings.Builder
	start := time.Now()
	code := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-data", dir}, func(string) string { return "" }, &stderr)
	if code != 1 || time.Since(start) > 5*time.Second {
		t.Fatalf("second server: exit %d after %v", code, time.Since(start))
	}
	if !strings.Contains(stderr.String(), filepath.Join(dir, "orthanc.db")) || !strings.Contains(stderr.String(), "in use") {
		t.Fatalf("second server's message does not name the locked file: %s", stderr.String())
	}
}

// A damaged or foreign data file, a file of a newer schema, or a data folder that cannot be
// written: the server refuses to start with a message naming the file and the fix, and
// leaves the file byte for byte as it was.
func TestBadDataRefusesToStart(t *testing.T) {
	good := t.TempDir()
	if code, log := startOnce(t, good); code != 0 {
		t.Fatalf("the server did not start on a new folder: exit %d:\n%s", code, log)
	}
	real, err := os.ReadFile(filepath.Join(good, "orthanc.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		setup func(dir string) string // returns the -data folder
		want  []string
	}{
		{"garbage", func(dir string) string {
			_ = os.WriteFile(filepath.Join(dir, "orthanc.db"), bytes.Repeat([]byte("not a database "), 4096), 0o600)
			return dir
		}, []string{"orthanc.db", "left untouched", "restore it from a backup"}},
		{"truncated", func(dir string) string {
			_ = os.WriteFile(filepath.Join(dir, "orthanc.db"), real[:len(real)/3], 0o600)
			return dir
		}, []string{"orthanc.db", "restore it from a backup"}},
		{"newer schema", func(dir string) string {
			db, err := bolt.Open(filepath.Join(dir, "orthanc.db"), 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			_ = db.Update(func(tx *bolt.Tx) error {
				b, _ := tx.CreateBucketIfNotExists([]byte("meta"))
				return b.Put([]byte("version"), []byte("99"))
			})
			_ = db.Close()
			return dir
		}, []string{"orthanc.db", "newer orthanc-ssh"}},
		{"folder not writable", func(dir string) string {
			f := filepath.Join(dir, "a-file")
			_ = os.WriteFile(f, nil, 0o600)
			return filepath.Join(f, "data") // a folder inside a file cannot be made
		}, []string{"cannot be written", "-data"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.setup(t.TempDir())
			before, _ := os.ReadFile(filepath.Join(data, "orthanc.db"))
			var stderr strings.Builder
			code := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-data", data}, func(string) string { return "" }, &stderr)
			if code != 1 {
				t.Fatalf("exit %d, want 1", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Fatalf("message lacks %q:\n%s", w, stderr.String())
				}
			}
			if after, _ := os.ReadFile(filepath.Join(data, "orthanc.db")); !bytes.Equal(before, after) {
				t.Fatal("the data file was changed")
			}
		})
	}
}

// A host key the server's user cannot read is reported as that ("cannot be read"), not
// as a data folder that cannot be written.
func TestUnreadableHostKeyAdvice(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, keys.HostKeyFile)
	if err := os.WriteFile(path, []byte("a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := fmt.Errorf("%w: read host key %s: %w", server.ErrHostKey, path, &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission})
	if advice := startAdvice(err, server.Config{Data: dir}); !strings.Contains(advice, path+" cannot be read") {
		t.Fatalf("advice for an unreadable host key: %q", advice)
	}
}

// SIGHUP reloads what can be reloaded (here the message of the day's file), logging
// what changed, and never ends the server.
func TestSIGHUPReloads(t *testing.T) {
	dir := t.TempDir()
	_, log := startServer(t, "-data", dir)
	if err := os.WriteFile(filepath.Join(dir, "motd"), []byte("The moat is closed today.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the reload to be logged", func() bool { return strings.Contains(log.String(), "msg=reloaded") })
	if want := `msg="reload: message of the day changed" from=` + filepath.Join(dir, "motd"); !strings.Contains(log.String(), want) {
		t.Errorf("the log has no %q:\n%s", want, log)
	}
}

// brokenListener is a listener whose Accept fails for good, as a closed socket's does.
type brokenListener struct{ net.Listener }

func (brokenListener) Accept() (net.Conn, error) { return nil, errors.New("the listener broke") }

// A server that stops on an error (its listener broken here; a panic in the world or the
// saver likewise: the server's tests) logs it and exits 1, for its supervisor to restart it.
func TestAServerStoppedByAnErrorExitsOne(t *testing.T) {
	defer func(l func(string, string) (net.Listener, error)) { listen = l }(listen)
	listen = func(network, addr string) (net.Listener, error) {
		ln, err := net.Listen(network, addr)
		return brokenListener{ln}, err
	}
	var log lockedBuffer
	code := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-data", t.TempDir(), "-tick", "5ms"}, envOf(), &log)
	if code != 1 || !strings.Contains(log.String(), `msg=serve err="the listener broke"`) || !strings.Contains(log.String(), "msg=stopped") {
		t.Errorf("exit %d, want 1 and the error logged:\n%s", code, log.String())
	}
}

// A port another program holds stops the start with exit status 1 and a line that
// names the flag and the fix: the SSH address, the metrics' and the web page's.
func TestAPortInUseNamesItsFlagAndTheFix(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	for _, flag := range []string{"-addr", "-metrics-addr", "-http-addr"} {
		args := []string{"-addr", "127.0.0.1:0", "-data", t.TempDir(), flag, addr}
		var stderr bytes.Buffer
		if code := run(context.Background(), args, func(string) string { return "" }, &stderr); code != 1 {
			t.Fatalf("%s in use: exit %d\n%s", flag, code, stderr.String())
		}
		want := "another program listens on " + addr + " (ss -ltnp 'sport = :" + port + "' names it): stop it, or give " + flag + " another port"
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("%s in use: the log does not say %q:\n%s", flag, want, stderr.String())
		}
	}
}
