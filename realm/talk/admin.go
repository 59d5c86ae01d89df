package talk

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// An admin's commands that reach every realm: a broadcast, and the reports each realm
// keeps. A broadcast is a moderation event of its own kind (PREFIX.mod.FROM, which every
// realm hears), its text cleaned on receipt as every text is. The reports stay with the
// realm they were filed on (its chat history and recorder hold their lines and replay),
// so an admin's realm asks each other realm for its own, a request on
// PREFIX.reports.REALM.FROM answered within the bus's Timeout, and asks the realm that
// holds a report to close it. Only a realm may ask: the server held the asker to
// subjects ending with its name, and the ask must say the same realm.

// ModBroadcast is a broadcast an admin made: a line in every knight's messages, on every
// realm.
const ModBroadcast ModKind = "broadcast"

// BroadcastEvery is the least time between two broadcasts of one realm that a realm shows:
// one sooner is dropped (and counted bad), so no realm, however it is driven, floods the
// others' screens.
const BroadcastEvery = 500 * time.Millisecond

// maxReportsBytes bounds the answer of a realm's reports: the store holds them under
// 256 KiB, whose lines a report's answer spells out again; NATS's own cap is 1 MiB.
const maxReportsBytes = 900 << 10

// Broadcast tells the other realms of an admin's broadcast made here, for their knights'
// messages; false when the bus is not talking.
func (b *Bus) Broadcast(text string) bool {
	text = world.CleanText(text, world.MaxBroadcastRunes)
	if !b.started.Load() || text == "" {
		return false
	}
	b.publish(b.from("mod"), modMsg{V: version, Realm: b.cfg.Realm, Kind: string(ModBroadcast), Reason: text}, maxSmallBytes)
	return true
}

// BroadcastLine is how a knight reads another realm's broadcast, after the world's
// "[admin] ".
func BroadcastLine(realm, text string) string { return "realm " + realm + ": " + text }

// hearBroadcast shows another realm's broadcast to this realm's knights, unless that
// realm broadcast less than BroadcastEvery ago.
func (b *Bus) hearBroadcast(m Moderation) {
	now := b.cfg.Now()
	b.peers.mu.Lock()
	if b.peers.broadcast == nil {
		b.peers.broadcast = map[string]time.Time{}
	}
	last, seen := b.peers.broadcast[m.Realm]
	soon := seen && now.Sub(last) < BroadcastEvery
	if !soon {
		b.peers.broadcast[m.Realm] = now
	}
	b.peers.mu.Unlock()
	if soon {
		b.counts.bad.Add(1)
		return
	}
	b.counts.received.Add(1)
	b.toWorld(func(ctx context.Context) error {
		_, err := b.w.Broadcast(ctx, BroadcastLine(m.Realm, m.Reason))
		if b.cfg.OnModeration != nil {
			b.cfg.OnModeration(m)
		}
		return err
	})
}

// ReportsAsk is what another realm's admin asks of this realm's reports: the list, or
// to close one.
type ReportsAsk struct {
	// Realm is the asking realm.
	Realm string
	// Close is the number of the report to close, with Outcome (store.Resolved or
	// store.Dismissed) and By, the admin's key fingerprint; zero: the list.
	Close   uint64
	Outcome string
	By      string
}

// RealmReports is a realm's reports, as it answered.
type RealmReports struct {
	Realm string
	// Answered is false when the realm did not answer within the bus's Timeout.
	Answered bool
	// Err is the realm's own failure to read its reports, when it answered with one.
	Err     string
	Reports []store.Report
}

// ErrNoAnswer is a realm that did not answer an ask within the bus's Timeout.
var ErrNoAnswer = errors.New("talk: the realm did not answer")

// reportsMsg is an ask of a realm's reports.
type reportsMsg struct {
	V       int    `json:"v"`
	Realm   string `json:"realm"`
	Close   uint64 `json:"close,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	By      string `json:"by,omitempty"`
}

// reportsAnswerMsg is its answer: the reports, or the report closed, or why not.
type reportsAnswerMsg struct {
	V       int            `json:"v"`
	Realm   string         `json:"realm"`
	Reports []store.Report `json:"reports,omitempty"`
	// Err: "not-found", "closed", or the realm's own failure.
	Err string `json:"err,omitempty"`
}

func (m reportsMsg) ver() int       { return m.V }
func (m reportsAnswerMsg) ver() int { return m.V }

// The errors of a close as the wire names them.
var reportErrs = map[string]error{"not-found": store.ErrNotFound, "closed": store.ErrClosed}

// onReports answers another realm's ask, off NATS's goroutine (the store may take a
// moment): the answer holds its reports cleaned of nothing (the asker cleans them).
func (b *Bus) onReports(msg *nats.Msg) {
	m, err := decode[reportsMsg](msg.Data, maxSmallBytes)
	if err == nil && (cleanRealm(m.Realm) == "" || m.Realm != sender(msg.Subject) || m.Realm == b.cfg.Realm ||
		(m.Close != 0 && m.Outcome != store.Resolved && m.Outcome != store.Dismissed)) {
		err = errInvalid // only a realm asks, for itself
	}
	if err != nil || b.cfg.OnReports == nil {
		if err != nil {
			b.refused(err)
		}
		return
	}
	b.counts.received.Add(1)
	ask := ReportsAsk{Realm: m.Realm, Close: m.Close, Outcome: m.Outcome, By: world.CleanText(m.By, 100)}
	b.wg.Go(func() {
		ctx, cancel := context.WithTimeout(b.ctx, b.cfg.Timeout)
		defer cancel()
		list, err := b.cfg.OnReports(ctx, ask)
		a := reportsAnswerMsg{V: version, Realm: b.cfg.Realm, Reports: list}
		for code, e := range reportErrs {
			if errors.Is(err, e) {
				a.Err = code
			}
		}
		if err != nil && a.Err == "" {
			a.Err = err.Error()
		}
		data, err := encode(a, maxReportsBytes)
		for errors.Is(err, errTooBig) && len(a.Reports) > 0 { // the oldest closed are listed last: they go first
			a.Reports = a.Reports[:len(a.Reports)/2]
			data, err = encode(a, maxReportsBytes)
		}
		if err == nil {
			_ = msg.Respond(data) // the asker is gone: no one to tell
		}
	})
}

// ask sends an ask to realm and reads its answer, cleaned.
func (b *Bus) ask(ctx context.Context, realm string, m reportsMsg) (reportsAnswerMsg, error) {
	if !validWord(realm) || realm == b.cfg.Realm {
		return reportsAnswerMsg{}, fmt.Errorf("talk: %q: %w", realm, ErrNoAnswer)
	}
	data, err := encode(m, maxSmallBytes)
	if err != nil {
		return reportsAnswerMsg{}, fmt.Errorf("talk: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	b.counts.sent.Add(1)
	reply, err := b.nc.RequestWithContext(ctx, b.from("reports", realm), data)
	if err != nil {
		return reportsAnswerMsg{}, fmt.Errorf("talk: realm %s: %w (%w)", realm, ErrNoAnswer, err)
	}
	a, err := decode[reportsAnswerMsg](reply.Data, maxReportsBytes)
	if err == nil && a.Realm != realm {
		err = errInvalid
	}
	if err != nil {
		b.refused(err)
		return a, fmt.Errorf("talk: realm %s's answer: %w", realm, err)
	}
	for i, r := range a.Reports {
		a.Reports[i] = cleanReport(r)
	}
	a.Err = world.CleanText(a.Err, world.MaxBroadcastRunes)
	return a, nil
}

// cleanReport is a report from afar with its names and texts cleaned: they are players'.
func cleanReport(r store.Report) store.Report {
	name := func(s string) string { return world.CleanText(s, world.MaxNameLen) }
	r.From, r.About = name(r.From), name(r.About)
	r.FromKnight, r.AboutKnight, r.ClosedBy = cleanID(r.FromKnight), cleanID(r.AboutKnight), cleanID(r.ClosedBy)
	r.Reason = world.CleanText(r.Reason, world.MaxBroadcastRunes)
	r.Outcome = world.CleanText(r.Outcome, 20)
	r.Times = max(r.Times, 0)
	lines := make([]store.ReportLine, 0, len(r.Lines))
	for _, l := range r.Lines {
		lines = append(lines, store.ReportLine{At: l.At, Where: world.CleanText(l.Where, 40), Line: world.CleanText(l.Line, 2*world.MaxChatRunes)})
	}
	r.Lines = lines
	return r
}

// OthersReports asks every other realm heard from for its reports, all at once, and
// lists them by realm; a realm that does not answer within the bus's Timeout is listed
// as not answering.
func (b *Bus) OthersReports(ctx context.Context) []RealmReports {
	b.peers.mu.Lock()
	out := make([]RealmReports, 0, len(b.peers.m))
	for name := range b.peers.m {
		out = append(out, RealmReports{Realm: name})
	}
	b.peers.mu.Unlock()
	slices.SortFunc(out, func(x, y RealmReports) int { return cmp.Compare(x.Realm, y.Realm) })
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			a, err := b.ask(ctx, out[i].Realm, reportsMsg{V: version, Realm: b.cfg.Realm})
			if err != nil {
				return
			}
			out[i].Answered, out[i].Err, out[i].Reports = true, a.Err, a.Reports
		})
	}
	wg.Wait()
	return out
}

// CloseReport asks realm to close its report id with outcome, by the admin's key
// fingerprint, and returns the report closed: store.ErrNotFound or store.ErrClosed as
// the realm found it, ErrNoAnswer when it did not answer in time.
func (b *Bus) CloseReport(ctx context.Context, realm string, id uint64, outcome, by string) (store.Report, error) {
	a, err := b.ask(ctx, realm, reportsMsg{V: version, Realm: b.cfg.Realm, Close: id, Outcome: outcome, By: by})
	if err != nil {
		return store.Report{}, err
	}
	if e, ok := reportErrs[a.Err]; ok {
		return store.Report{}, e
	}
	if a.Err != "" {
		return store.Report{}, fmt.Errorf("realm %s: %s", realm, a.Err)
	}
	if len(a.Reports) != 1 {
		return store.Report{}, fmt.Errorf("talk: realm %s's answer: %w", realm, errInvalid)
	}
	return a.Reports[0], nil
}
