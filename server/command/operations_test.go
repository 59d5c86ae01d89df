package command

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/knights/memory"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The operator's commands run here on the in-memory keeper, a real world and a real
// store in a temporary folder, through a table of their rows alone.

// opsSSH is the command that reaches the test's server, as the gate writes it.
func opsSSH(flags ...string) string {
	return strings.Join(append(append([]string{"ssh"}, flags...), "-p", "2222", "orthanc.test"), " ")
}

// opsFixture is Operations on test parts, with what the server's funcs were asked.
type opsFixture struct {
	t         *testing.T
	ops       Operations
	keeper    *memory.Keeper
	world     *world.Engine
	store     *store.Store
	admin     ssh.PublicKey
	stopWorld func() // stops the world, and returns once it has stopped

	mu    sync.Mutex
	ended []string // EndGames: "fp: why"
}

// newOpsFixture builds the family on an empty keeper, a two-level world of seed 7 and
// an empty store; the server's own figures are fixed ones a test may change before run.
func newOpsFixture(t *testing.T) *opsFixture {
	t.Helper()
	log := quietLog()
	st, err := store.Open(filepath.Join(t.TempDir(), "orthanc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	engine := world.New(world.Config{Seed: 7, Depth: 2})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { engine.Run(ctx, nil); close(done) }()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	keeper := memory.NewKeeper()
	f := &opsFixture{t: t, keeper: keeper, world: engine, store: st, admin: newKey(t), stopWorld: stop}
	f.ops = Operations{Log: log, Store: st, Saver: store.NewSaver(st, log), World: engine, Knights: keeper,
		Names:    knights.NewNameBook(keeper.KnightNames, func(err error) { t.Errorf("read the names: %v", err) }),
		Sessions: edge.NewRegistry(), Now: time.Now, Version: "v1.2.3", Seed: 7, ReplayLimit: 8 << 20,
		Replays: func() *store.ReplayWriter { return nil },
		Measure: func() Measures {
			return Measures{Uptime: 90*time.Second + 400*time.Millisecond, Window: 1000,
				Tick:  Percentiles{Count: 2500, P50: 0.125, P90: 0.25, P99: 1.5, Max: 3},
				Saves: Percentiles{Count: 12, P50: 2, P90: 4, P99: 8, Max: 16.5}}
		},
		Warnings:      func() []PermissionWarning { return nil },
		ReadAgain:     func() Reloaded { t.Error("a reload nobody asked for"); return Reloaded{} },
		AdminKeys:     func() *keys.AllowList { return opsAllowList(t, f.admin, "the admin") },
		AdminKeysFile: "/etc/orthanc/admin_keys",
		EndGames: func(fp, why string) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.ended = append(f.ended, fp+": "+why)
		},
	}
	return f
}

// newTable is the table of the family's rows, its gate letting f.admin in as the admin.
func (f *opsFixture) newTable() *Table {
	gate := Gate{Log: f.ops.Log, IsAdmin: func(k ssh.PublicKey) bool { return ssh.KeysEqual(k, f.admin) },
		KnightOf: func(fp string) (string, error) {
			k, err := f.keeper.KeyOf(fp)
			if errors.Is(err, knights.ErrNotFound) {
				return "", nil
			}
			return k.Knight, err
		},
		SSH: opsSSH}
	o := f.ops
	return NewTable(gate, o.Backup(), o.Export(), o.Check(), o.Stats(), o.Reload(), o.Admins(), o.KeysMove())
}

// run runs a command line as from over ssh, as the admin unless from names another key,
// and returns what it wrote and its exit status.
func (f *opsFixture) run(from Session, line ...string) (out, errOut string, code int) {
	f.t.Helper()
	var o, e bytes.Buffer
	if from.Key == nil {
		from.Key = f.admin
	}
	from.Out, from.ErrOut = &o, &e
	code = f.newTable().Run(context.Background(), from, line)
	return o.String(), e.String(), code
}

// adminRun runs a command line as the admin over ssh.
func (f *opsFixture) adminRun(line ...string) (out, errOut string, code int) {
	f.t.Helper()
	return f.run(Session{}, line...)
}

// opsAllowList is an allow-list of key with its comment, as the admin keys file holds it.
func opsAllowList(t *testing.T, key ssh.PublicKey, comment string) *keys.AllowList {
	t.Helper()
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(key))) + " " + comment + "\n"
	al, bad := keys.ParseAllowList(strings.NewReader(line))
	if len(bad) > 0 {
		t.Fatal(bad)
	}
	return al
}

// Every row of the family is an admin's: any other key learns only "permission denied",
// whatever it asks, --help too.
func TestTheOperatorsCommandsRefuseANonAdmin(t *testing.T) {
	f := newOpsFixture(t)
	player := newKey(t)
	for _, line := range [][]string{{"backup"}, {"check"}, {"stats", "--json"}, {"reload"}, {"admins"},
		{"keys", "move", "SHA256:a", "SHA256:b"}, {"stats", "--help"}} {
		out, errOut, code := f.run(Session{Key: player}, line...)
		if out != "" || errOut != "permission denied\n" || code != 1 {
			t.Errorf("%q by a player: out %q, err %q, exit %d", line, out, errOut, code)
		}
	}
}
