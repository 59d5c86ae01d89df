package talk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Three realms on three servers joined by routes: a whisper and its reply, a shout and a
// channel line reach knights wherever they play, marked with their realm and cleaned.
func TestTalkAcrossThreeRealms(t *testing.T) {
	srvs := cluster(t, "Camelot", "Avalon", "Lyonesse")
	camelot := newRealm(t, "Camelot", srvs[0])
	avalon := newRealm(t, "Avalon", srvs[1])
	lyonesse := newRealm(t, "Lyonesse", srvs[2])
	camelot.join(t, "arthur", "Arthur")
	avalon.join(t, "gawain", "Gawain the Green")
	lyonesse.join(t, "tristan", "Tristan")
	camelot.knows(t, avalon, "Gawain the Green")
	avalon.knows(t, camelot, "Arthur")

	camelot.chat(t, "arthur", world.Chat{Kind: world.ChatWhisper, Text: "gawain the green meet me \x1b[2J\x1b]0;pwned\x07at the gate\u202e"})
	camelot.waitLine(t, "arthur", "You whisper to Gawain the Green (in Avalon): meet me at the gate")
	avalon.waitLine(t, "gawain", "Arthur (in Camelot) whispers: meet me at the gate")

	avalon.chat(t, "gawain", world.Chat{Kind: world.ChatReply, Text: "on my way"})
	camelot.waitLine(t, "arthur", "Gawain the Green (in Avalon) whispers: on my way")

	// Every realm's subscriptions must have crossed the routes before a shout is sure to
	// reach them all: each has answered a ping from Camelot.
	for _, r := range []*testRealm{avalon, lyonesse} {
		waitFor(t, r.name+" to answer a ping", func() bool { _, ok := camelot.bus.Ping(context.Background(), r.name); return ok })
	}
	camelot.chat(t, "arthur", world.Chat{Kind: world.ChatShout, Text: "to arms"})
	avalon.waitLine(t, "gawain", "Arthur (in Camelot) shouts: to arms")
	lyonesse.waitLine(t, "tristan", "Arthur (in Camelot) shouts: to arms")

	// A new knight is on newbie until level 3, in every realm.
	lyonesse.chat(t, "tristan", world.Chat{Kind: world.ChatChannel, To: "newbie", Text: "where is the exit?"})
	camelot.waitLine(t, "arthur", "[newbie] Tristan (in Lyonesse): where is the exit?")
	avalon.waitLine(t, "gawain", "[newbie] Tristan (in Lyonesse): where is the exit?")

	// A rare deed crosses by its id, and each realm tells it on newbie in its own words.
	lyonesse.bus.Send(world.FarLine{Kind: world.ChatChannel, To: "newbie", From: "Tristan", FromID: "tristan",
		Text: "Tristan earned a rare deed (as Lyonesse words it)", Deed: world.DeedDragon})
	camelot.waitLine(t, "arthur", "[newbie] Tristan (in Lyonesse) earned a rare deed, Dragonslayer — Tristan slew the Dragon.")
	avalon.waitLine(t, "gawain", "[newbie] Tristan (in Lyonesse) earned a rare deed, Dragonslayer — Tristan slew the Dragon.")
}

// What another realm's bytes carry is cleaned on receipt, a message over its limit or of
// an unknown version is refused, and a realm cannot speak for another.
func TestWhatArrivesIsCleanedOrRefused(t *testing.T) {
	srvs := cluster(t, "Avalon", "Evil")
	avalon := newRealm(t, "Avalon", srvs[0])
	avalon.join(t, "gawain", "Gawain")
	nc := realmConn(t, srvs[1])
	waitFor(t, "Avalon to answer Evil's ping", func() bool {
		_, err := nc.Request("orthanc.ping.Avalon.Evil", []byte(`{"v":1,"realm":"Evil"}`), time.Second)
		return err == nil
	})
	publish := func(subj string, m any) {
		t.Helper()
		data, _ := json.Marshal(m)
		if err := nc.Publish(subj, data); err != nil {
			t.Fatal(err)
		}
	}
	huge := lineMsg{V: version, Kind: "shout", Realm: "Evil", From: "Mordred", FromID: "mordred", Text: strings.Repeat("x", maxLineBytes)}
	publish("orthanc.shout.Evil", huge)
	publish("orthanc.shout.Evil", lineMsg{V: 2, Kind: "shout", Realm: "Evil", From: "Mordred", FromID: "mordred", Text: "from the future"})
	publish("orthanc.realm.Evil", announceMsg{V: version, Realm: "Camelot", Players: 1})
	publish("orthanc.shout.Evil", lineMsg{V: version, Kind: "shout", Realm: "Evil", From: "Mor\x1b[5mdred\u200b", FromID: "mordred",
		Text: "\x1b]52;c;cGF3bmVk\x07hello\r\n\x1b[1;1Hall\u202e\u009b2J"})
	avalon.waitLine(t, "gawain", "Mordred (in Evil) shouts: hello all")
	for _, l := range avalon.views["gawain"].lines() {
		if strings.Contains(l, "future") || strings.Contains(l, "xxxx") {
			t.Fatalf("a refused message reached a knight: %q", l)
		}
	}
	waitFor(t, "the refusals counted", func() bool {
		s := avalon.bus.Stats()
		return s.Oversize == 1 && s.Bad == 2
	})
}

// A realm that is gone (its server closed) gives the whisperer a clear line.
func TestAWhisperToARealmGoneIsToldSo(t *testing.T) {
	srvs := cluster(t, "Camelot", "Avalon")
	camelot := newRealm(t, "Camelot", srvs[0], func(c *Config) { c.Timeout = time.Second })
	avalon := newRealm(t, "Avalon", srvs[1])
	camelot.join(t, "arthur", "Arthur")
	avalon.join(t, "gawain", "Gawain")
	camelot.knows(t, avalon, "Gawain")

	// Avalon dies: its connection gone with no goodbye. Closing only its nats-server let
	// its client reconnect to Camelot's through the cluster's gossip, and answer.
	avalon.bus.nc.Close()
	camelot.chat(t, "arthur", world.Chat{Kind: world.ChatWhisper, To: "Gawain", Text: "are you there?"})
	camelot.waitLine(t, "arthur", "Avalon, where Gawain plays, does not answer: your whisper was not delivered.")
}

// The realms listing: every realm with its address and players, and the round trip of a
// ping to each.
func TestRealmsListsEveryRealmWithItsRoundTrip(t *testing.T) {
	srvs := cluster(t, "Camelot", "Avalon")
	camelot := newRealm(t, "Camelot", srvs[0])
	avalon := newRealm(t, "Avalon", srvs[1])
	avalon.join(t, "gawain", "Gawain")
	camelot.knows(t, avalon, "Gawain")
	var rs []RealmInfo
	waitFor(t, "Avalon to answer in the listing", func() bool {
		rs = camelot.bus.Realms(context.Background())
		return len(rs) == 2 && rs[1].Answered
	})
	if rs[0].Name != "Camelot" || rs[0].Addr != "camelot.example:2222" || rs[1].Name != "Avalon" ||
		rs[1].Addr != "avalon.example:2222" || rs[1].Players != 1 || rs[1].RTT <= 0 || rs[1].RTT > time.Second {
		t.Fatalf("realms: %+v", rs)
	}
	t.Logf("ping Camelot → Avalon over a route: %v", rs[1].RTT)
	if _, ok := camelot.bus.Ping(context.Background(), "Nowhere"); ok {
		t.Fatal("a realm that does not exist answered")
	}
}

// A ban made in one realm drops the knight's session in another at once; a silence mutes it;
// a kick removes it; a rename goes to the server, which renames only what etcd holds, and a
// rename to a bad name is refused.
func TestModerationCrossesRealms(t *testing.T) {
	srvs := cluster(t, "Camelot", "Avalon")
	var mu sync.Mutex
	var told []Moderation
	camelot := newRealm(t, "Camelot", srvs[0])
	avalon := newRealm(t, "Avalon", srvs[1], func(c *Config) {
		c.OnModeration = func(m Moderation) { mu.Lock(); told = append(told, m); mu.Unlock() }
	})
	avalon.join(t, "gawain", "Gawain")
	avalon.join(t, "mordred", "Mordred")
	avalon.join(t, "kay", "Rudeword")
	avalon.join(t, "bors", "Bors")
	waitFor(t, "Avalon to answer a ping", func() bool { _, ok := camelot.bus.Ping(context.Background(), "Avalon"); return ok })

	camelot.bus.Moderate(Moderation{Kind: ModRename, Knight: "kay", Name: "Bad!Name"}) // refused: no such name
	camelot.bus.Moderate(Moderation{Kind: ModRename, Knight: "kay", Name: "Kay"})      // for the server, which checks it with etcd
	camelot.bus.Moderate(Moderation{Kind: ModKick, Knight: "bors", Reason: "a rest"})
	waitFor(t, "Bors removed", func() bool { return avalon.views["bors"].ended() == world.KickedFor("a rest") })
	waitFor(t, "the server told of both", func() bool { mu.Lock(); defer mu.Unlock(); return len(told) == 2 })
	mu.Lock()
	if told[0].Kind != ModRename || told[0].Name != "Kay" || told[1].Kind != ModKick {
		t.Errorf("the server was told %+v", told)
	}
	told = nil
	mu.Unlock()

	camelot.bus.Moderate(Moderation{Kind: ModSilence, Knight: "gawain", For: time.Hour, Until: "13:00 UTC", Reason: "spam"})
	avalon.waitLine(t, "gawain", "An admin has silenced you until 13:00 UTC (spam). You can play on, but what you say, shout, whisper or write reaches no one until then.")
	camelot.bus.Moderate(Moderation{Kind: ModBan, Knight: "mordred", Reason: "treason"})
	waitFor(t, "Mordred dropped", func() bool { return avalon.views["mordred"].ended() == world.KickedFor("treason") })
	waitFor(t, "the server told of both", func() bool { mu.Lock(); defer mu.Unlock(); return len(told) == 2 })
	mu.Lock()
	defer mu.Unlock()
	if told[1].Kind != ModBan || told[1].Realm != "Camelot" {
		t.Fatalf("the server was told %+v", told)
	}
}

// A world that does not keep up never holds up the bus, nor the bus the world: a full queue
// drops, and counts what it dropped.
func TestASlowWorldDropsAndCounts(t *testing.T) {
	srvs := cluster(t, "Avalon", "Camelot")
	slow := newFakeWorld()
	slow.hold = make(chan struct{})
	b := fakeBus(t, "Avalon", srvs[0], slow, func(c *Config) { c.Queue = 4 })
	sender := fakeBus(t, "Camelot", srvs[1], newFakeWorld(), func(c *Config) { c.Queue = 4 })
	waitFor(t, "Avalon to answer a ping", func() bool { _, ok := sender.Ping(context.Background(), "Avalon"); return ok })

	start := time.Now()
	for range 1000 {
		sender.Send(world.FarLine{Kind: world.ChatShout, From: "Arthur", FromID: "arthur", Text: "flood"})
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("1000 sends took %v", took)
	}
	waitFor(t, "the sender's drops counted", func() bool { return sender.Stats().DroppedOut > 0 })
	waitFor(t, "the receiver's drops counted", func() bool {
		sender.Send(world.FarLine{Kind: world.ChatShout, From: "Arthur", FromID: "arthur", Text: "more"})
		r := b.Stats()
		return r.DroppedIn+r.DroppedSlow > 0
	})
	close(slow.hold)
	// Every message that arrived (the lines, and the sender's presence) was handed on or
	// dropped.
	waitFor(t, "every line heard or dropped", func() bool {
		r := b.Stats()
		return uint64(slow.heard.Load()+slow.presences.Load())+r.DroppedIn == r.Received
	})
	if h, s := slow.heard.Load(), sender.Stats(); h >= 1000 || s.DroppedOut == 0 {
		t.Fatalf("heard %d, sender %+v, receiver %+v", h, s, b.Stats())
	}
}

// A realm that says nothing for three periods is gone from presence, and one that says it
// is closing at once.
func TestPresenceForgetsRealmsGoneQuiet(t *testing.T) {
	srvs := cluster(t, "Camelot", "Avalon")
	var now atomic.Int64 // minutes
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return start.Add(time.Duration(now.Load()) * time.Minute) }
	w := newFakeWorld()
	b := fakeBus(t, "Camelot", srvs[0], w, func(c *Config) { c.Now = clock; c.AnnounceEvery = time.Minute })
	// Avalon says who plays in it once, when it starts: only once Camelot's subscriptions
	// have crossed the route to Avalon's server (they came over it before Camelot's answer
	// to a ping from there).
	probe := realmConn(t, srvs[1])
	waitFor(t, "Camelot to answer a ping from Avalon's server", func() bool {
		_, err := probe.Request("orthanc.ping.Camelot.Avalon", []byte(`{"v":1,"realm":"Avalon"}`), time.Second)
		return err == nil
	})
	other := fakeBus(t, "Avalon", srvs[1], newFakeWorld())
	waitFor(t, "Avalon's presence", func() bool { return w.knows("Avalon") }) // said when it started
	now.Store(2)
	b.expire()
	if !w.knows("Avalon") {
		t.Fatal("a realm quiet for two periods was forgotten")
	}
	now.Store(3)
	b.expire()
	waitFor(t, "Avalon forgotten", func() bool { return !w.knows("Avalon") })

	_ = other.Announce(context.Background())
	waitFor(t, "Avalon back", func() bool { return w.knows("Avalon") })
	other.Close()
	waitFor(t, "Avalon gone when it closed", func() bool { return !w.knows("Avalon") })
}

// A realm that starts hears at once who plays in the realms already running, not at
// their next presence (an hour away here): knowing no other realm, it asks for theirs.
// Camelot, started first, asked too, when no one heard; it answers Avalon's ask.
func TestARealmStartingHearsTheOthersAtOnce(t *testing.T) {
	srvs := cluster(t, "Camelot", "Avalon")
	camelot, avalon := newFakeWorld(), newFakeWorld()
	fakeBus(t, "Camelot", srvs[0], camelot)
	// Avalon asks once, when it starts: only once Camelot's subscriptions have crossed
	// the route to Avalon's server.
	probe := realmConn(t, srvs[1])
	waitFor(t, "Camelot to answer a ping from Avalon's server", func() bool {
		_, err := probe.Request("orthanc.ping.Camelot.Avalon", []byte(`{"v":1,"realm":"Avalon"}`), time.Second)
		return err == nil
	})
	fakeBus(t, "Avalon", srvs[1], avalon)
	waitFor(t, "Camelot to hear of Avalon", func() bool { return camelot.knows("Avalon") })
	waitFor(t, "Avalon to hear of Camelot", func() bool { return avalon.knows("Camelot") })
}

func TestOpenRefusesNamesThatCannotBeSubjects(t *testing.T) {
	for _, c := range []Config{{Realm: ""}, {Realm: "a.b"}, {Realm: "a*"}, {Realm: strings.Repeat("a", 33)}, {Realm: "ok", Prefix: "a..b"}} {
		if _, err := Open(c); !errors.Is(err, ErrBadConfig) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

// A presence too long for its limit is cut, not refused: the count stays whole.
func TestALongPresenceIsCutToItsLimit(t *testing.T) {
	m := announceMsg{V: version, Realm: "Avalon", Players: 5000}
	for i := range 5000 {
		m.Knights = append(m.Knights, knightMsg{Name: fmt.Sprintf("Knight %d", i), ID: strings.Repeat("k", 50), AwayReason: strings.Repeat("é", 80)})
	}
	fit := fitAnnounce(m)
	data, err := encode(fit, maxAnnounceBytes)
	if err != nil || len(fit.Knights) == 0 || len(fit.Knights) == 5000 || fit.Players != 5000 {
		t.Fatalf("%d knights, %d bytes, %v", len(fit.Knights), len(data), err)
	}
}

// A mailbox written in one realm is news to the others, once each; a notice that names
// no knight is refused.
func TestMailNoticesCrossRealms(t *testing.T) {
	srvs := cluster(t, "Camelot", "Avalon")
	var mu sync.Mutex
	var told []string
	camelot := newRealm(t, "Camelot", srvs[0])
	avalon := newRealm(t, "Avalon", srvs[1], func(c *Config) {
		c.OnMail = func(k string) { mu.Lock(); told = append(told, k); mu.Unlock() }
	})
	waitFor(t, "Avalon to answer a ping", func() bool { _, ok := camelot.bus.Ping(context.Background(), "Avalon"); return ok })
	raw := realmConn(t, srvs[0])
	if err := raw.Publish("orthanc.mail.Camelot", []byte(`{"v":1,"realm":"Camelot","knight":""}`)); err != nil {
		t.Fatal(err)
	}
	camelot.bus.MailCame("K-GAWAIN")
	waitFor(t, "Avalon told of Gawain's mailbox", func() bool { mu.Lock(); defer mu.Unlock(); return len(told) == 1 })
	avalon.bus.MailCame("K-KAY") // its own: not told back
	camelot.bus.MailCame("K-BORS")
	waitFor(t, "Avalon told of Bors's mailbox", func() bool { mu.Lock(); defer mu.Unlock(); return len(told) == 2 })
	mu.Lock()
	defer mu.Unlock()
	if told[0] != "K-GAWAIN" || told[1] != "K-BORS" || avalon.bus.Stats().Bad != 1 {
		t.Fatalf("told %q, stats %+v", told, avalon.bus.Stats())
	}
}
