package server

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Two knights walk on a realm, whose checkpoints go to etcd several knights to a
// transaction; one's claim goes behind the realm's back (deleted in etcd, as an operator
// might). That knight's player is told at its next checkpoint and its sheet in etcd stays
// as it was; the other's next steps are written all the same.
func TestARealmWritesTheOthersWhenOneKnightsClaimWent(t *testing.T) {
	t.Parallel()
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
func stepBack(t *testing.T, tm *terminal, addr string, key gossh.Signer, from command.Whoami) command.Whoami {
	t.Helper()
	d, _ := openDir(t)
	back := map[world.Dir]string{world.North: keyDown, world.South: keyUp, world.East: keyLeft, world.West: keyRight}[d]
	tm.press(back)
	var w command.Whoami
	waitUntil(t, "the step back", func() bool { w = whoamiJSON(t, addr, key); return w.X != from.X || w.Y != from.Y })
	return w
}

// A realm that stops leaves its knights checked in (their sessions' ends and
// checkInAll): each's newest sheet is in etcd and no claim is left, so they play at once
// on another realm.
func TestARealmStoppingChecksItsKnightsIn(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	a := startRealm(t, "A", etcd, defaultSeed)
	shared := sharedRecordsOf(t, etcd)
	type player struct {
		key gossh.Signer
		at  command.Whoami
	}
	var players []player
	for _, name := range []string{"Kay", "Gawain", "Lucan"} {
		key := newKey(t)
		tm := openTerminal(t, a.addr, key, 80, 24, nil)
		tm.enterDungeon(name)
		before := whoamiJSON(t, a.addr, key)
		players = append(players, player{key, tm.stepOut(name+"'s move", before, func() command.Whoami { return whoamiJSON(t, a.addr, key) })})
	}
	if err := a.stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range players {
		if rec, err := shared.LoadAdventurer(p.at.Knight); err != nil || rec.X != p.at.X || rec.Y != p.at.Y {
			t.Errorf("%s's sheet in etcd: %+v, %v; want it at %d,%d", p.at.Name, rec, err, p.at.X, p.at.Y)
		}
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{etcd}, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if resp, err := cli.Get(ctx, "/orthanc/claim/", clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil || resp.Count != 0 {
		t.Errorf("claims left after the stop: %v, %v", resp, err)
	}
}
