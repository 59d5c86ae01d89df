package server

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/server/command"
)

// TestRealmChaos's players: each a key playing its knight through real SSH terminals,
// from realm to realm, noting each save it is told of (chaosAck).

// chaosPlayer is one key playing its knight across the realms, as a person would.
type chaosPlayer struct {
	c     *realmChaos
	i     int
	key   gossh.Signer
	rng   *rand.Rand
	names int

	tm    *terminal // the session playing; nil when none
	on    *chaosNode
	realm string     // the name of the realm tm plays on
	left  *chaosNode // the realm of the last session, which a player whose realm failed avoids
}

func (p *chaosPlayer) stopped() bool {
	select {
	case <-p.c.stop:
		return true
	default:
		return false
	}
}

// pause waits a moment before trying again (a realm down), or until the run ends.
func (p *chaosPlayer) pause() {
	select {
	case <-p.c.stop:
	case <-time.After(200 * time.Millisecond):
	}
}

// play logs in, walks and leaves, again and again, until the run ends; then quits.
func (p *chaosPlayer) play() {
	for !p.stopped() {
		if p.tm == nil {
			p.login(p.pick(p.left))
			continue
		}
		p.walk()
		if p.tm == nil || p.stopped() {
			continue
		}
		switch p.rng.IntN(4) {
		case 0:
			p.quit()
		case 1:
			p.drop()
		default:
			p.move()
		}
	}
	if p.tm != nil {
		p.quit()
	}
}

// pick draws a realm other than except.
func (p *chaosPlayer) pick(except *chaosNode) *chaosNode {
	for {
		if n := p.c.nodes[p.rng.IntN(len(p.c.nodes))]; n != except {
			return n
		}
	}
}

// login opens the game on n and enters the dungeon; p.tm is the session if it did.
func (p *chaosPlayer) login(n *chaosNode) {
	proc := n.current()
	if proc == nil {
		p.pause()
		return
	}
	cl, err := dialWithin(proc.addr, p.key, 10*time.Second)
	if err != nil {
		p.c.count("logins refused")
		p.pause()
		return
	}
	tm, err := startTerminal(p.c.t, cl, 80, 24, nil, "")
	if err != nil {
		cl.Close()
		p.pause()
		return
	}
	if !p.enter(tm) {
		tm.close()
		p.c.count("logins refused")
		p.pause()
		return
	}
	p.tm, p.on, p.realm = tm, n, n.spec.name
	n.plays(1)
	p.c.count("logins")
}

// enter answers the title's prompts until the dungeon shows; false if the session ends
// first (refused: the realm stopped, or the knight stays where it is) or 30 s pass.
func (p *chaosPlayer) enter(tm *terminal) bool {
	answered, at := "", time.Time{}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		s := tm.screen()
		if strings.Contains(s, "Spells ") && strings.Contains(s, "Exp ") {
			return true
		}
		prompt, answer := titlePrompt(s, p.newName)
		// A prompt is answered once, and again only if it stays a while (a name refused).
		if prompt != "" && (prompt != answered || time.Since(at) > 3*time.Second) {
			_, _ = io.WriteString(tm.stdin, answer())
			answered, at = prompt, time.Now()
		}
		select {
		case <-tm.done:
			return false
		case <-time.After(pollEvery):
		}
	}
	return false
}

// titlePrompt is the title screen's prompt on s, if any, and what answers it.
func titlePrompt(s string, name func() string) (string, func() string) {
	enter := func() string { return keyEnter }
	for _, prompt := range []string{"Press Enter to continue", "Press Enter to begin", "Press r to roll again"} {
		if strings.Contains(s, prompt) {
			return prompt, enter
		}
	}
	if strings.Contains(s, "Name your knight") {
		return "Name your knight", func() string { return name() + keyEnter }
	}
	return "", nil
}

// newName is a name no knight of the run has had: a knight that died is rolled anew.
func (p *chaosPlayer) newName() string {
	p.names++
	return fmt.Sprintf("Chaos%c%c", 'a'+p.i, 'a'+p.names%26)
}

// ended reports whether the session has ended under the player (its realm stopped,
// was killed, or its knight was taken); it forgets it if so.
func (p *chaosPlayer) ended() bool {
	select {
	case <-p.tm.done:
		p.c.count("sessions ended by the realm")
		p.drop()
		return true
	default:
		return false
	}
}

// walk takes a few steps in directions drawn at random, each waited for (1.5 s at
// most: a wall, a monster); a realm that stops answering is left.
func (p *chaosPlayer) walk() {
	w, ok := whoamiWithin(p.tm.client, 5*time.Second)
	if !ok {
		p.drop()
		return
	}
	arrows := []string{keyUp, keyDown, keyLeft, keyRight}
	for range 2 + p.rng.IntN(6) {
		if p.stopped() || p.ended() {
			return
		}
		_, _ = io.WriteString(p.tm.stdin, arrows[p.rng.IntN(len(arrows))])
		answered := true
		poll(1500*time.Millisecond, 100*time.Millisecond, func() bool {
			n, ok := whoamiWithin(p.tm.client, 3*time.Second)
			answered = ok
			if ok && (n.X != w.X || n.Y != w.Y || n.Depth != w.Depth) {
				w = n
				return true
			}
			return !ok
		})
		if !answered {
			p.drop()
			return
		}
	}
}

// settle waits for the knight to stand still (two whoamis alike) and reads etcd's
// revision: the save a player is then told of comes after it. ok is false when the
// realm does not answer, or the knight is dead.
func (p *chaosPlayer) settle() (w command.Whoami, rev int64, ok bool) {
	have := false
	stood := poll(8*time.Second, 150*time.Millisecond, func() bool {
		n, ok := whoamiWithin(p.tm.client, 3*time.Second)
		if !ok {
			return false
		}
		same := have && n.Knight == w.Knight && n.Depth == w.Depth && n.X == w.X && n.Y == w.Y
		w, have = n, true
		return same
	})
	if !stood || !w.Online || w.Dead {
		return w, 0, false
	}
	return w, p.c.revision(), true
}

// quit leaves as a player does (q, y); the goodbye saying the knight is saved is a save
// told of.
func (p *chaosPlayer) quit() {
	_, _ = io.WriteString(p.tm.stdin, "q")
	if !poll(5*time.Second, pollEvery, func() bool { return strings.Contains(p.tm.screen(), "(y/n)") }) {
		p.drop() // in a battle, say: q is not quitting there
		return
	}
	w, rev, ok := p.settle()
	_, _ = io.WriteString(p.tm.stdin, "y")
	if !p.tm.ended(20 * time.Second) {
		p.drop()
		return
	}
	p.c.count("quits")
	if ok && strings.Contains(p.tm.rawOutput(), "Your knight is saved where it stands; to play on") {
		p.c.ack(p.i, w, p.realm, rev, "quit")
	}
	p.drop()
}

// drop closes the connection, as a player whose network fails.
func (p *chaosPlayer) drop() {
	p.tm.close()
	p.on.plays(-1)
	p.tm, p.on, p.left = nil, nil, p.on
	p.c.count("sessions closed")
}

// move logs in on another realm while the knight plays here: this realm's session ends
// with the knight called away, saved (a save told of), and the new one plays it.
func (p *chaosPlayer) move() {
	w, rev, ok := p.settle()
	old, from, on := p.tm, p.realm, p.on
	to := p.pick(on)
	p.tm = nil
	p.login(to)
	if p.tm == nil && !old.ended(2*time.Second) {
		p.tm, p.realm, p.on = old, from, on // not taken: it plays on here
		return
	}
	on.plays(-1)
	if !old.ended(20 * time.Second) {
		p.c.fail("player %d's session on %s did not end when %s took its knight:\n%s", p.i, from, to.spec.name, old.screen())
	}
	if ok && strings.Contains(old.rawOutput(), fmt.Sprintf(calledLine, to.spec.name)) {
		p.c.ack(p.i, w, from, rev, "called to "+to.spec.name)
		p.c.count("moves")
	}
	old.close()
}

// ack notes a save a player was told of.
func (c *realmChaos) ack(player int, w command.Whoami, realm string, rev int64, how string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.acks = append(c.acks, chaosAck{player: player, knight: w.Knight, realm: realm, depth: w.Depth, x: w.X, y: w.Y, after: rev, how: how})
}
