package world

// Time follows seed 003 (Cthangband speed): a round is ten turns; every actor carries the
// cost of its last action as a debt in percent of a round; each turn removes 10%, and an
// actor whose debt is zero or less may act, adding the new action's cost. Costs are not
// rounded: remainders carry into the next action.

// TurnsPerRound is how many turns make one round (seed 003: "Each round is made up of ten turns").
const TurnsPerRound = 10

// TurnEnergy is the debt one turn removes, in percent of a round.
const TurnEnergy = 100.0 / TurnsPerRound

// Action costs in percent of a round (seed 003, "Costs of various actions"). Seed 003's
// "A 'natural' attack costs 10%" has no constant: it is Cthangband's bite or claw of a
// mutated player, and an Orthanc knight fights with its sword (a blow is BlowCost);
// monsters' bites and claws are their attacks per round, which seed 003 treats "more
// simply" (monsterVolleyCost). DESIGN §12, "Natural attacks".
const (
	CostThrow       = 100.0 // "Throwing an item always costs 100%."
	CostPotion      = 100.0 // quaffing takes one full round ...
	CostPotionPouch = 10.0  // ... "only 10% of a round" from a belt pouch (PouchSlots)
	CostRest        = 100.0 // resting, searching, wielding: "one full turn each"
	CostDrop        = 50.0  // "dropping an item ... 50%"
	MaxBlows        = 10    // "It is not possible to get more than ten blows or shots in a round."
)

// Energy is an actor's debt in percent of a round. It is owned by whoever owns the actor
// (the engine goroutine).
type Energy float64

// Ready reports whether the actor may act this turn: its debt is zero or less.
func (e Energy) Ready() bool { return e <= 0 }

// Spend adds the cost of an action, carrying any negative remainder (seed 003: "we add
// that to -7% to get 16%").
func (e *Energy) Spend(cost float64) { *e += Energy(cost) }

// EndTurn removes one turn's 10%. An actor that was ready this turn but chose to do nothing
// does not bank time: its debt stops at zero, so an idle player cannot save up a burst of
// moves.
func (e *Energy) EndTurn(readyButIdle bool) {
	*e -= TurnEnergy
	if readyButIdle {
		*e = max(*e, 0)
	}
}

// speedScale holds seed 003's movement costs by speed; costs between the points slide
// linearly ("This is on a sliding scale, so there are no sharp breakpoints").
var speedScale = [...]struct {
	speed int
	cost  float64
}{
	{-20, 333}, // "333% at -20"
	{-10, 200}, // "if the speed is -10, it takes 200%"
	{0, 100},   // "If the player's or monster's speed is zero, it takes 100%"
	{10, 50},   // "If the speed is +10, it takes 50%"
	{20, 33},   // "It takes 33% at +20"
	{30, 26},   // "26% at +30"
	{40, 24},   // "and 24% at +40"
}

// MoveCost is the cost of moving one square at the given speed, in percent of a round.
// Speeds beyond the seed's range (−20..+40) cost as the nearest end of it.
func MoveCost(speed int) float64 {
	first, last := speedScale[0], speedScale[len(speedScale)-1]
	if speed <= first.speed {
		return first.cost
	}
	if speed >= last.speed {
		return last.cost
	}
	for i := 1; i < len(speedScale); i++ {
		lo, hi := speedScale[i-1], speedScale[i]
		if speed <= hi.speed {
			f := float64(speed-lo.speed) / float64(hi.speed-lo.speed)
			return lo.cost + f*(hi.cost-lo.cost)
		}
	}
	return last.cost
}

// BlowCost is the cost of one blow for a fighter with the given blows per round
// (seed 003: "100% divided by the number of blows per round"), with blows kept in 1..10.
func BlowCost(blows int) float64 {
	blows = max(1, min(blows, MaxBlows))
	return 100 / float64(blows)
}

// CastCost is the cost of casting when skill exceeds the spell's minimum by margin points.
// Seed 003 gives 100% at the minimum, 50% at +6, 33% at +9, 25% at +12, bottoming out at
// 10%. From +6 on those points are exactly 300/margin (the seed's own example, +13, is
// 23%); below +6 the cost slides from 100% to 50% as 600/(margin+6). From +28 on it is
// the seed's floor of 10%.
func CastCost(margin int) float64 {
	switch {
	case margin <= 0:
		return 100
	case margin >= 28:
		return 10
	}
	var c float64
	if margin < 6 {
		c = 600 / float64(margin+6)
	} else {
		c = 300 / float64(margin)
	}
	return max(c, 10)
}
