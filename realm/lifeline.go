package realm

import (
	"context"
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

// retryEvery is how often of a TTL an unanswered keep-alive is tried again.
const retryDivisor = 8

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
	l.renewAt = sentAt.Add(l.ttl / 3)
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

// keepAlive renews the lease until the realm stops, and stops it when the lease is gone
// or might lapse before the next answer.
func (r *Realm) keepAlive(l *lifeline) {
	defer r.wg.Done()
	answers := make(chan renewal, 1)
	renewing := false
	for {
		now := r.cfg.Clock.Now()
		if l.over(now) {
			r.stop(ErrCutOff)
			return
		}
		if !renewing && !now.Before(l.renewAt) {
			renewing = true
			r.wg.Add(1)
			go r.renew(now, answers)
		}
		select {
		case <-r.ctx.Done():
			return
		case <-r.cfg.Clock.After(l.wait(now, renewing)):
		case a := <-answers:
			renewing = false
			if r.settle(l, a) != nil {
				return
			}
		}
	}
}

// renew sends one keep-alive and hands back its answer; it gives up after a third of
// the TTL, the realm's end ending it sooner.
func (r *Realm) renew(sentAt time.Time, answers chan<- renewal) {
	defer r.wg.Done()
	ctx, cancel := context.WithTimeout(r.ctx, r.cfg.TTL/3)
	defer cancel()
	resp, err := r.cli.KeepAliveOnce(ctx, r.lease)
	a := renewal{sentAt: sentAt, err: err}
	if err == nil {
		a.granted = time.Duration(resp.TTL) * time.Second
	}
	answers <- a
}

// settle records an answer, and stops the realm if etcd says the lease is gone.
func (r *Realm) settle(l *lifeline, a renewal) error {
	switch {
	case errors.Is(a.err, rpctypes.ErrLeaseNotFound):
		r.stop(ErrLeaseLost)
		return ErrLeaseLost
	case a.err != nil:
		l.failed(r.cfg.Clock.Now())
	default:
		l.renewed(a.sentAt, a.granted)
	}
	return nil
}
