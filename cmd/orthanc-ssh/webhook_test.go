package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// -webhook (and ORTHANC_WEBHOOK) takes an http or https URL, the flag winning over the
// variable. Anything else is refused at start, exit 2, naming the flag and the variable
// and what is wanted, without repeating the value (a webhook's URL holds its token); nor
// does -h print the variable's value as a default.
func TestTheWebhookFlagTakesOnlyHTTPURLs(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  func(string) string
	}{
		{[]string{"-webhook", "discord.com/api/webhooks/1/Zk9TOKEN"}, envOf()},
		{nil, envOf("ORTHANC_WEBHOOK", "ftp://example.com/Zk9TOKEN")},
		{nil, envOf("ORTHANC_WEBHOOK", "https:///Zk9TOKEN")},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), c.args, c.env, &stderr); code != 2 {
			t.Errorf("run(%q) = %d, want 2", c.args, code)
		}
		said := stderr.String()
		for _, w := range []string{"-webhook", "ORTHANC_WEBHOOK", "http or https URL"} {
			if !strings.Contains(said, w) {
				t.Errorf("run(%q) said %q; want %q in it", c.args, said, w)
			}
		}
		if strings.Contains(said, "Zk9TOKEN") {
			t.Errorf("run(%q) repeated the URL: %q", c.args, said)
		}
	}
	cfg, err := parseConfig([]string{"-webhook", "http://127.0.0.1:8080/hook"}, envOf("ORTHANC_WEBHOOK", "https://discord.com/api/webhooks/1/T"), io.Discard)
	if err != nil || cfg.Webhook != "http://127.0.0.1:8080/hook" {
		t.Errorf("the flag over the variable: %q, %v", cfg.Webhook, err)
	}
	cfg, err = parseConfig(nil, envOf("ORTHANC_WEBHOOK", "https://discord.com/api/webhooks/1/T"), io.Discard)
	if err != nil || cfg.Webhook != "https://discord.com/api/webhooks/1/T" {
		t.Errorf("the variable: %q, %v", cfg.Webhook, err)
	}
	if cfg, _ := parseConfig(nil, envOf(), io.Discard); cfg.Webhook != "" {
		t.Errorf("no webhook by default: %q", cfg.Webhook)
	}
	var help bytes.Buffer
	run(context.Background(), []string{"-h"}, envOf("ORTHANC_WEBHOOK", "https://discord.com/api/webhooks/1/Zk9TOKEN"), &help)
	if h := help.String(); !strings.Contains(h, "-webhook") || strings.Contains(h, "Zk9TOKEN") {
		t.Errorf("-h with ORTHANC_WEBHOOK set:\n%s", h)
	}
}

// The command started with -webhook posts through it: its log names the receiver by its
// scheme and host alone, never the URL's path (a Discord webhook's token), and it stops
// cleanly, exit 0, with the webhook's sender.
func TestTheCommandStartsWithAWebhookAndLogsNoToken(t *testing.T) {
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer receiver.Close()
	_, log := startServer(t, "-data", t.TempDir(), "-webhook", receiver.URL+"/api/webhooks/1/Zk9TOKEN")
	want := "msg=webhook url=" + receiver.URL + "/… queue=256"
	if l := log.String(); !strings.Contains(l, want) || strings.Contains(l, "Zk9TOKEN") {
		t.Errorf("the log, wanting %q and no token:\n%s", want, l)
	}
}
