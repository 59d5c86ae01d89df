package web

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// The play page (/play): the game in a browser, over a WebSocket (/play/socket). The
// server keeps the screen: the game draws into a virtual terminal of the page's size
// here (playScreen), and the page is sent the rows that changed, as runs of styled text,
// which its script paints as DOM text. The page sends the keys typed, as the bytes a
// terminal would send for them, and its size in cells when the window changes. No
// terminal emulator runs in the browser, and nothing is replayed when a page comes back:
// the screen it is sent is the whole state.
//
// This package holds the socket and the screen; the server runs the game (PlayFunc),
// and decides who may play, as it does for SSH.
//
//	constant         value    effect
//	PlayMaxWidth     400      columns a page may ask for; wider is drawn at this
//	PlayMaxHeight    200      rows a page may ask for; taller is drawn at this
//	playReadLimit    64 KiB   the longest message a page may send (a paste, as JSON)
//	PlayWriteTimeout 30 s     a frame the page does not take in within this ends the game (as SSH's stall timeout)
const (
	PlayMaxWidth     = 400
	PlayMaxHeight    = 200
	playReadLimit    = 64 << 10
	PlayWriteTimeout = 30 * time.Second
)

// PlayPath is the play page's address; PlaySocketPath its WebSocket's.
const (
	PlayPath       = "/play"
	PlaySocketPath = "/play/socket"
)

// Size is a screen's size in cells.
type Size struct{ W, H int }

// PlaySession is one browser's game, as the server is handed it: who the client is, and
// a terminal of its own, as an SSH session has.
type PlaySession struct {
	// Addr is the client's address (ClientAddr: through a trusted proxy, the client
	// it is for); Remote is the peer's host and port, for logs.
	Addr   netip.Addr
	Remote string
	// Size is the page's screen when it connected; Resized gives each new size, once the
	// screen has it (only the newest is kept while the game has not taken it).
	Size    Size
	Resized <-chan Size
	// Keys is what the player types, as a terminal's bytes; it ends when the page goes.
	Keys io.Reader
	// Screen is the page's terminal: what is written to it is what the page shows.
	Screen io.Writer
	// Key is the browser's own key, proved on this socket (playkey.go); nil when the
	// page proved none, and then NoKey says why ("" for a page that asked no challenge).
	Key   ed25519.PublicKey
	NoKey string
	// Tell tells the page who it plays as, once the server has decided (a page that
	// asked no challenge is told nothing).
	Tell func(PlayWho)
	// Plain says the page shows screen-reader mode's lines in its log (?plain=1): the
	// game starts in that mode. Plained gives each turn of the page's switch after
	// (only the newest is kept while the game has not taken it).
	Plain   bool
	Plained <-chan bool
}

// PlayFunc runs one browser's game until it ends or ctx is done (the page went); it
// writes anything the player must read, a refusal too, to the session's Screen.
type PlayFunc func(ctx context.Context, s PlaySession)

// playCSP is the play page's Content-Security-Policy: its script and style from this
// server only (no inline script, no eval), its socket to this server only.
const playCSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// servePlayFile serves one of the play page's own files, with the play page's CSP.
func (h *Handler) servePlayFile(body []byte, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.play == nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Security-Policy", playCSP)
		w.Header().Set("Content-Type", contentType)
		if h.cacheHeaders(w, r, body, time.Time{}) {
			return
		}
		_, _ = w.Write(body)
	}
}

// playMessage is what a page sends: keys typed, as a terminal's bytes, or its new size.
type playMessage struct {
	Keys  string  `json:"keys,omitempty"`
	Size  *[2]int `json:"size,omitempty"`
	Plain *bool   `json:"plain,omitempty"`
}

// servePlaySocket runs a browser's game on a WebSocket: the origin must be this
// server's (or one of the configured ones), the size is the query's w and h.
func (h *Handler) servePlaySocket(w http.ResponseWriter, r *http.Request) {
	if h.play == nil {
		http.NotFound(w, r)
		return
	}
	size, ok := playSize(r.URL.Query().Get("w"), r.URL.Query().Get("h"))
	if !ok {
		http.Error(w, "the page's size is wanted: w and h, in cells", http.StatusBadRequest)
		return
	}
	addr := ClientAddr(r, h.trusted)
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: h.origins})
	if err != nil {
		// Accept has answered (403 for a foreign origin).
		h.log.Info("web: play socket refused", "addr", addr.String(), "origin", r.Header.Get("Origin"), "err", err)
		return
	}
	c.SetReadLimit(playReadLimit)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	ask := askKey(ctx, c, r) // the browser's key, when the page asks to prove one
	scr := newPlayScreen(ctx, c, size)
	defer scr.close()
	plain := r.URL.Query().Get("plain") == "1"
	scr.setLines(plain)
	keys, keysIn := io.Pipe()
	resized := make(chan Size, 1)
	plained := make(chan bool, 1)
	var reading sync.WaitGroup
	reading.Go(func() {
		defer cancel() // the page went: the game ends
		defer keysIn.Close()
		h.readPlay(ctx, c, keysIn, scr, resized, plained, ask)
	})
	key, noKey := ask.wait(ctx)
	h.play(ctx, PlaySession{Addr: addr, Remote: r.RemoteAddr, Size: size, Resized: resized, Keys: keys, Screen: scr,
		Key: key, NoKey: noKey, Tell: func(w PlayWho) { ask.tell(ctx, c, w) }, Plain: plain, Plained: plained})
	_ = keys.Close() // a read loop blocked handing on keys is let go
	if ctx.Err() == nil {
		_ = c.Close(websocket.StatusNormalClosure, "the game has ended")
	}
	cancel()
	_ = c.CloseNow()
	reading.Wait()
}

// readPlay reads the page's messages until it goes: keys to keys (which waits while the
// game's input is past its rate, as an SSH channel's window fills), sizes to the screen
// and to resized, the screen-reader switch to the screen and to plained.
func (h *Handler) readPlay(ctx context.Context, c *websocket.Conn, keys io.Writer, scr *playScreen, resized chan Size, plained chan bool, ask *keyAsk) {
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return
		}
		if ask.take(data) { // the page's proof of its key
			continue
		}
		var m playMessage
		if err := json.Unmarshal(data, &m); err != nil {
			continue // not ours: nothing to do with it
		}
		if m.Keys != "" {
			if _, err := io.WriteString(keys, m.Keys); err != nil {
				return
			}
		}
		if m.Size != nil {
			sz, ok := playSize(strconv.Itoa(m.Size[0]), strconv.Itoa(m.Size[1]))
			if !ok {
				continue
			}
			scr.resize(sz)
			select { // only the newest size waits for the game
			case <-resized:
			default:
			}
			resized <- sz
		}
		if m.Plain != nil {
			switchPlain(scr, plained, *m.Plain)
		}
	}
}

// playSize reads a page's size in cells, at most PlayMaxWidth×PlayMaxHeight.
func playSize(w, h string) (Size, bool) {
	wn, err1 := strconv.Atoi(w)
	hn, err2 := strconv.Atoi(h)
	if err := errors.Join(err1, err2); err != nil || wn < 1 || hn < 1 {
		return Size{}, false
	}
	return Size{W: min(wn, PlayMaxWidth), H: min(hn, PlayMaxHeight)}, true
}
