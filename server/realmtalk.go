package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A realm's talk with the others (-nats, or -nats-listen and -nats-routes; DESIGN §13
// "Talk across realms"): shouts, whispers, channels and letters reach knights in every
// realm, who lists them all, and bans and silences made in one realm hold at once in the
// others. The bus (realm/talk) carries it over NATS, through an external nats-server or
// one this process runs, joined to the other realms' by routes. Without either, a realm
// talks only with itself.

// presenceCheck is how often the realm looks whether its knights changed (one came, went,
// or said it is away), to tell the others at once rather than at the bus's next
// announcement, up to 5 s later.
const presenceCheck = 250 * time.Millisecond

// talker is the server's talk with the other realms: a realm's bus (realmTalk), or none
// (noTalk) for a server alone or a realm without NATS. openKeeper chooses it.
type talker interface {
	// start hands the talk the world, once the address players reach is known, until
	// ctx ends.
	start(ctx context.Context, s *Server)
	// abroad takes the world's lines for the other realms; nil for none.
	abroad() world.Abroad
	// moderate tells the other realms of a ban or silence of a knight made here.
	moderate(m talk.Moderation)
	// mailCame tells the other realms of a mailbox written here.
	mailCame(knight string)
	// broadcast tells the other realms' knights an admin's line; false when no realm is
	// told.
	broadcast(text string) bool
	// othersReports asks the other realms for their reports; none without talk.
	othersReports(ctx context.Context) []talk.RealmReports
	// closeReport closes a report of another realm there.
	closeReport(ctx context.Context, realm string, id uint64, outcome, by string) (store.Report, error)
	// realms lists the realms known, this one first, and a line to say under them.
	realms(ctx context.Context, s *Server) ([]command.Realm, string)
	// close says goodbye to the other realms.
	close()
}

// noTalk is no talk: realm is the realm's name, "" for a server alone.
type noTalk struct{ realm string }

func (noTalk) start(context.Context, *Server) {}
func (noTalk) abroad() world.Abroad           { return nil }
func (noTalk) moderate(talk.Moderation)       {}
func (noTalk) mailCame(string)                {}
func (noTalk) close()                         {}
func (noTalk) broadcast(string) bool          { return false }
func (noTalk) othersReports(context.Context) []talk.RealmReports {
	return nil
}
func (noTalk) closeReport(_ context.Context, realm string, _ uint64, _, _ string) (store.Report, error) {
	return store.Report{}, fmt.Errorf("no realm %s: this realm talks with no other", realm)
}

// realmTalk is the bus, and the nats-server this process runs for it (nil with -nats).
type realmTalk struct {
	bus *talk.Bus
	srv *talk.Server
}

// openTalk starts the embedded nats-server, if the realm runs one, and connects the bus.
// The bus takes nothing until startTalk.
func (s *Server) openTalk() (*realmTalk, error) {
	rt := &realmTalk{}
	cfg := talk.Config{Realm: s.cfg.Realm, URL: s.cfg.NATSURL, Password: s.cfg.RealmSecret, TLS: natsTLS(s.cfg), Tick: s.cfg.Tick,
		OnModeration: s.farModeration, OnMail: s.farMail, OnReports: s.answerReports}
	via := talk.RedactURLs(s.cfg.NATSURL)
	if s.cfg.NATSListen != "" {
		// The realm reaches its own server in-process; the routes, which cross the
		// network, take the secret and the TLS.
		srv, err := talk.StartServer(talk.ServerConfig{Name: s.cfg.Realm, Cluster: s.cfg.NATSListen, Routes: s.cfg.NATSRoutes,
			Secret: s.cfg.RealmSecret, RouteTLS: cfg.TLS, Log: s.log})
		if errors.Is(err, talk.ErrNoRouteAuth) {
			return nil, fmt.Errorf("%w: %w", ErrNoRouteAuth, err)
		}
		if err != nil {
			return nil, fmt.Errorf("nats-server for -nats-listen %s: %w", s.cfg.NATSListen, err)
		}
		s.log.Info("realm: nats-server", "routes_at", srv.ClusterAddr(), "routes", s.cfg.NATSRoutes, "tls", cfg.TLS != nil,
			"secret", s.cfg.RealmSecret != "", "client_at", srv.ClientAddr())
		rt.srv, cfg.Server, cfg.TLS, cfg.Password, via = srv, srv, nil, "", "in-process"
	}
	bus, err := talk.Open(cfg)
	if err != nil {
		rt.close()
		return nil, natsError(err)
	}
	rt.bus = bus
	s.log.Info("realm: talking with the other realms", "nats", via)
	return rt, nil
}

// natsTLS is the TLS of -nats-ca, -nats-cert and -nats-key; nil when none is given (a
// tls:// URL of -nats then still asks for TLS, trusting the system's authorities).
func natsTLS(cfg Config) *talk.TLS {
	if cfg.NATSTLS.empty() {
		return nil
	}
	return &talk.TLS{CA: cfg.NATSTLS.CA, Cert: cfg.NATSTLS.Cert, Key: cfg.NATSTLS.Key}
}

// ErrNATSTrust is a start refused because the realm does not trust -nats's server's
// certificate; ErrNATSRefused, because the server refused the realm's (or its lack).
// ErrNATSAuth: the server refused the realm's user and password (-realm-secret);
// ErrNATSOpen: the server would let the realm speak as another (it has no users, or
// they lack the realms' permissions). ErrNoRouteAuth: -nats-listen with neither
// -realm-secret nor TLS on the routes.
var (
	ErrNATSTrust   = errors.New("the NATS server's certificate is not trusted")
	ErrNATSRefused = errors.New("the NATS server refused this realm's TLS")
	ErrNATSAuth    = errors.New("the NATS server refused this realm's user and password")
	ErrNATSOpen    = errors.New("the NATS server does not hold the realms to their own subjects")
	ErrNoRouteAuth = errors.New("the embedded nats-server's routes need a credential")
)

// natsError marks err, of connecting to NATS, when TLS or the realm's credentials
// failed, for the advice at start.
func natsError(err error) error {
	switch trust, refused := tlsTrouble(err); {
	case errors.Is(err, talk.ErrNotConfined):
		return fmt.Errorf("%w: %w", ErrNATSOpen, err)
	case errors.Is(err, talk.ErrAuth):
		return fmt.Errorf("%w: %w", ErrNATSAuth, err)
	case trust:
		return fmt.Errorf("%w: %w", ErrNATSTrust, err)
	case refused, errors.Is(err, talk.ErrTLS): // the server hung up right after the handshake
		return fmt.Errorf("%w: %w", ErrNATSRefused, err)
	}
	return err
}

// start implements talker: the bus is handed the world, and the other realms are kept
// told of who plays here until ctx ends.
func (rt *realmTalk) start(ctx context.Context, s *Server) {
	rt.bus.SetAddr(net.JoinHostPort(s.publicHostPort()))
	if err := rt.bus.Start(s.engine); err != nil {
		s.log.Error("realm: the talk with the other realms did not start; this realm talks alone", "err", err)
		return
	}
	go rt.watchPresence(ctx, s.engine)
}

// abroad implements talker.
func (rt *realmTalk) abroad() world.Abroad { return rt.bus }

// moderate implements talker.
func (rt *realmTalk) moderate(m talk.Moderation) { rt.bus.Moderate(m) }

// mailCame implements talker.
func (rt *realmTalk) mailCame(knight string) { rt.bus.MailCame(knight) }

// broadcast implements talker.
func (rt *realmTalk) broadcast(text string) bool { return rt.bus.Broadcast(text) }

// othersReports implements talker.
func (rt *realmTalk) othersReports(ctx context.Context) []talk.RealmReports {
	return rt.bus.OthersReports(ctx)
}

// closeReport implements talker.
func (rt *realmTalk) closeReport(ctx context.Context, realm string, id uint64, outcome, by string) (store.Report, error) {
	return rt.bus.CloseReport(ctx, realm, id, outcome, by)
}

// watchPresence announces the realm's knights as soon as they change.
func (rt *realmTalk) watchPresence(ctx context.Context, e *world.Engine) {
	t := time.NewTicker(presenceCheck)
	defer t.Stop()
	last := ""
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		who, err := e.Who(ctx)
		if err != nil {
			continue
		}
		if sig := presenceSig(who); sig != last {
			last = sig
			_ = rt.bus.Announce(ctx)
		}
	}
}

// presenceSig is what of the who-list the other realms must hear of at once.
func presenceSig(who []world.WhoEntry) string {
	var b strings.Builder
	for _, e := range who {
		fmt.Fprintf(&b, "%s|%s|%t|%s\n", e.ID, e.Name, e.Away, e.AwayReason)
	}
	return b.String()
}

// close implements talker: it says goodbye to the other realms and stops the
// nats-server.
func (rt *realmTalk) close() {
	if rt.bus != nil {
		rt.bus.Close()
	}
	if rt.srv != nil {
		rt.srv.Close()
	}
}

// logNoTalk says at start that a realm without NATS talks only with itself.
func logNoTalk(log *slog.Logger, cfg Config) {
	if cfg.Realm != "" && cfg.NATSURL == "" && cfg.NATSListen == "" {
		log.Info("realm: no talk with the other realms (no -nats or -nats-listen): shouts, whispers, channels, letters as they come, who and the realms listing stay in this realm")
	}
}

// farModeration acts on a ban or silence another realm made, which the bus has applied
// to the world: a banned knight's sessions here end (its title screen and commands too).
func (s *Server) farModeration(m talk.Moderation) {
	s.log.Info("realm: moderation from another realm", "kind", m.Kind, "knight", m.Knight, "realm", m.Realm)
	if m.Kind == talk.ModRename {
		s.farRename(m)
	}
	if m.Kind != talk.ModBan {
		return
	}
	fps, err := command.KeysOfKnight(s.knights, s.live, m.Knight)
	if err != nil {
		s.log.Error("realm: the keys of a knight banned elsewhere", "knight", m.Knight, "err", err)
	}
	for _, fp := range fps {
		s.live.CloseKey(fp, command.KickGrace)
	}
}

// farRename renames a knight playing here whom an admin of another realm renamed, once
// etcd holds that rename (records.Keeper.PendingRename): the talk alone is not believed.
func (s *Server) farRename(m talk.Moderation) {
	name, ok, err := s.realm.keeper.PendingRename(m.Knight)
	if err != nil || !ok || name != m.Name {
		s.log.Warn("realm: a rename etcd does not hold is refused", "knight", m.Knight, "name", m.Name, "realm", m.Realm, "err", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), realmCallTimeout)
	defer cancel()
	if _, err := s.engine.Rename(ctx, m.Knight, name, nil); err != nil {
		s.log.Error("realm: rename a knight renamed on another realm", "knight", m.Knight, "err", err)
		return
	}
	s.book().Rename(name, m.Knight)
}

// tellRealms tells the other realms of a ban or silence made here; nothing without talk.
func (s *Server) tellRealms(m talk.Moderation) {
	if m.Knight != "" && !knights.IsGuest(m.Knight) {
		s.talk.moderate(m)
	}
}

// farMail reads anew a mailbox another realm wrote, for the world.
func (s *Server) farMail(id string) {
	s.loadMail(id)
}

// mailWritten tells the other realms of a mailbox written here.
func (s *Server) mailWritten(id string) {
	s.talk.mailCame(id)
}

// answerReports answers another realm's admin's ask of this realm's reports: the list as
// reports here lists it, or one closed here, its replay dropped with it.
func (s *Server) answerReports(_ context.Context, ask talk.ReportsAsk) ([]store.Report, error) {
	r := s.reportsDesk()
	if ask.Close == 0 {
		return r.Here()
	}
	rep, err := r.CloseHere(ask.Close, ask.Outcome, ask.By)
	if err != nil {
		return nil, err
	}
	s.log.Info("admin: report closed from another realm", "report", ask.Close, "outcome", ask.Outcome, "realm", ask.Realm, "by", ask.By)
	return []store.Report{rep}, nil
}
