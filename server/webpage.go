package server

import (
	"context"
	"net"

	"github.com/orthanc-ssh/orthanc-ssh/replay"
	"github.com/orthanc-ssh/orthanc-ssh/server/webpage"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// The server's web page (-http-addr, off by default), gathered and served by package
// webpage from the parts of the server wired here.

// listenHTTP opens the web page's listener, if the server has an HTTP address, so a bad
// address fails at start.
func (s *Server) listenHTTP() (net.Listener, error) {
	if s.cfg.HTTPAddr == "" {
		return nil, nil
	}
	return webpage.Listen(s.cfg.HTTPAddr, s.cfg.Web)
}

// page is the web page, gathered from the server's parts; made after the replays' writer,
// which it reads.
func (s *Server) page() *webpage.Page {
	p := &webpage.Page{
		Name: s.cfg.Name, Realm: s.cfg.Realm, Guests: s.cfg.Guests, Started: s.obs.start, Version: s.cfg.Version,
		HostKey: s.hostKey, MOTD: s.motd, HostPort: s.publicHostPort, SSHCommand: s.sshCommand,
		World: s.engine, Knights: s.knights, Boards: s.boards, Tick: s.cfg.Tick, Config: s.cfg.Web, Log: s.log,
		Play: s.play, PlayLink: s.playLink, PlayRefusal: s.playBanned, // play.go, play_key.go
	}
	if s.replayWriter != nil {
		p.Replays = pageReplays{s}
	}
	return p
}

// pageReplays are the server's kept replays, as the page reads them.
type pageReplays struct{ s *Server }

// Kept files what the recorder and the writer hold, then lists the kept records.
func (r pageReplays) Kept(keep func(store.Replay) bool) ([]store.Replay, error) {
	r.s.syncReplays() // a death's keep, queued before its tombstone was written, is filed
	if err := r.s.replayWriter.Flush(); err != nil {
		return nil, err
	}
	return r.s.store.KeptReplays(keep)
}

// Public reports whether anyone may see a kept record now (replayPublic).
func (r pageReplays) Public(ctx context.Context, rec store.Replay) bool {
	return r.s.replayPublic(ctx, rec)
}

// Chunks reads one kept record's chunks.
func (r pageReplays) Chunks(rec store.Replay) ([]replay.Chunk, error) {
	full, err := r.s.store.KeptReplay(rec)
	if err != nil {
		return nil, err
	}
	return chunksOf(full.Chunks), nil
}
