package records

import (
	"context"
	"fmt"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The writes of a knight's end, as the contract's tests make them in etcd; a realm's
// keeper writes them with the knight's sheet (sheets.Put).

// Retire writes a retired knight's last sheet and its hall-of-fame entry in one
// transaction under f's claim: a realm that lost the knight writes neither.
func Retire(ctx context.Context, f *realm.Fenced, e knights.FameEntry) error {
	w, err := FameWrite(e)
	if err != nil {
		return err
	}
	return end(ctx, f, &e.Adventurer, w)
}

// Bury writes a dead knight's last sheet and its tombstone in one transaction under
// f's claim.
func Bury(ctx context.Context, f *realm.Fenced, t knights.Tombstone) error {
	w, err := TombstoneWrite(t)
	if err != nil {
		return err
	}
	return end(ctx, f, &t.Adventurer, w)
}

// end writes a's sheet and its end under f's claim, in one transaction.
func end(ctx context.Context, f *realm.Fenced, a *world.Adventurer, entry realm.Write) error {
	if a.ID != f.Knight() {
		return fmt.Errorf("records: %s's end written under %s's claim", a.ID, f.Knight())
	}
	sheet, err := encodeSheet(a, "")
	if err != nil {
		return err
	}
	_, err = f.Commit(ctx, realm.Write{Key: "knight/" + a.ID, Value: sheet}, entry)
	return err
}

// checkpoint saves a's sheet under f's claim, as a realm's checkpoint does.
func checkpoint(ctx context.Context, f *realm.Fenced, a *world.Adventurer) error {
	data, err := encodeSheet(a, "")
	if err != nil {
		return err
	}
	return f.Checkpoint(ctx, data)
}
