package web

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// sign is a page's proof of priv for challenge on host, under the domain given.
func sign(priv ed25519.PrivateKey, domain, host, challenge string) playProof {
	msg := []byte(domain + host + "\n" + challenge)
	return playProof{Key: base64.StdEncoding.EncodeToString(priv.Public().(ed25519.PublicKey)),
		Sig: base64.StdEncoding.EncodeToString(ed25519.Sign(priv, msg))}
}

func newTestKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

// A proof verifies only as made: the key's own signature, of this domain, this host and
// this challenge; anything else is errBadProof.
func TestAProofOfABrowsersKey(t *testing.T) {
	priv, other := newTestKey(t), newTestKey(t)
	const host = "orthanc.example"
	challenge := newChallenge()
	good := sign(priv, playProofDomain, host, challenge)
	key, err := verifyProof(host, challenge, good)
	if err != nil || !key.Equal(priv.Public()) {
		t.Fatalf("a good proof: %v, %x; want the page's key", err, key)
	}
	if c2 := newChallenge(); c2 == challenge || len(c2) != base64.StdEncoding.EncodedLen(playChallenge) {
		t.Errorf("two challenges %q and %q; want fresh ones of %d bytes", challenge, c2, playChallenge)
	}
	flipped := good
	sig, _ := base64.StdEncoding.DecodeString(good.Sig)
	sig[5] ^= 1
	flipped.Sig = base64.StdEncoding.EncodeToString(sig)
	otherKey := good
	otherKey.Key = base64.StdEncoding.EncodeToString(other.Public().(ed25519.PublicKey))
	for name, p := range map[string]playProof{
		"a flipped bit of the signature": flipped,
		"another key's claim":            otherKey,
		"another challenge (a replay)":   sign(priv, playProofDomain, host, newChallenge()),
		"another host":                   sign(priv, playProofDomain, "evil.example", challenge),
		"another domain":                 sign(priv, "orthanc-ssh play v2\n", host, challenge),
		"no domain":                      sign(priv, "", host, challenge),
		"a short key":                    {Key: base64.StdEncoding.EncodeToString([]byte("short")), Sig: good.Sig},
		"a signature not base64":         {Key: good.Key, Sig: "!!"},
		"nothing":                        {},
	} {
		if _, err := verifyProof(host, challenge, p); !errors.Is(err, errBadProof) {
			t.Errorf("%s: %v; want errBadProof", name, err)
		}
	}
}

// keyPlay is a game that draws who the page proved it is: its key, or why none.
func keyPlay(_ context.Context, s PlaySession) {
	if s.Key != nil {
		fmt.Fprintf(s.Screen, "key %s", base64.StdEncoding.EncodeToString(s.Key))
	} else {
		fmt.Fprintf(s.Screen, "no key: %s", s.NoKey)
	}
	s.Tell(PlayWho{Guest: s.Key == nil, Why: s.NoKey})
	_, _ = s.Keys.Read(make([]byte, 1)) // until the page goes
}

// keyServer is the play page with keyPlay as its game, and link as its link.
func keyServer(t *testing.T, link PlayLinkFunc) (base, ws string) {
	t.Helper()
	h := New(func(context.Context) (Status, error) { return fixed(), nil }, nil, Options{Play: keyPlay, PlayLink: link})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, "ws" + strings.TrimPrefix(srv.URL, "http")
}

// readJSON reads the next message into v, and returns it.
func readJSON(t *testing.T, c *websocket.Conn, v any) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, data, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return data
}

// The game socket: a page that asks (key=1) is sent a challenge first; its proof makes
// the game's session carry its key; a proof of another connection's challenge (a replay)
// and a page that never answers play as guests, each told why; a page that asks no
// challenge is sent none and plays at once.
func TestTheGameSocketProvesTheBrowsersKey(t *testing.T) {
	defer func(d time.Duration) { playProofWait = d }(playProofWait)
	playProofWait = 500 * time.Millisecond
	base, ws := keyServer(t, nil)
	host := strings.TrimPrefix(base, "http://")
	priv := newTestKey(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	open := func(query string) *websocket.Conn {
		t.Helper()
		c, _, err := websocket.Dial(ctx, ws+PlaySocketPath+query, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {base}}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.CloseNow() })
		return c
	}
	challenge := func(c *websocket.Conn) string {
		t.Helper()
		var m struct{ Challenge string }
		data := readJSON(t, c, &m)
		if m.Challenge == "" {
			t.Fatalf("the first message was %s; want a challenge", data)
		}
		return m.Challenge
	}
	answer := func(c *websocket.Conn, p playProof) {
		t.Helper()
		b, _ := json.Marshal(playHello{Proof: &p})
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	plays := func(c *websocket.Conn, want string) {
		t.Helper()
		if _, _, rows := readFrame(t, c); rows[0] != want {
			t.Fatalf("the game shows %q; want %q", rows[0], want)
		}
	}
	told := func(c *websocket.Conn, want PlayWho) {
		t.Helper()
		var m struct{ Who PlayWho }
		if readJSON(t, c, &m); m.Who != want {
			t.Errorf("the page was told %+v; want %+v", m.Who, want)
		}
	}

	first := open("?w=60&h=5&key=1")
	ch := challenge(first)
	proof := sign(priv, playProofDomain, host, ch)
	answer(first, proof)
	plays(first, "key "+proof.Key)
	told(first, PlayWho{})

	again := open("?w=60&h=5&key=1")
	if ch2 := challenge(again); ch2 == ch {
		t.Fatalf("a second connection was sent the first's challenge %q", ch)
	}
	answer(again, proof) // the first connection's proof, played again
	plays(again, "no key: "+playBadProof)
	told(again, PlayWho{Guest: true, Why: playBadProof})

	silent := open("?w=60&h=5&key=1")
	challenge(silent)
	plays(silent, "no key: "+playNoAnswer)

	unable := open("?w=60&h=5&key=1")
	challenge(unable)
	if err := unable.Write(ctx, websocket.MessageText, []byte(`{"nokey":"this browser cannot make an Ed25519 key"}`)); err != nil {
		t.Fatal(err)
	}
	plays(unable, "no key: this browser cannot make an Ed25519 key")

	plain := open("?w=60&h=5")
	plays(plain, "no key:")
}

// The link socket: the page proves its key over the socket's challenge and gives a code;
// the link is asked with that key, that code and the client's address, and the page is
// told its answer. A proof that does not verify links nothing.
func TestTheLinkSocket(t *testing.T) {
	var mu sync.Mutex
	var asked []PlayLink
	base, ws := keyServer(t, func(_ context.Context, l PlayLink) (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, l)
		return true, "This browser now plays Sir Kay."
	})
	host := strings.TrimPrefix(base, "http://")
	priv := newTestKey(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	link := func(sign func(challenge string) playProof) linkAnswer {
		t.Helper()
		c, _, err := websocket.Dial(ctx, ws+PlayLinkPath, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {base}}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		var m struct{ Challenge string }
		readJSON(t, c, &m)
		p := sign(m.Challenge)
		b, _ := json.Marshal(linkAsk{Proof: &p, Code: "7KQM-3XRT"})
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
		var a linkAnswer
		readJSON(t, c, &a)
		return a
	}

	a := link(func(ch string) playProof { return sign(priv, playProofDomain, host, ch) })
	if !a.OK || a.Text != "This browser now plays Sir Kay." {
		t.Errorf("a good link was answered %+v", a)
	}
	a = link(func(string) playProof { return sign(priv, playProofDomain, host, newChallenge()) })
	if a.OK || !strings.Contains(a.Text, playBadProof) {
		t.Errorf("a link over another challenge was answered %+v; want refused", a)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || !asked[0].Key.Equal(priv.Public()) || asked[0].Code != "7KQM-3XRT" || !asked[0].Addr.IsLoopback() {
		t.Errorf("links asked: %+v; want one, with the page's key, its code and address", asked)
	}
	if c, resp, err := websocket.Dial(ctx, ws+PlayLinkPath, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://evil.example"}}}); err == nil {
		c.CloseNow()
		t.Error("another origin's page opened the link socket")
	} else if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("another origin: %v %v; want 403", resp, err)
	}
}

// The key's script is the page's own: served with the play page's CSP, loaded by the
// page before play.js (which hands it the messages that are not frames), small, and
// saying no lifetime of a code but the one the server tells.
func TestTheKeysScriptIsServed(t *testing.T) {
	base, _ := keyServer(t, nil)
	resp, err := http.Get(base + "/playkey.js")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); resp.StatusCode != http.StatusOK || csp != playCSP {
		t.Errorf("/playkey.js: %d, CSP %q; want 200 with the play page's", resp.StatusCode, csp)
	}
	if len(b)+len(playScript) > 30<<10 {
		t.Errorf("the play page's scripts are %d bytes; want under 30 KiB", len(b)+len(playScript))
	}
	// How long a guest's code is good for is the server's to say (PlayWho.Within): a
	// lifetime written into the script would go on being said when the codes' changed.
	if m := regexp.MustCompile(`\d+ (second|minute|hour)s?`).Find(b); m != nil {
		t.Errorf("playkey.js says a lifetime of its own, %q; want the server's (who.within)", m)
	}
	page := string(playPage)
	if k, p := strings.Index(page, `src="/playkey.js"`), strings.Index(page, `src="/play.js"`); k < 0 || k > p {
		t.Errorf("the play page does not load playkey.js before play.js:\n%s", page)
	}
}

// BenchmarkVerifyProof is the server's cost of a browser's proof, paid once a connection.
func BenchmarkVerifyProof(b *testing.B) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	challenge := newChallenge()
	p := sign(priv, playProofDomain, "orthanc.example", challenge)
	for b.Loop() {
		if _, err := verifyProof("orthanc.example", challenge, p); err != nil {
			b.Fatal(err)
		}
	}
}
