package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Screen-reader mode's help by topic, because the whole help is minutes of listening
// and a question about fighting should not say all of it. help alone names the topics
// and ten commands to start with; help and a topic says that part of the knight's lesson
// in sentences and then the words of the topic, read from the words' own rows (their
// plainTopic), so the help and the words cannot part. help all is every word.

// helpTopic is one topic of the help.
type helpTopic struct {
	names  []string     // what may follow help, the first the one the index says
	words  []plainTopic // the words' topics it lists
	rows   []string     // and the words of these rows (by their first word) besides
	lesson func(v world.View) []string
}

// helpTopics are the topics, in the order the index names them.
var helpTopics = []helpTopic{
	{names: []string{"walking", "walk", "moving"}, words: []plainTopic{topicWalking}, lesson: func(world.View) []string {
		return []string{"The dungeon is a grid of squares. Walls and doors lie between squares, not on them. Each step tells you where you stand and what you see; look tells it again, with everything in sight."}
	}},
	{names: []string{"fighting", "fight", "combat", "battle"}, words: []plainTopic{topicFighting}, lesson: func(world.View) []string {
		return []string{
			"Rooms hold monsters guarding treasure; stepping into one starts a fight, and a wanderer may attack you anywhere.",
			"In a fight you hit when a die with as many sides as your Dexterity rolls over 6; your sword's plus and your Strength add to the damage. A knight fighting alone is never hurried: the monster waits for your move.",
			"You may run only in corridors, never out of a room, and each try fails more often. Death is final.",
		}
	}},
	{names: []string{"spells", "spell", "magic", "casting"}, rows: []string{"cast", "spells"}, lesson: func(v world.View) []string {
		return spellsText(v, 0)
	}},
	{names: []string{"doors", "door"}, rows: []string{"open"}, lesson: func(world.View) []string {
		return []string{
			"Doors lie between squares. Walk through a plain door with open and its direction.",
			"Locked doors lead into rooms: open forces one, and your Strength decides whether it gives; each try costs a move.",
			"Secret doors look like walls, though one in six is a wall marked with a box. Open in the direction of a wall searches it, and a secret door found stays on your map. The Light spell shows them.",
		}
	}},
	{names: []string{"traps", "trap"}, lesson: func(world.View) []string {
		return []string{
			"Traps are hidden until they go off, or until the Light or Find Traps spell shows them; a known trap is told when you see it, and map lists them. You avoid a hidden trap about half the time.",
			"The nine traps are the spider web, the stun, the pendulum, the strangle weed, the poison needle, the sleeping gas, the bear trap, the flying spear and teleportation; some hold you for a while, some wound you.",
			"A chute drops you one or more levels and a pit hurts you; levitation floats over both.",
		}
	}},
	{names: []string{"monsters", "monster"}, lesson: monsterSentences},
	{names: []string{"party", "parties", "group"}, words: []plainTopic{topicParties}, lesson: func(world.View) []string {
		return []string{"A party fights together: members on your square share your battles, and the experience and treasure. One who falls while another stands faints, and comes to if the party wins."}
	}},
	{names: []string{"talking", "talk", "chat"}, words: []plainTopic{topicTalking}},
	{names: []string{"map", "maps", "finding"}, words: []plainTopic{topicLooking}, lesson: func(world.View) []string {
		return []string{"Your map keeps every square you have seen on each level. map says what is on it, from where you stand; map grid draws it in characters, with a legend."}
	}},
	{names: []string{"things", "items", "inventory"}, words: []plainTopic{topicThings}},
	{names: []string{"outside", "surface", "market"}, words: []plainTopic{topicOutside}, rows: []string{"down", "retire"}, lesson: func(world.View) []string {
		return []string{
			"Outside the dungeon is the surface, a land of 8 by 8 spaces around the dungeon entrance. north, south, east and west walk it a space at a time; look says where you stand and what is around, map the whole surface, way and where the way to the entrance.",
			"Common ground is dangerous: one step in six on it meets a band of monsters, one for each knight of your party, and there you may run. The markets never start a battle; on one, market lists its wares and your things with numbers, to buy or sell.",
			"Gems and jewelry carried out of the dungeon sell for gold. down at the entrance goes back into the dungeon; retire, anywhere outside, retires your knight into the hall of fame.",
		}
	}},
	{names: []string{"others", "other", "settings"}, words: []plainTopic{topicOthers}},
}

// startWords are the ten commands the help's index names first.
var startWords = []string{"look", "north, south, east or west", "open east", "status", "map", "fight", "run", "inventory", "say TEXT", "quit"}

// helpIndex is help alone: the topics and the commands to start with, in under 80 words.
func helpIndex() string {
	var names []string
	for _, t := range helpTopics {
		names = append(names, t.names[0])
	}
	return "Type help and a topic: " + english.List(names) + ". To start: " + strings.Join(startWords, "; ") +
		". help all says every command."
}

// topicHelp is help and a topic: its lesson, then its words. ok is false for no topic.
func topicHelp(name string, v world.View) (out []string, ok bool) {
	name = strings.ToLower(name)
	i := slices.IndexFunc(helpTopics, func(t helpTopic) bool { return slices.Contains(t.names, name) })
	if i < 0 {
		return nil, false
	}
	t := helpTopics[i]
	if t.lesson != nil {
		out = t.lesson(v)
	}
	var said []string
	for _, r := range plainWords {
		if r.when&playing != 0 && (slices.Contains(t.words, r.topic) || len(r.words) > 0 && slices.Contains(t.rows, r.words[0])) {
			said = append(said, r.helpSentence())
		}
	}
	if len(said) > 0 {
		out = append(out, "Commands: "+strings.Join(said, " "))
	}
	return out, true
}

// monsterSentences are help monsters: the classes, what the knight's level holds, and
// how to hear more, in a few sentences (the whole table, names and numbers, was 664
// words, near five minutes of speech at 175 words a minute).
func monsterSentences(v world.View) []string {
	var cs []string
	for c := world.MonsterClass(0); c < world.NumMonsterClasses; c++ {
		cs = append(cs, c.String())
	}
	out := []string{fmt.Sprintf("Eight classes of monsters live in the dungeon: %s.", english.List(cs))}
	d := min(max(v.Self.Depth, 1), len(world.MonsterLevelOdds)) - 1
	var ls []string
	for ml, pc := range world.MonsterLevelOdds[d] {
		if pc > 0 {
			ls = append(ls, fmt.Sprintf("level %d %d%%", ml+1, pc))
		}
	}
	out = append(out, fmt.Sprintf("On dungeon level %d the monsters met are of %s.", d+1, english.List(ls)))
	return append(out, "help monsters and a class (help monsters undead) names its monsters; help monster and a name (help monster giant ant) gives one's numbers.")
}

// monsterClassSentences are one class's monsters by name and level, or nil for no
// such class.
func monsterClassSentences(class string) []string {
	for c := world.MonsterClass(0); c < world.NumMonsterClasses; c++ {
		if !strings.EqualFold(strings.ReplaceAll(c.String(), " ", ""), strings.ReplaceAll(class, " ", "")) {
			continue
		}
		var ms []string
		for _, k := range world.Monsters {
			if k.Class == c {
				ms = append(ms, fmt.Sprintf("%s (level %d)", k.Name, k.Level))
			}
		}
		return []string{fmt.Sprintf("%s: %s. help monster and a name gives one's numbers.", english.Capital(c.String()), strings.Join(ms, ", "))}
	}
	return nil
}

// oneMonsterSentences are one monster's row of the table as a sentence, or nil for no
// monster of that name.
func oneMonsterSentences(name string) []string {
	for _, k := range world.Monsters {
		if strings.EqualFold(strings.ReplaceAll(k.Name, " ", ""), strings.ReplaceAll(name, " ", "")) {
			return []string{fmt.Sprintf("%s, %s: level %d, hit dice %s, attack %s, Dexterity %d, %d experience, speed %+d, %s.",
				k.Name, k.Class, k.Level, k.HitDice, k.AttackDice, k.Dex, k.Experience, k.Speed, english.Count(k.AttacksPerRound, "attack a round"))}
		}
	}
	return nil
}
