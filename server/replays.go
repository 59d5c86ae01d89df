package server

import (
	"context"

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

// startReplays makes the recorder and the writer when replays are on (-replay-store-mb
// above 0), and runs them until ctx ends; the returned wait returns once both have
// handed over and written what they held.
func (s *Server) startReplays(ctx context.Context) (wait func()) {
	if s.cfg.ReplayMB <= 0 {
		return func() {}
	}
	s.replayWriter = store.NewReplayWriter(s.store, int64(s.cfg.ReplayMB)<<20, replay.Rolling, s.log)
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
