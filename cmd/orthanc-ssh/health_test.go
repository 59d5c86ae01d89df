package main

import (
	"net"
	"strings"
	"testing"
)

// runHealth runs the health subcommand with args and ORTHANC_ADDR set to envAddr, and
// returns its exit code and output.
func runHealth(envAddr string, args ...string) (code int, stdout, stderr string) {
	var out, errOut strings.Builder
	getenv := func(k string) string {
		if k == "ORTHANC_ADDR" {
			return envAddr
		}
		return ""
	}
	code = health(args, getenv, &out, &errOut)
	return code, out.String(), errOut.String()
}

// A running server answers the probe as SSH: 0 and one line naming its version, whether
// the address comes from -addr or from ORTHANC_ADDR as the server's own would.
func TestHealthOfARunningServer(t *testing.T) {
	addr, _ := startServer(t, "-data", t.TempDir())
	for name, run := range map[string]func() (int, string, string){
		"flag": func() (int, string, string) { return runHealth("", "-addr", addr) },
		"env":  func() (int, string, string) { return runHealth(addr) },
	} {
		code, out, errOut := run()
		if code != 0 || errOut != "" {
			t.Errorf("%s: health exited %d, stderr %q; want 0 and nothing", name, code, errOut)
		}
		if want := "orthanc-ssh health: ok: " + addr + " answered SSH-2.0-"; !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 1 {
			t.Errorf("%s: health said %q; want one line beginning %q", name, out, want)
		}
	}
}

// A closed port, a port that answers something else, one that says nothing and one that
// hangs up: 1, and one line saying which.
func TestHealthOfNoServer(t *testing.T) {
	closed := freeAddr(t)
	http := serveOnce(t, "HTTP/1.1 400 Bad Request\r\n\r\n")
	hangup := serveOnce(t, "")
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = silent.Close() }) // accepted by the kernel's backlog, never read
	for _, c := range []struct{ name, addr, want string }{
		{"closed port", closed, "cannot connect: dial tcp " + closed + ": connect: connection refused"},
		{"not SSH", http, http + ` answered "HTTP/1.1 400 Bad Request", not SSH`},
		{"hang-up", hangup, hangup + " closed the connection without an SSH version line"},
		{"silent", silent.Addr().String(), silent.Addr().String() + " sent no SSH version line within 200ms"},
	} {
		code, out, errOut := runHealth("", "-addr", c.addr, "-timeout", "200ms")
		if code != 1 || out != "" {
			t.Errorf("%s: health exited %d, stdout %q; want 1 and nothing", c.name, code, out)
		}
		if want := "orthanc-ssh health: unhealthy: " + c.want + "\n"; errOut != want {
			t.Errorf("%s: health said %q; want %q", c.name, errOut, want)
		}
	}
}

// Bad arguments are unhealthy too (exit 1, not 2: Docker reserves 2), with the reason.
func TestHealthBadArguments(t *testing.T) {
	for _, args := range [][]string{{"-addr", "2222"}, {"-nonsense"}, {"extra"}} {
		code, out, errOut := runHealth("", args...)
		if code != 1 || out != "" || errOut == "" {
			t.Errorf("health %q exited %d, stdout %q, stderr %q; want 1 and a reason on stderr", args, code, out, errOut)
		}
	}
}

// The probe dials the address the server listens on, the loopback one for every address.
func TestHealthDialTarget(t *testing.T) {
	for addr, want := range map[string]string{
		":2222":            "127.0.0.1:2222",
		"0.0.0.0:22":       "127.0.0.1:22",
		"[::]:2222":        "[::1]:2222",
		"192.0.2.7:2222":   "192.0.2.7:2222",
		"play.example:222": "play.example:222",
	} {
		got, err := dialTarget(addr)
		if err != nil || got != want {
			t.Errorf("dialTarget(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// serveOnce listens on loopback and answers the first connection with reply, then
// hangs up.
func serveOnce(t *testing.T, reply string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = c.Write([]byte(reply))
		_ = c.Close()
	}()
	return ln.Addr().String()
}
