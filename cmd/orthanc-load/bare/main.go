// Command bare runs the bare reference server that orthanc-load compares the game with:
// wish and Bubble Tea v2, an 80×24 screen redrawn on a 10 Hz ticker, and no game. It
// listens until SIGINT or SIGTERM.
//
//	go run ./cmd/orthanc-load/bare -addr 127.0.0.1:2223
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bare:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bare", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:2223", "listen address")
	interval := fs.Duration("interval", bench.DefaultInterval, "redraw period of every session")
	quiet := fs.Bool("quiet", false, "do not log session starts and ends")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("flags: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if *quiet {
		log = slog.New(slog.DiscardHandler)
	}
	b, err := bench.New(bench.Config{Log: log, Interval: *interval})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	log.Info("listening", "addr", ln.Addr().String(), "interval", interval.String(), "started", time.Now().Format(time.RFC3339))
	return b.Serve(ctx, ln)
}
