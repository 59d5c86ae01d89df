package server

import (
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// What the operator's commands (command.Operations) take of the server that only the
// server has: its measurements, its files' permissions, its games' programs.

// measures are the server's measurements of itself, for stats.
func (s *Server) measures() command.Measures {
	return command.Measures{Uptime: time.Since(s.obs.start), Window: durationWindow,
		Tick: command.Percentiles(s.obs.ticks.percentiles()), Saves: command.Percentiles(s.obs.saves.percentiles())}
}

// permissionWarningsNow are the server's files other users could read or change, for
// stats (nil for none, which stats --json says as null).
func (s *Server) permissionWarningsNow() []command.PermissionWarning {
	return permissionWarnings(s.cfg)
}

// replays is the replays' writer, nil when the server records none (stats).
func (s *Server) replays() *store.ReplayWriter { return s.replayWriter }

// tellKeyEnds ends every game session of the key fp, whatever screen it is on, with why:
// each leaves the world (its knight saved) and its terminal keeps the reason. Send waits
// until a program takes the message, so each is sent on its own goroutine.
func (s *Server) tellKeyEnds(fp, why string) {
	for _, prog := range s.games.programsOfKey(fp) {
		go prog.Send(app.Farewell{Reason: why})
	}
}
