package app

import (
	"io"
	"runtime"
	"testing"
	"unsafe"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// What a session's Model keeps between frames is memory every knight costs all the time
// (docs/PERFORMANCE.md, "Where the memory goes"). The cells a frame is drawn on, the
// screen's and the map's, are taken from spareCells only while the frame is drawn, and a
// whole screen's bytes from frameBytes while they are written: a session keeps the screen
// it shows and the map's kept picture, not a second screen and a map canvas of its own
// (7.5 KB each at 80×24), nor the bytes of its largest write (4 KB).

// keptPerModel is the heap n sessions showing v keep after each drew frames frames, a
// session, in bytes.
func keptPerModel(t *testing.T, n, frames int) float64 {
	t.Helper()
	v := twoOnTwo(t)
	models := make([]*Model, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range models {
		m := playModel(t, nil, "SHA256:kay", Params{Width: 80, Height: 24, Out: io.Discard})
		m.screen, m.view, m.haveView, m.synced = screenPlay, v, true, true
		m.Update(tea.ColorProfileMsg{Profile: colorprofile.ANSI256})
		for range frames {
			m.frameOK = false
			m.View()
		}
		models[i] = m
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(models)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

func TestASessionKeepsOneScreenBetweenFrames(t *testing.T) {
	// Measured at 80×24 in a battle in the dungeon: 34.2 KB a session with a spare
	// screen and a map canvas of its own, 23.3 KB without, 19.3 KB without keeping its
	// largest write's bytes either, 18.1 KB with the Model a size class smaller
	// (TestTheModelKeepsOnlyWhatEverySessionNeeds).
	const most = 19 << 10
	if kept := keptPerModel(t, 200, 3); kept > most {
		t.Errorf("a session showing the dungeon keeps %.1f KB between frames, more than %d KB", kept/1024, most>>10)
	} else {
		t.Logf("a session showing the dungeon keeps %.1f KB between frames", kept/1024)
	}
}

// The Model is one block of the heap a session, and what it costs is the allocator's size
// class it falls in (4864 bytes, then 5376, 6144): a screen only some sessions open keeps
// its state behind a pointer, made when it opens (a watched knight's view, 0.8 KB; the
// admin console, 0.3 KB), and what a frame needs only while it is drawn (the level's
// painter) is the frame's.
func TestTheModelKeepsOnlyWhatEverySessionNeeds(t *testing.T) {
	const sizeClass = 4864
	if n := unsafe.Sizeof(Model{}); n > sizeClass {
		t.Errorf("a Model is %d bytes, over the %d-byte size class it fitted in", n, sizeClass)
	}
}

// A session in a crowd keeps the screen, the level's picture and what the lines under
// the view were made from: one list of the names in sight, read in place each frame, not
// a second list gathered each frame to be compared with it (with 120 knights in sight,
// 34.9 KB a session with it, 33.0 without).
func TestASessionInACrowdKeepsOneListOfNames(t *testing.T) {
	const most = 34 << 10
	views := crowdViewsOf(t, world.New(world.Config{Seed: 1977, Depth: 3}), "Bedivere", 4, 120)
	const n = 200
	models := make([]*Model, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range models {
		m := crowdModel(t, views, 80, 24, io.Discard)
		for _, v := range views {
			crowdFrame(m, v)
		}
		models[i] = m
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(models)
	if kept := float64(after.HeapAlloc-before.HeapAlloc) / n; kept > most {
		t.Errorf("a session in a crowd keeps %.1f KB between frames, more than %d KB", kept/1024, most>>10)
	} else {
		t.Logf("a session in a crowd keeps %.1f KB between frames", kept/1024)
	}
}
