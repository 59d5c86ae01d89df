package server

import (
	"encoding/json"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"
)

// A server logging JSON at debug level (-log-format json -log-level debug; the command's
// tests hold the flags to it) writes JSON lines, debug lines among them, and every line of
// a knight's session names the knight.
func TestJSONDebugLogNamesTheKnight(t *testing.T) {
	log := &lockedBuffer{}
	ts, _ := startLogger(t, testConfig(t.TempDir(), defaultSeed), slog.New(slog.NewJSONHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})))
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
	addr := ts.addr
	waitUntil(t, "the listening line", func() bool {
		return slices.ContainsFunc(lines(), func(m map[string]any) bool { return m["msg"] == "listening" })
	})
	tm := openTerminal(t, addr, newKey(t), 80, 24, nil)
	tm.enterDungeon("Lancelot")
	tm.close()
	waitUntil(t, "the session's end logged", func() bool { return strings.Contains(log.String(), `"msg":"session end"`) })
	// A handshake that fails is a debug line: a connection that sends garbage.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = conn.Write([]byte("SSH-2.0-bogus\r\nnonsense\r\n"))
	_ = conn.Close()
	waitUntil(t, "a debug line", func() bool { return strings.Contains(log.String(), `"level":"DEBUG"`) })
	var session []map[string]any
	for _, m := range lines() {
		if s, _ := m["msg"].(string); strings.HasPrefix(s, "session ") {
			session = append(session, m)
		}
	}
	if len(session) < 2 {
		t.Fatalf("session lines %v: want its start and end", session)
	}
	for _, m := range session {
		if m["knight"] == nil || m["fingerprint"] == nil {
			t.Errorf("a session line without its knight: %v", m)
		}
	}
	if end := session[len(session)-1]; end["knight"] != "Lancelot" {
		t.Errorf("the session's end names %v, want Lancelot", end["knight"])
	}
	if err := ts.stop(); err != nil {
		t.Errorf("the stop: %v", err)
	}
}
