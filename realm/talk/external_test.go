package talk

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/internal/testtools"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// externalServer runs the machine's nats-server (Debian's is 2.9) on a free loopback port
// until the test ends, and returns its URL.
func externalServer(t *testing.T) string {
	bin := testtools.Need(t, "nats-server", "nats-server")
	dir := t.TempDir()
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", "-1", "--ports_file_dir", dir)
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

// Two realms talk through an external nats-server, as a distribution ships it: core NATS
// (publish, subscribe, request and reply) is all the bus asks of it.
func TestTalkThroughAnExternalServer(t *testing.T) {
	url := externalServer(t)
	camelot := newRealm(t, "Camelot", url)
	avalon := newRealm(t, "Avalon", url)
	camelot.join(t, "arthur", "Arthur")
	avalon.join(t, "gawain", "Gawain")
	camelot.knows(t, avalon, "Gawain")
	camelot.chat(t, "arthur", world.Chat{Kind: world.ChatWhisper, To: "Gawain", Text: "hello from afar"})
	avalon.waitLine(t, "gawain", "Arthur (in Camelot) whispers: hello from afar")
	if rtt, ok := camelot.bus.Ping(context.Background(), "Avalon"); !ok || rtt <= 0 {
		t.Fatalf("ping: %v %v", rtt, ok)
	}
}
