// Package webhook posts the server's public events (deaths, retirements, first levels,
// admins' broadcasts) as JSON to one URL: a Discord channel's webhook, or any receiver
// of JSON. It owns the queue, its one sender and the retries. It must never block the
// one who posts (the world's goroutine), and it knows nothing of the game: what an event
// says, and whether it may leave the server at all, is the caller's to decide.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf16"
)

// Tuning of the delivery, and what each does:
//
//	constant        value  effect
//	QueueSize       256    events waiting to be posted; past it a new event is dropped (counted, logged once a burst)
//	DefaultTimeout  10 s   one post waits this long for the receiver's answer, then counts as a network error
//	maxAttempts     5      posts of one event at most: the first and four retries (about 15 s of backoff), then it is given up
//	firstBackoff    1 s    the wait before the first retry, doubling each time
//	maxBackoff      30 s   the longest wait between two tries
//	maxRetryAfter   60 s   a 429's (or 503's) Retry-After is honoured up to this
//	maxContent      2000   characters of the content field: Discord refuses a longer message
const (
	QueueSize      = 256
	DefaultTimeout = 10 * time.Second
	maxAttempts    = 5
	firstBackoff   = time.Second
	maxBackoff     = 30 * time.Second
	maxRetryAfter  = 60 * time.Second
	maxContent     = 2000
)

// Kind names what happened. A new kind is one line here, and its sender.
type Kind string

// The kinds of events.
const (
	KindDeath      Kind = "death"       // a knight died
	KindRetirement Kind = "retirement"  // a knight retired into the hall of fame
	KindFirstLevel Kind = "first_level" // a new knight gained its first level
	KindBroadcast  Kind = "broadcast"   // an admin's broadcast
	KindDeed       Kind = "deed"        // a knight earned a rare deed
)

// Event is one thing to tell, in the shape every post has: what happened, when, to
// which knight (none for a broadcast), its facts as fields, and a sentence saying it.
// Server and Realm are filled by the Poster.
type Event struct {
	Kind   Kind      `json:"kind"`
	Time   time.Time `json:"time"`
	Server string    `json:"server"`
	Realm  string    `json:"realm,omitempty"`
	Knight string    `json:"knight,omitempty"`
	// Fields are the event's facts by name (level, killer, depth, experience); always an
	// object on the wire, {} when there are none.
	Fields map[string]any `json:"fields"`
	Text   string         `json:"text"`
}

// body is an event as posted: the event's own fields, and Discord's: the text as
// content, with every mention (@everyone, a user's, a role's) turned off.
type body struct {
	Event
	Content         string          `json:"content"`
	AllowedMentions allowedMentions `json:"allowed_mentions"`
}

type allowedMentions struct {
	Parse []string `json:"parse"`
}

// Encode is the JSON an event is posted as.
func Encode(e Event) ([]byte, error) {
	if e.Fields == nil {
		e.Fields = map[string]any{}
	}
	b, err := json.Marshal(body{Event: e, Content: Content(e.Text), AllowedMentions: allowedMentions{Parse: []string{}}})
	if err != nil {
		return nil, fmt.Errorf("encode a webhook event: %w", err)
	}
	return b, nil
}

// Content is text as Discord's content field carries it: every @ followed by a zero-width
// space, so that a receiver that ignores allowed_mentions pings no one either, and cut
// to Discord's 2000 characters (counted as it counts them, in UTF-16 units).
func Content(text string) string {
	text = strings.ReplaceAll(text, "@", "@\u200b")
	n := 0
	for _, r := range text {
		n += utf16.RuneLen(r)
	}
	if n <= maxContent {
		return text
	}
	n = 0
	for i, r := range text {
		if n += utf16.RuneLen(r); n > maxContent-1 { // room for the ellipsis
			return text[:i] + "…"
		}
	}
	return text
}

// Config is where a Poster posts, and what it says of itself.
type Config struct {
	// URL is the receiver's address: http or https (Validate).
	URL string
	// Server is the server's name, and Realm its realm (empty for a server alone), put
	// on every event.
	Server, Realm string
	// Timeout bounds one post; zero is DefaultTimeout.
	Timeout time.Duration
}

// ErrURL is a webhook address that is not an http or https URL with a host.
var ErrURL = errors.New("want an http or https URL, such as https://discord.com/api/webhooks/ID/TOKEN")

// Validate checks a webhook's URL: http or https, with a host.
func Validate(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ErrURL
	}
	return nil
}

// Redact is the URL without what may be a secret (a Discord webhook's token is its
// path): the scheme and host, for the logs.
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(not a URL)"
	}
	return u.Scheme + "://" + u.Host + "/…"
}

// Stats are a Poster's counts since it was made.
type Stats struct {
	Posted  uint64 // events the receiver took (a 2xx)
	Failed  uint64 // events given up: a 4xx other than 429, or every try failed
	Dropped uint64 // events never tried: the queue was full, or the server stopped first
	Retried uint64 // tries after the first, of every event
}

// Poster posts events to one URL, one at a time, from one goroutine (Start). Post may be
// called from any goroutine and never blocks. A nil Poster posts nothing.
type Poster struct {
	url, server, realm string
	timeout            time.Duration
	client             *http.Client
	log                *slog.Logger
	queue              chan Event
	closing            chan struct{} // closed by Stop: post what is queued, then end
	done               chan struct{} // closed when the sender has ended
	ctx                context.Context
	cancel             context.CancelFunc // ends a post under way, at the end of Stop's grace
	stopOnce           sync.Once
	// backoff and retryCap are firstBackoff and maxRetryAfter, shorter in tests.
	backoff, retryCap time.Duration

	posted, failed, dropped, retried atomic.Uint64
	burst                            atomic.Uint64 // dropped since the sender last logged it
}

// New makes a Poster for cfg, logging to log; Start starts its sender. The URL must pass
// Validate.
func New(cfg Config, log *slog.Logger) (*Poster, error) {
	if err := Validate(cfg.URL); err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Poster{url: cfg.URL, server: cfg.Server, realm: cfg.Realm, timeout: cfg.Timeout, log: log,
		// A redirect is not followed: a webhook's receiver answers where it was asked.
		client: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		queue:  make(chan Event, QueueSize), closing: make(chan struct{}), done: make(chan struct{}),
		ctx: ctx, cancel: cancel, backoff: firstBackoff, retryCap: maxRetryAfter}, nil
}

// Stats are the poster's counts; zero for a nil Poster.
func (p *Poster) Stats() Stats {
	if p == nil {
		return Stats{}
	}
	return Stats{Posted: p.posted.Load(), Failed: p.failed.Load(), Dropped: p.dropped.Load(), Retried: p.retried.Load()}
}

// Post queues e to be posted, stamping it with the server and realm (and the time, if
// it has none). It never blocks: with the queue full, or the poster stopping, e is
// dropped and counted, and Post reports false.
func (p *Poster) Post(e Event) bool {
	if p == nil {
		return false
	}
	e.Server, e.Realm = p.server, p.realm
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	select {
	case <-p.closing:
		p.drop()
		return false
	default:
	}
	select {
	case p.queue <- e:
		return true
	default:
		p.drop()
		return false
	}
}

// drop counts an event dropped, and for the next line of the log.
func (p *Poster) drop() {
	p.dropped.Add(1)
	p.burst.Add(1)
}

// Start starts the sender, which posts the queued events in order until Stop.
func (p *Poster) Start() {
	if p == nil {
		return
	}
	p.log.Info("webhook", "url", Redact(p.url), "queue", QueueSize)
	go p.run()
}

// Stop posts what is queued for up to grace, then ends a post under way and drops the
// rest (counted and logged). Events posted after Stop are dropped. The sender must have
// been started.
func (p *Poster) Stop(grace time.Duration) {
	if p == nil {
		return
	}
	p.stopOnce.Do(func() { close(p.closing) })
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.cancel()
		<-p.done
	}
	p.cancel()
	p.noteDrops()
}

func (p *Poster) run() {
	defer close(p.done)
	for {
		select {
		case e := <-p.queue:
			p.deliver(e)
		case <-p.closing:
			for {
				select {
				case e := <-p.queue:
					p.deliver(e)
				default:
					return
				}
			}
		}
	}
}

// deliver posts one event, retrying as the receiver allows; it logs an event given up
// and, once a try is over, how many were dropped meanwhile.
func (p *Poster) deliver(e Event) {
	if p.ctx.Err() != nil { // past Stop's grace: what is left is dropped
		p.drop()
		return
	}
	b, err := Encode(e)
	if err != nil {
		p.failed.Add(1)
		p.log.Error("webhook: an event could not be encoded", "kind", e.Kind, "err", err)
		return
	}
	for attempt := 1; ; attempt++ {
		wait, again, err := p.try(b, attempt)
		if err == nil {
			p.posted.Add(1)
			p.noteDrops()
			return
		}
		if p.ctx.Err() != nil { // Stop's grace is over: Stop logs what was dropped
			p.drop()
			return
		}
		p.noteDrops()
		if !again || attempt == maxAttempts {
			// Logged before it is counted: whoever reads the count (stats, a test) finds
			// the line written.
			p.log.Warn("webhook: gave up on an event", "kind", e.Kind, "attempts", attempt, "err", err)
			p.failed.Add(1)
			return
		}
		p.retried.Add(1)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-p.ctx.Done():
			t.Stop()
			p.drop()
			return
		}
	}
}

// try posts the body once. It returns whether to try again, and after how long: on a
// network error (a timeout among them), a 5xx or a 429, the Retry-After the receiver
// gave (up to retryCap), else the backoff of this attempt.
func (p *Poster) try(b []byte, attempt int) (wait time.Duration, again bool, err error) {
	ctx, cancel := context.WithTimeout(p.ctx, p.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(b))
	if err != nil {
		return 0, false, fmt.Errorf("make the request: %w", unURL(err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "orthanc-ssh")
	backoff := min(maxBackoff, p.backoff<<(attempt-1))
	resp, err := p.client.Do(req)
	if err != nil {
		return backoff, true, fmt.Errorf("post: %w", unURL(err))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // so the connection is kept
	_ = resp.Body.Close()
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return 0, false, nil
	case code == http.StatusTooManyRequests || code >= 500:
		if ra, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			backoff = min(ra, p.retryCap)
		}
		return backoff, true, fmt.Errorf("the receiver answered %s", resp.Status)
	default:
		return 0, false, fmt.Errorf("the receiver answered %s", resp.Status)
	}
}

// unURL is err without the URL net/http puts in its message: a webhook's URL holds its
// token, which is never logged.
func unURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// retryAfter reads a Retry-After header: seconds (Discord's may have a fraction), or an
// HTTP date.
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	if h == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// noteDrops logs how many events were dropped since it last did: once a burst, from the
// sender's goroutine, never from the one that posts.
func (p *Poster) noteDrops() {
	if n := p.burst.Swap(0); n > 0 {
		p.log.Warn("webhook: events dropped", "dropped", n, "queue", QueueSize,
			"fix", "the receiver is slow or down: see its answers in the lines before; the drops are counted in orthanc_webhook_dropped_total")
	}
}
