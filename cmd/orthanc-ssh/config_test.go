package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server"
	"github.com/orthanc-ssh/orthanc-ssh/web"
)

// Regression (issue 32): ORTHANC_MAX_SESSIONS=abc said "session limits must be at least
// 1", naming neither the variable nor the flag. Every bad setting is refused, exit 2,
// naming the flag, the variable and the value given.
func TestConfigErrorsNameFlagAndVariable(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  func(string) string
		want []string
	}{
		{nil, envOf("ORTHANC_MAX_SESSIONS", "abc"), []string{"-max-sessions", "ORTHANC_MAX_SESSIONS", `"abc"`, "1 or more"}},
		{[]string{"-max-per-ip", "0"}, envOf(), []string{"-max-per-ip", "ORTHANC_MAX_PER_IP", `"0"`}},
		{nil, envOf("ORTHANC_IDLE_TIMEOUT", "soon"), []string{"-idle-timeout", "ORTHANC_IDLE_TIMEOUT", `"soon"`, "30s"}},
		{[]string{"-stall-timeout", "0s"}, envOf(), []string{"-stall-timeout", "ORTHANC_STALL_TIMEOUT", `"0s"`}},
		{[]string{"-chat-history", "-1h"}, envOf(), []string{"-chat-history", "ORTHANC_CHAT_HISTORY", `"-1h"`, "0 or more"}},
		{nil, envOf("ORTHANC_TICK", "5s"), []string{"-tick", "ORTHANC_TICK", `"5s"`, "1ms to 1s"}},
		{nil, envOf("ORTHANC_TICK", "fast"), []string{"-tick", "ORTHANC_TICK", `"fast"`}},
		{nil, envOf("ORTHANC_SEED", "-1"), []string{"-seed", "ORTHANC_SEED", `"-1"`}},
		{nil, envOf("ORTHANC_GUESTS", "maybe"), []string{"-guests", "ORTHANC_GUESTS", `"maybe"`, "true or false"}},
		{[]string{"-data", ""}, envOf(), []string{"-data", "ORTHANC_DATA", "empty"}},
		{nil, envOf("ORTHANC_HTTP_TRUSTED_PROXIES", "10.0.0.0/8,10.0.0.0/33"), []string{"-http-trusted-proxies", "ORTHANC_HTTP_TRUSTED_PROXIES", `"10.0.0.0/33"`, "CIDR"}},
		{[]string{"-http-trusted-proxies", "proxy.example"}, envOf(), []string{"-http-trusted-proxies", "ORTHANC_HTTP_TRUSTED_PROXIES", `"proxy.example"`}},
		{[]string{"-http-rate", "0"}, envOf(), []string{"-http-rate", "ORTHANC_HTTP_RATE", `"0"`}},
		{nil, envOf("ORTHANC_HTTP_BURST", "many"), []string{"-http-burst", "ORTHANC_HTTP_BURST", `"many"`}},
		{[]string{"-http-play-grace", "0s"}, envOf(), []string{"-http-play-grace", "ORTHANC_HTTP_PLAY_GRACE", `"0s"`, "more than 0"}},
		{nil, envOf("ORTHANC_HTTP_PLAY_GRACE", "a while"), []string{"-http-play-grace", "ORTHANC_HTTP_PLAY_GRACE", `"a while"`}},
		{[]string{"-nats", "nats://127.0.0.1:4222"}, envOf(), []string{"-nats", "ORTHANC_NATS", "-realm", "ORTHANC_REALM"}},
		{nil, envOf("ORTHANC_NATS_LISTEN", ":6222"), []string{"-nats-listen", "ORTHANC_NATS_LISTEN", "-realm", "ORTHANC_REALM"}},
		{[]string{"-realm", "A", "-etcd", "127.0.0.1:2379", "-nats-routes", "b:6222"}, envOf(), []string{"-nats-routes", "ORTHANC_NATS_ROUTES", "-nats-listen"}},
		{[]string{"-realm", "A", "-etcd", "127.0.0.1:2379", "-nats", "nats://b:4222"}, envOf("ORTHANC_NATS_LISTEN", ":6222"), []string{"-nats", "ORTHANC_NATS", "-nats-listen", "ORTHANC_NATS_LISTEN", "give one"}},
		{[]string{"-import"}, envOf(), []string{"-import needs", "-realm", "ORTHANC_REALM", "-etcd", "ORTHANC_ETCD"}},
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), c.args, c.env, &stderr)
		if code != 2 {
			t.Errorf("run(%q) = %d, want 2 (bad configuration)", c.args, code)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("run(%q) said %q; want %q in it", c.args, stderr.String(), w)
			}
		}
	}
}

// Good values are taken from the variable, the flag winning over it; zero chat history
// is allowed.
func TestConfigTakesFlagsOverVariables(t *testing.T) {
	cfg, err := parseConfig([]string{"-max-per-key", "4", "-chat-history", "0"},
		envOf("ORTHANC_MAX_SESSIONS", "7", "ORTHANC_MAX_PER_KEY", "9", "ORTHANC_IDLE_TIMEOUT", "90s"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Limits.MaxSessions != 7 || cfg.Limits.MaxPerKey != 4 || cfg.Limits.IdleTimeout != 90*time.Second || cfg.ChatHistory != 0 {
		t.Errorf("config %+v: want max-sessions 7 (variable), max-per-key 4 (flag), idle 90s, chat history 0", cfg.Limits)
	}
	if cfg, _ := parseConfig(nil, envOf(), io.Discard); cfg.Limits != server.DefaultConfig().Limits {
		t.Errorf("limits with nothing set %+v, want the defaults %+v", cfg.Limits, server.DefaultConfig().Limits)
	}
	cfg, err = parseConfig([]string{"-http-burst", "40"}, envOf("ORTHANC_HTTP_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8,2001:db8::/32", "ORTHANC_HTTP_RATE", "5"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if w := cfg.Web; w.Burst != 40 || w.Rate != 5 || w.MaxConns != server.DefaultConfig().Web.MaxConns || fmt.Sprint(w.Trusted) != "[127.0.0.1/32 10.0.0.0/8 2001:db8::/32]" {
		t.Errorf("web config %+v", w)
	}
	if g := cfg.Web.PlayGrace; g != web.PlayResumeGrace {
		t.Errorf("a browser's game is held %v with no -http-play-grace; want %v", g, web.PlayResumeGrace)
	}
	cfg, err = parseConfig([]string{"-http-play-grace", "5m"}, envOf("ORTHANC_HTTP_PLAY_GRACE", "2m"), io.Discard)
	if err != nil || cfg.Web.PlayGrace != 5*time.Minute {
		t.Errorf("-http-play-grace 5m over the variable's 2m: %v, %v", cfg.Web.PlayGrace, err)
	}
}

// With no flag and no variable, the server gets its defaults (a battle's grace of 30 s
// and a tick of 25 ms among them: DESIGN §12 "Fair play") and this build's version.
func TestTheFlagsDefaults(t *testing.T) {
	c, err := parseConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.BattleGrace != 30*time.Second || c.Tick != 25*time.Millisecond {
		t.Errorf("the flags' defaults: grace %v, tick %v; want 30 s and 25 ms", c.BattleGrace, c.Tick)
	}
	if c.Addr != ":2222" || c.Data != "./data" || c.Seed != 1977 || c.Name != "Orthanc" || !c.Guests {
		t.Errorf("the flags' defaults: %+v", c.Config)
	}
	if c.Version != version() || c.Version == "" {
		t.Errorf("the server is given version %q, want this build's %q", c.Version, version())
	}
}

// Regression (issue 32): -guests's help said "(default true)" twice.
func TestGuestsHelpSaysItsDefaultOnce(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, envOf(), &out); code != 0 {
		t.Fatalf("-h exited %d", code)
	}
	help := out.String()
	i := strings.Index(help, "  -guests")
	if i < 0 {
		t.Fatalf("no -guests in the help:\n%s", help)
	}
	entry := help[i+len("  -guests"):]
	if j := strings.Index(entry, "\n  -"); j >= 0 {
		entry = entry[:j]
	}
	if n := strings.Count(entry, "default true"); n != 1 {
		t.Errorf("-guests's help says its default %d times:\n%s", n, entry)
	}
}

// An ORTHANC_ variable the server does not read is named at start, with the known one
// closest to it when one is close; the server's own are not.
func TestUnknownVariablesAreWarnedAbout(t *testing.T) {
	cfg, err := parseConfig(nil, envOf(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ORTHANC_ADDR", "ORTHANC_MAX_SESSIONS", "ORTHANC_LOG_LEVEL", "ORTHANC_GUESTS", "ORTHANC_STALL_TIMEOUT"} {
		if !strings.Contains(strings.Join(cfg.envNames, " "), name) {
			t.Errorf("%s is not among the known variables %v", name, cfg.envNames)
		}
	}
	got := unknownEnvs([]string{"PATH=/bin", "ORTHANC_ADDR=:22", "ORTHANC_MAX_SESION=5", "ORTHANC_LOGLEVEL=debug", "ORTHANC_COLOUR=red"}, cfg.envNames)
	want := []unknownEnv{{"ORTHANC_MAX_SESION", "ORTHANC_MAX_SESSIONS"}, {"ORTHANC_LOGLEVEL", "ORTHANC_LOG_LEVEL"}, {"ORTHANC_COLOUR", ""}}
	if len(got) != len(want) {
		t.Fatalf("unknown variables %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("unknown variable %d: %+v, want %+v", i, got[i], want[i])
		}
	}

}
