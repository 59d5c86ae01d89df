package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/webhook"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The tidings in public words (DESIGN §12 "A bridge out"): a death with what slew the
// knight, where and at which level; a private knight's death as the fact alone; a
// retirement, a first level and a rare deed in full (a private knight's too); a guest's
// never.
func TestTidingsInPublicWords(t *testing.T) {
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	dragon, _ := world.DeedByID(world.DeedDragon)
	for _, c := range []struct {
		t      world.Tiding
		ok     bool
		kind   webhook.Kind
		fields string
		text   string
	}{
		{world.Tiding{Kind: world.TidingDeath, Knight: "Gareth", Level: 3, Depth: 2, Killer: "a Wolf", Experience: 5000}, true, webhook.KindDeath,
			`{"depth":2,"killer":"a Wolf","level":3}`, "Gareth, a knight of level 3, has been slain by a Wolf on level 2."},
		{world.Tiding{Kind: world.TidingDeath, Knight: "Gareth", Level: 3, Killer: "a Troll"}, true, webhook.KindDeath,
			`{"depth":0,"killer":"a Troll","level":3}`, "Gareth, a knight of level 3, has been slain by a Troll on the surface."},
		{world.Tiding{Kind: world.TidingDeath, Knight: "Gareth", Private: true, Level: 3, Depth: 2, Killer: "a Wolf"}, true, webhook.KindDeath,
			`{}`, "Gareth has died."},
		{world.Tiding{Kind: world.TidingRetirement, Knight: "Gareth", Private: true, Level: 5, Experience: 12000}, true, webhook.KindRetirement,
			`{"experience":12000,"level":5}`, "Gareth retires with honour into the hall of fame, at level 5 with 12000 experience."},
		{world.Tiding{Kind: world.TidingFirstLevel, Knight: "Gareth", Level: 2, Experience: 2100}, true, webhook.KindFirstLevel,
			`{"level":2}`, "Gareth, a new knight, has reached level 2."},
		{world.Tiding{Kind: world.TidingDeath, Knight: "Guest4821", Guest: true, Level: 1, Depth: 1, Killer: "a Rot Grub"}, false, "", "", ""},
		{world.Tiding{Kind: world.TidingFirstLevel, Knight: "Guest4821", Guest: true, Level: 2}, false, "", "", ""},
		{world.Tiding{Kind: world.TidingDeed, Knight: "Gareth", Private: true, Level: 6, Deed: dragon}, true, webhook.KindDeed,
			`{"deed":"dragon","title":"Dragonslayer"}`, "Gareth earned a rare deed, Dragonslayer — Gareth slew the Dragon."},
		{world.Tiding{Kind: world.TidingDeed, Knight: "Guest4821", Guest: true, Deed: dragon}, false, "", "", ""},
	} {
		e, ok := tidingEvent(c.t, at)
		if ok != c.ok {
			t.Errorf("%+v: posted %v, want %v", c.t, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		b, err := webhook.Encode(e)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Kind   webhook.Kind    `json:"kind"`
			Time   string          `json:"time"`
			Knight string          `json:"knight"`
			Fields json.RawMessage `json:"fields"`
			Text   string          `json:"text"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if got.Kind != c.kind || got.Time != "2026-12-07T11:00:00Z" || got.Knight != c.t.Knight || string(got.Fields) != c.fields || got.Text != c.text {
			t.Errorf("%+v posted as %s", c.t, b)
		}
	}
}

// hookReceiver is a webhook's receiver for a test server: it keeps every post, decoded,
// and answers 204 as Discord does, or holds the request until the test ends.
type hookReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	posts []hookPost
	raw   []string
}

// hookPost is a post as the receiver reads it.
type hookPost struct {
	Kind            string         `json:"kind"`
	Server          string         `json:"server"`
	Knight          string         `json:"knight"`
	Fields          map[string]any `json:"fields"`
	Text            string         `json:"text"`
	Content         string         `json:"content"`
	AllowedMentions struct {
		Parse []string `json:"parse"`
	} `json:"allowed_mentions"`
}

func newHookReceiver(t *testing.T, hang bool) *hookReceiver {
	t.Helper()
	rc := &hookReceiver{}
	release := make(chan struct{})
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var p hookPost
		if err := json.Unmarshal(b, &p); err != nil || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("a post of %q that is not JSON: %s (%v)", r.Header.Get("Content-Type"), b, err)
		}
		rc.mu.Lock()
		rc.posts, rc.raw = append(rc.posts, p), append(rc.raw, string(b))
		rc.mu.Unlock()
		if hang {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(func() { close(release); rc.Close() })
	return rc
}

// got is what the receiver has had: the posts, and their bodies as sent.
func (rc *hookReceiver) got() ([]hookPost, []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hookPost(nil), rc.posts...), append([]string(nil), rc.raw...)
}

// waitPost waits until the receiver has a post of kind about knight, and returns it.
func (rc *hookReceiver) waitPost(t *testing.T, kind, knight string) hookPost {
	t.Helper()
	var found hookPost
	waitUntil(t, "a "+kind+" post of "+knight, func() bool {
		posts, _ := rc.got()
		for _, p := range posts {
			if p.Kind == kind && p.Knight == knight {
				found = p
				return true
			}
		}
		return false
	})
	return found
}

// dieInTheGuardsRoom plays key's knight, seeded at the guards' door, into the room and
// fights until it dies; it returns what slew it, as the tombstone says.
func dieInTheGuardsRoom(t *testing.T, addr string, key gossh.Signer, name string, in []string, room []world.Pos) string {
	t.Helper()
	tm := openTerminal(t, addr, key, 100, 30, nil)
	tm.waitFor("Welcome back, " + name)
	tm.press(keyEnter)
	tm.waitFor(name + " │ Level 1")
	walk(t, tm, addr, key, in, room)
	if !poll(30*time.Second, 50*time.Millisecond, func() bool {
		if strings.Contains(tm.screen(), "R. I. P.") {
			return true
		}
		tm.press("f") // swing (and miss) so the monster swings back
		return false
	}) {
		t.Fatalf("%s did not die:\n%s", name, tm.screen())
	}
	m := regexp.MustCompile(`slain by (an? [A-Z][a-z]+( [A-Z][a-z]+)?)`).FindStringSubmatch(tm.waitFor("R. I. P.", "slain by"))
	if m == nil {
		t.Fatalf("no killer on the tombstone:\n%s", tm.screen())
	}
	return m[1]
}

// Issue 47: a stopping server lets the webhook post what is queued for 3 s (DESIGN §12
// "A bridge out", OPERATIONS "Posting to Discord").
func TestTheWebhooksGrace(t *testing.T) {
	if webhookGrace != 3*time.Second {
		t.Errorf("the webhook's grace at the stop is %v, want 3 s", webhookGrace)
	}
}
