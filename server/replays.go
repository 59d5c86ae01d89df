package server

import (
	"context"
	"errors"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// Replays: the recorder takes every view of every keyed knight's session and
// hands its chunks to the store's replay writer, through replaySink; the replay command
// (commands_replay.go) plays them back.

// replaySink hands a recorder's chunks and keeps to the store's writer.
type replaySink struct{ w *store.ReplayWriter }

// PutChunk files a chunk of the knight's rolling record.
func (s replaySink) PutChunk(knight string, c replay.Chunk) {
	s.w.PutChunk(knight, store.ReplayChunk{Start: c.Start, Born: c.Born, Data: c.Data})
}

// Keep files a kept record.
func (s replaySink) Keep(k replay.Keep) {
	s.w.Keep(store.Replay{Knight: k.Knight, Born: k.Born, Name: k.Name, Kind: string(k.Kind), At: k.At,
		Private: k.Private, Report: k.Report, Window: k.Window})
}

// replayPublic reports whether anyone but its own key may see a kept record now: its
// knight kept it public, and keeps its replays public still. Privacy is the knight's,
// then and after: turning replays private hides every record kept before, at once (the
// world's record of a knight playing, else the one kept). A record the server cannot
// check is kept from others.
func (s *Server) replayPublic(ctx context.Context, r store.Replay) bool {
	if r.Private || r.Kind == string(replay.KindReport) {
		return false
	}
	rec, online, err := s.engine.Lookup(ctx, r.Knight)
	if err != nil {
		return false
	}
	if !online {
		if rec, err = s.knights.Knight(r.Knight); errors.Is(err, knights.ErrNotFound) {
			return true // gone with its key (entombed): it chose when it was kept
		} else if err != nil {
			s.log.Error("replays: read a knight's privacy", "knight", r.Knight, "err", err)
			return false
		}
	}
	return !rec.Options.PrivateReplays
}

// startReplays makes the recorder and the writer when replays are on (-replay-store-mb
// above 0), and runs them until ctx ends; the returned wait returns once both have
// handed over and written what they held.
func (s *Server) startReplays(ctx context.Context) (wait func()) {
	if s.cfg.ReplayMB <= 0 {
		return func() {}
	}
	s.replayWriter = store.NewReplayWriter(s.store, int64(s.cfg.ReplayMB)<<20, replay.Rolling, s.log)
	s.replayWriter.Expire(s.cfg.ReplayKeep, s.now)
	s.replayWriter.HandBack(replay.Recycle) // the recorder's chunks go nowhere but the writer (replaySink)
	s.recorder = replay.NewRecorder(replaySink{s.replayWriter}, s.cfg.Tick, s.now, s.log)
	recDone, writerDone := make(chan struct{}), make(chan struct{})
	writerCtx, stopWriter := context.WithCancel(context.Background())
	go func() { defer close(writerDone); s.replayWriter.Run(writerCtx) }()
	go func() {
		defer close(recDone)
		s.recorder.Run(ctx)
		stopWriter() // after the recorder's last chunks: the writer writes them as it stops
	}()
	return func() { <-recDone; <-writerDone }
}
