// Command orthanc-ssh runs the Orthanc dungeon server: players connect with `ssh -p 2222
// host`, their key is their account. This package only wires the pieces together (config,
// logger, store, world, SSH server) and owns the process's signals and shutdown.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stderr))
}

// run starts the server and blocks until ctx ends, then shuts down; it returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	cfg, err := parseConfig(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "orthanc-ssh:", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	srv, err := newServer(cfg, log)
	if err != nil {
		log.Error("start", "err", err)
		return 1
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		log.Error("listen", "addr", cfg.addr, "err", err)
		srv.close()
		return 1
	}
	if err := srv.serve(ctx, ln); err != nil {
		log.Error("serve", "err", err)
		return 1
	}
	return 0
}
