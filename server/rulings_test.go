package server

import (
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Issue 31: the rulings' times, named as numbers. DESIGN §12 "Fair play": a safe arrival
// lasts 10 s and a battle's grace 30 s, 400 and 1200 turns of the default 25 ms tick (the
// engine's defaults), three times as long for a screen-reader player.
func TestTheRulingsTimes(t *testing.T) {
	const tick = 25 * time.Millisecond
	if safeArrival != 10*time.Second || int(safeArrival/tick) != 400 || world.DefaultSafeTurns != 400 {
		t.Errorf("safe arrival %v (%d turns), the engine's default %d turns; want 10 s, 400", safeArrival, safeArrival/tick, world.DefaultSafeTurns)
	}
	if defaultBattleGrace != 30*time.Second || int(defaultBattleGrace/tick) != 1200 || world.DefaultGraceTurns != 1200 {
		t.Errorf("battle grace %v (%d turns), the engine's default %d turns; want 30 s, 1200", defaultBattleGrace, defaultBattleGrace/tick, world.DefaultGraceTurns)
	}
	if world.PlainGraceFactor != 3 {
		t.Errorf("a screen-reader player's grace is %d times as long, want 3", world.PlainGraceFactor)
	}
	// The command's flags take their defaults from here (its TestTheFlagsDefaults).
	if c := DefaultConfig(); c.BattleGrace != 30*time.Second || c.Tick != tick {
		t.Errorf("the default configuration: grace %v, tick %v; want 30 s and 25 ms", c.BattleGrace, c.Tick)
	}
}

// Issue 42: the Hardening rulings the server sets, named as numbers: 2 guests an address
// and 50 in all, 5 new knights an address an hour, and chat's window of 10 s, which is the
// engine's default of 400 turns at the default tick.
func TestTheHardeningRulingsNumbers(t *testing.T) {
	if defaultLimits.MaxGuestsPerIP != 2 || defaultLimits.MaxGuests != 50 || defaultLimits.NewKnightsPerHour != 5 {
		t.Errorf("guests %d an address and %d in all, %d new knights an hour; want 2, 50, 5",
			defaultLimits.MaxGuestsPerIP, defaultLimits.MaxGuests, defaultLimits.NewKnightsPerHour)
	}
	if defaultLimits.Limits != edge.DefaultLimits {
		t.Error("the server's edge limits are not the edge's defaults")
	}
	tick := DefaultConfig().Tick
	if chatWindow != 10*time.Second || int(chatWindow/tick) != world.DefaultChatWindowTurns {
		t.Errorf("chat's window %v, %d turns; want 10 s, the engine's %d", chatWindow, chatWindow/tick, world.DefaultChatWindowTurns)
	}
	if int(time.Hour/tick) != world.DefaultHourTurns {
		t.Errorf("an hour is %d turns, the engine's default %d", time.Hour/tick, world.DefaultHourTurns)
	}
}
