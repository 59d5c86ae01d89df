package world

import "fmt"

// Command is an action a player asks for. It is carried out on the engine goroutine when
// the adventurer's energy allows (seed 003).
type Command interface{ isCommand() }

// Retire ends the knight's adventures with honour; only outside the dungeon.
type Retire struct{}

func (Retire) isCommand() {}

// act carries out one command and returns its cost in percent of a round; a command that
// does nothing (walking into a wall) costs nothing.
func (e *Engine) act(p *player, c Command) float64 {
	if held, cost := e.held(p, c); held {
		return cost
	}
	switch c := c.(type) {
	case Move:
		if p.status(StatusConfused) != nil {
			// Ruling: a confused knight goes a random way half the time (seed 001 gives
			// confusion no numbers): one draw of eight, one of the four ways or the way
			// it meant to go.
			if w := e.rng.IntN(2 * len(Dirs)); w < len(Dirs) {
				c.Dir = Dirs[w]
				e.say(p, "You stumble about in confusion.")
			}
		}
		if p.rec.Depth == 0 {
			return e.surfaceMove(p, c.Dir)
		}
		return e.move(p, c)
	case Climb:
		if p.rec.Depth == 0 {
			if c.Down {
				return e.enter(p) // > outside goes down, as Enter does
			}
			e.say(p, "You are already outside.")
			return 0
		}
		return e.climb(p, c.Down)
	case Buy:
		return e.buy(p, c.Index, c.Item)
	case Sell:
		return e.sell(p, c.Index)
	case UseItem:
		return e.useItem(p, c.Index)
	case Drop:
		return e.drop(p, c.Index)
	case Cast:
		return e.cast(p, c)
	case Retire:
		e.retire(p)
		return 0
	case Fight, Run, Shoot:
		e.say(p, "There is nothing here to fight.")
		return 0
	case Enter:
		if p.rec.Depth != 0 {
			return 0
		}
		return e.enter(p)
	}
	return 0
}

// retire moves a knight outside the dungeon into the hall of fame (seed 000: "When you
// retire, you start again with a new adventurer."). Its record goes to the saver with the
// retirement set, and the session is told so the player can roll a new knight.
func (e *Engine) retire(p *player) {
	if p.rec.Depth != 0 {
		e.say(p, "You can retire only outside the dungeon.")
		return
	}
	e.earn(p, DeedRetired(p.rec.Level)) // before the record is closed, so the hall of fame shows it
	p.rec.Retirement = &Retirement{Level: p.rec.Level, Experience: p.rec.Experience,
		PercentKills: p.rec.PercentKills(), Turn: e.turn}
	e.say(p, fmt.Sprintf("%s retires with honour near the seat of the king, with %d experience.", p.rec.Name, p.rec.Experience))
	e.proclaim(p, TidingRetirement)
	v := e.view(p)
	v.Retired = p.rec.Retirement
	e.remove(p)
	if p.sub != nil {
		p.sub.Deliver(v)
	}
}
