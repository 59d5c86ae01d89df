// Package web serves the server's web page: how to connect (with the host key's
// fingerprint, to check a first ssh against), the message of the day, who is online,
// the hall of fame and the latest deaths, as HTML made with html/template (no script
// needed, readable on a phone, in the game's PLATO look), the same as JSON under /api/,
// a listing document for MUD directories at /mssp.json, and the public replays of the
// deaths and retirements it lists as asciicast files at /replay/ID.cast (cast.go).
//
// It reads the game only through a StatusFunc, which the server fills with plain values,
// and a CastFunc, which hands it a cast's bytes, and changes nothing: every route answers GET and HEAD alone. It must not import the
// world engine, the store or anything SSH: the server translates at the edge, as it does
// for app. Player-supplied text (names, the message of the day) reaches the page only
// through html/template's escaping or encoding/json.
package web

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Status is everything the page shows, as the server gathered it at one moment.
type Status struct {
	// Name is the server's name; MOTD its message of the day, empty for none.
	Name string `json:"name"`
	MOTD string `json:"motd,omitempty"`
	// Host and Port are where players connect; SSH is the command to connect with,
	// Plain the one for screen-reader mode.
	Host  string `json:"host"`
	Port  int    `json:"port"`
	SSH   string `json:"ssh"`
	Plain string `json:"ssh_plain"`
	// HostKey is the host key's SHA256 fingerprint as ssh-keygen -l prints it, with its
	// type; KnownHosts a known_hosts line for it.
	HostKey     string `json:"host_key_fingerprint"`
	HostKeyType string `json:"host_key_type"`
	KnownHosts  string `json:"known_hosts"`
	// Guests tells whether a client with no key may play as a guest.
	Guests bool `json:"guests"`
	// Started is when the server started; Version the server's build (its module
	// version, or the commit it was built from).
	Started time.Time `json:"started"`
	Version string    `json:"version"`
	Online  []Player  `json:"online"`
	Fame    []Fame    `json:"fame"`
	Deaths  []Death   `json:"deaths"`
	// Boards are the boards of the living, in the game's order.
	Boards []Board `json:"boards"`
	// Taken is when the status was gathered.
	Taken time.Time `json:"taken"`
	// Play is the play page's address, when the server serves one (set by the page).
	Play string `json:"play,omitempty"`
}

// Replays reports whether the page links any replay.
func (s Status) Replays() bool {
	return slices.ContainsFunc(s.Fame, func(f Fame) bool { return f.Replay != "" }) ||
		slices.ContainsFunc(s.Deaths, func(d Death) bool { return d.Replay != "" })
}

// Player is one knight online.
type Player struct {
	Name  string `json:"name"`
	Level int    `json:"level"`
	Depth int    `json:"depth"` // 0: outside the dungeon
	Guest bool   `json:"guest,omitempty"`
	// Realm is the knight's realm, when the server is one of several (DESIGN §13); Far
	// is set for a knight of another realm, whose depth is not known here.
	Realm string `json:"realm,omitempty"`
	Far   bool   `json:"far,omitempty"`
	// Deeds are the knight's deeds in the order earned (none told of a guest's, nor of a
	// far knight's).
	Deeds []Deed `json:"deeds,omitempty"`
}

// Deed is a deed a knight earned: its id, which never changes, and its title.
type Deed struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// newestShown is how many deeds of a knight online the page names: a row stays short.
const newestShown = 3

// Newest are the titles of the newest few of the deeds, newest first, as one line.
func Newest(deeds []Deed) string { return Titles(deeds[max(0, len(deeds)-newestShown):]) }

// Titles are the deeds' titles, newest first, as one line.
func Titles(deeds []Deed) string {
	titles := make([]string, len(deeds))
	for i, d := range deeds {
		titles[len(deeds)-1-i] = d.Title
	}
	return strings.Join(titles, ", ")
}

// Fame is one retired knight in the hall of fame.
type Fame struct {
	Rank         int       `json:"rank"`
	Name         string    `json:"name"`
	Level        int       `json:"level"`
	Experience   int       `json:"experience"`
	PercentKills int       `json:"percent_kills"`
	Retired      time.Time `json:"retired"`
	// Replay is the address of its last 5 minutes as an asciicast file (CastPath); empty
	// when none is kept or its knight keeps it private.
	Replay string `json:"replay,omitempty"`
	// Deeds are the retired knight's deeds in the order earned.
	Deeds []Deed `json:"deeds,omitempty"`
}

// Board is one board of the living (guests are not ranked): its top for all time and
// for this week, the week Week (ISO, UTC).
type Board struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	// Column heads its value.
	Column   string     `json:"column"`
	Week     string     `json:"week"`
	AllTime  []BoardRow `json:"all_time"`
	ThisWeek []BoardRow `json:"this_week"`
}

// BoardRow is one knight's row of a board.
type BoardRow struct {
	Rank  int    `json:"rank"`
	Name  string `json:"name"`
	Level int    `json:"level"`
	Value int    `json:"value"`
}

// Death is one knight slain.
type Death struct {
	Name   string    `json:"name"`
	Level  int       `json:"level"`
	Killer string    `json:"killer"`
	Depth  int       `json:"depth"`
	Died   time.Time `json:"died"`
	// Replay is the address of its last 5 minutes as an asciicast file, as Fame's.
	Replay string `json:"replay,omitempty"`
}

// StatusFunc gathers the status; the page calls it at most once a CacheFor.
type StatusFunc func(ctx context.Context) (Status, error)

// Tuning of the page, and what each does (the server's flags may change the rate cap's):
//
//	constant              value    effect
//	CacheFor              5 s      the status is gathered at most this often, whatever the traffic; browsers and proxies may keep a page as long
//	DefaultRatePerSecond  2        requests an address may make a second, on average
//	DefaultRateBurst      20       requests an address may make at once (a page is 2: the HTML and its style)
//	maxAddrs              10000    addresses remembered for the rate cap; past it the ones with a full allowance are forgotten
const (
	CacheFor             = 5 * time.Second
	DefaultRatePerSecond = 2
	DefaultRateBurst     = 20
	maxAddrs             = 10000
)

// Options tune the page's rate cap and say which proxies stand in front of it.
type Options struct {
	// RatePerSecond and RateBurst are each address's allowance: requests a second on
	// average, and at once. Zero is DefaultRatePerSecond, DefaultRateBurst.
	RatePerSecond float64
	RateBurst     int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is believed: a
	// request from one of them is counted by the client address the header gives
	// (ClientAddr). Every other request's header is ignored.
	TrustedProxies []netip.Prefix
	// Cast makes the replays' asciicast files (/replay/ID.cast); nil serves none.
	// MaxCasts are made at once; zero is DefaultMaxCasts.
	Cast     CastFunc
	MaxCasts int
	// CastShown, when set, is asked before a cast made before is served again: a
	// replay its knight has since made private, or an admin removed, is not (ErrNoCast).
	CastShown func(ctx context.Context, id string) bool
	// Play runs a browser's game (the play page, play.go); nil serves no play page.
	// PlayOrigins are the host patterns (path.Match's) of the origins, besides the
	// request's own host, whose pages may open its socket: the public host behind a
	// proxy that does not pass the Host header on.
	Play        PlayFunc
	PlayOrigins []string
	// PlayLink links a browser's key to a knight with a code (playkey.go); nil serves
	// no link socket.
	PlayLink PlayLinkFunc
	// PlayGrace is how long a game whose socket dropped is held for its page to come
	// back; zero is PlayResumeGrace.
	PlayGrace time.Duration
	// PlayRefusal, when set, says why a page at an address may not take up a held game
	// (its address banned), or "".
	PlayRefusal func(netip.Addr) string
}

// Codebase, Genre and Language are what the listing for MUD directories says of the game.
const (
	Codebase = "orthanc-ssh"
	Genre    = "Fantasy"
	Language = "English"
)

//go:embed page.html style.css play.html play.js play.css
//go:embed playkey.js
var files embed.FS

var page = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"where": func(depth int) string {
		if depth == 0 {
			return "outside"
		}
		return "level " + strconv.Itoa(depth)
	},
	"date":   func(t time.Time) string { return t.UTC().Format("2006-01-02") },
	"newest": Newest,
	"titles": Titles,
}).ParseFS(files, "page.html"))

var (
	style, _      = files.ReadFile("style.css")
	playPage, _   = files.ReadFile("play.html")
	playScript, _ = files.ReadFile("play.js")
	playStyle, _  = files.ReadFile("play.css")
	playKeyJS, _  = files.ReadFile("playkey.js")
)

// Handler serves the page. It is safe for concurrent use.
type Handler struct {
	status StatusFunc
	log    *slog.Logger
	now    func() time.Time
	mux    *http.ServeMux

	cacheMu sync.Mutex // guards the cache, held while the status is gathered
	cached  Status
	at      time.Time // when cached was gathered

	requests *limiter // the rate cap
	trusted  []netip.Prefix

	casts *casts // nil: no replays

	play    PlayFunc     // nil: no play page
	origins []string     // besides the request's host, for the play socket
	link    PlayLinkFunc // nil: no link socket
	grace   time.Duration
	refuse  func(netip.Addr) string // nil: none

	gamesMu sync.Mutex
	games   map[string]*playGame // by the token that takes each up
}

// limiter is an allowance for each address: tokens, refilled at rate a second up to
// burst. It remembers at most maxAddrs addresses.
type limiter struct {
	rate, burst float64
	mu          sync.Mutex
	buckets     map[string]*bucket
}

func newLimiter(rate, burst float64) *limiter {
	return &limiter{rate: rate, burst: burst, buckets: map[string]*bucket{}}
}

// bucket is one address's allowance: tokens, refilled at the rate.
type bucket struct {
	tokens float64
	last   time.Time
	capped bool // its last request was refused: refusals until one is allowed are logged once
}

// New returns the page's handler, reading the status from status and logging failures
// to log.
func New(status StatusFunc, log *slog.Logger, opt Options) *Handler {
	if log == nil {
		log = slog.Default()
	}
	h := &Handler{status: status, log: log, now: time.Now, mux: http.NewServeMux(),
		requests: newLimiter(cmp.Or(opt.RatePerSecond, DefaultRatePerSecond), float64(cmp.Or(opt.RateBurst, DefaultRateBurst))),
		trusted:  opt.TrustedProxies, play: opt.Play, origins: opt.PlayOrigins, link: opt.PlayLink,
		grace: cmp.Or(opt.PlayGrace, PlayResumeGrace), refuse: opt.PlayRefusal, games: map[string]*playGame{}}
	h.mux.HandleFunc("GET /{$}", h.serveIndex)
	h.mux.HandleFunc("GET /style.css", h.serveStyle)
	h.mux.HandleFunc("GET /api/status", h.serveJSON(func(s Status) any { return s }))
	h.mux.HandleFunc("GET /api/who", h.serveJSON(func(s Status) any { return s.Online }))
	h.mux.HandleFunc("GET /api/fame", h.serveJSON(func(s Status) any { return s.Fame }))
	h.mux.HandleFunc("GET /api/boards", h.serveJSON(func(s Status) any { return s.Boards }))
	h.mux.HandleFunc("GET /mssp.json", h.serveJSON(mssp))
	h.mux.HandleFunc("GET /replay/{file}", h.serveCast)
	h.mux.HandleFunc("GET "+PlayPath, h.servePlayFile(playPage, "text/html; charset=utf-8"))
	h.mux.HandleFunc("GET /play.js", h.servePlayFile(playScript, "text/javascript; charset=utf-8"))
	h.mux.HandleFunc("GET /play.css", h.servePlayFile(playStyle, "text/css; charset=utf-8"))
	h.mux.HandleFunc("GET "+PlaySocketPath, h.servePlaySocket)
	h.mux.HandleFunc("GET /playkey.js", h.servePlayFile(playKeyJS, "text/javascript; charset=utf-8"))
	h.mux.HandleFunc("GET "+PlayLinkPath, h.servePlayLink)
	if opt.Cast != nil {
		h.casts = newCasts(opt.Cast, opt.MaxCasts)
		h.casts.shown = opt.CastShown
	}
	return h
}

// ServeHTTP answers a request: over the address's rate, 429; a method but GET or HEAD,
// 405; a path the page does not have, 404. A request with a body is answered without
// waiting for it, and its connection closed.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	if r.ContentLength != 0 {
		// No route reads a body; the server would read what is left of one (256 KiB)
		// before the next request, which a client sending it a byte at a time makes last
		// until the read deadline, holding its connection.
		hd.Set("Connection", "close")
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	}
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	if !h.allow(h.clientKey(r)) {
		hd.Set("Retry-After", "1")
		http.Error(w, "too many requests; try again in a moment", http.StatusTooManyRequests)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "this page only reads: GET or HEAD", http.StatusMethodNotAllowed)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// clientKey is the key r's client is counted by (rateKey of ClientAddr).
func (h *Handler) clientKey(r *http.Request) string { return rateKey(ClientAddr(r, h.trusted)) }

// rateKey is the key an address is counted by: the address, or for IPv6 its /64.
func rateKey(a netip.Addr) string {
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// allow takes one request from the address's allowance and reports whether there was
// one. The first refusal of a run is logged, naming the address.
func (h *Handler) allow(addr string) bool {
	ok, first := h.requests.take(addr, h.now())
	if first {
		h.log.Info("web: an address is over its rate; its requests are answered 429", "addr", addr)
	}
	return ok
}

// take takes one from the address's allowance at now, reporting whether there was one
// and whether this is the first refusal since the last one allowed.
func (l *limiter) take(addr string, now time.Time) (ok, first bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[addr]
	if b == nil {
		if len(l.buckets) >= maxAddrs {
			l.forgetFull(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[addr] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < 1 {
		first = !b.capped
		b.capped = true
		return false, first
	}
	b.tokens--
	b.capped = false
	return true, false
}

// forgetFull drops the addresses whose allowance has filled up again (they would start
// full anyway); the caller holds mu. If every one is busy, all are dropped: the cap is
// there to spare the server, not to remember attackers.
func (l *limiter) forgetFull(now time.Time) {
	for a, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.buckets, a)
		}
	}
	if len(l.buckets) >= maxAddrs {
		clear(l.buckets)
	}
}

// snapshot returns the status, gathered at most once a CacheFor.
func (h *Handler) snapshot(ctx context.Context) (Status, error) {
	h.cacheMu.Lock()
	defer h.cacheMu.Unlock() // one gathering at a time; the others wait for it and share it
	now := h.now()
	if !h.at.IsZero() && now.Sub(h.at) < CacheFor {
		return h.cached, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	st, err := h.status(ctx)
	if err != nil {
		return Status{}, err
	}
	st.Taken = now.UTC()
	if st.Online == nil {
		st.Online = []Player{}
	}
	if st.Fame == nil {
		st.Fame = []Fame{}
	}
	if st.Deaths == nil {
		st.Deaths = []Death{}
	}
	if st.Boards == nil {
		st.Boards = []Board{}
	}
	for i := range st.Boards {
		b := &st.Boards[i]
		if b.AllTime == nil {
			b.AllTime = []BoardRow{}
		}
		if b.ThisWeek == nil {
			b.ThisWeek = []BoardRow{}
		}
	}
	if h.play != nil {
		st.Play = PlayPath
	}
	h.cached, h.at = st, now
	return st, nil
}

// cacheHeaders says how long the answer may be kept, with its ETag; it reports whether
// the client has it already (If-None-Match), in which case 304 has been written.
func (h *Handler) cacheHeaders(w http.ResponseWriter, r *http.Request, body []byte, taken time.Time) bool {
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	hd := w.Header()
	hd.Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(CacheFor.Seconds())))
	hd.Set("ETag", etag)
	if !taken.IsZero() {
		hd.Set("Last-Modified", taken.UTC().Format(http.TimeFormat))
	}
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	return false
}

func (h *Handler) unavailable(w http.ResponseWriter, err error) {
	h.log.Error("web: gather the status", "err", err)
	w.Header().Set("Retry-After", "5")
	http.Error(w, "the server is not answering just now; try again in a moment", http.StatusServiceUnavailable)
}

func (h *Handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	st, err := h.snapshot(r.Context())
	if err != nil {
		h.unavailable(w, err)
		return
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, st); err != nil {
		h.log.Error("web: render the page", "err", err)
		http.Error(w, "the page could not be made", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if h.cacheHeaders(w, r, buf.Bytes(), st.Taken) {
		return
	}
	_, _ = w.Write(buf.Bytes())
}

func (h *Handler) serveStyle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	if h.cacheHeaders(w, r, style, time.Time{}) {
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(style)
}

// serveJSON serves part of the status as JSON.
func (h *Handler) serveJSON(part func(Status) any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		st, err := h.snapshot(r.Context())
		if err != nil {
			h.unavailable(w, err)
			return
		}
		body, err := json.Marshal(part(st))
		if err != nil {
			h.log.Error("web: encode", "err", err)
			http.Error(w, "the answer could not be made", http.StatusInternalServerError)
			return
		}
		body = append(body, '\n')
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Access-Control-Allow-Origin", "*") // public data, for directories' pages
		if h.cacheHeaders(w, r, body, st.Taken) {
			return
		}
		_, _ = w.Write(body)
	}
}

// mssp is the listing document for MUD directories: the variables of the Mud Server
// Status Protocol (MSSP), as JSON.
func mssp(st Status) any {
	guests := "0"
	if st.Guests {
		guests = "1"
	}
	return map[string]string{
		"NAME":        st.Name,
		"PLAYERS":     strconv.Itoa(playersHere(st.Online)),
		"UPTIME":      strconv.FormatInt(st.Started.Unix(), 10),
		"CODEBASE":    Codebase,
		"HOSTNAME":    st.Host,
		"PORT":        strconv.Itoa(st.Port),
		"LANGUAGE":    Language,
		"GENRE":       Genre,
		"SUBGENRE":    "Dungeon crawl",
		"GAMEPLAY":    "Hack and Slash",
		"FAMILY":      "Custom",
		"STATUS":      "Live",
		"CRAWL DELAY": strconv.Itoa(int(CacheFor.Seconds())),
		"SSH":         "1",
		"GUESTS":      guests,
		"DESCRIPTION": "A re-creation of the 1970s PLATO dungeon game Orthanc, shared by everyone connected, played over SSH.",
	}
}

// playersHere counts the knights that play on this server, not in other realms.
func playersHere(ps []Player) int {
	n := 0
	for _, p := range ps {
		if !p.Far {
			n++
		}
	}
	return n
}
