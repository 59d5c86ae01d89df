package main

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Two knights walk on a realm, whose checkpoints go to etcd several knights to a
// transaction; one's claim goes behind the realm's back (deleted in etcd, as an operator
// might). That knight's player is told at its next checkpoint and its sheet in etcd stays
// as it was; the other's next steps are written all the same.
func TestARealmWritesTheOthersWhenOneKnightsClaimWent(t *testing.T) {
	etcd := etcdtest.Start(t)
	a := startRealm(t, "A", etcd, defaultSeed)
	shared := sharedRecordsOf(t, etcd)
	kayKey, gawainKey := newKey(t), newKey(t)
	kay, kayAt := stepAndCheckpoint(t, a.addr, kayKey, "Kay", shared)
	gawain, gawainAt := stepAndCheckpoint(t, a.addr, gawainKey, "Gawain", shared)
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cli.Delete(ctx, "/orthanc/claim/"+kayAt.Knight); err != nil {
		t.Fatal(err)
	}
	stepBack(t, kay, a.addr, kayKey, kayAt)
	moved := stepBack(t, gawain, a.addr, gawainKey, gawainAt)
	if out := kay.finalOutput(); !strings.Contains(screenWords(out), screenWords(realmLostLine)) {
		t.Fatalf("Kay's player was not told:\n%s", kay.screen())
	}
	waitUntil(t, "Gawain's move in etcd", func() bool {
		rec, err := shared.LoadAdventurer(moved.Knight)
		return err == nil && rec.X == moved.X && rec.Y == moved.Y
	})
	if rec, err := shared.LoadAdventurer(kayAt.Knight); err != nil || rec.X != kayAt.X || rec.Y != kayAt.Y {
		t.Errorf("Kay's sheet in etcd: %+v, %v; want the last before its claim went, at %d,%d", rec, err, kayAt.X, kayAt.Y)
	}
}

// stepBack walks a knight that took openDir's step from the entrance back onto it.
func stepBack(t *testing.T, tm *terminal, addr string, key gossh.Signer, from whoami) whoami {
	t.Helper()
	d, _ := openDir(t)
	back := map[world.Dir]string{world.North: keyDown, world.South: keyUp, world.East: keyLeft, world.West: keyRight}[d]
	tm.press(back)
	var w whoami
	waitUntil(t, "the step back", func() bool { w = whoamiJSON(t, addr, key); return w.X != from.X || w.Y != from.Y })
	return w
}
