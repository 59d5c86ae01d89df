package server

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// claimCodeRe finds the claim code in a guest's goodbye.
var claimCodeRe = regexp.MustCompile(`claim ([A-Z0-9]{4}-[A-Z0-9]{4})`)

// A person with no key at all runs the real OpenSSH client with public keys off, as
// ssh -o PubkeyAuthentication=no does: it goes straight in as a guest, is told on the
// title that the knight is not saved and how to keep one, plays a knight whose name
// marks it a guest for everyone (who, who --json), and is told when it leaves how to
// keep it, with a code. Nothing of it is stored; a new key claims it with the code, as it
// stood, and the code is good only once.
func TestAGuestPlaysWithOpenSSHAndIsClaimedByANewKey(t *testing.T) {
	t.Parallel()
	ts, srv := startConfigured(t, testConfig(t.TempDir(), defaultSeed))
	tm := openSSHTerminal(t, 80, 24, opensshArgs(ts.addr, "")...)
	title := tm.waitFor("You are a guest (no SSH key): this knight is not saved.", "ssh-keygen -t ed25519")
	if !strings.Contains(title, "Press Enter to begin") {
		t.Fatalf("the guest's title:\n%s", title)
	}
	tm.press(keyEnter)
	tm.waitFor("Press r to roll again")
	tm.press(keyEnter)
	tm.waitFor("Name your knight")
	tm.press("Tom", keyEnter)
	tm.waitFor("Welcome, Guest Tom.", "Guest Tom │ Level 1")
	tm.press("l") // a step east, perhaps, which its claim keeps
	before := liveRecord(t, srv, "Guest Tom")

	// Everyone else sees a guest.
	watcher := newKey(t)
	out, _, _ := runCmd(t, ts.addr, watcher, "who")
	if !strings.Contains(out, "Guest Tom") {
		t.Fatalf("who:\n%s", out)
	}
	var rows []command.WhoRow
	o, _, _ := runCmd(t, ts.addr, watcher, "who --json")
	if err := json.Unmarshal([]byte(o), &rows); err != nil || len(rows) != 1 || !rows[0].Guest {
		t.Fatalf("who --json = %s (%v)", o, err)
	}

	tm.press("q")
	tm.waitFor("A guest is not saved")
	tm.press("y")
	if !tm.ended(10 * time.Second) {
		t.Fatalf("the guest's game did not end:\n%s", tm.screen())
	}
	bye := tm.rawOutput()
	m := claimCodeRe.FindStringSubmatch(bye)
	if m == nil || !strings.Contains(bye, "nothing was saved") || !strings.Contains(bye, "ssh-keygen -t ed25519") {
		t.Fatalf("the guest's goodbye:\n%s", bye)
	}
	if err := srv.saver.Flush(); err != nil {
		t.Fatal(err)
	}
	if n, err := srv.store.CountKnights(); n != 0 || err != nil {
		t.Fatalf("a guest's knight was stored: %d, %v", n, err)
	}
	if srv.book().Taken("Guest Tom", "another guest") {
		t.Fatal("a guest's name stayed taken after it left")
	}

	// A wrong code, then the right one from a new key: the knight as it stood.
	claimer := newKey(t)
	if _, errOut, code := runCmd(t, ts.addr, claimer, "claim AAAA-AAAA"); code != 1 || !strings.Contains(errOut, "no such code") {
		t.Fatalf("a wrong code: %d %q", code, errOut)
	}
	if out, errOut, code := runCmd(t, ts.addr, claimer, "claim "+m[1]); code != 0 || !strings.Contains(out, "This key now plays Tom") {
		t.Fatalf("claim: %d %q %q", code, out, errOut)
	}
	w := whoamiJSON(t, ts.addr, claimer)
	if w.Name != "Tom" || w.Knight == "" || knights.IsGuest(w.Knight) || w.X != before.X || w.Y != before.Y {
		t.Fatalf("the claimed knight: %+v, the guest stood at %v", w, before)
	}
	if _, errOut, code := runCmd(t, ts.addr, newKey(t), "claim "+m[1]); code != 1 || !strings.Contains(errOut, "no such code") {
		t.Fatalf("a code used twice: %d %q", code, errOut)
	}
	// The claimed knight is a knight like any other: the key comes back to it.
	tm2 := openTerminal(t, ts.addr, claimer, 80, 24, nil)
	tm2.waitFor("Welcome back, Tom.")
}

// liveRecord is the live record of the knight online with the name, once its last key
// has reached the world.
func liveRecord(t *testing.T, srv *Server, name string) world.Adventurer {
	t.Helper()
	var rec world.Adventurer
	waitUntil(t, name+" in the world", func() bool {
		who, err := srv.engine.Who(context.Background())
		for _, w := range who {
			if w.Name == name && err == nil {
				rec, _, err = srv.engine.Lookup(context.Background(), w.ID)
				return err == nil
			}
		}
		return false
	})
	return rec
}

// guestNeedsKeyAt is what a guest of the test server at addr is told of a command that
// needs a key: the claim command it names is the server's own (-public-addr localhost).
func guestNeedsKeyAt(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return strings.Replace(command.GuestNeedsKey, "ssh -p PORT host", "ssh -p "+port+" localhost", 1)
}

// A guest who dies or leaves before it has a knight gets no code: only how to make a key.
// A guest cannot run what needs a key: keys, link, claim, whoami say how to make one.
func TestAGuestHasNoKey(t *testing.T) {
	ts := startServer(t, t.TempDir())
	c, err := dialGuest(ts.addr)
	if err != nil {
		t.Fatalf("a guest's login: %v", err)
	}
	defer c.Close()
	for _, cmd := range []string{"keys", "keys add", "link ABCD-EFGH", "claim ABCD-EFGH", "whoami", "regen 1"} {
		_, errOut, code := runOn(t, c, cmd)
		want := guestNeedsKeyAt(ts.addr)
		if cmd == "regen 1" {
			want = command.PermissionDenied
		}
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("a guest ran %q: %d %q", cmd, code, errOut)
		}
	}
	for _, cmd := range []string{"help", "who", "scores", "motd"} {
		if _, errOut, code := runOn(t, c, cmd); code != 0 {
			t.Errorf("a guest ran %q: %d %q", cmd, code, errOut)
		}
	}
	tm := terminalOn(t, c, 80, 24, nil, "")
	tm.waitFor("You are a guest")
	tm.press("q")
	if !tm.ended(10 * time.Second) {
		t.Fatalf("q on the title did not end it:\n%s", tm.screen())
	}
	if bye := tm.rawOutput(); claimCodeRe.MatchString(bye) || !strings.Contains(bye, "make a key (ssh-keygen -t ed25519)") {
		t.Fatalf("the goodbye of a guest without a knight:\n%s", bye)
	}
}

// OpenSSH tries its keys first and, when every one is refused, falls back to
// keyboard-interactive: a connection that offered a banned key is never let in as a
// guest that way. The client's own log shows it took the fallback, and was refused there.
func TestABannedKeyNeverComesBackAsAGuest(t *testing.T) {
	dir := t.TempDir()
	ts, srv := startConfigured(t, testConfig(dir, defaultSeed))
	key, path := newKeyFile(t)
	if err := srv.store.Ban(knights.Ban{Fingerprint: keys.Fingerprint(key.PublicKey()), By: "SHA256:test", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	bin := clientBinary(t, "ssh", "openssh-client")
	args := opensshArgs(ts.addr, path, "-v", "-o", "BatchMode=no", "-o", "KbdInteractiveAuthentication=yes",
		"-o", "PreferredAuthentications=publickey,keyboard-interactive", "who")
	args[len(args)-2], args[len(args)-1] = args[len(args)-1], args[len(args)-2] // the host before the command
	out, err := client(t, bin, args...)
	var exit *exec.ExitError
	if !strings.Contains(out, "Next authentication method: keyboard-interactive") {
		t.Fatalf("OpenSSH did not fall back to keyboard-interactive:\n%s", out)
	}
	if err == nil || !errors.As(err, &exit) || exit.ExitCode() != 255 || !strings.Contains(out, "Permission denied") ||
		!strings.Contains(out, edge.BannedMessage) || strings.Contains(out, "NAME") {
		t.Fatalf("a banned key's fallback was let in (%v):\n%s", err, out)
	}
	// The same client with no key at all is a guest.
	if out, err := client(t, bin, append(opensshArgs(ts.addr, ""), "who")...); err != nil {
		t.Fatalf("a guest's command: %v\n%s", err, out)
	}
}

// With -guests=false a client with no key is refused, and told in the login banner how
// to make a key.
func TestGuestsCanBeTurnedOff(t *testing.T) {
	cfg := testConfig(t.TempDir(), defaultSeed)
	cfg.Guests = false
	ts, _ := startConfigured(t, cfg)
	var banner string
	gc := clientConfig(gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil }))
	gc.BannerCallback = func(msg string) error { banner += msg; return nil }
	if c, err := gossh.Dial("tcp", ts.addr, gc); err == nil {
		c.Close()
		t.Fatal("a guest was let in with guests off")
	}
	if !strings.Contains(banner, "takes no guests") || !strings.Contains(banner, "ssh-keygen -t ed25519") {
		t.Fatalf("banner %q", banner)
	}
	if _, _, code := runCmd(t, ts.addr, newKey(t), "who"); code != 0 {
		t.Fatal("a key was refused with guests off")
	}
}

// Guests have stricter limits: two sessions from one address (-max-guests-per-ip); a
// third is refused with a line that says to make a key, and the places come back when
// they leave.
func TestGuestLimits(t *testing.T) {
	ts := startServer(t, t.TempDir())
	var held []*terminal
	for range defaultLimits.MaxGuestsPerIP {
		c, err := dialGuest(ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		tm := terminalOn(t, c, 80, 24, nil, "")
		tm.waitFor("You are a guest")
		held = append(held, tm)
	}
	c, err := dialGuest(ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runOn(t, c, "who")
	c.Close()
	if code != 1 || !strings.Contains(errOut, edge.TooManyGuests) {
		t.Fatalf("a third guest from one address: %d %q", code, errOut)
	}
	if _, _, code := runCmd(t, ts.addr, newKey(t), "who"); code != 0 {
		t.Fatal("a key was refused beside the guests")
	}
	held[0].close()
	waitUntil(t, "a guest's place back", func() bool {
		c, err := dialGuest(ts.addr)
		if err != nil {
			return false
		}
		defer c.Close()
		_, _, code, err := runSession(c, "who")
		return err == nil && code == 0
	})
}

// A ban by address reaches guests, who have no key to ban: an admin bans a guest by its
// knight's name, which bans its address; its game ends and a guest from there is refused
// at login, told why.
func TestBanningAGuestBansItsAddress(t *testing.T) {
	ts, admin := startAdminServer(t)
	c, err := dialGuest(ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	tm := terminalOn(t, c, 80, 24, nil, "")
	tm.enterDungeon("Rude")
	out, errOut, code := runCmd(t, ts.addr, admin, "ban Guest Rude --reason shouting")
	if code != 0 || !strings.Contains(out, "addr:") && !strings.Contains(out, "127.0.0.1/32") {
		t.Fatalf("ban of a guest: %d %q %q", code, out, errOut)
	}
	if !tm.ended(10 * time.Second) {
		t.Fatal("the banned guest's game did not end")
	}
	var banner string
	gc := clientConfig(gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil }))
	gc.BannerCallback = func(msg string) error { banner += msg; return nil }
	if c, err := gossh.Dial("tcp", ts.addr, gc); err == nil {
		c.Close()
		t.Fatal("a guest from a banned address was let in")
	}
	if !strings.Contains(banner, edge.BannedAddrMessage) {
		t.Fatalf("banner %q", banner)
	}
}

// An attacker offers the admin's public key, which the server accepts for signing, cannot
// sign for it, and then logs in by keyboard-interactive: the session is a guest with no
// key, never the admin (the key a session plays as is the one of the method that
// succeeded; charm's ssh clears the offered key's permissions when keyboard-interactive
// runs).
func TestOfferingTheAdminKeyThenComingInAsAGuestIsNoAdmin(t *testing.T) {
	ts, admin := startAdminServer(t)
	foreign := &foreignSigner{pub: admin.PublicKey()}
	c, err := gossh.Dial("tcp", ts.addr, clientConfig(gossh.PublicKeysCallback(func() ([]gossh.Signer, error) {
		return []gossh.Signer{foreign}, nil
	})))
	if err == nil {
		c.Close()
		t.Fatal("the admin's key was let in without its signature")
	}
	cfg := &gossh.ClientConfig{User: "player", HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second,
		Auth: []gossh.AuthMethod{
			gossh.PublicKeysCallback(func() ([]gossh.Signer, error) { return []gossh.Signer{foreign}, nil }),
			gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil }),
		}}
	c, err = gossh.Dial("tcp", ts.addr, cfg)
	if err != nil {
		t.Fatalf("keyboard-interactive after the forged offer: %v", err)
	}
	defer c.Close()
	if !foreign.signed.Load() {
		t.Fatal("the server never asked for the offered key's signature: the test tests nothing")
	}
	if _, errOut, code := runOn(t, c, "stats"); code != 1 || strings.TrimSpace(errOut) != command.PermissionDenied {
		t.Fatalf("stats after the forged offer: %d %q", code, errOut)
	}
	if _, errOut, code := runOn(t, c, "whoami"); code != 1 || !strings.Contains(errOut, guestNeedsKeyAt(ts.addr)) {
		t.Fatalf("whoami after the forged offer: %d %q", code, errOut)
	}
	tm := terminalOn(t, c, 80, 24, nil, "")
	tm.waitFor("You are a guest")
	tm.enterDungeon("Sly")
	tm.press(":")
	tm.waitFor("The console is for admins.")
}
