package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/knightstest"
)

// A server alone's keeper keeps the contract every keeper keeps.
func TestTheKeeperContract(t *testing.T) {
	knightstest.RunKeeper(t, func(t *testing.T) knights.Keeper {
		st, err := Open(filepath.Join(t.TempDir(), "orthanc.db"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		sv := NewSaver(st, nil)
		// The saver writes behind, as a server's does: what a knight's Leave leaves is
		// written by Run. Cleanups run last first: Run ends (its last Flush) before Close.
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); sv.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
		return NewKeeper(st, sv)
	})
}
