package server

import (
	"bytes"
	"context"
	"strings"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/app"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The command line (package command): what a key runs with `ssh -p PORT host NAME
// args...`, and what an admin types after `:` in the game. The server wires the table
// here, each row given what its command needs; help lists the rows in this order.
//
// To add a command: its constructor in package command, and its row here.

// newCommands is the server's command table.
func (s *Server) newCommands() *command.Table {
	gate := command.Gate{Log: s.log, IsAdmin: s.isAdmin, KnightOf: s.knightOf, SSH: s.sshCommand}
	levels := command.Levels{Log: s.log, World: s.engine, Save: s.saver.Flush, Seed: s.cfg.Seed}
	motd := command.MOTD{Log: s.log, File: s.motdSource, Set: s.setMOTD, Now: s.now}
	ops := command.Operations{Log: s.log, Store: s.store, Saver: s.saver, World: s.engine, Knights: s.knights, Shared: s.shared(), Names: s.names,
		Sessions: s.live, Now: s.now, Version: s.cfg.Version, Seed: s.cfg.Seed, ReplayLimit: int64(s.cfg.ReplayMB) << 20,
		Replays: s.replays, Measure: s.measures, Warnings: s.permissionWarningsNow,
		ReadAgain: s.reload, AdminKeys: s.admins.Load, AdminKeysFile: s.cfg.AdminKeys, EndGames: s.tellKeyEnds}
	player := command.Player{Log: s.log, World: s.engine, Knights: s.knights, Boards: s.boards, Sessions: s.live, Tick: s.cfg.Tick,
		Realm: s.cfg.Realm, MessageOfTheDay: s.motd}
	keyring := command.Keyring{Log: s.log, World: s.engine, Knights: s.knights, Codes: s.codes, Names: s.names,
		Sessions: s.live, Now: s.now, ClaimName: func(name, knight string) bool { return s.namesFor(knight, false).Claim(name) }}
	find := command.Finder{Log: s.log, World: s.engine, Knights: s.knights, Arrivals: s.arrivals, Sessions: s.live}
	mod := command.Moderation{Finder: find, Admins: &s.admins, Guests: &s.guestSilences, WorldSilence: s.worldSilence,
		TellRealms: s.tellRealms, Now: s.now}
	knight := command.KnightAdmin{Finder: find, Guests: &s.guestSilences, Names: s.book(), CheckName: s.checkNewName,
		TakenName: app.TakenNameNote, TellRealms: s.tellRealms, Now: s.now}
	reports := s.reportsDesk()
	replays := command.Replays{Log: s.log, Recording: func() bool { return s.replayWriter != nil }, Own: s.ownReplayLines,
		Remove: s.removeReplay}
	return command.NewTable(gate,
		player.Whoami(),
		player.Who(),
		command.RealmsRow(func(ctx context.Context) ([]command.Realm, string) { return s.talk.realms(ctx, s) }),
		player.Scores(),
		player.MOTD(),
		keyring.Keys(),
		keyring.Link(),
		keyring.Claim(),
		command.Play(),
		command.Watch(),
		replays.Row(),
		levels.Regen(),
		levels.Revert(),
		mod.Kick(),
		knight.Knight(),
		knight.Rename(),
		mod.Ban(),
		mod.Unban(),
		mod.Bans(),
		mod.Silence(),
		mod.Unsilence(),
		mod.Silences(),
		reports.Reports(),
		reports.Resolve(),
		reports.Dismiss(),
		replays.RemoveRow(),
		command.Broadcast(s.engine, s.talk.broadcast, s.postBroadcast),
		ops.Backup(),
		ops.Export(),
		ops.Check(),
		ops.Stats(),
		motd.SetRow(),
		motd.ClearRow(),
		ops.Reload(),
		ops.Admins(),
		ops.KeysMove(),
	)
}

// isAdmin reports whether key, the key a session authenticated with, is in the admin
// allow-list. The gate asks it once a command; the console asks it before it opens.
func (s *Server) isAdmin(key ssh.PublicKey) bool {
	return key != nil && s.admins.Load().Contains(key)
}

// runCommand runs a session's command, for a session without a game, and ends the
// session with its exit status: 0 on success, 1 on any error (with one line on stderr).
func (s *Server) runCommand(sess ssh.Session) {
	args := sess.Command()
	if len(args) == 0 {
		args = []string{"help"}
	}
	_, _, pty := sess.Pty()
	from := command.Session{Key: sess.PublicKey(), Addr: edge.AddrKey(sess.RemoteAddr()), Out: sess, ErrOut: sess.Stderr(), PTY: pty}
	_ = sess.Exit(s.commands.Run(sess.Context(), from, args))
}

// consoleHook is the in-game console for a session that authenticated with key: nil
// unless the key is an admin's. Each line goes through the gate; its output and errors
// both go to the console's panel.
func (s *Server) consoleHook(ctx context.Context, key ssh.PublicKey) func(line string) (string, bool) {
	if !s.isAdmin(key) {
		return nil
	}
	return func(line string) (string, bool) {
		args := strings.Fields(line)
		if len(args) == 0 {
			return "", true
		}
		var out bytes.Buffer
		code := s.commands.Run(ctx, command.Session{Key: key, Out: &out, ErrOut: &out, Console: true}, args)
		return out.String(), code == 0
	}
}

// reportsDesk is what the reports commands use, and what answers another realm's ask of
// this realm's reports.
func (s *Server) reportsDesk() command.Reports {
	return command.Reports{Log: s.log, Store: s.store, Saver: s.saver, Replays: s.reportReplays, Forget: s.forgetReportReplay, Now: s.now,
		Keep: reportKeep, Window: reportWindow, Realm: s.cfg.Realm, Others: s.talk.othersReports, CloseThere: s.talk.closeReport}
}

// boardFor reads the boards for knight id's game (app.Params.Board), logging what kept
// one from being read.
func (s *Server) boardFor(id string) app.BoardFunc {
	return func(b world.BoardID, week bool) (world.BoardPage, error) {
		page, err := s.boards.Board(b, week, id)
		if err != nil {
			s.log.Error("scores", "board", world.Boards[b].Name, "err", err)
		}
		return page, err
	}
}
