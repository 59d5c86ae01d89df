package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"testing"
)

// -log-level and -log-format, or their variables, set the log; the flag wins over the
// variable, and a bad value is refused naming both.
func TestLogFlags(t *testing.T) {
	env := envOf
	for _, c := range []struct {
		args []string
		env  func(string) string
		want logConfig
	}{
		{nil, env(), logConfig{level: slog.LevelInfo}},
		{[]string{"-log-level", "debug", "-log-format", "json"}, env(), logConfig{level: slog.LevelDebug, json: true}},
		{nil, env("ORTHANC_LOG_LEVEL", "WARN", "ORTHANC_LOG_FORMAT", "json"), logConfig{level: slog.LevelWarn, json: true}},
		{[]string{"-log-level", "error", "-log-format", "text"}, env("ORTHANC_LOG_LEVEL", "debug", "ORTHANC_LOG_FORMAT", "json"), logConfig{level: slog.LevelError}},
	} {
		cfg, err := parseConfig(c.args, c.env, io.Discard)
		if err != nil || cfg.log != c.want {
			t.Errorf("parseConfig(%q) log = %+v, %v; want %+v", c.args, cfg.log, err, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		env  func(string) string
		want []string
	}{
		{[]string{"-log-level", "verbose"}, env(), []string{"-log-level", "ORTHANC_LOG_LEVEL", `"verbose"`, "debug, info, warn or error"}},
		{nil, env("ORTHANC_LOG_LEVEL", "loud"), []string{"-log-level", "ORTHANC_LOG_LEVEL", `"loud"`}},
		{[]string{"-log-format", "xml"}, env(), []string{"-log-format", "ORTHANC_LOG_FORMAT", `"xml"`, "text or json"}},
		{nil, env("ORTHANC_LOG_FORMAT", "logfmt"), []string{"-log-format", "ORTHANC_LOG_FORMAT", `"logfmt"`}},
	} {
		_, err := parseConfig(c.args, c.env, io.Discard)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("parseConfig(%q) = %v; want an error with %q", c.args, err, w)
			}
		}
	}
}

// A server run with -log-format json -log-level debug writes JSON lines, the version
// first and debug lines among them (the server's own log is tested in package server).
func TestJSONDebugLogBeginsWithTheVersion(t *testing.T) {
	addr, log := startServer(t, "-data", t.TempDir(), "-log-format", "json", "-log-level", "debug")
	lines := func() []map[string]any {
		var out []map[string]any
		for l := range strings.Lines(log.String()) {
			if !strings.HasSuffix(l, "\n") {
				break // a line being written
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("a log line is not JSON: %q: %v", l, err)
			}
			out = append(out, m)
		}
		return out
	}
	if first := lines()[0]; first["msg"] != "orthanc-ssh" || first["version"] != version() || first["go"] != runtime.Version() {
		t.Errorf("the first line %v: want the version %s", first, version())
	}
	// A handshake that fails is a debug line: a connection that sends garbage.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = conn.Write([]byte("SSH-2.0-bogus\r\nnonsense\r\n"))
	_ = conn.Close()
	waitUntil(t, "a debug line", func() bool { return strings.Contains(log.String(), `"level":"DEBUG"`) })
	lines() // every line JSON
}
