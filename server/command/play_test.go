package command

import "testing"

// Without a terminal, play and watch say how to run them with one; the console, which
// is in a game already, says they run from a shell.
func TestPlayAndWatchNeedATerminal(t *testing.T) {
	d := newPlayerDesk(t, "")
	key := newKey(t)
	d.wantRun(key, "play", "", "orthanc: play needs a terminal: ssh -t -p 2222 host play [--plain]\n", 1)
	d.wantRun(key, "play --plain", "", "orthanc: play needs a terminal: ssh -t -p 2222 host play [--plain]\n", 1)
	d.wantRun(key, "watch Kay", "", "orthanc: watch needs a terminal: ssh -t -p 2222 host watch NAME\n", 1)
	d.wantRun(nil, "play", "", playerGuestRefusal(), 1)
	d.admin = key
	if out, code := d.console(key, "play"); code != 1 || out != "orthanc: play opens a game of its own; run it from a shell: ssh -t -p 2222 host play [--plain]\n" {
		t.Errorf("play in the console: %d %q", code, out)
	}
	if out, code := d.console(key, "watch Kay"); code != 1 ||
		out != "orthanc: watch opens a screen of its own; run it from a shell: ssh -t -p 2222 host watch NAME, or press w in the game\n" {
		t.Errorf("watch in the console: %d %q", code, out)
	}
}
