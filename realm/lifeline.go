package realm

import (
	"errors"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// lifeline is what a realm knows of its lease: until when it surely lives, and when to
// renew it. etcd starts a renewed lease's TTL when the keep-alive reaches it, which is
// after it was sent, so an answered keep-alive sent at t keeps the lease alive at least
// until t+TTL whatever the answer's delay. The realm stops Margin before that.
// It is plain data, owned by the keepAlive goroutine.
type lifeline struct {
	ttl, margin time.Duration
	safeUntil   time.Time // stop writing by then unless renewed
	renewAt     time.Time // send the next keep-alive then
}

// How often a realm renews its lease, as parts of its TTL. A pause of etcd (frozen,
// restarted, or the way to it stalled) stops nothing while the last keep-alive answered
// before it, plus the pause, plus the answer after it, stay under TTL - Margin:
//
//	TTL   renew every   a failed one again   pause survived (Margin TTL/4, answer ~0.5s)
//	10s   1.25s         0.5s                 about 5.5s
//	5s    0.625s        0.25s                about 2.6s
//	3s    0.375s        0.15s                about 1.5s
//
// A keep-alive in flight is waited for until the realm would stop: one sent into a
// frozen etcd is answered when it thaws, and etcd counts the TTL from then.
const (
	renewDivisor = 8
	retryDivisor = 20
)

func newLifeline(ttl, margin time.Duration, sentAt time.Time, granted time.Duration) *lifeline {
	l := &lifeline{ttl: ttl, margin: margin}
	l.renewed(sentAt, granted)
	return l
}

// renewed records a keep-alive sent at sentAt that was answered with granted to live.
func (l *lifeline) renewed(sentAt time.Time, granted time.Duration) {
	if until := sentAt.Add(granted - l.margin); until.After(l.safeUntil) {
		l.safeUntil = until
	}
	l.renewAt = sentAt.Add(l.ttl / renewDivisor)
}

// failed records a keep-alive that went unanswered at now: try again soon.
func (l *lifeline) failed(now time.Time) {
	l.renewAt = now.Add(l.ttl / retryDivisor)
}

// over tells whether the realm must stop at now.
func (l *lifeline) over(now time.Time) bool { return !now.Before(l.safeUntil) }

// wait is how long from now until the next thing to do: renew, or stop if renewing
// is already under way.
func (l *lifeline) wait(now time.Time, renewing bool) time.Duration {
	next := l.safeUntil
	if !renewing && l.renewAt.Before(next) {
		next = l.renewAt
	}
	return max(next.Sub(now), 0)
}

// renewal is one keep-alive's outcome.
type renewal struct {
	sentAt  time.Time
	granted time.Duration
	err     error
}

// keepAlive renews the term's lease until the term stops, and stops it when the lease
// is gone or might lapse before the next answer.
func (t *term) keepAlive(l *lifeline) {
	defer t.wg.Done()
	clock := t.r.cfg.Clock
	answers := make(chan renewal, 1)
	renewing := false
	for {
		now := clock.Now()
		if l.over(now) {
			t.stop(ErrCutOff)
			return
		}
		if !renewing && !now.Before(l.renewAt) {
			renewing = true
			t.wg.Add(1)
			go t.renew(now, answers)
		}
		select {
		case <-t.ctx.Done():
			return
		case <-clock.After(l.wait(now, renewing)):
		case a := <-answers:
			renewing = false
			if t.settle(l, a) != nil {
				return
			}
		}
	}
}

// renew sends one keep-alive and hands back its answer; it waits for it as long as the
// term lives, which keepAlive ends when the lease could lapse without it.
func (t *term) renew(sentAt time.Time, answers chan<- renewal) {
	defer t.wg.Done()
	resp, err := t.r.cli.KeepAliveOnce(t.ctx, t.lease)
	a := renewal{sentAt: sentAt, err: err}
	if err == nil {
		a.granted = time.Duration(resp.TTL) * time.Second
	}
	answers <- a
}

// settle records an answer, and stops the term if etcd says the lease is gone.
func (t *term) settle(l *lifeline, a renewal) error {
	switch {
	case errors.Is(a.err, rpctypes.ErrLeaseNotFound):
		t.stop(ErrLeaseLost)
		return ErrLeaseLost
	case a.err != nil:
		l.failed(t.r.cfg.Clock.Now())
	default:
		l.renewed(a.sentAt, a.granted)
	}
	return nil
}
