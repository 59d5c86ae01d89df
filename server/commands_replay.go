package server

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The replay command: `replay` lists the key's own records (its knight's last minutes,
// and the deaths and retirements of its knights); `replay N` plays one of them whole,
// `replay NAME --death` and `replay NAME --retired` play another knight's, as anyone
// may see it, and an admin's `replay --report N` plays the minutes kept with a report.
// Playing needs a terminal (ssh -t): it is the watching screen, fed by a replay.Player.

// ownReplayLines is the replay command's list of a knight's records.
func (s *Server) ownReplayLines(knight string) ([]string, error) {
	list, err := s.ownReplays(knight)
	lines := make([]string, len(list))
	for i, r := range list {
		lines[i] = r.line
	}
	return lines, err
}

// ownReplay is one of a key's records: how the list says it, and how to play it.
type ownReplay struct {
	line string
	kept *store.Replay // nil: the knight's rolling record
}

// ownReplays are a knight's records: its rolling record first, then what was kept of its
// deaths and retirements (its forebears' too: they had its id), newest first.
func (s *Server) ownReplays(knight string) ([]ownReplay, error) {
	s.recorder.Cut(knight) // a knight playing now: its last seconds too
	if err := s.replayWriter.Flush(); err != nil {
		return nil, err
	}
	var out []ownReplay
	live, err := s.store.LiveReplay(knight)
	if err != nil {
		return nil, err
	}
	if len(live) > 0 {
		out = append(out, ownReplay{line: "your last 10 minutes, as they are now"})
	}
	kept, err := s.store.KeptReplays(func(r store.Replay) bool { return r.Knight == knight && r.Kind != string(replay.KindReport) })
	if err != nil {
		return nil, err
	}
	for i := len(kept) - 1; i >= 0; i-- {
		r := kept[i]
		what := "died"
		if r.Kind == string(replay.KindRetired) {
			what = "retired"
		}
		line := fmt.Sprintf("%s %s %s", r.Name, what, r.At.UTC().Format("2006-01-02 15:04 UTC"))
		if r.Private {
			line += " (yours alone)"
		}
		out = append(out, ownReplay{line: line, kept: &r})
	}
	return out, nil
}

// replayShow is a replay found for playing: whose, its moments, and for whose eyes.
type replayShow struct {
	name   string
	ms     []replay.Moment
	public bool
}

// errNoReplay is a replay that is not there, or not for this key, with the line that
// says so.
type errNoReplay struct{ line string }

func (e errNoReplay) Error() string { return e.line }

// findReplay finds what the words ask to play, for the knight of a key (admin: an
// admin's key).
func (s *Server) findReplay(a command.ReplayArgs, knight string, admin bool) (replayShow, error) {
	if err := s.replayWriter.Flush(); err != nil {
		return replayShow{}, err
	}
	switch {
	case a.Report > 0:
		if !admin {
			return replayShow{}, errNoReplay{command.PermissionDenied}
		}
		return s.reportShow(a.Report, knight)
	case a.N > 0:
		return s.ownShow(a.N, knight)
	}
	key := world.NameKey(a.Name)
	what := map[string]string{"death": "death", "retired": "retirement"}[a.Kind]
	return s.keptShow(func(r store.Replay) bool { return r.Kind == a.Kind && world.NameKey(r.Name) == key },
		knight, fmt.Sprintf("No replay of %s's %s is kept.", world.CleanText(a.Name, world.MaxNameLen+10), what))
}

// ownShow is the key's own record number n, shown whole.
func (s *Server) ownShow(n int, knight string) (replayShow, error) {
	if knight == "" {
		return replayShow{}, errNoReplay{"You have no replays yet."}
	}
	list, err := s.ownReplays(knight)
	if err != nil {
		return replayShow{}, err
	}
	if n > len(list) {
		return replayShow{}, errNoReplay{fmt.Sprintf("You have %s: replay alone lists them.", english.Count(len(list), "replay"))}
	}
	if r := list[n-1].kept; r != nil {
		return s.showKept(*r, knight)
	}
	live, err := s.store.LiveReplay(knight)
	if err != nil {
		return replayShow{}, err
	}
	ms := replay.Timeline(chunksOf(live), false)
	name := "your knight"
	if len(ms) > 0 {
		name = ms[len(ms)-1].View.Self.Name
	}
	return replayShow{name: name, ms: ms}, nil
}

// keptShow is the newest kept record that match says to, or notFound.
func (s *Server) keptShow(match func(store.Replay) bool, knight, notFound string) (replayShow, error) {
	kept, err := s.store.KeptReplays(match)
	if err != nil {
		return replayShow{}, err
	}
	if len(kept) == 0 {
		return replayShow{}, errNoReplay{notFound}
	}
	return s.showKept(kept[len(kept)-1], knight)
}

// showKept reads a kept record for the eyes of knight's key: the record's own key sees
// it whole; any other, as the public may, unless its knight keeps it private.
func (s *Server) showKept(r store.Replay, knight string) (replayShow, error) {
	own := r.Knight == knight
	if !own && r.Kind != string(replay.KindReport) && !s.replayPublic(context.Background(), r) {
		return replayShow{}, errNoReplay{fmt.Sprintf("%s keeps its replays private.", r.Name)}
	}
	full, err := s.store.KeptReplay(r)
	if errors.Is(err, store.ErrNotFound) {
		return replayShow{}, errNoReplay{"That replay is no longer kept."}
	}
	if err != nil {
		return replayShow{}, err
	}
	ms := replay.Last(replay.Timeline(chunksOf(full.Chunks), !own), r.Window)
	return replayShow{name: r.Name, ms: ms, public: !own}, nil
}

// chunksOf are the store's chunks as the replay package reads them.
func chunksOf(cs []store.ReplayChunk) []replay.Chunk {
	out := make([]replay.Chunk, len(cs))
	for i, c := range cs {
		out[i] = replay.Chunk{Start: c.Start, Data: c.Data}
	}
	return out
}

// replayProgram builds the program that plays a replay (`ssh -t host replay ...`), or
// refuses the session with a line and returns nil.
func (s *Server) replayProgram(sess ssh.Session, args []string) *sessionLoop {
	refuse := func(msg string) *sessionLoop {
		edge.Refuse(sess, msg)
		s.games.put(sess, gameSession{})
		return nil
	}
	a := command.ReadReplayArgs(args)
	if a.Problem != "" {
		return refuse(fmt.Sprintf("%s; usage: %s", a.Problem, command.ReplayUsage))
	}
	if s.replayWriter == nil {
		return refuse("this server records no replays")
	}
	id, _ := s.ids.get(sess)
	key := sess.PublicKey()
	fp := keys.Fingerprint(key)
	opts := world.Options{}
	if rec, err := s.loadKnightOf(fp); err == nil {
		opts = rec.Options
	}
	show, err := s.findReplay(a, id.knight, key != nil && s.isAdmin(key))
	if ne := (errNoReplay{}); errors.As(err, &ne) {
		return refuse(ne.line)
	}
	if err != nil || len(show.ms) == 0 {
		if err != nil {
			s.log.Error("replay", s.sessionAttrs(sess, "err", err)...)
		}
		return refuse("That replay could not be read just now; try again later.")
	}
	s.log.Info("replay", s.sessionAttrs(sess, "replayed", show.name, "public", show.public)...)
	show.ms = replay.CutIdle(show.ms, a.Idle)
	return s.playReplay(sess, show, opts, a.Plain || opts.Plain)
}

// playReplay starts the player and the session's program that shows it.
func (s *Server) playReplay(sess ssh.Session, show replayShow, opts world.Options, plain bool) *sessionLoop {
	ptyReq, _, _ := sess.Pty()
	box := app.NewViewSlot()
	player := replay.NewPlayer(show.name, show.ms, box)
	go player.Run(sess.Context())
	g := s.guardIO(sess)
	m := app.New(sess.Context(), app.Params{
		Fingerprint: keys.Fingerprint(sess.PublicKey()),
		Engine:      s.engine,
		Width:       ptyReq.Window.Width,
		Height:      ptyReq.Window.Height,
		Rand:        rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
		Replay:      player,
		Views:       box,
		Options:     opts,
		Plain:       plain,
		Out:         g,
		Term:        ptyReq.Term,
		Tick:        s.cfg.Tick,
		KeyFrameGap: app.KeyFrameGap, // keys faster than anyone types drawn together
	})
	return s.newProgram(sess, m, g)
}

// fellFor is the death screen's replay for the knight of a session (app.Params.Fell):
// the last minute of its newest kept death, seen whole by its own key.
func (s *Server) fellFor(knight string) func(ctx context.Context) (app.ReplayControl, *app.ViewSlot, error) {
	if s.recorder == nil {
		return nil
	}
	return func(ctx context.Context) (app.ReplayControl, *app.ViewSlot, error) {
		// The recorder takes views in order: once it has let this knight go, the death's
		// keep has been filed, and the flush writes it.
		s.recorder.Cut(knight)
		if err := s.replayWriter.Flush(); err != nil {
			s.log.Error("replay of a death", "knight", knight, "err", err)
		}
		show, err := s.keptShow(func(r store.Replay) bool { return r.Knight == knight && r.Kind == string(replay.KindDeath) },
			knight, "it was not recorded")
		if ne := (errNoReplay{}); errors.As(err, &ne) {
			return nil, nil, errors.New(ne.line)
		}
		if err != nil {
			s.log.Error("replay of a death", "knight", knight, "err", err)
			return nil, nil, errors.New("the replays could not be read just now")
		}
		box := app.NewViewSlot()
		player := replay.NewPlayer(show.name, replay.CutIdle(replay.Last(show.ms, fellWindow), replay.IdleCut), box)
		go player.Run(ctx)
		return player, box, nil
	}
}

// fellWindow is how much of a death the death screen's r shows.
const fellWindow = time.Minute

// reportShow is what was kept of the reported knight with report n: the newest record of
// its knight kept between the report's filing and its last update.
func (s *Server) reportShow(n int, knight string) (replayShow, error) {
	none := errNoReplay{fmt.Sprintf("No replay is kept with report %d.", n)}
	s.syncReplays()
	if err := s.replayWriter.Flush(); err != nil {
		return replayShow{}, err
	}
	if err := s.saver.Flush(); err != nil {
		return replayShow{}, err
	}
	list, err := s.store.Reports()
	if err != nil {
		return replayShow{}, err
	}
	i := slices.IndexFunc(list, func(r store.Report) bool { return r.ID == uint64(n) })
	if i < 0 || list[i].AboutKnight == "" {
		return replayShow{}, none
	}
	show, err := s.keptShow(func(r store.Replay) bool { return keptWith(r, list[i]) }, knight, none.line)
	show.public = true
	return show, err
}

// keptWith reports whether a kept record was kept with report rp: its knight's, kept when
// it was filed or reported again.
func keptWith(r store.Replay, rp store.Report) bool {
	last := max(rp.Filed.UnixMilli(), rp.Updated.UnixMilli())
	at := r.At.UnixMilli()
	return r.Kind == string(replay.KindReport) && r.Knight == rp.AboutKnight && at >= rp.Filed.UnixMilli() && at <= last
}

// reportReplays are the reports of list that have a replay kept with them.
func (s *Server) reportReplays(list []store.Report) map[uint64]bool {
	if s.replayWriter == nil {
		return nil
	}
	s.syncReplays()
	if err := s.replayWriter.Flush(); err != nil {
		s.log.Error("admin: flush before reports", "err", err)
	}
	kept, err := s.store.KeptReplays(func(r store.Replay) bool { return r.Kind == string(replay.KindReport) })
	if err != nil {
		s.log.Error("admin: the reports' replays", "err", err)
		return nil
	}
	out := map[uint64]bool{}
	for _, rp := range list {
		out[rp.ID] = slices.ContainsFunc(kept, func(r store.Replay) bool { return keptWith(r, rp) })
	}
	return out
}

// forgetReportReplay drops the replay kept with a report once it is closed.
func (s *Server) forgetReportReplay(rep store.Report) {
	if s.replayWriter == nil {
		return
	}
	s.syncReplays()
	if err := s.replayWriter.Flush(); err != nil {
		s.log.Error("admin: flush before a report's replay goes", "err", err)
	}
	kept, err := s.store.KeptReplays(func(r store.Replay) bool { return keptWith(r, rep) })
	if err != nil {
		s.log.Error("admin: the replay of a closed report", "report", rep.ID, "err", err)
		return
	}
	for _, r := range kept {
		if err := s.store.RemoveKept(r); err != nil && !errors.Is(err, store.ErrNotFound) {
			s.log.Error("admin: remove the replay of a closed report", "report", rep.ID, "err", err)
		}
	}
}

// removeReplay is replay remove: the kept record named id, or else the newest of the
// end of kind of the knight named name.
func (s *Server) removeReplay(id, name, kind string) (string, error) {
	s.syncReplays()
	if err := s.replayWriter.Flush(); err != nil {
		return "", err
	}
	key := world.NameKey(name)
	kept, err := s.store.KeptReplays(func(r store.Replay) bool {
		if id != "" {
			return r.ID() == id
		}
		return r.Kind == kind && world.NameKey(r.Name) == key
	})
	if err != nil {
		return "", err
	}
	if len(kept) == 0 {
		return "", command.ErrNoReplay
	}
	r := kept[len(kept)-1]
	if err := s.store.RemoveKept(r); errors.Is(err, store.ErrNotFound) {
		return "", command.ErrNoReplay
	} else if err != nil {
		return "", err
	}
	if s.webPage != nil {
		s.webPage.KeptChanged() // its cast, if the page made it, is served no more
	}
	what := map[string]string{string(replay.KindDeath): "death", string(replay.KindRetired): "retirement"}[r.Kind]
	if r.Kind == string(replay.KindReport) {
		what = fmt.Sprintf("report #%d", r.Report)
	}
	return fmt.Sprintf("%s's %s (%s)", r.Name, what, r.ID()), nil
}

// syncReplays waits until the recorder has taken every view and keep queued so far, so a
// report's keep, asked for before, has been filed.
func (s *Server) syncReplays() {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	s.recorder.Flush(ctx)
}
