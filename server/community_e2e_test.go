package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// End-to-end tests of issue 20 (a living community): emotes and replies, channels and
// their history, letters to knights who are away, being away, and the admins' silences,
// timed bans and reports, each through the real server with real SSH clients.

// Two knights emote and reply, on the full screen and in screen-reader mode: an emote
// reaches the knight who sees the speaker as "Name text." without the escapes typed into
// it; /r answers the last whisper.
func TestEmoteAndReply(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	ka, kb, kc := newKey(t), newKey(t), newKey(t)
	a := openTerminal(t, srv.addr, ka, 100, 30, nil)
	a.enterDungeon("Gawain")
	b := openTerminal(t, srv.addr, kb, 100, 30, nil)
	b.enterDungeon("Bors")
	b.waitFor("With you: Gawain")
	mark := len(b.rawOutput())
	a.chat("/me waves \x1b]0;pwned\x07\x1b]52;c;Zm9v\x07cheerfully\u202e")
	b.waitFor("Gawain waves cheerfully.")
	a.waitFor("Gawain waves cheerfully.")
	for _, bad := range injections {
		if strings.Contains(b.rawOutput()[mark:], bad) {
			t.Fatalf("the emote's listener received %q", bad)
		}
	}
	a.chat("/w bors meet me below")
	b.waitFor("Gawain whispers: meet me below")
	b.chat("/r on my way")
	a.waitFor("Bors whispers: on my way")
	b.waitFor("You whisper to Gawain: on my way")

	// Screen-reader mode: the same words, typed.
	c := openTerminalCmd(t, srv.addr, kc, 80, 24, "play --plain")
	c.enterPlain("Cai")
	a.waitFor("With you: Bors, Cai")
	c.press("me bows low", keyEnter)
	a.waitFor("Cai bows low.")
	a.chat("/w cai welcome")
	c.waitRaw("Gawain whispers: welcome")
	c.press("reply thank you", keyEnter)
	a.waitFor("Cai whispers: thank you")
	c.press("reply", keyEnter) // nothing to say
	c.waitRaw("Say what?")
}

// A channel's history reaches a knight who joins it: a newcomer, on newbie by default,
// asks there; a level 5 knight, not on it, joins and reads the question, and answers on
// it; the choice to be on it is saved with the knight. Unknown channels and channels the
// knight is not on are refused with a line.
func TestChannelHistoryReachesAKnightWhoJoins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	kn, kv := newKey(t), newKey(t)
	seedKnight(t, dir, kv, func(a *world.Adventurer) { a.Name, a.Level = "Veteran", 5 })
	srv := startServer(t, dir)
	n := openTerminal(t, srv.addr, kn, 100, 30, nil)
	n.enterDungeon("Newcomer")
	n.log("You are on the newbie channel, where questions are welcome")
	v := openTerminal(t, srv.addr, kv, 100, 30, nil)
	v.continueKnight()
	n.chat("/newbie how do I open a door?")
	n.waitFor("[newbie] Newcomer: how do I open a door?")
	v.chat("/newbie hello")
	v.waitFor("You are not on newbie. (/join newbie joins it.)")
	v.chat("/join newbie")
	v.log("The last 1 line said on newbie:", "[newbie] Newcomer: how do I open a door?", "You join newbie")
	v.chat("/newbie shift and an arrow, or d then a direction")
	n.waitFor("[newbie] Veteran: shift and an arrow, or d then a direction")
	v.chat("/join gossip")
	v.waitFor("There is no channel named gossip; the channels are newbie and ooc.")
	v.chat("/c ooc hi")
	v.waitFor("You are not on ooc. (/join ooc joins it.)")
	v.chat("/channels")
	v.log("Channels (/join NAME", "newbie: questions about the game")

	// The choice is kept with the knight: back after a new connection, it is on newbie.
	v.quit()
	v = openTerminal(t, srv.addr, kv, 100, 30, nil)
	v.continueKnight()
	v.log("You are on the newbie channel")
	v.chat("/leave newbie")
	v.waitFor("You leave newbie.")
	if w := whoamiLive(t, v); w.Name != "Veteran" {
		t.Fatalf("whoami after leaving a channel: %+v", w)
	}
}

// A letter written to a knight who is not online is kept across a restart of the server
// and read when the knight connects: it is told how many wait, the status line counts
// them, and e shows the letter, cleaned of the escapes typed into it. Letters to no
// knight, to oneself and to a dead knight are refused with a line, and a letter longer
// than a letter goes is cut, its writer told. (The 21st unread letter and a writer's
// sixth: world.TestBadLettersAreRefused.)
func TestALetterReachesAnAbsentKnightAcrossARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ka, kb := newKey(t), newKey(t)
	seedKnight(t, dir, kb, func(a *world.Adventurer) { a.Name = "Bors" })
	seedKnight(t, dir, newKey(t), func(a *world.Adventurer) { a.Name, a.Death = "Lamorak", &world.Death{Killer: "the Troll", Depth: 3} })
	srv := startServer(t, dir)
	a := openTerminal(t, srv.addr, ka, 100, 30, nil)
	a.enterDungeon("Gawain")
	a.chat("/mail bors meet me \x1b[2J\x1b]52;c;Zm9v\x07at the exit\u202e")
	a.waitFor("Your letter to Bors is sent: Bors will find it on arriving.")
	a.chat("/mail Nobody hello")
	a.waitFor("No knight named Nobody has been here.")
	a.chat("/mail gawain hello")
	a.waitFor("You cannot write to yourself.")
	a.chat("/mail lamorak rest well")
	a.waitFor("Lamorak is no longer of this world: letters do not reach a knight who has died or retired.")
	// A long letter is pasted, as a player would: 540 keys typed one by one can take longer
	// than a wait on a slow machine under the race detector.
	a.press(keyEnter, "/mail Bors ", pasteStart, strings.Repeat("and more ", 60), pasteEnd, keyEnter)
	a.waitFor("Your letter to Bors is sent: Bors will find it on arriving. (It was cut to 500 characters.)")
	a.quit()
	if err := srv.stop(); err != nil {
		t.Fatal(err)
	}

	srv = startServer(t, dir)
	b := openTerminal(t, srv.addr, kb, 100, 30, nil)
	b.continueKnight()
	b.waitFor("2 letters (e)")
	b.log("You have 2 unread letters. (/mail reads them.)")
	mark := len(b.rawOutput())
	b.press("e")
	b.waitFor("LETTERS: 2 letters, 2 new", "from Gawain, ", "(new)", "meet me at the exit")
	for _, bad := range injections {
		if strings.Contains(b.rawOutput()[mark:], bad) {
			t.Fatalf("the letter's reader received %q", bad)
		}
	}
	b.press("q")
	b.waitScreen("the letters counted read", func(s string) bool { return !strings.Contains(s, "letters (e)") && strings.Contains(s, "Depth 1") })
}

// A silenced knight plays on but cannot talk, and is told why and until when — the time
// is exact, the server's clock injected: every way of talking is refused with that line
// and reaches no one; the silence holds across a restart; unsilence lifts it. Misuse of
// the command gets a usage line.
func TestASilencedKnightIsToldUntilWhen(t *testing.T) {
	t.Parallel()
	cfg, admin, _ := clockedConfig(t)
	ts, _ := startConfigured(t, cfg)
	km, ke := newKey(t), newKey(t)
	m := openTerminal(t, ts.addr, km, 100, 30, nil)
	m.enterDungeon("Mordred")
	e := openTerminal(t, ts.addr, ke, 100, 30, nil)
	e.enterDungeon("Ector")
	e.waitFor("With you: Mordred")

	mordred := whoamiLive(t, m).Knight
	out, errOut, code := runCmd(t, ts.addr, admin, "silence mordred 90m --reason spamming the newbie channel")
	if code != 0 || !strings.Contains(out, "Silenced Mordred ("+mordred+")") || !strings.Contains(out, "until 2025-06-01 15:30 UTC. Its knight has been told.") {
		t.Fatalf("silence: exit %d: %q %q", code, out, errOut)
	}
	m.waitFor("An admin has silenced you until 2025-06-01 15:30 UTC (spamming the newbie channel).")
	refused := "You are silenced until 2025-06-01 15:30 UTC (spamming the newbie channel): no one hears you."
	for _, line := range []string{"hello", "/me waves", "/shout HEAR ME", "/w ector psst", "/newbie hi", "/mail Ector hi", "/afk lunch"} {
		m.chat(line)
		m.waitScreen("the refusal of "+line, func(s string) bool { return strings.Count(screenWords(s), refused) >= 1 })
	}
	m.log(refused)
	m.press(keyEnter, "/r hi") // the keys bring Mordred back from being away
	m.press(keyEnter)
	if s := e.log("Welcome, Ector."); strings.Contains(s, "Mordred says") || strings.Contains(s, "Mordred waves") ||
		strings.Contains(s, "HEAR ME") || strings.Contains(s, "psst") || strings.Contains(s, "letter") {
		t.Fatalf("a silenced knight was heard:\n%s", s)
	}
	var list []command.SilenceJSON
	if err := json.Unmarshal([]byte(mustRun(t, ts.addr, admin, "silences --json")), &list); err != nil || len(list) != 1 ||
		list[0].Name != "Mordred" || list[0].Knight != mordred || !list[0].Until.Equal(time.Date(2025, 6, 1, 15, 30, 0, 0, time.UTC)) {
		t.Fatalf("silences --json: %+v, %v", list, err)
	}
	for cmd, want := range map[string]string{
		"silence mordred":        "name the knight, then how long",
		"silence mordred 1x":     `duration "1x"`,
		"silence mordred 5s":     "from a minute to a year",
		"silence Nobody Here 1h": `no knight "Nobody Here"`,
		"unsilence Ector":        "Ector (K-",
		"silence 203.0.113.7 1h": "not an address",
		"silence " + keys.Fingerprint(admin.PublicKey()) + " 1h": "plays no knight",
	} {
		if _, errOut, code := runCmd(t, ts.addr, admin, cmd); code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, %q", cmd, code, errOut)
		}
	}

	// The silence is kept: after a restart Mordred is still silenced until the same time.
	m.quit()
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	ts, _ = startConfigured(t, cfg)
	m = openTerminal(t, ts.addr, km, 100, 30, nil)
	m.continueKnight()
	m.chat("still here")
	m.waitFor("You are silenced until 2025-06-01 15:30 UTC")
	if out, errOut, code := runCmd(t, ts.addr, admin, "unsilence mordred"); code != 0 || !strings.Contains(out, "Lifted the silence of Mordred") {
		t.Fatalf("unsilence: exit %d: %q %q", code, out, errOut)
	}
	m.waitFor("An admin has lifted your silence: you may talk again.")
	m.chat("free")
	m.waitFor("You say: free")
}

// A timed ban lapses by itself: the key is refused at login until the ban's end, by the
// server's clock (injected, so the moment is exact), and let in from then on; bans lists
// it with its end until it lapses.
func TestATimedBanLapses(t *testing.T) {
	t.Parallel()
	cfg, admin, clock := clockedConfig(t)
	ts, _ := startConfigured(t, cfg)
	player := newKey(t)
	fp := keys.Fingerprint(player.PublicKey())
	p := openTerminal(t, ts.addr, player, 80, 24, nil)
	p.enterDungeon("Mordred")

	for cmd, want := range map[string]string{
		"ban mordred --for":    "--for needs a duration",
		"ban mordred --for 1x": `duration "1x"`,
		"ban mordred --for 2y": `duration "2y"`,
	} {
		if _, errOut, code := runCmd(t, ts.addr, admin, cmd); code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, %q", cmd, code, errOut)
		}
	}
	out, errOut, code := runCmd(t, ts.addr, admin, "ban mordred --for 2h --reason cooling off")
	if code != 0 || !strings.Contains(out, "Banned Mordred ("+fp+") until 2025-06-01 16:00 UTC.") {
		t.Fatalf("ban --for: exit %d: %q %q", code, out, errOut)
	}
	if !p.ended(10 * time.Second) {
		t.Fatal("the banned knight's session stayed open")
	}
	if out := mustRun(t, ts.addr, admin, "bans"); !strings.Contains(out, "2025-06-01 16:00 UTC") || !strings.Contains(out, "cooling off") {
		t.Fatalf("bans:\n%s", out)
	}
	clock.add(2*time.Hour - time.Second)
	if banner, err := dialBanner(t, ts.addr, player); err == nil || !strings.Contains(banner, edge.BannedMessage) {
		t.Fatalf("a second before the end: banner %q, err %v", banner, err)
	}
	clock.add(time.Second)
	if w := whoamiJSON(t, ts.addr, player); w.Name != "Mordred" {
		t.Fatalf("after the ban's end: %+v", w)
	}
	if out := mustRun(t, ts.addr, admin, "bans"); !strings.Contains(out, "No key is banned.") {
		t.Fatalf("a lapsed ban is listed:\n%s", out)
	}
}

// A report lists the reported knight's recent lines: what it said aloud and its whisper
// to the reporter, with the reason, for the admin's reports (text and --json); reports of
// no knight or of oneself are refused. The metrics count the lines said by kind, a line
// refused by the rate limit, the letter and the report.
func TestAReportListsTheReportedKnightsRecentLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	admin := newKey(t)
	writeAdminKeys(t, dir, admin)
	cfg := testConfig(dir, defaultSeed)
	cfg.MetricsAddr = "127.0.0.1:0"
	ts, srv := startConfigured(t, cfg)
	kr, kk := newKey(t), newKey(t)
	r := openTerminal(t, ts.addr, kr, 100, 30, nil)
	r.enterDungeon("Mordred")
	k := openTerminal(t, ts.addr, kk, 100, 30, nil)
	k.enterDungeon("Kay")
	k.waitFor("With you: Mordred")
	r.chat("you are all fools")
	r.chat("/shout FOOLS")
	r.chat("/w kay especially you")
	k.waitFor("Mordred whispers: especially you")
	k.chat("/report mordred insults everyone")
	k.waitFor("Your report about Mordred is with the admins, with the 3 lines Mordred said lately. Thank you.")
	k.chat("/report Nobody for nothing")
	k.waitFor("No knight named Nobody has been here.")
	k.chat("/report kay for fun")
	k.waitFor("You cannot report yourself.")

	out := mustRun(t, ts.addr, admin, "reports")
	fk, fr := whoamiLive(t, k).Knight, whoamiLive(t, r).Knight // the knights' ids, not their keys'
	if !strings.HasPrefix(fk, "K-") || !strings.HasPrefix(fr, "K-") {
		t.Fatalf("knight ids %q %q", fk, fr)
	}
	for _, want := range []string{"Kay (" + fk + ") reported Mordred (" + fr + "): insults everyone",
		"say     Mordred says: you are all fools", "shout   Mordred shouts: FOOLS", "whisper  Mordred whispers: especially you"} {
		if !strings.Contains(screenWords(out), screenWords(want)) {
			t.Errorf("reports: no %q in\n%s", want, out)
		}
	}
	var reports []store.Report
	if err := json.Unmarshal([]byte(mustRun(t, ts.addr, admin, "reports --json")), &reports); err != nil || len(reports) != 1 {
		t.Fatalf("reports --json: %v %+v", err, reports)
	}
	if rp := reports[0]; rp.About != "Mordred" || rp.AboutKnight != fr || rp.FromKnight != fk || len(rp.Lines) != 3 || rp.Lines[1].Where != "shout" ||
		rp.Lines[0].At.After(rp.Filed) || rp.Filed.Before(time.Now().Add(-time.Minute)) {
		t.Fatalf("the report: %+v", rp)
	}

	// Mordred has said three lines; a letter and a shout use its allowance (five lines in
	// ten seconds), and the next shouts are refused (all of them, on a machine slow enough
	// for ten seconds to pass, is the sum below).
	r.chat("/mail kay sorry")
	r.chat("/shout one")
	r.chat("/shout two")
	r.chat("/shout three")
	r.waitFor("You are talking too fast")
	m := scrape(t, srv.metrics.Addr().String())
	if said, refused := m[`orthanc_chat_lines_total{kind="shout"}`], m[`orthanc_chat_refused_total{kind="shout"}`]; said+refused != 4 || refused < 1 {
		t.Errorf("shouts: %v said, %v refused; want 4 in all, one refused at least", said, refused)
	}
	for name, want := range map[string]float64{
		`orthanc_chat_lines_total{kind="say"}`:     1,
		`orthanc_chat_lines_total{kind="whisper"}`: 1,
		`orthanc_chat_lines_total{kind="emote"}`:   0,
		`orthanc_letters_sent_total`:               1,
		`orthanc_reports_filed_total`:              1,
	} {
		if got, ok := m[name]; !ok || got != want {
			t.Errorf("metric %s = %v (present %v), want %v", name, got, ok, want)
		}
	}
}

// who, in the game and over ssh (text and --json), shows how long each knight has been
// idle and who is away, with the reason; the next key brings the knight back.
func TestWhoShowsIdleAndAway(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	ka, kb := newKey(t), newKey(t)
	a := openTerminal(t, srv.addr, ka, 100, 30, nil)
	a.enterDungeon("Gawain")
	b := openTerminal(t, srv.addr, kb, 100, 30, nil)
	b.enterDungeon("Bors")
	a.chat("/afk gone fishing \x1b]0;x\x07")
	a.waitFor("You are away: gone fishing.", "│ Away")
	b.press("w")
	b.waitFor("WHO IS IN THE GAME", "(away: gone fishing)")
	b.press("q")
	rows := runJSON[[]command.WhoRow](t, dial(t, srv.addr, kb), "who --json")
	if len(rows) != 2 || !rows[0].Away || rows[0].AwayReason != "gone fishing" || rows[1].Away || rows[0].Fingerprint != "" {
		t.Fatalf("who --json: %+v", rows)
	}
	if out := mustRun(t, srv.addr, kb, "who"); !strings.Contains(out, "IDLE") || !strings.Contains(out, "away: gone fishing") {
		t.Fatalf("who:\n%s", out)
	}
	a.press("m") // any key brings the knight back: this one opens the map
	a.waitFor("Map of level 1")
	a.press("q")
	a.waitFor("You are back.")
	if rows := runJSON[[]command.WhoRow](t, dial(t, srv.addr, kb), "who --json"); rows[0].Away {
		t.Fatalf("who --json after a key: %+v", rows)
	}
}
