// Command rawssh runs the raw reference server of the load tool's handshake mode: an SSH
// server of golang.org/x/crypto/ssh alone (package internal/rawssh says what it sets:
// the game server's algorithms, an ed25519 host key made in memory, any public key let
// in, every channel refused). orthanc-load -mode handshake measures how many logins a
// second it sustains, to set against the game server on the same box. It listens until
// SIGINT or SIGTERM.
//
//	go run ./cmd/orthanc-load/rawssh -addr 127.0.0.1:2224
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/orthanc-ssh/orthanc-ssh/internal/rawssh"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "rawssh:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("rawssh", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:2224", "listen address")
	timeout := fs.Duration("handshake-timeout", rawssh.DefaultHandshakeTimeout, "time to finish the SSH handshake")
	frameBytes := fs.Int("frame-bytes", 0, "bytes of the frame that answers each read of keys in a session (0: sessions refused)")
	frameEvery := fs.Duration("frame-every", 0, "with -frame-bytes, how often a session is sent a frame unasked (0: never)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("flags: %w", err)
	}
	if *frameBytes < 0 || *frameEvery < 0 {
		return errors.New("flags: -frame-bytes and -frame-every may not be negative")
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, err := rawssh.New(*timeout)
	if err != nil {
		return err
	}
	srv.PlayFrames(rawssh.Frames{Size: *frameBytes, Every: *frameEvery})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	log.Info("listening", "addr", ln.Addr().String())
	err = srv.Serve(ctx, ln)
	log.Info("stopped", "logins", srv.Logins(), "failed", srv.Failed())
	return err
}
