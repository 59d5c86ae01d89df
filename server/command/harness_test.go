package command

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"log/slog"
	"strings"
	"testing"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// runningWorld is a world of seed 1977 that wanders nothing, running until the test ends.
func runningWorld(t testing.TB) *world.Engine {
	t.Helper()
	e := world.New(world.Config{Seed: 1977, WanderChance: -1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Run(ctx, nil); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return e
}

// quietLog is a logger that writes nowhere.
func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newKey is a fresh ed25519 public key.
func newKey(t testing.TB) ssh.PublicKey {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// testTable is a table of rows whose gate takes admins as the admin keys and finds the
// knight of a fingerprint in knightOf (none when nil).
func testTable(admins []ssh.PublicKey, knightOf map[string]string, rows ...Command) *Table {
	gate := Gate{
		Log: quietLog(),
		IsAdmin: func(key ssh.PublicKey) bool {
			for _, a := range admins {
				if bytes.Equal(a.Marshal(), key.Marshal()) {
					return true
				}
			}
			return false
		},
		KnightOf: func(fp string) (string, error) { return knightOf[fp], nil },
		SSH: func(flags ...string) string {
			return strings.Join(append(append([]string{"ssh"}, flags...), "-p", "2222", "example.org"), " ")
		},
	}
	return NewTable(gate, rows...)
}

// answer is what a command line answered.
type answer struct {
	out, errOut string
	code        int
}

// runLine runs line through t's gate as key, outside the console.
func runLine(tb testing.TB, t *Table, key ssh.PublicKey, line string) answer {
	tb.Helper()
	var out, errOut bytes.Buffer
	code := t.Run(context.Background(), Session{Key: key, Out: &out, ErrOut: &errOut}, strings.Fields(line))
	return answer{out.String(), errOut.String(), code}
}

// splitWords is the words of a line, as ssh hands a command's.
func splitWords(line string) []string { return strings.Fields(line) }
