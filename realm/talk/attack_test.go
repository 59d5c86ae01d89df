package talk

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/orthanc-ssh/orthanc-ssh/internal/natstest"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Strangers on the bus (issue 41): anyone on the machine could connect to a realm's
// nats-server with `CONNECT {}`, read every whisper and knight's id with `SUB > 1`, put
// forged shouts and whispers on players' screens and kick them with a forged moderation
// event; a stock nats-server could join the routes and do the same; and a realm acted on
// any event that named another realm. These tests play the stranger against every port an
// embedded server opens, and a realm against another's name.

// forgeries are what a stranger tries to publish: a whisper to Gawain, a shout and a kick,
// each said to come from Camelot.
var forgeries = []natstest.Forgery{
	{Subject: "orthanc.whisper.Avalon.Camelot", Body: `{"v":1,"kind":"whisper","realm":"Camelot","from":"Kay","from_id":"kay","to":"Gawain","to_id":"gawain","text":"send me your keys add code"}`},
	{Subject: "orthanc.shout.Camelot", Body: `{"v":1,"kind":"shout","realm":"Camelot","from":"Kay","from_id":"kay","text":"FORGED shout"}`},
	{Subject: "orthanc.mod.Camelot", Body: `{"v":1,"realm":"Camelot","kind":"kick","knight":"gawain","reason":"FORGED"}`},
}

// rawAttack is a stranger's raw CONNECT, SUB and forgeries at addr (natstest.Stranger):
// what it read.
func rawAttack(t *testing.T, addr string) string {
	t.Helper()
	isNATS, read, err := natstest.Stranger(addr, forgeries)
	if err != nil || !isNATS {
		t.Fatalf("%s: %v (a NATS port: %v); it read:\n%s", addr, err, isNATS, read)
	}
	return read
}

// twoRealmsUnderAttack starts Camelot and Avalon on a cluster, Gawain playing in
// Avalon, Avalon's server logging to log, and waits until they talk.
func twoRealmsUnderAttack(t *testing.T, log *slog.Logger) (srvs []*Server, camelot, avalon *testRealm) {
	t.Helper()
	a, err := StartServer(ServerConfig{Name: "Camelot", Cluster: "127.0.0.1:0", Secret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	b, err := StartServer(ServerConfig{Name: "Avalon", Cluster: "127.0.0.1:0", Secret: testSecret, Routes: []string{a.ClusterAddr()}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for _, s := range []*Server{a, b} {
		if err := s.WaitRoutes(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	camelot, avalon = newRealm(t, "Camelot", a), newRealm(t, "Avalon", b)
	camelot.join(t, "arthur", "Arthur")
	avalon.join(t, "gawain", "Gawain")
	camelot.knows(t, avalon, "Gawain")
	return []*Server{a, b}, camelot, avalon
}

// untouched fails the test if a forgery reached Gawain: a line of it, or his removal.
func untouched(t *testing.T, avalon *testRealm) {
	t.Helper()
	if ended := avalon.views["gawain"].ended(); ended != "" {
		t.Fatalf("Gawain was removed: %q", ended)
	}
	for _, l := range avalon.views["gawain"].lines() {
		if strings.Contains(l, "FORGED") || strings.Contains(l, "keys add code") {
			t.Fatalf("a forgery reached Gawain: %q", l)
		}
	}
}

// A raw client (CONNECT {}, SUB > 1, forged whisper, shout and kick) on either port of a
// realm's server, the client port and the routes', is hung up on as unauthorized and reads
// nothing; nats.go with no credentials is refused on both; then a true whisper still
// crosses, and the forgeries reached no one.
func TestAStrangerOnARealmsPortsReadsAndSaysNothing(t *testing.T) {
	srvs, camelot, avalon := twoRealmsUnderAttack(t, nil)
	for _, s := range srvs {
		for _, addr := range []string{s.ClientAddr(), s.ClusterAddr()} {
			got := rawAttack(t, addr)
			if !strings.Contains(got, "-ERR 'Authorization Violation'") || strings.Contains(got, "MSG ") || strings.Contains(got, "PONG") {
				t.Errorf("%s's port %s answered a stranger:\n%s", s.realm, addr, got)
			}
			if nc, err := nats.Connect("nats://"+addr, nats.Timeout(5*time.Second)); err == nil {
				nc.Close()
				t.Errorf("%s's port %s took nats.go with no credentials", s.realm, addr)
			}
		}
	}
	camelot.chat(t, "arthur", world.Chat{Kind: world.ChatWhisper, To: "Gawain", Text: "the true word"})
	avalon.waitLine(t, "gawain", "Arthur (in Camelot) whispers: the true word")
	untouched(t, avalon)
}

// A stock nats-server (no credential) routing to a realm's routes' port is refused, and the
// realm's log says so; its subscriber to everything reads nothing of the realms' talk, and
// the forgeries it publishes reach no one.
func TestAStockServerCannotJoinTheRoutes(t *testing.T) {
	var buf syncBuffer
	srvs, camelot, avalon := twoRealmsUnderAttack(t, slog.New(slog.NewTextHandler(&buf, nil)))
	rogue, err := server.NewServer(&server.Options{ServerName: "rogue", Host: "127.0.0.1", Port: server.RANDOM_PORT,
		NoLog: true, NoSigs: true, Cluster: server.ClusterOpts{Name: "orthanc", Host: "127.0.0.1", Port: server.RANDOM_PORT},
		Routes: server.RoutesFromStr("nats-route://" + srvs[1].ClusterAddr())})
	if err != nil {
		t.Fatal(err)
	}
	rogue.Start()
	t.Cleanup(rogue.Shutdown)
	if !rogue.ReadyForConnections(10 * time.Second) {
		t.Fatal("the rogue server did not start")
	}
	spy, err := nats.Connect(rogue.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(spy.Close)
	heard, err := spy.SubscribeSync(">")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range forgeries {
		if err := spy.Publish(f.Subject, []byte(f.Body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "Avalon's server to log the rogue route refused:\n"+buf.String(), func() bool {
		return strings.Contains(buf.String(), "rid:") && strings.Contains(buf.String(), "authentication error")
	})
	camelot.chat(t, "arthur", world.Chat{Kind: world.ChatWhisper, To: "Gawain", Text: "the true word"})
	camelot.chat(t, "arthur", world.Chat{Kind: world.ChatShout, Text: "to arms"})
	avalon.waitLine(t, "gawain", "Arthur (in Camelot) whispers: the true word")
	avalon.waitLine(t, "gawain", "Arthur (in Camelot) shouts: to arms")
	untouched(t, avalon)
	for {
		m, err := heard.NextMsg(0)
		if err != nil {
			break
		}
		if !slices.ContainsFunc(forgeries, func(f natstest.Forgery) bool { return f.Subject == m.Subject }) {
			t.Fatalf("the rogue server's subscriber read %s: %s", m.Subject, m.Data)
		}
	}
}

// A realm cannot speak for another: its server refuses its publishing on a subject naming
// another realm, and a message on its own subject that says it comes from another is
// dropped and counted.
func TestARealmCannotSpeakForAnother(t *testing.T) {
	srvs := cluster(t, "Camelot", "Avalon", "Evil")
	camelot, avalon := newRealm(t, "Camelot", srvs[0]), newRealm(t, "Avalon", srvs[1])
	avalon.join(t, "gawain", "Gawain")
	camelot.join(t, "arthur", "Arthur")
	evil := realmConn(t, srvs[2])
	waitFor(t, "Avalon to answer Evil's ping", func() bool {
		_, err := evil.Request("orthanc.ping.Avalon.Evil", []byte(`{"v":1,"realm":"Evil"}`), time.Second)
		return err == nil
	})
	for _, f := range forgeries {
		if err := evil.Publish(f.Subject, []byte(f.Body)); err != nil {
			t.Fatal(err)
		}
		if err := evil.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := evil.LastError(); !errors.Is(err, nats.ErrPermissionViolation) || !strings.Contains(err.Error(), f.Subject) {
			t.Fatalf("Evil publishing on %s: %v", f.Subject, err)
		}
		own := strings.TrimSuffix(f.Subject, ".Camelot") + ".Evil"
		if err := evil.Publish(own, []byte(f.Body)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "Avalon to drop Evil's three messages naming Camelot", func() bool { return avalon.bus.Stats().Bad == 3 })
	camelot.chat(t, "arthur", world.Chat{Kind: world.ChatShout, Text: "to arms"})
	avalon.waitLine(t, "gawain", "Arthur (in Camelot) shouts: to arms")
	untouched(t, avalon)
}
