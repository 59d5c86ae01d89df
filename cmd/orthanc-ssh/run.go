package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/server"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// defaultGCPercent is the garbage collector's target unless GOGC sets one: the heap may
// grow 20 % past what is live (and the stacks) between collections, not Go's 100 %. The
// runtime holds about the live heap times 1 + GOGC/100, and collects as often as 1/GOGC;
// a walking player's live heap is about 75 KB and its stacks 30 KB. All walking, 2000 on
// 2 cores, a quiet box (docs/PERFORMANCE.md, "The collector's headroom"):
//
//	GOGC   memory a player at 2000   collector's CPU   server's CPU
//	  70   188.5 KB                  1.7 % of a core   98 %
//	  30   153.6 KB                  4.4 %             102 %
//	  25   147.4 KB                  6.8 %             103 %
//	  20   141.0 KB                  8.5 %             109 %
//
// A frame allocates next to nothing now, so the collections a low GOGC asks for cost
// little: 20 keeps a player's memory near 140 KB for less of the collector's time than 70
// cost before (7.7 % of a core). A box short of CPU and not of memory sets GOGC higher
// (docs/OPERATIONS.md).
const defaultGCPercent = 20

// listen opens the server's listener: net.Listen, but in a test of a server that stops
// on an error.
var listen = net.Listen

// run starts the server and blocks until ctx ends, then shuts down; it returns the exit
// code: 0 after a shutdown by signal, 1 when the server cannot start or stops on an
// error (a panic in the world or the saver among them), 2 for bad flags.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	cfg, err := parseConfig(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "orthanc-ssh:", err)
		return 2
	}
	if cfg.makeSecret != "" {
		if err := makeRealmSecret(cfg.makeSecret); err != nil {
			fmt.Fprintln(stderr, "orthanc-ssh:", err)
			return 1
		}
		return 0
	}
	if cfg.showVersion {
		fmt.Fprintln(os.Stdout, "orthanc-ssh", version(), goVersion())
		return 0
	}
	log := startLog(cfg, stderr)
	if cfg.check {
		return checkDatabase(cfg.Data, log)
	}
	if cfg.importing {
		if !server.Import(cfg.Config, log, func(err error) string { return startAdvice(err, cfg.Config) }) {
			return 1
		}
		return 0
	}
	srv, err := server.New(cfg.Config, log)
	if err != nil {
		log.Error("start", "err", err, "fix", startAdvice(err, cfg.Config))
		return 1
	}
	// SIGHUP (the terminal that runs the server closing, or an operator) reloads what
	// can be reloaded, and never ends the server.
	hup, done := make(chan os.Signal, 1), make(chan struct{})
	signal.Notify(hup, syscall.SIGHUP)
	defer func() { signal.Stop(hup); close(done) }()
	go func() {
		for {
			select {
			case <-hup:
				srv.Reload()
			case <-done:
				return
			}
		}
	}()
	ln, err := listen("tcp", cfg.Addr)
	if err != nil {
		log.Error("listen", "addr", cfg.Addr, "err", err, "fix", listenAdvice(err, "-addr", cfg.Addr))
		srv.Close()
		return 1
	}
	if err := srv.Serve(ctx, ln); err != nil {
		log.Error("serve", "err", err)
		return 1
	}
	return 0
}

// checkDatabase is -check: it verifies the database in data without writing to it, and
// returns the exit code (0 sound, 1 not, or it could not be read). data may also name a
// file, a copy as the backup command wrote it, so that a backup is checked where it
// lies rather than put in a folder of its own first.
func checkDatabase(data string, log *slog.Logger) int {
	db, copied := filepath.Join(data, "orthanc.db"), false
	if fi, err := os.Stat(data); err == nil && fi.Mode().IsRegular() {
		db, copied = data, true
	}
	version, err := store.CheckFile(db, store.Options{})
	switch {
	case errors.Is(err, store.ErrLocked):
		log.Error("check", "db", db, "err", err, "fix", "a running server holds it: run ssh -p PORT host check with an admin key")
		return 1
	case err != nil && copied:
		log.Error("check", "db", db, "err", err, "fix", "do not restore this copy: take a new one (ssh -p PORT host backup > FILE) and check that")
		return 1
	case err != nil:
		log.Error("check", "db", db, "err", err, "fix", startAdvice(err, server.Config{Data: data}))
		return 1
	}
	log.Info("check: the database is sound", "db", db, "schema", version)
	return 0
}

// startAdvice says what an operator can do about a server of cfg that will not start.
// The server never overwrites a file it cannot read: it refuses to start and leaves it
// as it is.
func startAdvice(err error, cfg server.Config) string {
	data := cfg.Data
	db := filepath.Join(data, "orthanc.db")
	hostKey := filepath.Join(data, keys.HostKeyFile)
	switch {
	case errors.Is(err, server.ErrMetricsAddr):
		return listenAdvice(err, "-metrics-addr", cfg.MetricsAddr)
	case errors.Is(err, server.ErrHTTPAddr):
		return listenAdvice(err, "-http-addr", cfg.HTTPAddr)
	case errors.Is(err, server.ErrHostKey) && fileExists(hostKey) && errors.Is(err, fs.ErrPermission):
		return "the host key " + hostKey + " cannot be read by this user: give it to the user the server runs as (chown), mode 0600"
	case errors.Is(err, server.ErrHostKey) && fileExists(hostKey):
		return "the host key " + hostKey + " cannot be used: restore it from a copy, or move it away for a new one (players' clients will warn of a changed host key)"
	case errors.Is(err, store.ErrLocked):
		return "another orthanc-ssh is using " + db + "; stop it, or give this one another -data folder"
	case errors.Is(err, store.ErrNotDatabase):
		return db + " is damaged, empty or not an orthanc database and was left untouched: restore it from a backup " +
			"(ssh -p PORT host backup > orthanc.db, taken while it ran), or start a new dungeon with -data naming another folder"
	case errors.Is(err, store.ErrUnknownVersion):
		return db + " was written by a newer orthanc-ssh and was left untouched: run that version, or restore a backup made by this one"
	case errors.Is(err, server.ErrEtcdTrust):
		return "give -etcd-ca the certificate of the authority that signed etcd's (its --cert-file), which must name the endpoint's host or address"
	case errors.Is(err, server.ErrEtcdRefused):
		return "give -etcd-cert and -etcd-key a certificate signed by the authority etcd trusts (its --trusted-ca-file), and check that etcd serves TLS there (https:// in its --listen-client-urls)"
	case errors.Is(err, server.ErrNATSTrust):
		return "give -nats-ca the certificate of the authority that signed the NATS server's (its tls block's cert_file), which must name the host or address of -nats"
	case errors.Is(err, server.ErrNATSRefused):
		return "give -nats-cert and -nats-key a certificate signed by the authority the NATS server trusts (its tls block's ca_file)"
	case errors.Is(err, server.ErrNATSAuth):
		return "give -realm-secret the file of the password the NATS server's authorization block gives the user named as this realm (OPERATIONS, Talk between realms)"
	case errors.Is(err, server.ErrNATSOpen):
		return "give the NATS server an authorization block with a user for each realm, named as the realm, and the permissions OPERATIONS shows (Talk between realms), and give the realm its password with -realm-secret"
	case errors.Is(err, server.ErrNoRouteAuth):
		return "make a secret with orthanc-ssh -make-realm-secret FILE and give every realm that file with -realm-secret, or put the routes under TLS (-nats-ca, -nats-cert, -nats-key)"
	case errors.Is(err, server.ErrEtcdPlain):
		return "if etcd serves TLS (https:// in its --listen-client-urls), write the endpoints https:// and give -etcd-ca, and -etcd-cert and -etcd-key if it asks for a client certificate (--client-cert-auth)"
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.EROFS):
		return "the data folder " + data + " cannot be written: fix its permissions or give another -data folder"
	}
	return "see the error above"
}

// listenAdvice says what to do about an address, given by flag, that cannot be listened on.
func listenAdvice(err error, flag, addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Sprintf("another program listens on %s (ss -ltnp 'sport = :%s' names it): stop it, or give %s another port", addr, port, flag)
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EACCES):
		return fmt.Sprintf("this user may not listen on %s: give %s a port above 1023, or let the binary bind low ports (setcap cap_net_bind_service=+ep)", addr, flag)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Sprintf("%s is no address of this machine: give %s one of its addresses, or :PORT for all", addr, flag)
	}
	return fmt.Sprintf("give %s an address this machine can listen on, as host:port or :port (%v)", flag, err)
}

// fileExists reports whether path names something that exists (even unreadable).
func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
