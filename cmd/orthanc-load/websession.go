package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// A browser's session (-web): it opens the play page's socket (/play/socket) as the
// page's script does, with the page's own origin, an 80×24 screen (w and h in the
// query, as the page sends its size in cells), and plays as a guest, as a browser with
// no key of its own does. The server sends frames of the rows that changed, as runs of
// styled text (web/playscreen.go); the session keeps the grid of cells they paint
// (webScreen) and walks in and steers by it as an SSH session does by its terminal. It
// sends keys as the page does, {"keys": "..."}, a terminal's bytes. A message that is
// not a frame (a kind the page's script knows and this tool does not) is counted in the
// bytes and read no further; only a frame answers a key.
//
// Tuning of a browser's session:
//
//	constant          value   effect
//	webReadLimit      4 MiB   the longest message read (a frame of a large screen in many colours)
//	webWriteTimeout   10 s    a key message the server does not take within this fails the session's write
const (
	webReadLimit    = 4 << 20
	webWriteTimeout = 10 * time.Second
)

// playSocketPath is the play page's socket, as web.PlaySocketPath (the tool speaks to
// the server as a client does: over the network, not through its packages).
const playSocketPath = "/play/socket"

// webSocketURL is the play socket's address for the web page at base (http://host:port),
// for a w×h screen, and the page's origin, which the socket's Origin header must be.
func webSocketURL(base string, w, h int) (socket, origin string, err error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", "", fmt.Errorf("web page %q: %w", base, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", "", fmt.Errorf("web page %q: want http://host:port or https://host:port", base)
	}
	origin = u.Scheme + "://" + u.Host
	return fmt.Sprintf("%s%s?w=%d&h=%d", origin, playSocketPath, w, h), origin, nil
}

// webKeys sends what is written to it as the page's key messages, one a write.
type webKeys struct {
	ctx context.Context
	c   *websocket.Conn
}

func (k webKeys) Write(p []byte) (int, error) {
	msg, err := json.Marshal(struct {
		Keys string `json:"keys"`
	}{string(p)})
	if err != nil {
		return 0, fmt.Errorf("encode keys: %w", err)
	}
	ctx, cancel := context.WithTimeout(k.ctx, webWriteTimeout)
	defer cancel()
	if err := k.c.Write(ctx, websocket.MessageText, msg); err != nil {
		return 0, fmt.Errorf("send keys: %w", err)
	}
	return len(p), nil
}

// connectWeb opens the play socket of the web page at s.webURL and reads its messages
// on a goroutine of its own. The deadline bounds the opening.
func (s *session) connectWeb(ctx context.Context, deadline time.Time) error {
	socket, origin, err := webSocketURL(s.webURL, termWidth, termHeight)
	if err != nil {
		return fail("dial", err)
	}
	s.dialAt = time.Now()
	// The socket lives past the dial: its reads end when the run closes it.
	connCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	dialCtx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	c, resp, err := websocket.Dial(dialCtx, socket, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {origin}}})
	if err != nil {
		stop()
		if resp != nil {
			return fail("handshake", fmt.Errorf("open %s: %s: %w", socket, resp.Status, err))
		}
		return fail("dial", fmt.Errorf("open %s: %w", socket, err))
	}
	c.SetReadLimit(webReadLimit)
	s.mu.Lock()
	closing := s.closing
	s.ws, s.wsStop = c, stop
	s.handshakeAt = time.Now()
	s.stdin = webKeys{ctx: connCtx, c: c}
	if s.script != nil {
		s.webScr = newWebScreen(termWidth, termHeight)
		s.walk = newWebWalker(s.script, s.webScr, knightName(rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))))
	}
	s.mu.Unlock()
	if closing {
		s.close()
		return fail("dial", errors.New("run ended while dialling"))
	}
	go s.readWeb(connCtx, c)
	return nil
}

// readWeb takes the socket's messages until it closes: it counts their bytes, paints
// the frames on the screen (while the session keeps one), walks the start screens, and
// answers the keys waiting for a frame.
func (s *session) readWeb(ctx context.Context, c *websocket.Conn) {
	defer close(s.readDone)
	var buf bytes.Buffer
	for {
		if s.stallAfterArrival {
			select {
			case <-s.arrived:
				<-s.stalled()
				return
			default:
			}
		}
		err := readMessage(ctx, c, &buf)
		if err == nil {
			s.webMessage(time.Now(), buf.Bytes())
			continue
		}
		s.mu.Lock()
		if !s.closing && !s.serverGoing {
			s.readErr = err
		}
		s.walk, s.webScr = nil, nil
		s.mu.Unlock()
		return
	}
}

// readMessage reads the socket's next message into buf, whose memory it reuses.
func readMessage(ctx context.Context, c *websocket.Conn, buf *bytes.Buffer) error {
	_, r, err := c.Reader(ctx)
	if err != nil {
		return err
	}
	buf.Reset()
	if _, err := buf.ReadFrom(r); err != nil {
		return fmt.Errorf("read a message: %w", err)
	}
	return nil
}

// framesMark is in every frame, and in no other message the page is sent that this tool
// has to tell from one: a session that no longer keeps its screen counts messages with it
// as frames without decoding them.
var framesMark = []byte(`"rows":`)

// webMessage handles one message of the socket that arrived at now.
func (s *session) webMessage(now time.Time, msg []byte) {
	s.bytes.Add(int64(len(msg)))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.webScr == nil {
		if bytes.Contains(msg, framesMark) {
			s.answer(now, len(msg), true)
		}
		return
	}
	f, err := decodeFrame(msg)
	if err != nil {
		return // another kind of message, or not one of ours: nothing to paint
	}
	_ = s.webScr.apply(f) // a row it cannot read stays as it was: the screen shows it
	if s.firstFrame == 0 {
		s.firstFrame = max(now.Sub(s.dialAt), time.Nanosecond)
	}
	if s.walk != nil && s.arrival == 0 {
		send, arrived := s.walk.advance()
		for _, k := range send {
			_, _ = io.WriteString(s.stdin, k) // a failure shows as a walk-in timeout
		}
		if arrived {
			s.depth = screenDepth(s.walk.screen())
			if !s.active {
				s.walk, s.webScr = nil, nil
			}
			s.arrive(now)
		}
	}
	s.answer(now, len(msg), true)
}

// closeWeb closes the session's socket; s.mu is not held.
func closeWeb(c *websocket.Conn, stop context.CancelFunc) {
	_ = c.CloseNow()
	stop()
}

// PageFile is one of the play page's files as the server sends it: its bytes, and
// their gzip (what a proxy that compresses would send; the server itself sends it as it
// is unless ContentEncoding says otherwise).
type PageFile struct {
	Path            string `json:"path"`
	Bytes           int    `json:"bytes"`
	GzipBytes       int    `json:"gzip_bytes"`
	ContentEncoding string `json:"content_encoding,omitempty"`
}

// playPagePath is the play page.
const playPagePath = "/play"

// pageLoads finds what a page loads from its own server: its scripts' src and its
// links' href that are paths on it.
var pageLoads = regexp.MustCompile(`<(?:script|link)\b[^>]*\b(?:src|href)="(/[^"/][^"]*)"`)

// pageWeight fetches the play page from the web page at base, and each script and style
// it loads from there, and weighs them.
func pageWeight(ctx context.Context, base string) ([]PageFile, error) {
	base = strings.TrimRight(base, "/")
	page, body, err := weigh(ctx, base+playPagePath)
	if err != nil {
		return nil, err
	}
	page.Path = playPagePath
	out := []PageFile{page}
	for _, m := range pageLoads.FindAllSubmatch(body, -1) {
		f, _, err := weigh(ctx, base+string(m[1]))
		if err != nil {
			return out, err
		}
		f.Path = string(m[1])
		out = append(out, f)
	}
	return out, nil
}

// weigh fetches one file as a browser that takes gzip asks for it; it returns its
// weight and its bytes.
func weigh(ctx context.Context, u string) (PageFile, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return PageFile{}, nil, fmt.Errorf("weigh %s: %w", u, err)
	}
	// Asked for by hand, the transport hands the body on as the server sent it.
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return PageFile{}, nil, fmt.Errorf("weigh %s: %w", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return PageFile{}, nil, fmt.Errorf("weigh %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return PageFile{}, nil, fmt.Errorf("weigh %s: %s", u, resp.Status)
	}
	f := PageFile{Bytes: len(body), ContentEncoding: resp.Header.Get("Content-Encoding")}
	if f.ContentEncoding == "gzip" {
		f.GzipBytes = len(body)
		if body, err = gunzip(body); err != nil {
			return f, nil, fmt.Errorf("weigh %s: %w", u, err)
		}
		f.Bytes = len(body)
		return f, body, nil
	}
	f.GzipBytes = gzipSize(body)
	return f, body, nil
}

// gzipSize is the length of b gzipped at the best compression.
func gzipSize(b []byte) int {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression) // a valid level: never fails
	_, _ = zw.Write(b)                                       // to memory: never fails
	_ = zw.Close()
	return out.Len()
}

// gunzip is the gzipped b unpacked.
func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("gunzip: %w", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("gunzip: %w", err)
	}
	return out, nil
}
