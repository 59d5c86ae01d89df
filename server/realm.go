package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/realm"
	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A realm (-realm, -etcd; DESIGN §13): this server keeps its dungeon, levels and host
// key in its store, and takes its knights from etcd, where every realm finds them. A
// knight plays in one realm at a time: it is claimed when its game opens (taken from the
// realm that holds it, which its player there is told), written only under that claim
// (realmKnights), and checked in when its last session here ends.

// The lines a realm's players read.
const (
	realmDownLine  = "This realm has lost touch with the realms' records and takes no one in just now; try again in a minute, or on another realm."
	realmCutLine   = "This realm has lost touch with the realms' records: your knight is saved as of its last checkpoint, a few seconds ago. Try again in a minute, or on another realm."
	calledLine     = "Your knight was called to realm %s; it is saved."
	callingLine    = "Your knight is in realm %s; calling it here (a few seconds)..."
	stillThereLine = "Your knight is still in realm %s; try again in a moment."
	realmLostLine  = "Your knight plays in another realm now; what it did here since its last checkpoint is lost."
	unreachLine    = "This realm cannot reach the realms' records just now; nothing was changed. Please try again later."
)

// realmCallTimeout bounds one call to etcd.
const realmCallTimeout = 5 * time.Second

// errRealmDown is a login refused because the realm has stopped (cut off, or its lease lost).
var errRealmDown = errors.New("the realm has stopped")

// realmSide is the server's place among the realms.
type realmSide struct {
	cli     *clientv3.Client
	r       *realm.Realm
	recs    *records.Store
	knights *realmKnights
	ttl     time.Duration
	log     *slog.Logger
}

// openRealm connects to etcd and opens the realm cfg names (waiting, up to its lease's
// time, for an earlier process of the same name to let go); asked is told of each
// request of another realm for a knight held here.
func openRealm(cfg config, log *slog.Logger, asked func(realm.Request), lost func(string)) (*realmSide, error) {
	cli, err := openEtcd(cfg)
	if err != nil {
		return nil, err
	}
	rs := &realmSide{cli: cli, recs: records.New(cli, records.Options{}), ttl: cfg.realmTTL, log: log}
	rs.knights = newRealmKnights(cfg.realm, rs.recs, log)
	rs.knights.lost = lost
	ctx, cancel := context.WithTimeout(context.Background(), 2*cfg.realmTTL+realmCallTimeout)
	defer cancel()
	rs.r, err = realm.Open(ctx, cli, realm.Config{Name: cfg.realm, TTL: cfg.realmTTL, OnRelease: asked})
	if err != nil {
		cli.Close()
		return nil, fmt.Errorf("open realm %s on etcd %v: %w", cfg.realm, cfg.etcd, err)
	}
	log.Info("realm open", "realm", cfg.realm, "etcd", cfg.etcd, "ttl", cfg.realmTTL, "tls", etcdUsesTLS(cfg))
	return rs, nil
}

// claim claims knight id for a session's game, writing to w while it calls the knight
// from another realm. A knight another session here plays already is shared.
func (rs *realmSide) claim(ctx context.Context, w io.Writer, id string) error {
	if rs.r.Err() != nil {
		return errRealmDown
	}
	if rs.knights.join(id) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, rs.ttl+realmCallTimeout)
	defer cancel()
	f, err := rs.claimHere(ctx, id)
	var held *realm.ClaimedError
	if errors.As(err, &held) && !held.Here {
		fmt.Fprintf(w, callingLine+"\r\n", held.Holder)
		f, err = rs.r.Take(ctx, id)
	}
	if err != nil {
		return err
	}
	sheet, err := rs.sheetOf(f)
	if err != nil {
		_ = f.Release(ctx)
		return err
	}
	rs.knights.hold(f, sheet)
	return nil
}

// loadClaimed reads from etcd what another realm may have changed of a knight just
// claimed here without this realm hearing of it (talk down, or none): its mailbox and
// its silence. The claim stands if they cannot be read: talk brings them later.
func (s *server) loadClaimed(id string) {
	if err := s.realm.loadMail(s.engine, id); err != nil {
		s.log.Error("realm: read the mailbox of a knight claimed", "knight", id, "err", err)
	}
	now := s.now().UTC()
	sl, on, err := s.realm.recs.SilenceOf(id, now)
	if err != nil {
		s.log.Error("realm: read the silence of a knight claimed", "knight", id, "err", err)
		return
	}
	ws := world.Silence{Knight: id} // none: lifted, or ended, on another realm
	if on {
		ws = s.worldSilence(sl, now)
	}
	ctx, cancel := context.WithTimeout(context.Background(), realmCallTimeout)
	defer cancel()
	if _, err := s.engine.Silence(ctx, ws); err != nil {
		s.log.Error("realm: hand the world a knight's silence", "knight", id, "err", err)
	}
}

// claimHere claims id, waiting while this realm's own last hold of it ends (a session
// that has just left and is checking it in).
func (rs *realmSide) claimHere(ctx context.Context, id string) (*realm.Fenced, error) {
	for {
		f, err := rs.r.Claim(ctx, id)
		var held *realm.ClaimedError
		if !errors.As(err, &held) || !held.Here {
			return f, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// sheetOf is the knight's sheet the claim read, nil for a knight never saved. A knight
// that comes from another realm starts at this realm's entrance: levels and squares are
// each realm's own.
func (rs *realmSide) sheetOf(f *realm.Fenced) (*world.Adventurer, error) {
	if f.Sheet() == nil {
		return nil, nil
	}
	a, from, err := records.DecodeSheet(f.Knight(), f.Sheet())
	if err != nil {
		return nil, err
	}
	if from != rs.r.Name() {
		a.Depth, a.X, a.Y = 1, -1, -1
		rs.log.Info("realm: a knight arrives", "knight", a.ID, "from", from)
	}
	return &a, nil
}

// claimLine is what a player whose knight could not be claimed reads.
func claimLine(err error) string {
	var held *realm.ClaimedError
	switch {
	case errors.Is(err, errRealmDown):
		return realmDownLine
	case errors.As(err, &held):
		return fmt.Sprintf(stillThereLine, held.Holder)
	}
	return unreachLine
}

// shutdown checks in every knight still held and closes the realm and its client.
func (rs *realmSide) shutdown() error {
	ctx, cancel := context.WithTimeout(context.Background(), realmCallTimeout)
	defer cancel()
	err := rs.knights.checkInAll(ctx)
	err = errors.Join(err, rs.knights.flushMail(), rs.r.Close())
	rs.cli.Close()
	return err
}

// realmDown reports whether this server is a realm that has stopped.
func (s *server) realmDown() bool { return s.realm != nil && s.realm.r.Err() != nil }

// realmAsked hands another realm's request for a knight to the sessions that play it
// here, which end and check it in; one no session plays is checked in at once.
func (s *server) realmAsked(req realm.Request) {
	id := req.Knight.Knight()
	progs := s.programsOfKnight(id)
	if len(progs) == 0 {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), realmCallTimeout)
			defer cancel()
			if err := s.realm.knights.leaveAll(ctx, id); err != nil {
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
func (s *server) realmLost(id string) {
	for _, p := range s.programsOfKnight(id) {
		go p.Send(app.Farewell{Reason: realmLostLine})
	}
}

// programsOfKnight lists the game programs playing knight id.
func (s *server) programsOfKnight(id string) []*tea.Program {
	return s.games.programsWhere(func(sess ssh.Session) bool {
		who, ok := s.ids.get(sess)
		return ok && !who.guest && who.knight == id
	})
}

// watchRealm tells every player and refuses new logins when the realm stops before ctx
// ends (cut off from etcd, or its lease gone).
func (s *server) watchRealm(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-s.realm.r.Done():
		if errors.Is(s.realm.r.Err(), realm.ErrClosed) {
			return
		}
		s.log.Error("realm stopped: taking no one in; players told and disconnected", "err", s.realm.r.Err())
		s.farewell(realmCutLine)
	}
}
