package server

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The community's records at the server's edge: the world keeps letters,
// channels' history, silences and reports in turns and hands letters and reports out to
// be kept; here they are loaded from the store at start, stamped with the wall clock on
// their way in, and the store's times turned back into turns.

// Tuning of the community at the edge:
//
//	constant / flag     value   effect
//	-chat-history       24h     what is said aloud is kept this long, for reports and channel history (0: not at all)
//	reportWindow        10m     a report carries the reported knight's lines of this long
//	reportKeep          30 d    reports older than this are forgotten, at start and when listed
const (
	defaultChatHistory = 24 * time.Hour
	reportWindow       = 10 * time.Minute
	reportKeep         = 30 * 24 * time.Hour
)

// communityConfig loads what the world's community needs from the store: the stored
// knights (for letters to knights who are not online), the mailboxes, and the silences
// still running. Old reports are forgotten on the way.
func (s *Server) communityConfig(st *store.Store) (world.CommunityConfig, error) {
	names, err := s.knights.KnightNames()
	if err != nil {
		return world.CommunityConfig{}, fmt.Errorf("load knights for letters: %w", err)
	}
	known := make([]world.KnownKnight, len(names))
	for i, n := range names {
		known[i] = world.KnownKnight{ID: n.Knight, Name: n.Name, Ended: n.Ended}
	}
	mail, err := s.knights.Mail()
	if err != nil {
		return world.CommunityConfig{}, fmt.Errorf("load letters: %w", err)
	}
	s.keeperNeeds.mailLoaded(mail)
	now := s.now()
	silences, err := s.knights.Silences(now)
	if err != nil {
		return world.CommunityConfig{}, fmt.Errorf("load silences: %w", err)
	}
	var running []world.Silence
	for _, sl := range silences {
		running = append(running, s.worldSilence(sl, now))
	}
	if _, err := st.ForgetReportsBefore(now.Add(-reportKeep)); err != nil {
		return world.CommunityConfig{}, fmt.Errorf("forget old reports: %w", err)
	}
	history := s.turns(s.cfg.ChatHistory)
	if s.cfg.ChatHistory == 0 {
		history = -1 // kept not at all
	}
	return world.CommunityConfig{
		HistoryTurns: history,
		ReportTurns:  s.turns(reportWindow),
		HourTurns:    s.turns(time.Hour),
		Knights:      known,
		Mail:         mail,
		Silences:     running,
		Archive:      archive{s},
	}, nil
}

// turns is a wall-clock time as turns of the world, at least one.
func (s *Server) turns(d time.Duration) int { return max(1, int(d/s.cfg.Tick)) }

// worldSilence is a stored silence as the world runs it, from now.
func (s *Server) worldSilence(sl knights.Silence, now time.Time) world.Silence {
	return world.Silence{Knight: sl.Knight, Turns: uint64(s.turns(sl.Until.Sub(now))),
		Until: command.UntilText(sl.Until), Reason: sl.Reason}
}

// archive is the world's Archive: the saver, with reports stamped with the wall clock.
type archive struct{ s *Server }

// PutMail implements world.Archive.
func (a archive) PutMail(to string, letters []world.Letter) {
	a.s.knights.PutMail(to, letters)
}

// PutReport implements world.Archive: the report is filed now, and each line's age in
// turns becomes the time it was said.
func (a archive) PutReport(r world.Report) {
	now := a.s.now().UTC()
	out := store.Report{Filed: now, From: r.From, FromKnight: r.FromKnight, FromGuest: r.FromGuest, About: r.About,
		AboutKnight: r.AboutKnight, AboutGuest: r.AboutGuest, Reason: r.Reason, Lines: make([]store.ReportLine, len(r.Lines))}
	for i, l := range r.Lines {
		at := now.Add(-time.Duration(l.Ago) * a.s.cfg.Tick).Truncate(time.Second)
		out.Lines[i] = store.ReportLine{At: at, Where: l.Where, Line: l.Line}
	}
	a.s.saver.PutReport(out)
	if a.s.recorder != nil && r.AboutKnight != "" && !r.AboutGuest {
		// What the reported knight did, for the admins: its last minutes, kept with the
		// report's time (a guest is not recorded).
		a.s.recorder.Keep(replay.Keep{Knight: r.AboutKnight, Name: r.About, Kind: replay.KindReport, At: now, Window: replay.ReportWindow})
	}
	a.s.log.Info("report filed", "from", r.FromKnight, "about", r.About, "about_knight", r.AboutKnight, "lines", len(r.Lines))
	// Called on the world's goroutine, which the telling asks in turn: told from another.
	go a.s.tellAdmins(fmt.Sprintf("[report] %s reported %s: %s (:reports to read it)", r.From, r.About, r.Reason))
}

// tellAdmins puts a line in the messages of every admin in the game: the knights of the
// game sessions open with a key in the admin keys file.
func (s *Server) tellAdmins(line string) {
	admins := s.admins.Load().Fingerprints()
	var ids []string
	for _, ls := range s.live.List() {
		if ls.Game && ls.Knight != "" && slices.Contains(admins, ls.Fingerprint) && !slices.Contains(ids, ls.Knight) {
			ids = append(ids, ls.Knight)
		}
	}
	if len(ids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.engine.Tell(ctx, ids, line); err != nil {
		s.log.Error("tell the admins of a report", "err", err)
	}
}
