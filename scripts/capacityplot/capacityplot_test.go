package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reports as the load tool writes them, cut to a few fields (and one it has that the
// program does not read).
var fakeReports = map[string]string{
	"all-n100.json": `{"mode":"game","n":100,"active":100,"rate_keys_per_second":2,"established":100,"failed":0,"dropped":0,
		"latency":{"count":12000,"p50_ms":20.5,"p95_ms":40,"p99_ms":61.25,"max_ms":300},
		"server":{"pid":7,"cpu_percent":40,"rss_per_session_kb":612.5},"world":{"turns_per_second":40},"load_average":[1.5,2.25]}`,
	"all-n200.json": `{"mode":"game","n":200,"active":200,"rate_keys_per_second":2,"established":199,"failed":1,"dropped":0,
		"latency":{"count":24000,"p50_ms":60,"p95_ms":120,"p99_ms":180,"max_ms":900},
		"server":{"pid":8,"cpu_percent":99.5,"rss_per_session_kb":600},"load_average":[2,3]}`,
	"tenth-n100.json": `{"mode":"game","n":100,"active":10,"rate_keys_per_second":2,"established":100,
		"latency":{"count":1200,"p50_ms":8,"p99_ms":30},"server":{"cpu_percent":10,"rss_per_session_kb":650},"load_average":[0.5,0.75]}`,
	"hs-game.json": `{"mode":"handshake","n":2000,"concurrency":200,"logged_in":1990,"failed":10,"errors":{"refused":10},
		"handshakes_per_second":310.4,"steady_handshakes_per_second":320.6,"handshake":{"p50_ms":600,"p99_ms":900},
		"server":{"cpu_percent":95},"load_tool":{"cpu_percent":100},"load_average":[1,2]}`,
}

func writeFakes(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range fakeReports {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestTableAndFigure(t *testing.T) {
	dir := writeFakes(t)
	svg := filepath.Join(t.TempDir(), "capacity.svg")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-svg", svg, dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	table := stdout.String()
	t.Log("\n" + table)
	for _, want := range []string{
		// All walking first, by N; the CPU a session is the CPU over those established.
		"| 100 | all walking, 2 keys/s | 100 / 0 / 0 | 20.5 / 61.2 | 40 | 0.400 | 612 | 40.0 | 1.50 → 2.25 |\n" +
			"| 200 | all walking, 2 keys/s | 199 / 1 / 0 | 60.0 / 180.0 | 100 | 0.500 | 600 | – | 2.00 → 3.00 |\n" +
			"| 100 | 10 % walking, 2 keys/s | 100 / 0 / 0 | 8.0 / 30.0 | 10 | 0.100 | 650 | – | 0.50 → 0.75 |\n",
		"- all walking, 2 keys/s: first past 100 ms (or with sessions failed or dropped) at N = 200 (p99 180.0 ms, 1 failed, 0 dropped); the last N under it: 100 (p99 61.2 ms).",
		"- 10 % walking, 2 keys/s: under 100 ms, with every session in, up to N = 100.",
		"| hs-game | 2000 | 200 | 1990 / 10 | 310 (321) | 600.0 / 900.0 | 95 | 100 | refused 10 | 1.00 → 2.00 |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks\n%s", want)
		}
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "Keystroke to next frame, p99", "Server CPU per session", "Server RSS per session",
		"all walking, 2 keys/s", "10 % walking, 2 keys/s", "100 ms"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the figure lacks %q", want)
		}
	}
}

func TestNotAReport(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte(`{"hello":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{dir}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "not a report") {
		t.Errorf("exit %d, %q", code, stderr.String())
	}
}
