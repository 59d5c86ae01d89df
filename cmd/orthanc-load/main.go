// Command orthanc-load is the load tool: it opens many real SSH sessions to an
// orthanc-ssh server (or to the bare reference server in cmd/orthanc-load/bare), walks
// each new player into the dungeon, sends keys for a while, and reports what the
// sessions saw. Operators use it to size a box; docs/PERFORMANCE.md has the figures it
// measured and the commands that measured them.
//
//	go run ./cmd/orthanc-load -addr 127.0.0.1:2222 -n 100 -active 10 -rate 2 -duration 60s -ramp 10s
//
// measure.sh beside it runs PERFORMANCE's load table; capacity.sh runs the capacity
// sweep (handshakes a second, then N stepped up for two loads until p99 passes 100 ms)
// and draws it with scripts/capacityplot:
//
//	OUT=$(mktemp -d); cmd/orthanc-load/capacity.sh "$OUT"
//
// Every session dials from the tool's one address, so the server's limits of an address
// (-max-per-ip, -max-handshakes-per-ip) must be a crowd's, and its early drop of waiting
// logins (-early-drop-at) and its cap on new knights an address makes in an hour
// (-new-knights-per-hour) out of the way of a storm, or they decide who gets in.
//
// Each session has its own ed25519 key (so each is a new player, unless -keys gives it a
// returning player's: below), an 80×24 PTY and TERM xterm-256color. Sessions start evenly over -ramp. In game mode a session reads its
// screen (textScreen: the text of each cell, which the tests hold to x/vt's emulator) and
// presses Enter at the title, at the roll and at the name prompt; it has arrived when the
// screen shows the first dungeon screen (its status line). Idle sessions then drop it: in the
// steady state they only count bytes and timestamps, which keeps the tool's CPU small
// next to the server's at a thousand sessions. In bare mode the first frame is the
// arrival.
//
// The measured window starts once every session has arrived or failed and lasts
// -duration. Active sessions (-active of the -n, spread evenly) send -rate keys a second
// on an open-loop schedule with a random phase and ±10 % jitter: mostly arrows (walking a
// while one way, then turning), 5 % `m` (the map) and 2 % `?` (help), each followed by x,
// which goes back to the dungeon, and in game mode 2 % a line said in the chat; in a
// battle, f on the knight's move and nothing while the battle waits. The others stay
// idle.
//
// Keystroke-to-next-frame latency is the time from writing a key to the SSH channel to
// the arrival, on that session, of the next byte of output of any kind. Every key written
// since the previous output is answered by the same byte. Output that a key did not cause
// (another knight walking by, a monster) can answer it early, so on a busy screen the
// figure is a lower bound; it includes the load tool's own scheduling delay, which
// matters when it shares the box with the server. A key that sees no output for 5 s is
// unanswered and counts in no percentile; the session then gets a recovery key (Esc on
// the dungeon screen, which closes whatever took the keys; Enter elsewhere, which takes a
// dead knight through a new roll and name). Recovery keys are not measured. Keys written
// in the window still waiting 2 s after it ends are unanswered.
//
// Active sessions in game mode keep their screen after arriving, to steer: when a new
// message says a wall or a door blocks the way, the knight turns, as a player would (a
// third identical bump would change nothing on the screen and so draw no frame). Idle
// sessions drop it.
//
// Returning players. The seed command writes a data folder for the server: N stored
// knights spread evenly over the dungeon's levels, each on a corridor square of its
// level and with an ed25519 key of its own in the store's keys index, and the dungeon
// saved as a server's first start makes it. It writes through the store package, so the
// server opens the folder as its own. The private keys go to DIR/load-keys (mode 0600),
// one knight a line; everything is drawn from -seed, so a folder can be made again.
// With -keys that file, session i plays line i's knight: Enter at the title's welcome,
// and it is in the dungeon where it stood, with no roll and no name (a knight that has
// died since rolls a new one). The report says on which levels they arrived.
//
//	orthanc-load seed -data DIR -n 1000                    # -place doors: outside guarded rooms' doors
//	orthanc-ssh -data DIR -max-per-ip 2000 -max-sessions 2000 -max-handshakes 2000 -max-handshakes-per-ip 2000 -early-drop-at 2000 -new-knights-per-hour 1000000 &
//	orthanc-load -n 1000 -active 100 -keys DIR/load-keys -pid $!
//
// Scenarios. -scenario rooms steers the active sessions towards doors and through them
// (steer.go): a knight finds itself ("()") and the doors on its screen, goes through a
// door beside it with a shifted direction key, which opens, forces or finds it, and walks
// towards one further off; into a room, whose guard attacks, and on after the fight.
// With a folder seeded -place doors every knight starts outside a guarded room. In game
// mode the report counts the battles the active sessions' screens showed in the window
// (fights.go): started, won, lost, ended otherwise, deaths, and battles a minute in all
// and per session. -scenario type has the active sessions stand and type a long line
// on the chat line, a rune a key (typer.go): at -rate 1000, a client typing at the
// game's key rate; -type-burst N writes N keys at once, in one SSH packet, at -rate/N
// packets a second.
//
// A restart. -restart-after D, with -pid, sends SIGTERM to the server D into the window,
// waits for it to exit, starts it again with the command line, folder and environment it
// had (read from /proc; its output goes where the old one's went), and every session
// that was in reconnects at once with its key, trying again every 50 ms until the new
// server takes it (restart.go). The report gives the time from SIGTERM to the exit, each
// session's time from the new start to being back in the dungeon and the last one's,
// those that did not come back, and the handshakes a second of the reconnect storm. The
// tool stops the server it started when the run ends.
//
// The report gives sessions established (in the dungeon), failed and dropped (closed
// by the server after arriving); errors by kind; connect-to-first-frame (from the TCP
// dial to the first byte of output) and connect-to-dungeon times; key latency
// percentiles; bytes received per session per second (what the terminal gets, after
// decryption) for active and idle sessions; and, with -pid, the server's CPU and RSS
// from /proc, and with -admin-key, the world's step times and turn rate from the game's
// admin `stats --json` (after a restart, the new server's). -json prints the report as
// JSON.
//
// The run ends by itself after at most -ramp + -walk-timeout + -duration + about 15 s
// (with a restart, the old server's exit and another -walk-timeout may add to it);
// Ctrl-C ends it sooner with what was measured.
//
// Browsers. -web http://HOST:PORT (the server's -http-addr) makes sessions browsers:
// each opens the play page's socket (/play/socket) with the page's own origin and an
// 80×24 screen, as a guest, as a browser without a key of its own plays, and walks in and
// plays as an SSH session does, reading its screen from the frames the server sends (a
// cell grid kept from their rows' runs: webScreen). A key is answered by the next frame.
// -browsers M makes M of the -n browsers and the rest SSH's, in one run against one
// server: M spread evenly over the active sessions and over the idle ones. The report
// then gives each kind's keys, latency, bytes and frames a second, and bytes a frame (an
// SSH session's burst of output, a browser's frame message), and the play page's weight
// (/play and the scripts and style it loads: raw, and gzipped). Per-session CPU and
// memory of each kind come from a run of that kind alone (webbudget.sh runs both, and the
// mix). The server's limits of an address for guests (-max-guests-per-ip, -max-guests) and for the
// web page (-http-max-conns, -http-max-conns-per-ip, -http-rate, -http-burst) must be a
// crowd's, as SSH's are:
//
//	orthanc-ssh -http-addr 127.0.0.1:8080 ... &
//	orthanc-load -n 200 -web http://127.0.0.1:8080 -browsers 100 -pid $!
//
// The delay command is a TCP proxy that holds every byte a time each way, to put a
// realm far from etcd on one box (tcpproxy.Delay):
//
//	orthanc-load delay -listen 127.0.0.1:23795 -to 127.0.0.1:2379 -delay 75ms
//
// Handshake mode measures logins a second instead, against the game server or the raw
// reference in cmd/orthanc-load/rawssh (golang.org/x/crypto/ssh alone, with the game's
// algorithms):
//
//	go run ./cmd/orthanc-load -mode handshake -addr 127.0.0.1:2222 -n 2000 -concurrency 200 -pid PID
//
// It opens -n connections, at most -concurrency at once (each one that ends starts the
// next), each with its own ed25519 key made before the first dial. Each dials, does the
// SSH handshake and the public-key login, and closes; it opens no session. A session
// would make a game server start a knight (the store, the world, a Bubble Tea program),
// which is what connect-to-first-frame in game mode measures; without one, the mode
// measures the SSH layer, the part the raw reference can do too. -walk-timeout bounds one
// connection from its dial to logged in. The report gives the logins a second over the
// run and in its steady middle, one login's time from the dial (and the dial's alone),
// failures by kind (dial, refused: a line before SSH such as the game's connection
// limits write, closed, timeout, auth, handshake), with -pid the server's CPU, and the
// load average. The load tool does the client's half of every key exchange and
// signature, as much work as the server's: on a small box the two share the cores.
//
// Casts mode measures the web page's replays (casts.go): -n loopback addresses of their
// own ask for /replay/ID.cast in turn, -rate a second each, for -duration; the ids go
// round the casts file that seed -kept writes (-casts), or are random, none a replay's.
// The report gives the answers by status, their times, and with -pid the server's CPU:
//
//	go run ./cmd/orthanc-load seed -data DIR -n 10 -kept 40
//	go run ./cmd/orthanc-load -mode casts -addr 127.0.0.1:8080 -n 60 -rate 2 -duration 30s -casts DIR/load-casts -pid PID
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the flags, runs the load and prints the report (or runs the seed command);
// it returns the exit code: 0 when every session was established, none dropped and
// (after a restart) every one came back, 1 otherwise, 2 for bad flags.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "seed" {
		return runSeed(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "delay" {
		return runDelay(ctx, args[1:], stdout, stderr)
	}
	cfg, opts, err := parseFlags(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		return 2
	}
	if cfg.Mode == ModeCasts {
		cc := CastsConfig{Addr: cfg.Addr, Addrs: cfg.N, Rate: cfg.Rate, Duration: cfg.Duration, ServerPID: cfg.ServerPID}
		if opts.castsFile != "" {
			ids, err := readCastsFile(opts.castsFile)
			if err != nil {
				fmt.Fprintln(stderr, "orthanc-load: -casts:", err)
				return 2
			}
			cc.IDs = ids
		}
		if !opts.quiet {
			cc.Progress = stderr
		}
		return runCastsMode(ctx, cc, opts.asJSON, stdout, stderr)
	}
	if cfg.Mode == ModeHandshake {
		hc := HandshakeConfig{Addr: cfg.Addr, N: cfg.N, Concurrency: opts.concurrency, Timeout: cfg.WalkTimeout, ServerPID: cfg.ServerPID}
		if !opts.quiet {
			hc.Progress = stderr
		}
		return runHandshakeMode(ctx, hc, opts.asJSON, stdout, stderr)
	}
	if err := opts.configure(&cfg, stderr); err != nil {
		fmt.Fprintln(stderr, "orthanc-load:", err)
		return 2
	}
	if opts.cpuProfile != "" {
		stop, err := startCPUProfile(opts.cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "orthanc-load: -cpuprofile:", err)
			return 2
		}
		defer stop()
	}
	var timeline *os.File
	if opts.timeline != "" { // made now, so a bad path fails before the run, not after
		f, err := os.Create(opts.timeline)
		if err != nil {
			fmt.Fprintln(stderr, "orthanc-load: -timeline:", err)
			return 2
		}
		timeline = f
		defer f.Close()
	}
	rep, err := Run(ctx, cfg)
	if rep == nil {
		fmt.Fprintln(stderr, "orthanc-load:", err)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "orthanc-load: stopped early:", err)
	}
	if err := writeReport(stdout, rep, opts.asJSON); err != nil {
		fmt.Fprintln(stderr, "orthanc-load:", err)
		return 1
	}
	if timeline != nil {
		if err := writeTimeline(timeline, rep.timeline, slowAfter); err != nil {
			fmt.Fprintln(stderr, "orthanc-load: -timeline:", err)
			return 1
		}
		if err := timeline.Close(); err != nil {
			fmt.Fprintln(stderr, "orthanc-load: -timeline:", err)
			return 1
		}
	}
	if rep.Failed > 0 || rep.Dropped > 0 || err != nil || (rep.Restart != nil && rep.Restart.Back < rep.Restart.Sessions) {
		return 1
	}
	return 0
}

// options are the flags that are not a Config's, or not yet.
type options struct {
	asJSON, quiet bool
	concurrency   int // handshake mode's
	adminKey      string
	keysFile      string
	cpuProfile    string
	castsFile     string // casts mode's
	timeline      string
}

// parseFlags reads the command line; flag.ErrHelp for -help, another error (already
// printed on stderr) for bad flags.
func parseFlags(args []string, stderr io.Writer) (Config, options, error) {
	fs := flag.NewFlagSet("orthanc-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg Config
	var o options
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:2222", "server address")
	fs.IntVar(&cfg.N, "n", 10, "sessions to open")
	fs.IntVar(&cfg.Active, "active", -1, "how many of the sessions send keys (-1: all); the rest stay idle")
	fs.IntVar(&cfg.Stalled, "stalled", 0, "how many idle sessions stop reading their output once in the dungeon, like hung clients")
	fs.Float64Var(&cfg.Rate, "rate", 2, "keys a second per active session")
	fs.DurationVar(&cfg.Duration, "duration", 30*time.Second, "measured window, after every session has arrived")
	fs.DurationVar(&cfg.Ramp, "ramp", 10*time.Second, "time over which the connections start, evenly spread")
	fs.DurationVar(&cfg.WalkTimeout, "walk-timeout", 30*time.Second, "longest a session may take from dial to the dungeon")
	fs.StringVar(&cfg.Mode, "mode", ModeGame, "game: walk the start screens; bare: the bare reference (first frame is arrival); handshake: log in and close, -n times; casts: ask the web page (-addr) for replays' casts from -n loopback addresses, -rate a second each")
	fs.IntVar(&o.concurrency, "concurrency", 50, "handshake mode: connections in the handshake at once")
	fs.StringVar(&o.castsFile, "casts", "", "casts mode: the casts' ids, one a line (seed -kept writes DIR/"+castsFileName+"); none: random ids, no replay's")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the keys the sessions choose")
	fs.StringVar(&o.keysFile, "keys", "", "keys file of returning players (orthanc-load seed writes DIR/load-keys): session i plays line i's knight")
	fs.StringVar(&cfg.Scenario, "scenario", ScenarioWalk, "how active sessions play (game mode): walk, at random; rooms, towards doors and through them into the rooms' fights; type, a long line on the chat line, a key a rune")
	fs.StringVar(&cfg.Web, "web", "", "the game's web page, http://HOST:PORT (its -http-addr): -browsers of the sessions play in it, as a browser's guest on the play page's socket, instead of over SSH")
	fs.IntVar(&cfg.Browsers, "browsers", -1, "with -web, how many of the -n sessions are browsers (-1: all), spread evenly over the active and the idle; the rest are SSH's, in the same run")
	fs.IntVar(&cfg.TypeBurst, "type-burst", 1, "-scenario type: keys a write (an SSH packet); -rate keys a second go as -rate/N writes of N keys")
	fs.IntVar(&cfg.ServerPID, "pid", 0, "server process id, to read its CPU and RSS from /proc (Linux)")
	fs.DurationVar(&cfg.RestartAfter, "restart-after", 0, "this long into the window, restart the server (-pid) with its own command line; every session comes back")
	fs.StringVar(&o.adminKey, "admin-key", "", "private key file of a game admin, to read the world's step times with the stats command")
	fs.DurationVar(&cfg.StatsEvery, "stats-every", 20*time.Second, "how often -admin-key reads the stats in the window")
	fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress lines on stderr")
	fs.StringVar(&o.timeline, "timeline", "", "write the window's keys slice by slice of 100 ms to this file: each slice's keys, p50, p99, longest, and how many took over 100 ms (stalls that a p99 hides)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write the load tool's own CPU profile to this file (where the tool's share of the box goes)")
	if err := fs.Parse(args); err != nil {
		return cfg, o, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "orthanc-load: unexpected argument %q\n", fs.Arg(0))
		return cfg, o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return cfg, o, nil
}

// configure completes cfg from the flags for a load run: every session active for
// -active -1, the keys file's keys, the admin key, and progress lines on stderr unless
// -quiet.
func (o options) configure(cfg *Config, stderr io.Writer) error {
	if cfg.Active < 0 {
		cfg.Active = cfg.N
	}
	if o.keysFile != "" {
		ks, err := readKeysFile(o.keysFile)
		if err != nil {
			return err
		}
		cfg.Keys = ks
	}
	if o.adminKey != "" {
		k, err := loadAdminKey(o.adminKey)
		if err != nil {
			return err
		}
		cfg.AdminKey = k
	}
	if !o.quiet {
		cfg.Progress = stderr
	}
	return nil
}

// startCPUProfile writes the tool's CPU profile to path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}

// writeReport prints rep as indented JSON, or as text for a person.
func writeReport(w io.Writer, rep interface{ writeText(io.Writer) error }, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.writeText(w)
}
