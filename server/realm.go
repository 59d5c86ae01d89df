package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"charm.land/ssh"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A realm (-realm, -etcd; DESIGN §13): this server keeps its dungeon, levels and host
// key in its store, and its knights in etcd (records.Keeper), where every realm finds
// them. This file wires a realm's keeper to the server: what it is told of (a knight
// called away, lost, beaten to its key, a mailbox merged) and what the server does of it.
// Everything else reads and writes knights through knights.Keeper, realm or not.

// The lines a realm's players read.
const (
	realmCutLine  = "This realm has lost touch with the realms' records: your knight is saved as of its last checkpoint, a few seconds ago. The realm takes players again by itself once it reaches them: try again in a minute, or on another realm."
	calledLine    = "Your knight was called to realm %s; it is saved."
	realmLostLine = "Your knight plays in another realm now; what it did here since its last checkpoint is lost."
	beatenLine    = "This key made a knight on another realm at the same moment, and that knight keeps it; this one is not kept. Connect again to play it."
)

// realmCallTimeout bounds one call to etcd.
const realmCallTimeout = 5 * time.Second

// realmSide is the server's place among the realms: its etcd client and the keeper of
// its knights there.
type realmSide struct {
	cli    *clientv3.Client
	keeper *records.Keeper
}

// openRealm connects to etcd and opens the realm cfg names (waiting, up to its lease's
// time, for an earlier process of the same name to let go), its keeper telling s.
func (s *Server) openRealm(cfg Config, log *slog.Logger) (*realmSide, error) {
	cli, err := openEtcd(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*cfg.RealmTTL+realmCallTimeout)
	defer cancel()
	r, err := realm.Open(ctx, cli, realm.Config{Name: cfg.Realm, TTL: cfg.RealmTTL, OnRelease: s.realmAsked})
	if err != nil {
		cli.Close()
		return nil, fmt.Errorf("open realm %s on etcd %v: %w", cfg.Realm, cfg.Etcd, err)
	}
	log.Info("realm open", "realm", cfg.Realm, "etcd", cfg.Etcd, "ttl", cfg.RealmTTL, "tls", etcdUsesTLS(cfg))
	keeper := records.NewKeeper(records.New(cli, records.Options{}), records.KeeperConfig{
		Realm: r, TTL: cfg.RealmTTL, Log: log,
		Lost: s.realmLost, Beaten: s.realmBeaten, Merged: s.handMail, Mailed: s.mailWritten,
	})
	return &realmSide{cli: cli, keeper: keeper}, nil
}

// close checks in every knight still held and closes the realm and its client.
func (rs *realmSide) close() error {
	err := rs.keeper.Close()
	rs.cli.Close()
	return err
}

// loadClaimed hands the world what another realm may have changed of a knight just
// claimed here without this realm hearing of it (talk down, or none): its mailbox, a
// rename, its silence, read with the claim (records.Keeper.Arrived). The claim stands if
// they cannot be read: talk brings them later.
func (s *Server) loadClaimed(id string) {
	a, err := s.realm.keeper.Arrived(id)
	if err != nil {
		s.log.Error("realm: read the mailbox or the silence of a knight claimed", "knight", id, "err", err)
	}
	if a.MailOK { // else this realm's own write waits: it merges, and hands the world the result
		s.handMail(id, a.Letters)
	}
	if a.Renamed != "" {
		s.takeRenamed(id, a.Renamed)
	}
	if !a.SilenceOK {
		return
	}
	now := s.now().UTC()
	ws := world.Silence{Knight: id} // none: lifted, or ended, on another realm
	if a.Silenced && now.Before(a.Silence.Until) {
		ws = s.worldSilence(a.Silence, now)
	}
	ctx, cancel := context.WithTimeout(context.Background(), realmCallTimeout)
	defer cancel()
	if _, err := s.engine.Silence(ctx, ws); err != nil {
		s.log.Error("realm: hand the world a knight's silence", "knight", id, "err", err)
	}
}

// takeRenamed hands the world the rename an admin of another realm made of knight id
// while it played elsewhere, which its claim here applied: it is told as it joins. old
// is its name before.
func (s *Server) takeRenamed(id, old string) {
	rec, err := s.realm.keeper.Knight(id)
	if err != nil {
		s.log.Error("realm: read a knight renamed elsewhere", "knight", id, "err", err)
		return
	}
	s.book().Rename(rec.Name, id)
	before := rec.Clone()
	before.Name = old
	ctx, cancel := context.WithTimeout(context.Background(), realmCallTimeout)
	defer cancel()
	if _, err := s.engine.Rename(ctx, id, rec.Name, &before); err != nil {
		s.log.Error("realm: hand the world a knight renamed elsewhere", "knight", id, "err", err)
	}
}

// loadMail reads the mailbox of id from etcd and hands it to the world, when another
// realm says it wrote it (a knight claimed here has it read with its claim).
func (s *Server) loadMail(id string) {
	letters, ok, err := s.realm.keeper.ReadMail(id)
	if err != nil {
		s.log.Error("realm: read a knight's mailbox", "knight", id, "err", err)
	}
	if ok { // else this realm's own write waits: it merges, and hands the world the result
		s.handMail(id, letters)
	}
}

// handMail hands the world a mailbox read from etcd or merged with another realm's
// writes.
func (s *Server) handMail(id string, ls []world.Letter) {
	ctx, cancel := context.WithTimeout(context.Background(), realmCallTimeout)
	defer cancel()
	if err := s.engine.SetMail(ctx, id, ls, func(ls []world.Letter) { s.realm.keeper.Handed(id, ls) }); err != nil {
		s.log.Error("realm: hand the world a mailbox", "knight", id, "err", err)
	}
}

// realmAsked hands another realm's request for a knight to the sessions that play it
// here, which end and check it in; one no session plays is checked in at once.
func (s *Server) realmAsked(req realm.Request) {
	id := req.Knight.Knight()
	progs := s.programsOfKnight(id)
	if len(progs) == 0 {
		go func() {
			if err := s.realm.keeper.LetGo(context.Background(), id); err != nil {
				s.log.Error("realm: let a knight go", "knight", id, "err", err)
			}
		}()
		return
	}
	s.log.Info("realm: a knight is called away", "knight", id, "to", req.By)
	for _, p := range progs {
		go p.Send(app.Farewell{Reason: fmt.Sprintf(calledLine, req.By)})
	}
}

// realmLost ends the sessions of a knight whose claim went while it played here.
func (s *Server) realmLost(id string) { s.endKnight(id, realmLostLine) }

// realmBeaten ends the sessions of a knight another realm's knight took the key of.
func (s *Server) realmBeaten(id string) { s.endKnight(id, beatenLine) }

// endKnight ends every game session of knight id, telling it why.
func (s *Server) endKnight(id, why string) {
	for _, p := range s.programsOfKnight(id) {
		go p.Send(app.Farewell{Reason: why})
	}
}

// programsOfKnight lists the game programs playing knight id.
func (s *Server) programsOfKnight(id string) []*sessionLoop {
	return s.games.programsWhere(func(sess ssh.Session) bool {
		who, ok := s.ids.get(sess)
		return ok && !who.guest && who.knight == id
	})
}

// watchRealm tells every player and refuses new logins when the realm stops before ctx
// ends (cut off from etcd, or its lease gone), and takes players again once it has
// started anew (healRealm).
func (s *Server) watchRealm(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.realm.keeper.Done():
		}
		err := s.realm.keeper.Err()
		if err == nil || errors.Is(err, realm.ErrClosed) {
			return
		}
		s.log.Error("realm stopped: taking no one in; players told and disconnected", "err", err)
		s.farewell(realmCutLine)
		if !s.healRealm(ctx) {
			return
		}
	}
}

// realmHealEvery is how often a stopped realm tries to start anew while etcd is out of
// reach.
const realmHealEvery = time.Second

// healRealm starts a stopped realm anew once its sessions have ended and etcd answers
// (records.Keeper.Reopen): a new lease, the old one revoked, which frees its knights at
// once for every realm. It reports false when ctx ended first or the realm was closed.
func (s *Server) healRealm(ctx context.Context) bool {
	stopped := time.Now()
	for s.games.holding() { // the old term's sessions, told to leave, are leaving
		select {
		case <-ctx.Done():
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
	waiting := false
	for {
		rctx, cancel := context.WithTimeout(ctx, realmCallTimeout)
		err := s.realm.keeper.Reopen(rctx)
		cancel()
		switch {
		case err == nil:
			s.log.Info("realm up again: taking players in", "down", time.Since(stopped).Round(time.Millisecond))
			return true
		case ctx.Err() != nil, errors.Is(err, realm.ErrClosed):
			return false
		case !waiting:
			s.log.Info("realm: waiting for etcd to start again", "err", err)
			waiting = true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(realmHealEvery):
		}
	}
}

// shared is the records the realms share, for the admin commands; nil on a server alone.
func (s *Server) shared() command.SharedRecords {
	if s.realm == nil {
		return nil
	}
	return s.realm.keeper.Store
}

// knightFinder finds a knight by the first of names in etcd, for a letter to a knight
// this realm's world does not know (imported, or made on another realm, since it
// started); nil on a server alone. The names may be a letter's first words: they are
// not logged.
func (s *Server) knightFinder() func(ctx context.Context, names []string) (world.KnownKnight, bool) {
	if s.realm == nil {
		return nil
	}
	shared := s.realm.keeper.Store
	return func(_ context.Context, names []string) (world.KnownKnight, bool) {
		n, ok, err := shared.FindName(names...)
		if err != nil {
			s.log.Error("realm: look up a letter's knight", "err", err)
			return world.KnownKnight{}, false
		}
		return world.KnownKnight{ID: n.Knight, Name: n.Name}, ok
	}
}
