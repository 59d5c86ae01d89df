package talk

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testtools"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// externalServer runs the machine's nats-server (Debian's is 2.9) on a free loopback port
// until the test ends, its users the realms named (NATSUser, each with the password "pw-"
// and its name; none: no authorization, as the package is installed), and returns its URL.
func externalServer(t *testing.T, realms ...string) string {
	bin := testtools.Need(t, "nats-server", "nats-server")
	dir := t.TempDir()
	args := []string{"-a", "127.0.0.1", "-p", "-1", "--ports_file_dir", dir}
	if len(realms) > 0 {
		var conf strings.Builder
		conf.WriteString("authorization {\n  users = [\n")
		for _, r := range realms {
			conf.WriteString(NATSUser("orthanc", r, "pw-"+r))
		}
		conf.WriteString("  ]\n}\n")
		file := filepath.Join(dir, "nats.conf")
		if err := os.WriteFile(file, []byte(conf.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "-c", file)
	}
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var ports struct{ Nats []string }
	waitFor(t, "nats-server's ports file", func() bool {
		files, _ := filepath.Glob(filepath.Join(dir, "*.ports"))
		if len(files) == 0 {
			return false
		}
		data, err := os.ReadFile(files[0])
		return err == nil && json.Unmarshal(data, &ports) == nil && len(ports.Nats) > 0
	})
	return ports.Nats[0]
}

// Two realms talk through an external nats-server, as a distribution ships it, whose
// users are the realms with the permissions OPERATIONS shows (NATSUser): core NATS
// (publish, subscribe, request and reply) is all the bus asks of it.
func TestTalkThroughAnExternalServer(t *testing.T) {
	url := externalServer(t, "Camelot", "Avalon")
	camelot := newRealm(t, "Camelot", nil, external(url, "pw-Camelot"))
	avalon := newRealm(t, "Avalon", nil, external(url, "pw-Avalon"))
	camelot.join(t, "arthur", "Arthur")
	avalon.join(t, "gawain", "Gawain")
	camelot.knows(t, avalon, "Gawain")
	camelot.chat(t, "arthur", world.Chat{Kind: world.ChatWhisper, To: "Gawain", Text: "hello from afar"})
	avalon.waitLine(t, "gawain", "Arthur (in Camelot) whispers: hello from afar")
	if rtt, ok := camelot.bus.Ping(context.Background(), "Avalon"); !ok || rtt <= 0 {
		t.Fatalf("ping: %v %v", rtt, ok)
	}
	if _, err := nats.Connect(url); !errors.Is(err, nats.ErrAuthorization) {
		t.Fatalf("a client with no credentials: %v", err)
	}
	if _, err := Open(Config{Realm: "Camelot", URL: url, Password: "guessed"}); !errors.Is(err, ErrAuth) {
		t.Fatalf("a realm with the wrong password: %v", err)
	}
}

// A realm refuses to talk through an external nats-server as installed, with no users:
// anyone who reaches it could read the talk and speak as any realm.
func TestARealmRefusesAServerThatLetsAnyoneSpeak(t *testing.T) {
	url := externalServer(t)
	_, err := Open(Config{Realm: "Camelot", URL: url})
	if !errors.Is(err, ErrNotConfined) {
		t.Fatalf("Open on an open server: %v", err)
	}
}
