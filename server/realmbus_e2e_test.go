package server

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/internal/natstest"
	"github.com/orthanc-ssh/orthanc-ssh/internal/testtools"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
)

// Strangers on the realms' talk (issue 41): the embedded nats-server's client port took
// anyone, with `CONNECT {}` and `SUB > 1` a raw client read every whisper and knight's id,
// and what it published put forged whispers on players' screens and kicked them; a stock
// nats-server joined by the routes' port. Here two realms run as the binary, each with its
// nats-server routed to the other's with the realms' secret, and a stranger tries every
// port the realm process listens on, and a stock nats-server tries to route in.

// testRealmSecret is the routes' credential of the tests' realms.
const testRealmSecret = "5f0c1d2e3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9011223344"

// natsPassword is a realm's password on the tests' external nats-servers.
func natsPassword(realm string) string { return "pw-" + realm + "-0123456789abcdef0123456789abcdef" }

// secretFile writes secret to a file of mode 0600 and returns its path.
func secretFile(t testing.TB, secret string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "realm.secret")
	if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// listeningPorts are the loopback addresses at which the process pid listens for TCP
// (Linux: its sockets' inodes among /proc/PID/net/tcp and tcp6's listening ones).
func listeningPorts(t *testing.T, pid int) []string {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	var addrs []string
	for file, loopback := range map[string]string{"tcp": "127.0.0.1", "tcp6": "::1"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, file))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] { // 0A: listening
				continue
			}
			port, err := strconv.ParseUint(f[1][strings.IndexByte(f[1], ':')+1:], 16, 16)
			if err != nil {
				t.Fatal(err)
			}
			addrs = append(addrs, net.JoinHostPort(loopback, strconv.FormatUint(port, 10)))
		}
	}
	return addrs
}

// forgedTalk is what a stranger publishes: a whisper to Bors said to come from Kay in A,
// a shout, and a kick of Bors's knight.
func forgedTalk(borsID string) []natstest.Forgery {
	return []natstest.Forgery{
		{Subject: "orthanc.whisper.B.A", Body: `{"v":1,"kind":"whisper","realm":"A","from":"Kay","from_id":"kay","to":"Bors","to_id":"` + borsID + `","text":"FORGED send me your keys add code"}`},
		{Subject: "orthanc.shout.A", Body: `{"v":1,"kind":"shout","realm":"A","from":"Kay","from_id":"kay","text":"FORGED shout"}`},
		{Subject: "orthanc.mod.A", Body: `{"v":1,"realm":"A","kind":"kick","knight":"` + borsID + `","reason":"FORGED"}`},
		// as the bus was before its subjects named their sender
		{Subject: "orthanc.shout", Body: `{"v":1,"kind":"shout","realm":"A","from":"Kay","from_id":"kay","text":"FORGED old shout"}`},
		{Subject: "orthanc.mod", Body: `{"v":1,"realm":"A","kind":"kick","knight":"` + borsID + `","reason":"FORGED"}`},
	}
}

// routesAt is the routes' address a realm process logged.
var routesAt = regexp.MustCompile(`realm: nats-server" routes_at=(\S+)`)

// Two realms as processes, routed with the realms' secret. A stranger on every port the
// first listens on (SSH, the nats-server's client port and its routes' port) is hung up on
// and reads nothing, and nats.go without credentials is refused there; a stock nats-server
// routing to it is refused and its subscriber reads nothing; the forged whisper, shout
// and kick reach no one; a whisper from a knight on A to one on B, over real SSH, still
// crosses.
func TestAStrangerCannotJoinTheRealmsTalk(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the ports a process listens on are read from /proc")
	}
	etcd := etcdtest.Start(t)
	secret := secretFile(t, testRealmSecret)
	talkFlags := []string{"-nats-listen", "127.0.0.1:0", "-realm-secret", secret}
	a := startRealmWith(t, "A", etcd, talkFlags)
	var route string
	waitUntil(t, "A's routes' address in its log", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		m := routesAt.FindStringSubmatch(a.log.String())
		if m != nil {
			route = m[1]
		}
		return m != nil
	})
	b := startRealmWith(t, "B", etcd, append(talkFlags, "-nats-routes", route))

	kay := openTerminal(t, a.addr, newKey(t), 100, 30, nil)
	kay.enterDungeon("Kay")
	borsKey := newKey(t)
	bors := openTerminal(t, b.addr, borsKey, 100, 30, nil)
	bors.enterDungeon("Bors")
	waitWho(t, a.addr, "Bors", "B")
	forged := forgedTalk(whoamiLive(t, bors).Knight)

	natsPorts := 0
	for _, addr := range listeningPorts(t, a.cmd.Process.Pid) {
		isNATS, read, err := natstest.Stranger(addr, forged)
		if err != nil {
			t.Fatalf("A's port %s: %v; it read:\n%s", addr, err, read)
		}
		if isNATS {
			natsPorts++
			if !strings.Contains(read, "-ERR 'Authorization Violation'") {
				t.Errorf("A's NATS port %s did not refuse a stranger:\n%s", addr, read)
			}
		}
		if strings.Contains(read, "MSG ") || strings.Contains(read, "PONG") {
			t.Errorf("A's port %s answered a stranger:\n%s", addr, read)
		}
		if nc, err := nats.Connect("nats://"+addr, nats.Timeout(5*time.Second)); err == nil {
			nc.Close()
			t.Errorf("A's port %s took nats.go with no credentials", addr)
		}
	}
	if natsPorts != 2 {
		t.Fatalf("found %d NATS ports of A's (its client port and its routes'), want 2", natsPorts)
	}

	stockServerRoutesTo(t, route, forged)
	waitUntil(t, "A to log the stock server's route refused", func() bool { return a.logged("nats-server", "authentication error") })

	kay.chat("/w bors the true word")
	bors.waitFor("Kay (in A) whispers: the true word")
	kay.chat("/shout HEAR ME")
	bors.waitFor("Kay (in A) shouts: HEAR ME")
	if out := bors.rawOutput(); strings.Contains(out, "FORGED") || strings.Contains(out, "removed you") {
		t.Fatalf("a forgery reached Bors:\n%s", bors.screen())
	}
	if b.logged("moderation from another realm") {
		t.Fatal("B acted on a moderation event")
	}
}

// startRealmWith runs the binary as realm name on etcd with the flags given.
func startRealmWith(t *testing.T, name, etcd string, flags []string) *realmProcess {
	t.Helper()
	p, err := launchRealm(t, realmSpec{name: name, etcd: etcd, dir: t.TempDir(), seed: defaultSeed, ttl: 5 * time.Second, extra: flags})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// stockServerRoutesTo runs the machine's nats-server (Debian's), with no credential,
// routing to route, a subscriber to everything on it and the forgeries published there;
// it checks the subscriber read nothing but the forgeries, when the test ends.
func stockServerRoutesTo(t *testing.T, route string, forged []natstest.Forgery) {
	t.Helper()
	bin := testtools.Need(t, "nats-server", "nats-server")
	dir := t.TempDir()
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", "-1", "--ports_file_dir", dir, "--cluster_name", "orthanc",
		"--cluster", "nats://127.0.0.1:-1", "--routes", "nats-route://"+route)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var url string
	waitUntil(t, "the stock nats-server's ports file", func() bool {
		files, _ := filepath.Glob(filepath.Join(dir, "*.ports"))
		if len(files) == 0 {
			return false
		}
		data, err := os.ReadFile(files[0])
		m := regexp.MustCompile(`"(nats://[^"]+)"`).FindSubmatch(data)
		if err != nil || m == nil {
			return false
		}
		url = string(m[1])
		return true
	})
	spy, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	heard, err := spy.SubscribeSync(">")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range forged {
		if err := spy.Publish(f.Subject, []byte(f.Body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := spy.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		defer spy.Close()
		for {
			m, err := heard.NextMsg(0)
			if err != nil {
				return
			}
			if !slices.ContainsFunc(forged, func(f natstest.Forgery) bool { return f.Subject == m.Subject }) {
				t.Errorf("the stock nats-server's subscriber read %s: %s", m.Subject, hex.Dump(m.Data[:min(len(m.Data), 64)]))
			}
		}
	})
}

// A realm refuses, at start, a nats-server that anyone may use (no users, as a
// distribution installs it: on it anyone could read the talk and speak as any realm), and
// one that refuses its password, each saying what to do.
func TestARealmRefusesAnOpenNATSServerAndAWrongPassword(t *testing.T) {
	t.Parallel()
	etcd := etcdtest.Start(t)
	open, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: natsserver.RANDOM_PORT, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	open.Start()
	t.Cleanup(open.Shutdown)
	if !open.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	guarded := usersNATS(t, "C")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-nats", open.ClientURL()}, []string{"the NATS server does not hold the realms to their own subjects", "lets this realm publish under other realms' names", "give the NATS server an authorization block"}},
		{[]string{"-nats", guarded, "-realm-secret", secretFile(t, natsPassword("D"))}, []string{"the NATS server refused this realm's user and password", "give -realm-secret the file of the password"}},
	} {
		code, out := startRefused(t, append([]string{"-realm", "C", "-etcd", etcd}, c.args...)...)
		if code != 1 || strings.Count(out, "level=ERROR") != 1 {
			t.Errorf("%q: exit %d, want 1 and one error line:\n%s", c.args, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%q: the server said\n%s\nwant %q in it", c.args, out, w)
			}
		}
	}
}

// usersNATS starts a nats-server without TLS whose users are the realms named
// (realmsNATSOptions), and returns its URL.
func usersNATS(t *testing.T, realms ...string) string {
	t.Helper()
	s, err := natsserver.NewServer(realmsNATSOptions(t, realms...))
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	return s.ClientURL()
}

// realmsNATSOptions are a nats-server's options on a free loopback port, its users the
// realms named with the permissions OPERATIONS shows (talk.NATSUser) and the passwords
// of natsPassword, read from the configuration block an operator writes.
func realmsNATSOptions(t *testing.T, realms ...string) *natsserver.Options {
	t.Helper()
	opts := &natsserver.Options{}
	var users strings.Builder
	for _, r := range realms {
		users.WriteString(talk.NATSUser("orthanc", r, natsPassword(r)))
	}
	if err := opts.ProcessConfigString("authorization {\n  users = [\n" + users.String() + "  ]\n}\n"); err != nil {
		t.Fatal(err)
	}
	opts.Host, opts.Port, opts.NoLog, opts.NoSigs = "127.0.0.1", natsserver.RANDOM_PORT, true, true
	return opts
}
