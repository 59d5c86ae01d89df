package web

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
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
//	PlayWriteTimeout 30 s     a frame the page does not take in within this drops its socket (as SSH's stall timeout), the game held
//	PlayResumeGrace  1 min    a game whose socket dropped goes on this long for its page to come back with its token (a
//	                          phone that slept, a network that changed); then it ends as a closed page's
//	PlayPingEvery    20 s     a socket is pinged this often, and one that does not answer within as long is dropped,
//	                          so a page gone without a word (a phone asleep) has its game held within 40 s
const (
	PlayMaxWidth     = 400
	PlayMaxHeight    = 200
	playReadLimit    = 64 << 10
	PlayWriteTimeout = 30 * time.Second
	PlayResumeGrace  = time.Minute
	PlayPingEvery    = 20 * time.Second
)

// The codes a play socket is closed with, besides the game's end (a normal closure),
// for the page to say why and not to come back.
const (
	// PlayGone: no game for the token: its grace ran out, it ended, or the server restarted.
	PlayGone websocket.StatusCode = 4000
	// PlayRefused: the page's address may not take a game up (it is banned).
	PlayRefused websocket.StatusCode = 4003
)

// playTakenLine is what a page whose game another page took up (with the token it was
// given) is sent, as {"taken": playTakenLine}, before its socket is closed: it says so,
// and does not come back.
const playTakenLine = "This game was taken up by another page."

// playTellTimeout bounds the telling of a page whose game another took up.
const playTellTimeout = 2 * time.Second

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
	// ID names the game in logs, the same across the sockets that show it.
	ID string
	// Addr is the client's address (ClientAddr: through a trusted proxy, the client
	// it is for); Remote is the peer's host and port, for logs.
	Addr   netip.Addr
	Remote string
	// Size is the page's screen when it connected; Resized gives each new size, once the
	// screen has it (only the newest is kept while the game has not taken it).
	Size    Size
	Resized <-chan Size
	// Keys is what the player types, as a terminal's bytes, from whichever page shows the
	// game; it ends with the game's context.
	Keys io.Reader
	// Screen is the page's terminal: what is written to it is what the page shows.
	Screen io.Writer
	// Key is the browser's own key, proved on this socket (playkey.go); nil when the
	// page proved none, and then NoKey says why ("" for a page that asked no challenge).
	Key   ed25519.PublicKey
	NoKey string
	// ShowPlain shows the page the game's lines in its log (on) or its grid: the game
	// turned screen-reader mode on or off of its own (app.Params.PlainChanged).
	ShowPlain func(on bool)
	// Tell tells the page who it plays as, once the server has decided (a page that
	// asked no challenge is told nothing).
	Tell func(PlayWho)
	// Plain says the page shows screen-reader mode's lines in its log (?plain=1): the
	// game starts in that mode. Plained gives each turn of the page's switch after
	// (only the newest is kept while the game has not taken it).
	Plain   bool
	Plained <-chan bool
	// Moved gives the client's address (as Addr) each time a page takes the game up from
	// an address other than the one before (a phone's changes with its network; only the
	// newest is kept while the game has not taken it).
	Moved <-chan netip.Addr
}

// PlayFunc runs one browser's game until it ends or ctx is done (its page went, and did
// not come back within the grace); it
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

// playMessage is what a page sends: keys typed, as a terminal's bytes, its new size, a turn
// of the screen-reader switch, or the token it kept.
type playMessage struct {
	Keys  string  `json:"keys,omitempty"`
	Size  *[2]int `json:"size,omitempty"`
	Plain *bool   `json:"plain,omitempty"`
	// Resume is the token the socket was sent, sent back once the page has kept it.
	Resume string `json:"resume,omitempty"`
}

// playResume is what a socket that takes up a game (a new one too) is sent first: the
// token that takes the game up again once this socket drops, and the seconds the game is
// held for it. The page sends it back, {"resume": token}, once it has kept it: until
// then the token it came with stays good too (playGame.token).
type playResume struct {
	Resume string `json:"resume"`
	Grace  int    `json:"grace"`
}

// playGame is one browser's game, which outlives the sockets that show it: when a page's
// socket drops, the game goes on without it for the grace, and a page that comes back
// with the game's token within it takes the game up where it is. Its fields under mu are
// shared by the game's goroutine, its sockets' handlers and its grace's timer.
type playGame struct {
	id      string // in the logs, the same across the game's sockets
	scr     *playScreen
	keys    *io.PipeWriter // into the game's input, from whichever socket shows it
	resized chan Size
	plained chan bool          // the page's screen-reader switch (PlaySession.Plained)
	moved   chan netip.Addr    // the newest page's address, when it changed (PlaySession.Moved)
	end     context.CancelFunc // ends the game

	mu sync.Mutex
	// The tokens that take the game up, each in the handler's games while it is good:
	// token the one the page is known to hold (it came with it, or sent it back), sent
	// the one sent since to the newest socket and not sent back yet. A page is known to
	// hold a token once it comes back with it or sends it back, and then every token sent
	// before it is spent; so a socket that drops after its token was sent but before the
	// page kept it leaves the page one that still takes the game up.
	token, sent string
	sock        *playSocket // the page showing the game; nil while the game is held
	gen         uint64      // sockets that have taken the game up, the newest's place (playScreen.attach)
	addr        netip.Addr  // the newest socket's client
	held        time.Time   // when its last socket dropped
	grace       *time.Timer // ends the game held past the grace
	over        bool        // ended, or its grace ran out: no page may take it up
}

// playSocket is one page's socket to a game.
type playSocket struct {
	conn *websocket.Conn
}

// playTaken is what a page whose game another took up is sent.
type playTaken struct {
	Taken string `json:"taken"`
}

// servePlaySocket runs a browser's game on a WebSocket: the origin must be this
// server's (or one of the configured ones), the size is the query's w and h. With the
// query's resume, the socket takes up the game that token was given for, if it is still
// held or shown; without, a new game begins.
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
	token := r.URL.Query().Get("resume")
	plain := r.URL.Query().Get("plain") == "1" // the page shows the log
	if token == "" {
		ask := askKey(r.Context(), c, r) // the browser's key, when the page asks to prove one
		g, begin := h.newGame(addr, r.RemoteAddr, size, plain, ask)
		h.runSocket(r.Context(), g, c, "", addr, size, plain, ask, begin)
		return
	}
	// The token is the secret, not the address: a phone's changes with its network. An
	// address banned meanwhile takes nothing up.
	if h.refuse != nil {
		if why := h.refuse(addr); why != "" {
			h.log.Info("web: play resume refused", "client", addr.String(), "reason", why)
			_ = c.Close(PlayRefused, why)
			return
		}
	}
	g := h.gameOf(token)
	if g == nil {
		h.log.Info("web: play resume refused: no such game", "client", addr.String())
		_ = c.Close(PlayGone, playGoneReason)
		return
	}
	h.runSocket(r.Context(), g, c, token, addr, size, plain, nil, nil)
}

// playGoneReason is what a page that comes back too late is told.
const playGoneReason = "The game you left has ended."

// newGame makes a browser's game; begin starts it, on its own goroutine, once its first
// socket shows it (so its first frame reaches the page): it waits for the key the page
// proves, if ask asked for one, then lasts until it ends or its page is gone past the
// grace, whichever socket shows it.
func (h *Handler) newGame(addr netip.Addr, remote string, size Size, plain bool, ask *keyAsk) (g *playGame, begin func()) {
	ctx, cancel := context.WithCancel(context.Background())
	keys, keysIn := io.Pipe()
	g = &playGame{id: rand.Text()[:10], scr: newPlayScreen(size), keys: keysIn, resized: make(chan Size, 1),
		plained: make(chan bool, 1), moved: make(chan netip.Addr, 1), addr: addr, end: cancel}
	g.scr.setLines(plain)
	return g, func() {
		context.AfterFunc(ctx, func() { _ = keysIn.Close() }) // the game's keys end with it
		go func() {
			defer cancel()
			key, noKey := ask.wait(ctx)
			tell := func(PlayWho) {} // a page that asked no challenge reads only frames
			if ask != nil {
				tell = g.scr.tell
			}
			h.play(ctx, PlaySession{ID: g.id, Addr: addr, Remote: remote, Size: size, Resized: g.resized, Keys: keys, Screen: g.scr,
				Key: key, NoKey: noKey, Tell: tell, Plain: plain, Plained: g.plained, Moved: g.moved, ShowPlain: g.scr.showPlain})
			_ = keys.Close() // a socket's reader blocked handing on keys is let go
			h.endGame(g)
		}()
	}
}

// endGame is a game's end: its token forgotten, its terminal freed, the page showing it
// (if one does) told and closed.
func (h *Handler) endGame(g *playGame) {
	g.mu.Lock()
	g.over = true
	sock := g.sock
	g.sock = nil
	if g.grace != nil {
		g.grace.Stop()
	}
	h.forgetTokens(g)
	g.mu.Unlock()
	g.scr.close()
	if sock != nil {
		_ = sock.conn.Close(websocket.StatusNormalClosure, "the game has ended")
	}
}

// keptToken records that the page holds token (it came back with it, or sent it back):
// the tokens sent before it are spent. A token not g's (spent meanwhile) changes nothing,
// and keptToken says so. The caller holds g.mu.
func (h *Handler) keptToken(g *playGame, token string) bool {
	h.gamesMu.Lock()
	defer h.gamesMu.Unlock()
	switch token {
	case g.token:
	case g.sent:
		delete(h.games, g.token)
		g.token = token
	default:
		return false
	}
	g.sent = ""
	return true
}

// sendToken makes token the one sent to the newest socket, good with the one the page
// holds until the page sends it back; one sent before it and never sent back is spent.
// The caller holds g.mu.
func (h *Handler) sendToken(g *playGame, token string) {
	h.gamesMu.Lock()
	defer h.gamesMu.Unlock()
	if g.sent != "" {
		delete(h.games, g.sent)
	}
	g.sent = token
	h.games[token] = g
}

// forgetTokens spends g's tokens: it ended. The caller holds g.mu.
func (h *Handler) forgetTokens(g *playGame) {
	h.gamesMu.Lock()
	defer h.gamesMu.Unlock()
	delete(h.games, g.token)
	delete(h.games, g.sent)
	g.token, g.sent = "", ""
}

// gameOf is the game token takes up, or nil.
func (h *Handler) gameOf(token string) *playGame {
	h.gamesMu.Lock()
	defer h.gamesMu.Unlock()
	return h.games[token]
}

// runSocket shows g on the page's socket c, which came with came (the token it holds;
// "" for a new game), until the socket ends: the page is sent a new token, then the screen (whole, when it takes up a game already drawn); its keys
// and sizes go to the game, which begin starts (nil: a game begun before, taken up), the
// page's answer to ask's challenge to the game's wait for it (nil: none asked). A
// page that showed the game before is told another took it up, and closed. When the
// socket drops, the game is held for the grace.
func (h *Handler) runSocket(ctx context.Context, g *playGame, c *websocket.Conn, came string, addr netip.Addr, size Size, plain bool, ask *keyAsk, begin func()) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sock := &playSocket{conn: c}
	token := rand.Text()
	resumed := begin == nil

	g.mu.Lock()
	if g.over || (came != "" && !h.keptToken(g, came)) { // ended, or the token spent meanwhile
		g.mu.Unlock()
		_ = c.Close(PlayGone, playGoneReason)
		return
	}
	old, held := g.sock, g.held
	g.sock = sock
	g.gen++
	gen := g.gen
	if g.grace != nil {
		g.grace.Stop()
		g.grace = nil
	}
	h.sendToken(g, token)
	if addr != g.addr { // told under mu, so the game hears of moves in their order
		g.addr = addr
		offerNewest(g.moved, addr)
	}
	g.mu.Unlock()
	if old != nil {
		// Told, then closed (a close handshake begun here while the older socket's own
		// goroutine reads it could cut the connection before the page read why). A page
		// gone without a word holds this up no longer than playTellTimeout: its socket
		// closed, a frame it was not taking in is given up.
		tctx, cancel := context.WithTimeout(context.Background(), playTellTimeout)
		b, _ := json.Marshal(playTaken{Taken: playTakenLine})
		_ = old.conn.Write(tctx, websocket.MessageText, b)
		cancel()
		_ = old.conn.CloseNow()
	}
	if resumed {
		attrs := []any{"game", g.id, "client", addr.String(), "taken", old != nil}
		if old == nil {
			attrs = append(attrs, "held", time.Since(held).Round(time.Millisecond))
		}
		h.log.Info("web: play game resumed", attrs...)
	}
	if g.scr.attach(c, gen, size, plain, playResume{Resume: token, Grace: int((h.grace + time.Second - 1) / time.Second)}, resumed) {
		offerNewest(g.resized, size)
	}
	if begin != nil {
		begin()
	}

	var pinging sync.WaitGroup
	pinging.Go(func() { pingPlay(ctx, c) })
	kept := func(t string) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if !g.over {
			h.keptToken(g, t)
		}
	}
	h.readPlay(ctx, c, g.keys, g.scr, g.resized, g.plained, kept, ask)
	cancel()
	pinging.Wait()

	g.mu.Lock()
	if g.sock == sock { // dropped: not taken up by another page, nor ended
		g.sock = nil
		g.scr.detach(c)
		g.held = time.Now()
		g.grace = time.AfterFunc(h.grace, func() { h.graceOver(g) })
		h.log.Info("web: play socket dropped: the game is held", "game", g.id, "client", addr.String(), "grace", h.grace)
	}
	g.mu.Unlock()
	_ = c.CloseNow()
}

// graceOver ends a game held past the grace, unless a page has just taken it up.
func (h *Handler) graceOver(g *playGame) {
	g.mu.Lock()
	if g.sock != nil || g.over {
		g.mu.Unlock()
		return
	}
	g.over = true
	h.forgetTokens(g)
	g.mu.Unlock()
	h.log.Info("web: held play game ended: its page did not come back", "game", g.id, "grace", h.grace)
	g.end()
}

// pingPlay pings the page every PlayPingEvery until ctx ends; a ping unanswered for as
// long closes the socket, so a page that went without a word (a phone asleep, its
// network gone) is found out and its game held.
func pingPlay(ctx context.Context, c *websocket.Conn) {
	t := time.NewTicker(PlayPingEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, PlayPingEvery)
		err := c.Ping(pctx)
		cancel()
		if err != nil {
			_ = c.CloseNow()
			return
		}
	}
}

// offerNewest hands the game v on ch (of one slot), in place of one it has not taken
// yet: a size, a turn of the screen-reader switch. Two sockets may offer at once (one
// taking the game up from the other), so neither may wait on the slot.
func offerNewest[T any](ch chan T, v T) {
	for {
		select {
		case ch <- v:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}

// readPlay reads the page's messages until it goes: keys to keys (which waits while the
// game's input is past its rate, as an SSH channel's window fills), sizes to the screen
// and to resized, the screen-reader switch to the screen and to plained.
func (h *Handler) readPlay(ctx context.Context, c *websocket.Conn, keys io.Writer, scr *playScreen, resized chan Size, plained chan bool, kept func(string), ask *keyAsk) {
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
			if scr.resize(sz) {
				offerNewest(resized, sz)
			}
		}
		if m.Plain != nil {
			switchPlain(scr, plained, *m.Plain)
		}
		if m.Resume != "" {
			kept(m.Resume)
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
