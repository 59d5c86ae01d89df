package server

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// Regression (issue 17): a panic in the world engine or the saver goroutine ended the
// process at once, with no final save.

// stoppedOnPanic checks that the server stopped with an error after the panic (the
// command's exit status 1), logging it with its stack, and takes no connection any more.
func stoppedOnPanic(t *testing.T, h hookedServer, where, value string) {
	t.Helper()
	select {
	case err := <-h.served:
		if err == nil || !strings.Contains(err.Error(), value) {
			t.Fatalf("Serve returned %v after a panic in the %s, want its error (exit status 1):\n%s", err, where, h.log)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the server kept running after a panic in the %s:\n%s", where, h.log)
	}
	for _, want := range []string{`msg="` + where + ` panic: stopping"`, value, "goroutine ", "msg=stopped"} {
		if !strings.Contains(h.log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, h.log)
		}
	}
	if c, err := net.DialTimeout("tcp", h.addr, time.Second); err == nil {
		c.Close()
		t.Error("the stopped server still accepts connections")
	}
}

// A panic on the world's goroutine is logged with its stack; what was handed to the saver
// is written; the process exits 1 for its supervisor to restart it, never a server that
// takes players in but does not tick.
func TestPanicInTheWorldStopsTheServer(t *testing.T) {
	dir := t.TempDir()
	arm := make(chan struct{})
	h := startHooked(t, testConfig(dir, defaultSeed), testHooks{step: func() {
		select {
		case <-arm:
			panic("injected world panic")
		default:
		}
	}})
	key := newKey(t)
	tm := openTerminal(t, h.addr, key, 80, 24, nil)
	tm.enterDungeon("Doomed") // saved on joining
	close(arm)
	stoppedOnPanic(t, h, "world", "injected world panic")
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if a, err := loadKnightOfKey(t, st, key); err != nil || a.Name != "Doomed" {
		t.Fatalf("the knight was not saved: %+v %v", a, err)
	}
}

// A panic on the saver's goroutine is logged with its stack; what the world hands over
// afterwards (here: a step taken since the last checkpoint, saved as the knight leaves)
// is written by the final flush; the process exits 1.
func TestPanicInTheSaverStopsTheServer(t *testing.T) {
	dir := t.TempDir()
	arm := make(chan struct{})
	h := startHooked(t, testConfig(dir, defaultSeed), testHooks{saverRun: func(ctx context.Context, sv *store.Saver) {
		c, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-arm:
			case <-c.Done():
			}
			cancel()
		}()
		sv.Run(c) // the real saver, until armed
		select {
		case <-arm:
			panic("injected saver panic")
		default:
		}
	}})
	key := newKey(t)
	tm := openTerminal(t, h.addr, key, 80, 24, nil)
	tm.enterDungeon("Unlucky")
	start := whoamiJSON(t, h.addr, key)
	moved := tm.stepOut("the step", start, func() command.Whoami { return whoamiJSON(t, h.addr, key) })
	close(arm) // within the checkpoint interval: the step is not handed to the saver yet
	stoppedOnPanic(t, h, "saver", "injected saver panic")
	st, err := store.Open(filepath.Join(dir, "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := loadKnightOfKey(t, st, key)
	if err != nil || a.X != moved.X || a.Y != moved.Y {
		t.Fatalf("the knight's last step was not written by the final flush: %+v %v, was at %d,%d", a, err, moved.X, moved.Y)
	}
}
