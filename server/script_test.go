package server

import (
	"crypto/ed25519"
	"crypto/sha256"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/realm/records"
	"github.com/orthanc-ssh/orthanc-ssh/store"
)

// updateScripts rewrites the files a script's cmp compares with from what the server
// answered (go test -run TestScripts -update-scripts); read the diff before committing it.
var updateScripts = flag.Bool("update-scripts", false, "rewrite the scripts' expected files from the server's answers")

// TestScripts runs the SSH command surface's scenarios, one a file in testdata/script
// (txtar: a script, then the files it compares with), as soft-serve tests its own. Each
// starts the real server, with one admin key, "admin", and a fake clock standing at
// 2025-06-01 14:00 UTC, and drives it with testscript's commands (stdout, stderr, cmp,
// cmpenv, ...) and these:
//
//	ssh NAME CMD...              run CMD over SSH with the key NAME; ! expects it to fail
//	admin CMD...                 ssh admin CMD...
//	guest CMD...                 CMD from a guest (no key)
//	newkey NAME...               make keys without connecting
//	knight NAME KNIGHT           with the key NAME, enter the game as a new knight, and stay
//	guestknight KNIGHT           the same as a guest; its game is named guest
//	leave NAME                   leave the game (q, y); a guest's claim code is then $CLAIM
//	chat NAME LINE...            type a line in NAME's chat line
//	screen NAME TEXT...          wait until NAME's screen shows every TEXT
//	ended NAME                   wait until NAME's game has ended
//	lines stdout|stderr LINE...  each LINE is a whole line of the output (! none is)
//	grab VAR REGEXP              $VAR is REGEXP's first group in the last stdout
//	clock DURATION               move the server's clock on
//	dbcheck FILE                 FILE opens as the game's database and passes bbolt's check
//	exportcheck FILE             FILE reads whole as a realm world's export; its records counted
//	adminkeys NAME...            the admin keys file holds the keys NAME, each with its name as comment
//
// A key NAME is made at its first use, the same key in every run, and sets $FP_NAME, its
// fingerprint, and $FPRE_NAME, the fingerprint quoted for a regexp. $PORT is the
// server's port, $DATA its data folder. A script whose archive has a file "realm" runs
// its server as the realm that file names, on an etcd of its own.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                "testdata/script",
		Setup:              setupScript,
		Cmds:               scriptCommands,
		RequireUniqueNames: true,
		UpdateScripts:      *updateScripts,
	})
}

// scriptServer is one script's server, its keys and its open terminals.
type scriptServer struct {
	t     testing.TB // the script's own test
	dir   string     // the server's data folder
	addr  string
	clock *fakeClock
	keys  map[string]gossh.Signer
	terms map[string]*terminal
}

// scriptKey is where a script's scriptServer is kept among its values.
type scriptKey struct{}

// setupScript starts the script's server with the admin key and the fake clock.
func setupScript(env *testscript.Env) error {
	t, ok := env.T().(testing.TB)
	if !ok {
		return fmt.Errorf("scripts run under go test, not %T", env.T())
	}
	dir := t.TempDir()
	admin := namedKey(t, "admin")
	writeAdminKeys(t, dir, admin)
	clock := newFakeClock(time.Date(2025, 6, 1, 14, 0, 0, 0, time.UTC))
	cfg := testConfig(dir, defaultSeed)
	cfg.clock = clock.now
	if name, err := os.ReadFile(filepath.Join(env.WorkDir, "realm")); err == nil {
		cfg.Realm, cfg.Etcd, cfg.RealmTTL = strings.TrimSpace(string(name)), []string{etcdtest.Start(t)}, 3*time.Second
	}
	ts, _ := startConfigured(t, cfg)
	s := &scriptServer{t: t, dir: dir, addr: ts.addr, clock: clock, keys: map[string]gossh.Signer{"admin": admin}, terms: map[string]*terminal{}}
	setFingerprint(env.Setenv, "admin", admin)
	_, port, _ := net.SplitHostPort(ts.addr)
	env.Setenv("PORT", port)
	env.Setenv("DATA", dir)
	env.Values[scriptKey{}] = s
	return nil
}

// scriptT is the harness's testing.TB in a script: a failure fails the script at its
// line, with the script's log, as testscript's own commands do.
type scriptT struct {
	testing.TB
	ts *testscript.TestScript
}

func (s scriptT) Fatal(args ...any)                 { s.ts.Fatalf("%s", fmt.Sprint(args...)) }
func (s scriptT) Fatalf(format string, args ...any) { s.ts.Fatalf(format, args...) }
func (s scriptT) Error(args ...any)                 { s.ts.Fatalf("%s", fmt.Sprint(args...)) }
func (s scriptT) Errorf(format string, args ...any) { s.ts.Fatalf(format, args...) }
func (s scriptT) FailNow()                          { s.ts.Fatalf("failed") }

// state is the script's server, and the harness's TB for it.
func state(ts *testscript.TestScript) (*scriptServer, testing.TB) {
	s := ts.Value(scriptKey{}).(*scriptServer)
	return s, scriptT{TB: s.t, ts: ts}
}

// key is the key NAME, made (and $FP_NAME set) at its first use.
func (s *scriptServer) key(ts *testscript.TestScript, t testing.TB, name string) gossh.Signer {
	if k, ok := s.keys[name]; ok {
		return k
	}
	k := namedKey(t, name)
	s.keys[name] = k
	setFingerprint(ts.Setenv, name, k)
	return k
}

// setFingerprint sets $FP_NAME to the key's fingerprint and $FPRE_NAME to it as a
// regexp matches it (a fingerprint may hold + and /).
func setFingerprint(setenv func(key, value string), name string, k gossh.Signer) {
	fp := keys.Fingerprint(k.PublicKey())
	setenv("FP_"+name, fp)
	setenv("FPRE_"+name, regexp.QuoteMeta(fp))
}

// namedKey is the script key NAME: the same in every run, so an expected file may hold
// its fingerprint.
func namedKey(t testing.TB, name string) gossh.Signer {
	t.Helper()
	seed := sha256.Sum256([]byte("orthanc test key " + name))
	k, err := gossh.NewSignerFromKey(ed25519.NewKeyFromSeed(seed[:]))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// term is NAME's open terminal.
func (s *scriptServer) term(ts *testscript.TestScript, name string) *terminal {
	tm, ok := s.terms[name]
	if !ok {
		ts.Fatalf("%s has no game open", name)
	}
	return tm
}

// scriptCommands are the scripts' own commands (see TestScripts).
var scriptCommands = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"ssh": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: ssh NAME CMD...")
		}
		s, t := state(ts)
		sshAs(ts, neg, s.addr, s.key(ts, t, args[0]), args[1:])
	},
	"admin": func(ts *testscript.TestScript, neg bool, args []string) {
		s, _ := state(ts)
		sshAs(ts, neg, s.addr, s.keys["admin"], args)
	},
	"guest": func(ts *testscript.TestScript, neg bool, args []string) {
		s, _ := state(ts)
		c, err := dialGuest(s.addr)
		ts.Check(err)
		defer c.Close()
		runScriptCmd(ts, neg, c, args)
	},
	"newkey": func(ts *testscript.TestScript, neg bool, args []string) {
		s, t := state(ts)
		for _, name := range args {
			s.key(ts, t, name)
		}
	},
	"knight": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: knight NAME KNIGHT")
		}
		s, t := state(ts)
		tm := openTerminal(t, s.addr, s.key(ts, t, args[0]), 80, 24, nil)
		tm.enterDungeon(args[1])
		s.terms[args[0]] = tm
	},
	"guestknight": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: guestknight KNIGHT")
		}
		s, t := state(ts)
		c, err := dialGuest(s.addr)
		ts.Check(err)
		tm := terminalOn(t, c, 80, 24, nil, "")
		tm.waitFor("You are a guest")
		tm.press(keyEnter)
		tm.waitFor("Press r to roll again")
		tm.press(keyEnter)
		tm.waitFor("Name your knight")
		tm.press(args[0], keyEnter)
		tm.waitFor("Depth 1")
		s.terms["guest"] = tm
	},
	"leave": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: leave NAME")
		}
		s, _ := state(ts)
		tm := s.term(ts, args[0])
		tm.quit()
		delete(s.terms, args[0])
		if m := claimCodeRe.FindStringSubmatch(tm.rawOutput()); m != nil {
			ts.Setenv("CLAIM", m[1])
		}
	},
	"chat": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: chat NAME LINE...")
		}
		s, _ := state(ts)
		s.term(ts, args[0]).chat(strings.Join(args[1:], " "))
	},
	"screen": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 {
			ts.Fatalf("usage: screen NAME TEXT...")
		}
		s, _ := state(ts)
		s.term(ts, args[0]).waitFor(args[1:]...)
	},
	"ended": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: ended NAME")
		}
		s, _ := state(ts)
		tm := s.term(ts, args[0])
		if !tm.ended(10 * time.Second) {
			ts.Fatalf("%s's game did not end:\n%s", args[0], tm.screen())
		}
		delete(s.terms, args[0])
	},
	"lines": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) < 2 || (args[0] != "stdout" && args[0] != "stderr") {
			ts.Fatalf("usage: lines stdout|stderr LINE...")
		}
		have := strings.Split(ts.ReadFile(args[0]), "\n")
		for _, want := range args[1:] {
			switch found := slices.Contains(have, want); {
			case !found && !neg:
				ts.Fatalf("no line %q in %s", want, args[0])
			case found && neg:
				ts.Fatalf("a line %q in %s", want, args[0])
			}
		}
	},
	"dbcheck": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: dbcheck FILE")
		}
		st, err := store.Open(ts.MkAbs(args[0]), store.Options{})
		ts.Check(err)
		defer st.Close()
		ts.Check(st.Check())
		n, err := st.CountKnights()
		ts.Check(err)
		fmt.Fprintf(ts.Stdout(), "knights: %d\n", n)
	},
	"exportcheck": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: exportcheck FILE")
		}
		f, err := os.Open(ts.MkAbs(args[0]))
		ts.Check(err)
		defer f.Close()
		s, _ := state(ts)
		x, err := records.ReadExport(f, s.clock.now())
		ts.Check(err)
		letters := 0
		for _, ls := range x.Mail {
			letters += len(ls)
		}
		fmt.Fprintf(ts.Stdout(), "records: %d\nknights: %d\nkeys: %d\nletters: %d\nfame: %d\ntombstones: %d\nbans: %d\nsilences: %d\n",
			x.Records, len(x.Knights), len(x.Keys), letters, len(x.Fame), len(x.Tombstones), len(x.Bans), len(x.Silences))
	},
	"adminkeys": func(ts *testscript.TestScript, neg bool, args []string) {
		s, t := state(ts)
		var b strings.Builder
		for _, name := range args {
			line := gossh.MarshalAuthorizedKey(s.key(ts, t, name).PublicKey())
			fmt.Fprintf(&b, "%s %s\n", strings.TrimSpace(string(line)), name)
		}
		ts.Check(os.WriteFile(filepath.Join(s.dir, "admin_keys"), []byte(b.String()), 0o600))
	},
	"grab": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: grab VAR REGEXP")
		}
		re, err := regexp.Compile(args[1])
		ts.Check(err)
		m := re.FindStringSubmatch(ts.ReadFile("stdout"))
		if len(m) < 2 {
			ts.Fatalf("no %s in stdout", args[1])
		}
		ts.Setenv(args[0], m[1])
	},
	"clock": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: clock DURATION")
		}
		d, err := time.ParseDuration(args[0])
		ts.Check(err)
		s, _ := state(ts)
		s.clock.add(d)
	},
}

// sshAs runs a command line over a new connection with key. A login the server refuses
// fails the command, with the server's login banner and the error on stderr.
func sshAs(ts *testscript.TestScript, neg bool, addr string, key gossh.Signer, args []string) {
	var banner strings.Builder
	cfg := clientConfig(gossh.PublicKeys(key))
	cfg.BannerCallback = func(msg string) error { banner.WriteString(msg); return nil }
	c, err := gossh.Dial("tcp", addr, cfg)
	if err != nil {
		fmt.Fprintf(ts.Stderr(), "%slogin refused\n", banner.String())
		if !neg {
			ts.Fatalf("login: %v", err)
		}
		return
	}
	defer c.Close()
	runScriptCmd(ts, neg, c, args)
}

// runScriptCmd runs a command line on c, its output the script's stdout and stderr; it
// must succeed, or with neg fail.
func runScriptCmd(ts *testscript.TestScript, neg bool, c *gossh.Client, args []string) {
	stdout, stderr, code, err := runSession(c, shellLine(args))
	ts.Check(err)
	fmt.Fprint(ts.Stdout(), stdout)
	fmt.Fprint(ts.Stderr(), stderr)
	switch {
	case code != 0 && !neg:
		ts.Fatalf("exit status %d", code)
	case code == 0 && neg:
		ts.Fatalf("succeeded, and should have failed")
	}
}

// shellLine joins a script's words into the command line the server splits again, each
// word with spaces or quotes in single quotes.
func shellLine(args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		words[i] = a
	}
	return strings.Join(words, " ")
}

// Every row of the command table is run by some script, so a new command comes with its
// scenario (its happy path and its bad input).
func TestEveryCommandHasAScript(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "script", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the scripts: %v %v", files, err)
	}
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	for _, c := range tableRows(t) {
		run := regexp.MustCompile(`(?m)^(! )?(ssh \S+|admin|guest) ` + regexp.QuoteMeta(c.Name) + `( |$)`)
		if !run.MatchString(all.String()) {
			t.Errorf("no script in testdata/script runs %q", c.Name)
		}
	}
}
