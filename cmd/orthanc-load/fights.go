package main

import "strings"

// Battles as a session's screen shows them. The battle panel's title says a battle is on
// ("FIGHT, ROUND 2", or "BATTLE, ROUND 1" outside); once it is over the panel shows "LAST
// FIGHT" until the knight walks on, with the battle's log, and the message lines say
// what the knight killed; a knight that dies gets the death screen. Only sessions that
// keep their screen (active ones, in game mode) can tell, and they read it once a key: a
// battle the knight fights takes at least one of its keys (f on its move), so none goes
// unseen, though a death in the first blow shows only as the death screen.

// Texts of the screens.
var (
	fightTexts = []string{"FIGHT, ROUND", "BATTLE, ROUND"}
	// The last battle's log, in the panel, says who killed the foe ("... The Troll is
	// dead!"); the message lines keep "You killed" long after.
	wonTexts = []string{" is dead!", "The battle is won."}
)

const deathText = "Death is permanent."

// fightWatch counts one session's battles, as its screen shows them.
type fightWatch struct {
	in      bool // a battle is on
	dead    bool // the death screen shows
	counted bool // the battle on started in the window
	n       fightCounts
}

// fightCounts are a session's battles that started in the window, and its deaths there.
type fightCounts struct {
	started, won, lost, other, deaths int
}

// add counts o's battles in c too.
func (c *fightCounts) add(o fightCounts) {
	c.started += o.started
	c.won += o.won
	c.lost += o.lost
	c.other += o.other
	c.deaths += o.deaths
}

// watch reads the screen at a key; inWindow says whether the key is in the window.
func (f *fightWatch) watch(scr string, inWindow bool) {
	switch {
	case strings.Contains(scr, deathText):
		if !f.dead && inWindow {
			f.n.deaths++
		}
		if f.in && f.counted {
			f.n.lost++
		}
		f.in, f.dead = false, true
	case containsAny(scr, fightTexts):
		if !f.in {
			f.in, f.counted = true, inWindow
			if inWindow {
				f.n.started++
			}
		}
		f.dead = false
	default:
		if f.in && f.counted {
			if containsAny(scr, wonTexts) {
				f.n.won++
			} else {
				f.n.other++
			}
		}
		f.in, f.dead = false, false
	}
}
