package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"time"
)

// `orthanc-ssh health` is what a container's HEALTHCHECK (or a monitoring script) runs: it
// dials the server's own SSH port and reads the version line every SSH server sends first.
// A server that answers it is up and taking connections; nothing is logged in, so it needs
// no key. Exit 0 healthy, 1 not (Docker reserves 2), one line either way.
//
// The probe ends before the key exchange: the server counts it in
// orthanc_handshake_failures_total and charges the loopback address a second's penalty,
// which runs out long before the next probe at any sane interval.

// defaultHealthTimeout is how long the probe waits for the connection and the version
// line: the server sends it at once, so seconds mean it is stuck.
const defaultHealthTimeout = 3 * time.Second

// maxBannerLines is how many lines the probe reads looking for the version line: RFC 4253
// lets a server send other lines before it, and ours sends one (a refusal) at most.
const maxBannerLines = 10

// health runs the health subcommand (orthanc-ssh health) with its arguments and
// returns the exit code.
func health(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("orthanc-ssh health", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := getenv("ORTHANC_ADDR")
	if addr == "" {
		addr = ":2222"
	}
	fs.StringVar(&addr, "addr", addr, "the server's listen address, as its -addr (env ORTHANC_ADDR); an empty or unspecified host means this machine")
	timeout := fs.Duration("timeout", defaultHealthTimeout, "how long to wait for the connection and the SSH version line")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "orthanc-ssh health: unhealthy: unexpected arguments %q\n", fs.Args())
		return 1
	}
	target, err := dialTarget(addr)
	if err == nil {
		var banner string
		banner, err = probeSSH(target, *timeout)
		if err == nil {
			fmt.Fprintf(stdout, "orthanc-ssh health: ok: %s answered %s\n", target, banner)
			return 0
		}
	}
	fmt.Fprintf(stderr, "orthanc-ssh health: unhealthy: %v\n", err)
	return 1
}

// dialTarget is the address to dial for a server listening on addr: the same port, on
// the loopback address when the server listens on every address.
func dialTarget(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	} else if ip, err := netip.ParseAddr(host); err == nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip.Is6() {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, port), nil
}

// probeSSH connects to target and returns the SSH version line it sends, or why there
// was none within timeout.
func probeSSH(target string, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	conn, err := net.DialTimeout("tcp", target, timeout)
	if err != nil {
		return "", fmt.Errorf("cannot connect: %w", err)
	}
	defer conn.Close()
	if err := conn.SetReadDeadline(deadline); err != nil {
		return "", fmt.Errorf("%s: %w", target, err)
	}
	r := bufio.NewReaderSize(conn, 256)
	var other string // the first line that was not the version line
	for range maxBannerLines {
		raw, err := r.ReadSlice('\n') // at most the buffer: a version line is 255 bytes
		line := strings.TrimRight(string(raw), "\r\n")
		if strings.HasPrefix(line, "SSH-") {
			return line, nil
		}
		if other == "" {
			other = line
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			break
		}
		if err != nil {
			return "", noBanner(target, other, timeout, err)
		}
	}
	return "", fmt.Errorf("%s answered %q, not SSH", target, other)
}

// noBanner says why target sent no version line: it answered something else, said
// nothing in time, or hung up.
func noBanner(target, other string, timeout time.Duration, err error) error {
	var netErr net.Error
	switch {
	case other != "":
		return fmt.Errorf("%s answered %q, not SSH", target, other)
	case errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Errorf("%s sent no SSH version line within %v", target, timeout)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%s closed the connection without an SSH version line", target)
	}
	return fmt.Errorf("%s: reading the SSH version line: %w", target, err)
}
