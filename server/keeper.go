package server

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// keeperNeeds is what the keeper of the knights chosen at start needs of the server
// beyond knights.Keeper: nothing for a server alone; a realm's, to hear of a knight
// claimed and of the mailboxes the world starts with, its goroutines, its metrics.
type keeperNeeds struct {
	claimed    func(knight string)
	mailLoaded func(mail map[string][]world.Letter)
	background []func(ctx context.Context)
	collectors []prometheus.Collector
	close      func() error
}

// openKeeper chooses, once, where the server keeps its knights: on a realm (-realm), in
// etcd, with its talk with the other realms when it has one; alone, in its store, with
// the one-time codes it kept across a restart. It is the one place that asks which. The
// books of codes and of names, and the arrivals of keys, are kept on what it chose.
func (s *Server) openKeeper() error {
	if err := s.chooseKeeper(); err != nil {
		return err
	}
	s.names = knights.NewNameBook(s.knights.KnightNames, func(err error) { s.log.Error("read knights' names", "err", err) })
	s.arrivals = knights.NewArrivals(s.knights, s.cfg.Limits.NewKnightsPerHour, nil)
	s.boards = knights.NewStandings(s.knights, s.now)
	return nil
}

// chooseKeeper is openKeeper's choice.
func (s *Server) chooseKeeper() error {
	s.keeperNeeds = keeperNeeds{claimed: func(string) {}, mailLoaded: func(map[string][]world.Letter) {},
		close: func() error { return nil }}
	s.talk = noTalk{realm: s.cfg.Realm}
	if s.cfg.Realm == "" {
		s.knights = store.NewKeeper(s.store, s.saver)
		codes, err := s.store.Codes(s.now())
		if err != nil {
			return err
		}
		s.codes = knights.NewCodeBook(s.store, nil) // a server alone's book is its own, kept across a restart
		s.codes.Load(codes)
		return nil
	}
	rs, err := s.openRealm(s.cfg, s.log)
	if err != nil {
		return err
	}
	s.realm, s.knights = rs, rs.keeper
	s.codes = knights.NewCodeBook(rs.keeper, rs.keeper) // every realm takes them
	s.keeperNeeds = keeperNeeds{claimed: s.loadClaimed, mailLoaded: rs.keeper.SeedMail,
		background: []func(context.Context){rs.keeper.Run, s.watchRealm},
		collectors: rs.keeper.Collectors(), close: rs.close}
	if s.cfg.NATSURL != "" || s.cfg.NATSListen != "" {
		rt, err := s.openTalk()
		if err != nil {
			s.closeStores()
			return err
		}
		s.talk = rt
	}
	logNoTalk(s.log, s.cfg)
	return nil
}

// closeKeeper checks in the knights still held (on a realm), once.
func (s *Server) closeKeeper() error {
	close := s.keeperNeeds.close
	s.keeperNeeds.close = func() error { return nil }
	return close()
}
