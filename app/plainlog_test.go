package app

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The play page's switch (PlainMsg) turns screen-reader mode on for the connection and
// off again, as play --plain and plain off do; with PlainUnbroken a line longer than the
// width comes whole, for the page's log wraps it itself (broken, a screen reader reads
// one sentence as two lines).
func TestPlainMsgSwitchesTheModeAndUnbrokenLinesComeWhole(t *testing.T) {
	e, tick := runWorld(t)
	ticker(t, tick)
	m := playModel(t, e, "SHA256:page", Params{Width: 40, Height: 20, PlainUnbroken: true})
	d := newDriver(t, m)
	if m.pl.active {
		t.Fatal("the game began in screen-reader mode")
	}
	before := d.term.Len()
	d.send(PlainMsg(true))
	d.settle()
	if !m.pl.active || m.term.mode != termPlain {
		t.Fatal("PlainMsg(true) did not turn screen-reader mode on")
	}
	if m.opts.Plain {
		t.Error("PlainMsg(true) kept the mode for the key's next connections; it is this connection's")
	}
	d.waitOut("Press Enter to begin")
	out := ansi.Strip(d.term.String()[before:])
	long := ""
	for l := range strings.SplitSeq(out, "\r\n") {
		if len([]rune(l)) > len([]rune(long)) {
			long = l
		}
	}
	if len([]rune(long)) <= 40 {
		t.Fatalf("no line came longer than the width of 40, as whole lines would:\n%s", out)
	}
	d.send(PlainMsg(false))
	d.settle()
	if m.pl.active || m.term.mode != termFull {
		t.Fatal("PlainMsg(false) did not turn screen-reader mode off")
	}
}
