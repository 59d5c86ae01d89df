// Package command is the game's command line: what a key runs with
// `ssh -p PORT host NAME args...` (a session with no game), and what an admin types after
// `:` in the game. Every command is a row, a Command, of one Table, and runs only through
// the table's gate, Table.Run: it checks an admin command against the key the session
// really authenticated with before anything else, so no row can be added that escapes it.
// help and every command's --help are written from the table.
//
// Each family of commands is a file here whose constructor takes only what its commands
// use (the world, the knights' records, the open sessions, the books), never the server:
// reading a constructor's arguments tells what its commands may touch.
package command

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"charm.land/ssh"
)

// Command is one row of the table. Its Help and Shell write a command line to run as
// "ssh -p PORT host ..." (or "ssh -t -p PORT host ..."): they are printed through
// Call.WithSSH, which puts this server's real command in its place.
type Command struct {
	Name    string // one word, or two for an admin's sub-command (keys move)
	Usage   string // its command line, for help and usage errors
	Summary string // one line, for help
	Help    string // more about it, for NAME --help; may be empty
	Admin   bool   // only keys in the admin allow-list may run it
	Guests  bool   // a guest (no key) may run it too
	Takes   Takes  // the flags and words it takes, read into the call before it runs
	// Shell is why the command runs only from a shell (ssh host NAME), never in the game's
	// console; empty for a command that runs in both.
	Shell string
	Run   func(c *Call) int
}

// Takes is what a command reads after its name. Anything else is a usage error.
type Takes uint16

// What a command may take.
const (
	TakesJSON    Takes = 1 << iota // --json: the answer as one line of JSON
	TakesSeed                      // --seed N, or --seed=N
	TakesReason                    // --reason TEXT: the rest of the line, cleaned
	TakesWords                     // words that are not flags: a level, a name, a topic
	TakesLine                      // every word as it came, flags or not (broadcast's text)
	TakesReplace                   // --replace: give up the knight the key has
	TakesComment                   // --comment TEXT: the rest of the line, cleaned
	TakesFor                       // --for DURATION, or --for=DURATION: how long (a timed ban)
	TakesBoard                     // --board NAME, or --board=NAME, and --week: a board of the living
)

// Call is one run of a command: who asked, from where, and what it gave.
type Call struct {
	Ctx    context.Context
	Cmd    *Command
	Key    ssh.PublicKey // the key the session authenticated with; nil for a guest
	FP     string        // its fingerprint
	Knight string        // the id of the knight it plays; empty when it has none
	Admin  bool          // the key is in the admin allow-list
	Args   []string      // the words after the name, without the flags read below
	Addr   string        // the client's address (edge.AddrKey), for counting wrong codes; empty in the console
	Out    io.Writer
	ErrOut io.Writer // in the console, the same as Out
	JSON   bool      // --json
	PTY    bool      // the ssh session has a terminal
	// Console is set for a line typed in the game's console rather than run over ssh.
	Console bool
	// Browser is set for a browser's key (the play page's): link and claim keep it as one.
	Browser bool

	Seed      uint64 // --seed, when HasSeed
	HasSeed   bool
	Reason    string        // --reason
	HasReason bool          // --reason was given (kick refuses it empty)
	Replace   bool          // --replace
	Comment   string        // --comment
	Span      time.Duration // --for, when HasFor
	HasFor    bool
	Board     string // --board, when HasBoard
	HasBoard  bool
	Week      bool // --week

	// Result is what an admin command did, for the log.
	Result string

	table *Table
}

// Fail reports an error in one line and ends the command with status 1.
func (c *Call) Fail(format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	c.Result = "error: " + msg
	fmt.Fprintf(c.ErrOut, "orthanc: %s\n", msg)
	return 1
}

// UsageError reports a misuse of the command, with its usage line.
func (c *Call) UsageError(format string, args ...any) int {
	return c.Fail("%s; usage: %s", fmt.Sprintf(format, args...), c.Cmd.Usage)
}

// WriteJSON prints v as one line of JSON.
func (c *Call) WriteJSON(v any) int {
	if err := json.NewEncoder(c.Out).Encode(v); err != nil {
		return c.Fail("write output: %v", err)
	}
	return 0
}

// SSH is the command that reaches this server ("ssh -p 2222 host"), with flags (-t)
// after ssh, for lines a player may run as they read.
func (c *Call) SSH(flags ...string) string { return c.table.ssh(flags...) }

// WithSSH is text written with "ssh -p PORT host" or "ssh -t -p PORT host", with this
// server's real command in their place.
func (c *Call) WithSSH(text string) string { return c.table.WithSSH(text) }
