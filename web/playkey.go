package web

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// A browser's own key. The play page makes an Ed25519 key with WebCrypto, which never
// leaves the browser (it is not extractable, and kept in the page's IndexedDB), and
// proves it on each connection: the server sends a fresh random challenge as the socket's
// first message, the page answers with its public key and its signature of
// playProofDomain, the host it was served from, and the challenge. A proof over another
// connection's challenge, for another host, or under another domain does not verify, so
// a proof seen once cannot be played again and a page of another server cannot borrow
// one. The server then treats the key as an SSH key (its SHA256 fingerprint is the
// ssh-ed25519 key's): a key that plays a knight plays it; one that plays none is a
// guest, and may be linked to a knight on the link socket (PlayLinkPath) with the
// one-time code of `keys add`. The page asks for the challenge with key=1 in the
// socket's query; a client that does not ask plays as a guest, at once.
//
//	constant        value   effect
//	playProofWait   5 s     a page that does not answer the challenge in this time plays as a guest
//	playLinkWait    10 s    a link's proof and code must come in this time
//	playChallenge   32 B    random bytes of a challenge, read from crypto/rand
const (
	playLinkWait  = 10 * time.Second
	playChallenge = 32
	playMaxNoKey  = 200 // bytes of a page's reason for having no key
)

// playProofWait is a var only for the tests, which wait less.
var playProofWait = 5 * time.Second

// PlayLinkPath is the link socket's address: a page proves its key and gives a code.
const PlayLinkPath = "/play/link"

// playProofDomain starts every message a browser's key signs, so that a signature made
// for the play page means nothing elsewhere, nor to a later version of this exchange.
const playProofDomain = "orthanc-ssh play v1\n"

// The reasons a page with a key plays as a guest, as the page is told them.
const (
	playNoAnswer = "your browser did not prove its key in time"
	playBadProof = "your browser's key could not be checked"
)

// errBadProof is a proof that does not verify: a wrong key or signature, or one made
// for another challenge, host or domain.
var errBadProof = errors.New("the signature does not verify")

// playProof is a page's proof of its key: its raw 32-byte Ed25519 public key and its
// signature of proofMessage, both in standard base64.
type playProof struct {
	Key string `json:"key"`
	Sig string `json:"sig"`
}

// playHello is the page's answer to the challenge: its proof, or why it has no key (the
// browser cannot make one, or is not in a secure context).
type playHello struct {
	Proof *playProof `json:"proof,omitempty"`
	NoKey string     `json:"nokey,omitempty"`
}

// PlayWho is what the page is told of who it plays as, once the server has decided:
// a knight (Guest false), or a guest and why (Why). Key is the fingerprint of the key
// the page proved, if any; Link tells the page to offer "Link to my knight" (a key that
// plays no knight yet).
type PlayWho struct {
	Guest bool   `json:"guest"`
	Key   string `json:"key,omitempty"`
	Why   string `json:"why,omitempty"`
	Link  bool   `json:"link,omitempty"`
	// Add is the command that makes a code to link with (ssh ... keys add).
	Add string `json:"add,omitempty"`
	// Refused is set when the server plays no game for the page (guests not taken, and
	// this page's key linked to no knight): Why is then said alone, not as a guest's.
	Refused bool `json:"refused,omitempty"`
	// Keep is a guest's claim code, told when its game ends, and Name the knight it
	// keeps: a page with a key (Key set) offers "Keep this knight", which claims it on
	// the link socket (PlayLink.Claim); one without shows the code.
	Keep string `json:"keep,omitempty"`
	Name string `json:"name,omitempty"`
	// Within is how long Keep is good for, in a player's words ("10 minutes"): the
	// server's, so the page never says a lifetime the codes do not have.
	Within string `json:"within,omitempty"`
}

// PlayLink is a page's ask to link its key to a knight: the key it proved and the code
// `keys add` made, from the client's address (ClientAddr). With Claim, the code is a
// guest's, told as its game ended, and the key is to keep that guest's knight.
type PlayLink struct {
	Addr  netip.Addr
	Key   ed25519.PublicKey
	Code  string
	Claim bool
}

// PlayLinkFunc links a browser's key with a code, and says what came of it, in words
// for the page.
type PlayLinkFunc func(ctx context.Context, l PlayLink) (ok bool, text string)

// newChallenge is a fresh random challenge, in standard base64.
func newChallenge() string {
	b := make([]byte, playChallenge)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it panics on a broken source)
	return base64.StdEncoding.EncodeToString(b)
}

// proofMessage is what a page's key signs for challenge on host.
func proofMessage(host, challenge string) []byte {
	return []byte(playProofDomain + host + "\n" + challenge)
}

// verifyProof is the key p proves for challenge on host, or an error wrapping
// errBadProof.
func verifyProof(host, challenge string, p playProof) (ed25519.PublicKey, error) {
	key, err := base64.StdEncoding.DecodeString(p.Key)
	if err != nil || len(key) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("read the page's key (%d bytes): %w", len(key), errBadProof)
	}
	sig, err := base64.StdEncoding.DecodeString(p.Sig)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("read the page's signature (%d bytes): %w", len(sig), errBadProof)
	}
	if !ed25519.Verify(key, proofMessage(host, challenge), sig) {
		return nil, errBadProof
	}
	return ed25519.PublicKey(key), nil
}

// pageHost is the host the page was served from, which it signs: the Origin's (the
// socket's origin is checked before this is asked), or the request's Host for a client
// that sent none.
func pageHost(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		if u, err := url.Parse(o); err == nil && u.Host != "" {
			return u.Host
		}
	}
	return r.Host
}

// keyAsk is one game socket's challenge and the page's answer: the socket's reader hands
// the answer in (take), the game waits for it (wait).
type keyAsk struct {
	host, challenge string
	answered        atomic.Bool // the page's messages after its answer are read as keys and sizes only
	answer          chan playHello
}

// askKey sends the page its challenge when it asked for one (key=1); nil when it did
// not, or the challenge could not be sent.
func askKey(ctx context.Context, c *websocket.Conn, r *http.Request) *keyAsk {
	if r.URL.Query().Get("key") != "1" {
		return nil
	}
	a := &keyAsk{host: pageHost(r), challenge: newChallenge(), answer: make(chan playHello, 1)}
	b, _ := json.Marshal(map[string]string{"challenge": a.challenge})
	wctx, cancel := context.WithTimeout(ctx, PlayWriteTimeout)
	defer cancel()
	if err := c.Write(wctx, websocket.MessageText, b); err != nil {
		return nil
	}
	return a
}

// take hands in the page's answer, the first one only, and reports whether data was
// one (to be read no further).
func (a *keyAsk) take(data []byte) bool {
	if a == nil || a.answered.Load() {
		return false
	}
	var h playHello
	if json.Unmarshal(data, &h) != nil || (h.Proof == nil && h.NoKey == "") {
		return false
	}
	if len(h.NoKey) > playMaxNoKey {
		h.NoKey = h.NoKey[:playMaxNoKey] // the page's words, shown back to it only
	}
	if a.answered.CompareAndSwap(false, true) {
		a.answer <- h
	}
	return true
}

// wait is the key the page proved, or nil and why it has none ("" for a page that asked
// for no challenge); it waits playProofWait at most.
func (a *keyAsk) wait(ctx context.Context) (ed25519.PublicKey, string) {
	if a == nil {
		return nil, ""
	}
	t := time.NewTimer(playProofWait)
	defer t.Stop()
	select {
	case h := <-a.answer:
		if h.Proof == nil {
			return nil, h.NoKey
		}
		key, err := verifyProof(a.host, a.challenge, *h.Proof)
		if err != nil {
			return nil, playBadProof
		}
		return key, ""
	case <-t.C:
		return nil, playNoAnswer
	case <-ctx.Done():
		return nil, playNoAnswer
	}
}

// linkAsk is what a page sends on the link socket: its proof and the code, of keys add
// or (claim) of a guest's end.
type linkAsk struct {
	Proof *playProof `json:"proof"`
	Code  string     `json:"code"`
	Claim bool       `json:"claim,omitempty"`
}

// linkAnswer is what the link socket answers.
type linkAnswer struct {
	OK   bool   `json:"ok"`
	Text string `json:"text"`
}

// servePlayLink links a browser's key to a knight: the page is sent a challenge, answers
// with its proof and a code, and is told what came of it; then the socket closes. The
// origin is checked as the play socket's.
func (h *Handler) servePlayLink(w http.ResponseWriter, r *http.Request) {
	if h.play == nil || h.link == nil {
		http.NotFound(w, r)
		return
	}
	addr := ClientAddr(r, h.trusted)
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: h.origins})
	if err != nil {
		h.log.Info("web: link socket refused", "addr", addr.String(), "origin", r.Header.Get("Origin"), "err", err)
		return
	}
	defer func() { _ = c.CloseNow() }()
	c.SetReadLimit(4 << 10)
	ctx, cancel := context.WithTimeout(r.Context(), playLinkWait)
	defer cancel()
	challenge := newChallenge()
	b, _ := json.Marshal(map[string]string{"challenge": challenge})
	if err := c.Write(ctx, websocket.MessageText, b); err != nil {
		return
	}
	_, data, err := c.Read(ctx)
	if err != nil {
		return
	}
	var ask linkAsk
	answer := linkAnswer{Text: playBadProof + "; reload the page and try again"}
	if json.Unmarshal(data, &ask) == nil && ask.Proof != nil {
		key, err := verifyProof(pageHost(r), challenge, *ask.Proof)
		if err == nil {
			answer.OK, answer.Text = h.link(ctx, PlayLink{Addr: addr, Key: key, Code: ask.Code, Claim: ask.Claim})
		} else {
			h.log.Info("web: link proof refused", "addr", addr.String(), "err", err)
		}
	}
	b, _ = json.Marshal(answer)
	if err := c.Write(ctx, websocket.MessageText, b); err != nil {
		return
	}
	_ = c.Close(websocket.StatusNormalClosure, "")
}
