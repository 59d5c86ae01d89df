package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/webhook"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Issue 47, a bridge out: a server with -webhook posts, through real SSH sessions, a
// knight's death (what slew it, where, its level), a private knight's death as the fact
// alone, a new knight's first level, a retirement and an admin's broadcast (its
// "@everyone" pinging no one), each once, in the one shape. Meanwhile knights whisper,
// talk in their party, on a channel, write a letter and say a line aloud: none of it is
// in any post.
func TestTheWebhookPostsPublicEventsAndNothingPrivate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doomed, hidden, ywain, kay, bors, admin := newKey(t), newKey(t), newKey(t), newKey(t), newKey(t), newKey(t)
	writeAdminKeys(t, dir, admin)
	in, room := seedAtTheGuardsDoor(t, dir, doomed, func(a *world.Adventurer) {
		a.Name, a.Dex, a.Hits, a.MaxHits = "Doomed", 3, 1, 1 // one hit, and a sword arm that never hits
	})
	seedAtTheGuardsDoor(t, dir, hidden, func(a *world.Adventurer) {
		a.Name, a.Dex, a.Hits, a.MaxHits, a.Options.PrivateReplays = "Hidden", 3, 1, 1, true
	})
	seedKnight(t, dir, ywain, func(a *world.Adventurer) { a.Name, a.Experience = "Ywain", 4000 }) // on the exit: level 3 once out
	rc := newHookReceiver(t, false)
	cfg := testConfig(dir, defaultSeed)
	cfg.Webhook = rc.URL + "/api/webhooks/1234/TOKEN"
	srv, _ := startConfigured(t, cfg)

	// The private talk, all of it with "secret" in it.
	tk := openTerminal(t, srv.addr, kay, 100, 30, nil)
	tk.enterDungeon("Kay")
	tb := openTerminal(t, srv.addr, bors, 100, 30, nil)
	tb.enterDungeon("Bors")
	tk.chat("/invite Bors")
	tb.waitFor("Kay invites you to join the party.")
	tb.chat("/accept")
	tk.waitFor("Bors joins the party.")
	tb.chat("/p the party's secret plan")
	tk.waitFor("the party's secret plan")
	tk.chat("/w Bors a whispered secret")
	tb.waitFor("Kay whispers: a whispered secret")
	tk.chat("/newbie a channel's secret")
	tb.waitFor("a channel's secret")
	tk.chat("/mail Doomed a letter's secret")
	tk.waitFor("letter")
	tb.chat("a secret said aloud")
	tb.waitFor("You say: a secret said aloud")

	killer := dieInTheGuardsRoom(t, srv.addr, doomed, "Doomed", in, room)
	death := rc.waitPost(t, "death", "Doomed")
	if want := fmt.Sprintf("Doomed, a knight of level 1, has been slain by %s on level 1.", killer); death.Text != want || death.Content != want ||
		death.Fields["killer"] != killer || death.Fields["depth"] != 1.0 || death.Fields["level"] != 1.0 || death.Server != "Orthanc" {
		t.Errorf("the death posted: %+v, want %q", death, want)
	}
	dieInTheGuardsRoom(t, srv.addr, hidden, "Hidden", in, room)
	if private := rc.waitPost(t, "death", "Hidden"); private.Text != "Hidden has died." || len(private.Fields) != 0 {
		t.Errorf("a private knight's death posted: %+v, want the fact alone", private)
	}

	ty := openTerminal(t, srv.addr, ywain, 80, 24, nil)
	ty.waitFor("Welcome back, Ywain")
	ty.press(keyEnter)
	ty.waitFor("Ywain │ Level 1", "On the exit")
	ty.press("<")
	ty.waitFor("You have reached level 3!", "Outside")
	if first := rc.waitPost(t, "first_level", "Ywain"); first.Text != "Ywain, a new knight, has reached level 3." || first.Fields["level"] != 3.0 {
		t.Errorf("the first level posted: %+v", first)
	}
	ty.press("R")
	ty.waitFor("(y/n)")
	ty.press("y")
	ty.waitFor("RETIRED WITH HONOUR", "Ywain")
	if retired := rc.waitPost(t, "retirement", "Ywain"); retired.Fields["level"] != 3.0 || !strings.HasPrefix(retired.Text, "Ywain retires with honour into the hall of fame, at level 3") {
		t.Errorf("the retirement posted: %+v", retired)
	}

	if out, errOut, code := runCmd(t, srv.addr, admin, "broadcast @everyone the server restarts at noon"); code != 0 {
		t.Fatalf("broadcast: %s%s", out, errOut)
	}
	b := rc.waitPost(t, "broadcast", "")
	if b.Text != "[admin] @everyone the server restarts at noon" || b.Fields["message"] != "@everyone the server restarts at noon" ||
		strings.Contains(b.Content, "@everyone") || !strings.Contains(b.Content, "the server restarts at noon") ||
		b.AllowedMentions.Parse == nil || len(b.AllowedMentions.Parse) != 0 {
		t.Errorf("the broadcast posted: %+v", b)
	}

	// One sender posts in order: with the broadcast in, every event before it is too.
	posts, raw := rc.got()
	var kinds []string
	for _, p := range posts {
		kinds = append(kinds, p.Kind+" "+p.Knight)
	}
	if got := strings.Join(kinds, ", "); got != "death Doomed, death Hidden, first_level Ywain, retirement Ywain, broadcast " {
		t.Errorf("the posts: %s", got)
	}
	t.Logf("the receiver got:\n%s", strings.Join(raw, "\n"))
	for _, r := range raw {
		if strings.Contains(r, "secret") || strings.Contains(r, "TOKEN") {
			t.Errorf("a post holds private talk: %s", r)
		}
	}
}

// A receiver that hangs never holds up the world: with the webhook's queue full, a
// knight dies (its post dropped and counted) and another keeps walking and talking; the
// metrics count what was dropped; the server stops within the webhook's grace.
func TestAHangingReceiverNeverHoldsUpTheWorld(t *testing.T) {
	dir := t.TempDir()
	doomed, kay := newKey(t), newKey(t)
	in, room := seedAtTheGuardsDoor(t, dir, doomed, func(a *world.Adventurer) {
		a.Name, a.Dex, a.Hits, a.MaxHits = "Doomed", 3, 1, 1
	})
	rc := newHookReceiver(t, true)
	cfg := testConfig(dir, defaultSeed)
	cfg.Webhook = rc.URL
	cfg.MetricsAddr = "127.0.0.1:0"
	ts, srv := startConfigured(t, cfg)
	metrics := srv.metrics.Addr().String()
	srv.hook.Post(webhook.Event{Kind: webhook.KindBroadcast, Text: "the first, which hangs"})
	waitUntil(t, "the receiver to hold the first post", func() bool { posts, _ := rc.got(); return len(posts) == 1 })
	for i := range webhook.QueueSize {
		if !srv.hook.Post(webhook.Event{Kind: webhook.KindBroadcast, Text: fmt.Sprint("filler ", i)}) {
			t.Fatalf("the queue took only %d events", i)
		}
	}

	// What the world calls at a death returns at once with the queue full.
	begin := time.Now()
	srv.herald().Proclaim(world.Tiding{Kind: world.TidingDeath, Knight: "Nobody", Level: 1, Depth: 1, Killer: "a test"})
	if d := time.Since(begin); d > 100*time.Millisecond {
		t.Errorf("the herald took %v with the queue full", d)
	}

	tk := openTerminal(t, ts.addr, kay, 100, 30, nil)
	tk.enterDungeon("Kay")
	dieInTheGuardsRoom(t, ts.addr, doomed, "Doomed", in, room)
	tk.stepOut("Kay to step off the entrance", whoamiJSON(t, ts.addr, kay), func() command.Whoami { return whoamiJSON(t, ts.addr, kay) })
	tk.chat("still here")
	tk.waitFor("You say: still here")
	if m := scrape(t, metrics); m["orthanc_webhook_dropped_total"] < 1 || m["orthanc_webhook_posts_total"] != 0 {
		t.Errorf("with the queue full: dropped %v, posted %v", m["orthanc_webhook_dropped_total"], m["orthanc_webhook_posts_total"])
	}
	if s := srv.hook.Stats(); s.Dropped < 2 {
		t.Errorf("stats %+v: the death's post was not dropped", s)
	}
	begin = time.Now()
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d > webhookGrace+8*time.Second {
		t.Errorf("the server took %v to stop", d)
	}
	if s := srv.hook.Stats(); s.Dropped != webhook.QueueSize+3 || s.Posted != 0 {
		t.Errorf("after the stop: %+v, want the queue, the hanging post, Nobody's and the death dropped", s)
	}
}
