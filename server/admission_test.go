package server

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/server/webpage"
)

// sockFlood holds sockets to the server that stop short of a login, each opened again as soon
// as the server drops it, until end.
type sockFlood struct {
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	// opened counts the sockets opened; penalised, by what they sent, those the server
	// refused at once for their address's penalty.
	opened    int64
	penalised map[string]int64
}

func newFlood() *sockFlood {
	return &sockFlood{stop: make(chan struct{}), penalised: map[string]int64{}}
}

// sockets holds n sockets from the loopback address src to addr that send what halfOpen
// holds for kind and then nothing, each opened again pause after the server drops it.
func (f *sockFlood) sockets(addr, src string, n int, pause time.Duration, kind string) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: time.Second}
	hello := halfOpen[kind]
	for range n {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for i := 0; i < 100000; i++ { // bounded: the flood ends with stop long before
				select {
				case <-f.stop:
					return
				default:
				}
				c, err := d.Dial("tcp", addr)
				if err != nil {
					select {
					case <-f.stop:
						return
					case <-time.After(10 * time.Millisecond):
					}
					continue
				}
				f.mu.Lock()
				f.opened++
				f.mu.Unlock()
				go func() { <-f.stop; c.Close() }()
				_, _ = c.Write(hello)
				// The server's version line, or the line of a refusal, then nothing until
				// it drops us.
				first := make([]byte, 128)
				m, _ := io.ReadAtLeast(c, first, len(penaltyLine))
				if strings.HasPrefix(string(first[:m]), penaltyLine) {
					f.mu.Lock()
					f.penalised[kind]++
					f.mu.Unlock()
				}
				_, _ = io.Copy(io.Discard, c)
				c.Close()
				select {
				case <-f.stop:
					return
				case <-time.After(pause):
				}
			}
		}()
	}
}

// end closes every socket and waits for the flood to stop.
func (f *sockFlood) end() {
	close(f.stop)
	f.wg.Wait()
}

// counts returns the sockets opened and those refused for a penalty, by what they sent.
func (f *sockFlood) counts() (opened int64, penalised map[string]int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.opened, maps.Clone(f.penalised)
}

// penaltyLine begins what a penalised address is told.
const penaltyLine = "orthanc: too many failed"

// halfOpen is what a flood's socket may send before it falls silent: nothing, an SSH
// client's version line, or a key exchange as far as a client goes before it checks the
// server's host key (where OpenSSH asks a new player whether to trust it).
var halfOpen = map[string][]byte{"silent": nil, "version": []byte(openSSHVersion), "kex": kexUpToHostKey()}

const openSSHVersion = "SSH-2.0-OpenSSH_9.2\r\n"

// kexUpToHostKey is a client's version line, its key exchange init for curve25519-sha256
// and its ephemeral key: the server replies with its own and its host key's signature,
// and waits for the client's new keys.
func kexUpToHostKey() []byte {
	nameList := func(b []byte, s string) []byte { return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...) }
	kexinit := append([]byte{20}, make([]byte, 16)...) // SSH_MSG_KEXINIT, a cookie
	for _, l := range []string{"curve25519-sha256", "ssh-ed25519,rsa-sha2-512,rsa-sha2-256,ecdsa-sha2-nistp256",
		"aes128-ctr", "aes128-ctr", "hmac-sha2-256-etm@openssh.com", "hmac-sha2-256-etm@openssh.com", "none", "none", "", ""} {
		kexinit = nameList(kexinit, l)
	}
	kexinit = append(kexinit, 0, 0, 0, 0, 0) // no guessed packet follows; reserved
	ephemeral := make([]byte, 32)
	_, _ = rand.Read(ephemeral)
	ecdhInit := nameList([]byte{30}, string(ephemeral)) // SSH_MSG_KEX_ECDH_INIT
	out := []byte(openSSHVersion)
	for _, payload := range [][]byte{kexinit, ecdhInit} {
		// A packet before any keys: its length, the padding's, the payload and at least 4
		// bytes of padding, in all a multiple of 8.
		pad := 8 - (5+len(payload))%8
		if pad < 4 {
			pad += 8
		}
		out = binary.BigEndian.AppendUint32(out, uint32(1+len(payload)+pad))
		out = append(out, byte(pad))
		out = append(out, payload...)
		out = append(out, make([]byte, pad)...)
	}
	return out
}

// Regression (issue 30): sockets that never send a byte held handshake places for 10 s:
// 60 addresses × 20 sockets held all 1000, and every new login was reset. Now a silent
// socket is dropped at the banner deadline and its address penalised, admission drops at
// random once places fill (as OpenSSH's MaxStartups), and a keyed player gets in within
// 2 s at least 9 times in 10 while the 60 addresses reconnect as fast as they are dropped.
func TestSilentSocketsFromManyAddressesHoldNoPlace(t *testing.T) {
	if raceDetector {
		t.Skip("the issue's 2 s is a real server's bound: under the race detector a handshake alone takes seconds")
	}
	spec := floodSpec{Kinds: []string{"silent"}, Addrs: 60, PerAddr: 20}
	times, ok, opened, _ := loginsUnderFlood(t, spec)
	t.Logf("logins (negative: failed) %v; %d of 10 within 2 s; the flood opened %d sockets", times, ok, opened)
	if ok < 9 {
		t.Errorf("%d of 10 logins within 2 s under the silent flood, want 9 at least", ok)
	}
}

// loginsUnderFlood starts a server and floods it as spec says (but its address), in a
// process of its own, and once the flood holds what it can of the handshake places (as
// many as the per-address limit lets it, up to early-drop-at), logs in ten times with a
// key from an address of its own, half a second apart: it returns how long each took (a
// failed one as a negative time), how many got in within 2 s, and what the flood did.
func loginsUnderFlood(t *testing.T, spec floodSpec) (times []time.Duration, ok int, opened int64, penalised map[string]int64) {
	t.Helper()
	ts, srv := startConfigured(t, testConfig(t.TempDir(), defaultSeed))
	dial(t, ts.addr, newKey(t)).Close() // the server serves: its limits are made
	spec.Addr = ts.addr
	end := floodProcess(t, spec)
	lim := defaultLimits
	held := min(spec.Addrs*min(spec.PerAddr, lim.MaxShakesPerIP), lim.EarlyDropAt)
	waitUntil(t, fmt.Sprintf("the flood to hold %d handshake places", held), func() bool {
		waiting, _ := srv.limits.Counts()
		return waiting >= held
	})
	times, ok = loginsBeside(t, ts.addr, 500*time.Millisecond)
	opened, penalised = end()
	return times, ok, opened, penalised
}

// loginsBeside logs in ten times with a new key from 127.0.0.1, pause apart, and returns
// how long each took (a failed one as a negative time) and how many got in within 2 s.
func loginsBeside(t *testing.T, addr string, pause time.Duration) (times []time.Duration, ok int) {
	t.Helper()
	key := newKey(t)
	for range 10 {
		start := time.Now()
		cfg := clientConfig(gossh.PublicKeys(key))
		cfg.Timeout = 5 * time.Second
		c, err := gossh.Dial("tcp", addr, cfg)
		took := time.Since(start)
		if err == nil {
			c.Close()
			if took <= 2*time.Second {
				ok++
			}
		} else {
			took = -took // a failed login, as a negative time
		}
		times = append(times, took)
		time.Sleep(pause) // the attempts spread over the flood
	}
	return times, ok
}

// floodAddr is the i-th flooding address, from 127.0.1.1 on: 127.0.0.1 is the player's.
func floodAddr(i int) string { return fmt.Sprintf("127.0.%d.%d", 1+i/250, 1+i%250) }

// Regression (issue 42): a socket that sent its version line and then nothing was charged
// only 1 s, when the handshake timeout dropped it 10 s later: 70 addresses × 8 such
// sockets let 4 logins in 10 through, 100 addresses none. Now every connection that has not
// got through its key exchange at the banner deadline while handshake places are scarce is
// dropped and charged like a silent one, and admission lets in an address with no
// handshake under way before those with many. With 250 addresses × 8 half-open sockets
// (silent, a version line, or a key exchange up to the host key, by address), each opened
// again as soon as dropped, a keyed player gets in within 2 s at least 9 times in 10, and
// addresses of each kind are refused for their penalty.
//
// ORTHANC_FLOOD=KIND:ADDRESSES floods with one kind from as many addresses instead, to
// measure (docs/PERFORMANCE.md).
func TestHalfOpenSocketsFromManyAddressesHoldNoPlace(t *testing.T) {
	if raceDetector {
		t.Skip("the issue's 2 s is a real server's bound: under the race detector a handshake alone takes seconds")
	}
	spec := floodSpec{Kinds: []string{"silent", "version", "kex"}, Addrs: 250, PerAddr: 8} // -max-handshakes-per-ip
	if env := os.Getenv("ORTHANC_FLOOD"); env != "" {
		kind, n, _ := strings.Cut(env, ":")
		var err error
		if spec.Addrs, err = strconv.Atoi(n); err != nil || halfOpen[kind] == nil && kind != "silent" {
			t.Fatalf("ORTHANC_FLOOD=%q: want silent, version or kex, a colon and a number of addresses", env)
		}
		spec.Kinds = []string{kind}
	}
	times, ok, opened, penalised := loginsUnderFlood(t, spec)
	t.Logf("%d addresses × %d sockets (%v): logins (negative: failed) %v; %d of 10 within 2 s; the flood opened %d sockets, refused for a penalty %v",
		spec.Addrs, spec.PerAddr, spec.Kinds, times, ok, opened, penalised)
	if ok < 9 {
		t.Errorf("%d of 10 logins within 2 s under the flood, want 9 at least", ok)
	}
	for _, kind := range spec.Kinds {
		if penalised[kind] == 0 {
			t.Errorf("no address flooding with %s sockets was refused for a penalty", kind)
		}
	}
}

// floodSpec is a flood of PerAddr sockets from each of Addrs loopback addresses to Addr,
// of Kinds (halfOpen's) by turns from one address to the next.
type floodSpec struct {
	Addr           string
	Kinds          []string
	Addrs, PerAddr int
}

// floodReport is what a flood in a process of its own did.
type floodReport struct {
	Opened    int64
	Penalised map[string]int64
}

// floodProcess runs spec in a process of its own, this test binary running
// TestHalfOpenFlood, until end is called. In the server's own process the flood's
// thousands of goroutines would share the server's scheduler, which an attacker's never
// do.
func floodProcess(t *testing.T, spec floodSpec) (end func() (opened int64, penalised map[string]int64)) {
	t.Helper()
	js, _ := json.Marshal(spec)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHalfOpenFlood$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ORTHANC_FLOOD_PROCESS="+string(js))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := false
	end = func() (int64, map[string]int64) {
		if ended {
			return 0, nil
		}
		ended = true
		stdin.Close() // the flood ends
		if err := cmd.Wait(); err != nil {
			t.Fatalf("the flood: %v\n%s", err, out.String())
		}
		_, line, _ := strings.Cut(out.String(), floodReportPrefix)
		line, _, _ = strings.Cut(line, "\n")
		var r floodReport
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("the flood's report: %v\n%s", err, out.String())
		}
		return r.Opened, r.Penalised
	}
	t.Cleanup(func() { end() })
	return end
}

// floodReportPrefix begins the line a flood process reports on.
const floodReportPrefix = "flood report: "

// TestHalfOpenFlood is no test but a flood in a process of its own (floodProcess): it
// floods as ORTHANC_FLOOD_PROCESS says until its standard input closes, then reports.
func TestHalfOpenFlood(t *testing.T) {
	env := os.Getenv("ORTHANC_FLOOD_PROCESS")
	if env == "" {
		t.Skip("a flood for TestHalfOpenSocketsFromManyAddressesHoldNoPlace, run in a process of its own")
	}
	var spec floodSpec
	if err := json.Unmarshal([]byte(env), &spec); err != nil {
		t.Fatal(err)
	}
	f := newFlood()
	for i := range spec.Addrs {
		f.sockets(spec.Addr, floodAddr(i), spec.PerAddr, 0, spec.Kinds[i%len(spec.Kinds)])
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	f.end()
	opened, penalised := f.counts()
	js, _ := json.Marshal(floodReport{Opened: opened, Penalised: penalised})
	fmt.Printf("%s%s\n", floodReportPrefix, js)
}

// loginTimes logs in n times with key and returns how long each took (a failure fails
// the test).
func loginTimes(t *testing.T, addr string, key gossh.Signer, n int) []time.Duration {
	t.Helper()
	var out []time.Duration
	for range n {
		start := time.Now()
		c, err := gossh.Dial("tcp", addr, clientConfig(gossh.PublicKeys(key)))
		if err != nil {
			t.Fatalf("login: %v", err)
		}
		out = append(out, time.Since(start))
		c.Close()
	}
	return out
}

// median is the middle of ds.
func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	slices.Sort(s)
	return s[len(s)/2]
}

// Regression (issue 30): the web page took any number of sockets from one address, and
// shared descriptors with SSH, so a web flood slowed SSH logins from 0.1 s to 4.35 s.
// The page holds at most maxPerAddr connections of an address and maxConns in all (webpage.DefaultConfig),
// while 60 addresses open 20 each and reconnect a second after they are closed; an SSH login
// takes no more than 100 ms longer than without the flood.
func TestTheWebPageHasAShareOfItsOwn(t *testing.T) {
	ts, srv, _ := webServer(t)
	key := newKey(t)
	before := loginTimes(t, ts.addr, key, 5)
	web := srv.httpLn.(*webpage.Listener)
	f := newFlood()
	for i := range 60 {
		// A socket dropped comes back a second later: 1200 a second, from 60 addresses. As
		// fast as dropped, the flood's own goroutines took the test's two cores.
		f.sockets(web.Addr().String(), fmt.Sprintf("127.0.0.%d", 2+i), 20, time.Second, "silent")
	}
	most := 0
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) { // bounded: the flood's first seconds, sampled
		all, perAddr := web.Held()
		most = max(most, all)
		for addr, n := range perAddr {
			if n > webpage.DefaultConfig.MaxPerAddr {
				t.Errorf("%d connections to the page from %s", n, addr)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	during := loginTimes(t, ts.addr, key, 5)
	f.end()
	opened, _ := f.counts()
	t.Logf("SSH logins without the web flood %v (median %v), with it %v (median %v); the page held %d at most, the flood opened %d, %d closed at once, %d given up for another",
		before, median(before), during, median(during), most, opened, web.Refused(), web.Evicted())
	if most > webpage.DefaultConfig.MaxConns {
		t.Errorf("the page held %d connections, more than %d", most, webpage.DefaultConfig.MaxConns)
	}
	if d := median(during) - median(before); d > 100*time.Millisecond {
		t.Errorf("the web flood made an SSH login %v slower", d)
	}
}

// A player through its key exchange is out of the banner deadline's reach, places scarce
// or not, while it logs in: OpenSSH may be asking for its key's passphrase. Its deadline
// runs out while it logs in, with a silent socket making places scarce (early-drop-at 2).
func TestAPlayerThroughTheKeyExchangeOutlivesTheBannerDeadline(t *testing.T) {
	ts := hardened(t, func(l *Limits) { l.BannerTimeout, l.EarlyDropAt = time.Second, 2 })
	key := newKey(t)
	var heard []byte
	auth := gossh.PublicKeysCallback(func() ([]gossh.Signer, error) {
		// The server reads this socket after the player's, so once it is dropped at its
		// deadline, the player's has run out too.
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
		c, err := d.Dial("tcp", ts.addr)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		heard, err = io.ReadAll(c) // the server's version line, then nothing until it drops us
		return []gossh.Signer{key}, err
	})
	c, err := gossh.Dial("tcp", ts.addr, clientConfig(auth))
	if !strings.HasPrefix(string(heard), "SSH-2.0-") {
		t.Fatalf("the silent socket was told %q, want the server's version line", heard)
	}
	if err != nil {
		t.Fatalf("a player logging in past the banner deadline, places scarce: %v", err)
	}
	c.Close()
}
