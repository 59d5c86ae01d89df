package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every report, of sessions or of handshakes, states the box's load average at its start
// and end, so a row of the capacity table can say how busy the box was.
func TestLoadAverageInReports(t *testing.T) {
	if got := parseLoadAverage([]byte("3.48 2.10 1.05 3/512 40123\n")); got != 3.48 {
		t.Errorf("parse: %v, want 3.48", got)
	}
	if got := parseLoadAverage(nil); got != 0 {
		t.Errorf("parse of nothing: %v", got)
	}
	for _, r := range []any{&Report{LoadAverage: [2]float64{1.5, 2.25}}, &HandshakeReport{LoadAverage: [2]float64{1.5, 2.25}}} {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"load_average":[1.5,2.25]`) {
			t.Errorf("%T: no load average in %s", r, b)
		}
	}
}
