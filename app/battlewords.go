package app

import (
	"fmt"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The battle in words, for screen-reader mode: how it stands, the prompt, the statistics
// as sentences, and the typed target.

// monsterWords is one monster of a battle in a sentence: "1, a troll (Giant, level 3), 12
// of 20 hits, your target".
func monsterWords(f *world.FightView, i int, full bool) string {
	mo := f.Monsters[i]
	s := fmt.Sprintf("%d, %s", i+1, english.A(mo.Name))
	if full {
		s += fmt.Sprintf(" (%s, level %d)", mo.Class, mo.Level)
	}
	switch {
	case mo.Dead:
		return s + ", dead"
	case mo.Held:
		s += ", held"
	}
	s += fmt.Sprintf(", %d of %d hits", mo.Hits, mo.MaxHits)
	if i == f.Target {
		s += ", your target"
	}
	return s
}

// heroNames are the other heroes of the battle by name, and the fainted ones (this
// knight included, as "you").
func heroNames(v world.View) (others []string, fainted []string) {
	for _, k := range v.Fight.Knights {
		if k.Name == v.Self.Name {
			if k.Fainted {
				fainted = append(fainted, "you")
			}
			continue
		}
		if k.Fainted {
			fainted = append(fainted, k.Name)
			continue
		}
		others = append(others, fmt.Sprintf("%s (%d of %d hits)", k.Name, k.Hits, k.MaxHits))
	}
	return others, fainted
}

// battleSentence says how a battle stands: who fights whom, each monster's hits and
// which is the knight's target, the fallen and fainted.
func battleSentence(v world.View) string {
	f := v.Fight
	if f == nil {
		return ""
	}
	others, fainted := heroNames(v)
	who := "You"
	if len(others) > 0 {
		who = "You and " + english.List(others)
	}
	where := "a battle"
	if f.Surface {
		where = "a battle on the surface"
	}
	var foes, dead []string
	for i, mo := range f.Monsters {
		if mo.Dead {
			dead = append(dead, fmt.Sprintf("%s (%d)", english.The(mo.Name), i+1))
			continue
		}
		foes = append(foes, monsterWords(f, i, true))
	}
	var s string
	if len(foes) == 0 {
		s = fmt.Sprintf("%s, in %s, have no monster left standing.", who, where)
	} else {
		s = fmt.Sprintf("%s are in %s, round %d, against %s: %s.", who, where, max(1, f.Round),
			english.Count(len(foes), "monster", "monsters"), strings.Join(foes, "; "))
	}
	if len(dead) > 0 {
		s += " Fallen: " + english.List(dead) + "."
	}
	if len(fainted) > 0 {
		s += " Fainted: " + english.List(fainted) + "."
	}
	return s + fmt.Sprintf(" You have %d of %d hits.", v.Self.Hits, v.Self.MaxHits)
}

// battlePrompt is what the knight may do when a battle waits for it, with how the
// battle stands: its target, the other monsters, the fainted.
func battlePrompt(v world.View) string { return battleStanding(v) + " " + promptActions(v) + "." }

// battleStanding is the first part of the move prompt: the knight's target and the other
// monsters with their hits, its own hits and the fainted.
func battleStanding(v world.View) string {
	f := v.Fight
	s := "Your move"
	if foe := f.Foe(); foe != nil {
		s += fmt.Sprintf(": your target is %s (%d), %s", english.The(foe.Name), f.Target+1, english.Count(foe.Hits, "hit", "hits"))
		if foe.Held {
			s += ", held"
		}
		var rest []string
		for i, mo := range f.Monsters {
			if i != f.Target && !mo.Dead {
				rest = append(rest, fmt.Sprintf("%s (%d) %s", english.The(mo.Name), i+1, english.Count(mo.Hits, "hit", "hits")))
			}
		}
		if len(rest) > 0 {
			s += "; also " + english.List(rest)
		}
	}
	s += fmt.Sprintf(". You have %d of %d hits.", v.Self.Hits, v.Self.MaxHits)
	if _, fainted := heroNames(v); len(fainted) > 0 {
		s += " Fainted: " + english.List(fainted) + "."
	}
	return s
}

// promptActions is what the move prompt offers: only what the knight can do now.
func promptActions(v world.View) string {
	do := []string{"f to fight"}
	switch runWay(v) {
	case "run":
		do = append(do, "r to run")
	case "leave":
		do = append(do, "r to walk away from the held monsters")
	}
	if hasArrows(v.Self) {
		do = append(do, "shoot")
	}
	do = append(do, "cast")
	s := "Type " + strings.Join(do[:len(do)-1], ", ") + ", or " + do[len(do)-1]
	if len(do) == 2 {
		s = "Type " + do[0] + " or " + do[1]
	}
	if runWay(v) == "" {
		s += "; there is no running from a room"
	}
	if len(standing(v.Fight)) > 1 {
		s += "; target and a number changes your target"
	}
	return s
}

// statsSentences are every combatant's statistics, as sentences.
func statsSentences(v world.View) []string {
	f := v.Fight
	if f == nil {
		return []string{"You are not in a battle."}
	}
	out := []string{fmt.Sprintf("Battle statistics, round %d. Looking costs no time.", max(1, f.Round))}
	for _, k := range f.Knights {
		name := k.Name
		if k.Name == v.Self.Name {
			name += " (you)"
		}
		s := fmt.Sprintf("%s: level %d, %d of %d hits, %s; Strength %d, Intelligence %d, Constitution %d, Dexterity %d; sword %s, shield %s, armour %s; %s a round; dodges %d%%.",
			name, k.Level, k.Hits, k.MaxHits, english.Count(k.SpellUnits, "spell unit", "spell units"), k.Str, k.Int, k.Con, k.Dex,
			plus(k.Sword), plus(k.Shield), plus(k.Armour), english.Count(k.Blows, "blow", "blows"), k.Dodge)
		if k.Fainted {
			s += " Fainted."
		}
		out = append(out, s)
	}
	for i, mo := range f.Monsters {
		s := fmt.Sprintf("Monster %d, %s: %s of level %d, %d of %d hits; attacks %s for %s; to-hit die d%d; speed %s; dodges %d%%; worth %d experience.",
			i+1, english.The(mo.Name), english.A(mo.Class), mo.Level, mo.Hits, mo.MaxHits,
			timesARound(mo.AttacksPerRound), mo.Attack, mo.Dex, plus(mo.Speed), mo.Dodge, mo.Experience)
		switch {
		case mo.Dead:
			s += " Dead."
		case mo.Held:
			s += " Held: it does not fight back."
		}
		if i == f.Target && !mo.Dead {
			s += " Your target."
		}
		out = append(out, s)
	}
	return out
}

// timesARound is "once a round", "twice a round", "3 times a round".
func timesARound(n int) string {
	switch n {
	case 1:
		return "once a round"
	case 2:
		return "twice a round"
	}
	return fmt.Sprintf("%d times a round", n)
}

// targetArg reads the monster a typed target names: its number (1 is the first), its
// letter, or the start of its name (the first standing one that matches).
func targetArg(f *world.FightView, arg string) (int, bool) {
	arg = strings.ToLower(strings.TrimSpace(arg))
	if arg == "" {
		return 0, false
	}
	var n int
	if _, err := fmt.Sscan(arg, &n); err == nil && fmt.Sprint(n) == arg {
		return n - 1, n >= 1 && n <= len(f.Monsters)
	}
	if len(arg) == 1 && arg[0] >= 'a' && int(arg[0]-'a') < len(f.Monsters) {
		return int(arg[0] - 'a'), true
	}
	arg = strings.TrimPrefix(strings.TrimPrefix(arg, "the "), "a ")
	for _, dead := range []bool{false, true} {
		for i, mo := range f.Monsters {
			if mo.Dead == dead && strings.HasPrefix(strings.ToLower(mo.Name), arg) {
				return i, true
			}
		}
	}
	return 0, false
}

// plainTarget is the typed target command.
func (m *Model) plainTarget(rest string) {
	f := m.view.Fight
	if f == nil {
		m.say("You are not in a battle.")
		return
	}
	if rest == "" {
		to, ok := nextTarget(f, f.Target, 1)
		if !ok {
			m.say("Only one monster stands: it is your target. Type target and a number to choose another when there are more.")
			return
		}
		m.setTarget(to)
		m.say(fmt.Sprintf("Your target is now %s.", monsterWords(f, to, false)))
		return
	}
	i, ok := targetArg(f, rest)
	switch {
	case !ok:
		m.say(fmt.Sprintf("There is no monster %q in this battle. Type stats for the list.", world.CleanText(rest, 30)))
	case f.Monsters[i].Dead:
		m.say(fmt.Sprintf("%s is dead already.", english.Capital(english.The(f.Monsters[i].Name))))
	case i == f.Target:
		m.say(fmt.Sprintf("%s is your target already.", english.Capital(english.The(f.Monsters[i].Name))))
	default:
		m.setTarget(i)
		m.say(fmt.Sprintf("Your target is now %s.", monsterWords(f, i, false)))
	}
}
