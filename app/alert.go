package app

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Alerts (DESIGN §12, "Alerts"): a call to the knight rings the terminal's bell (BEL) and
// marks the status line, when the knight would not see it otherwise. The calls are a
// whisper to it, its name said by another knight (aloud, shouted, on a channel or to the
// party: the whole name, as a word, in any case), an invitation into a party or a request
// to join its own, and a battle held up for its move; with the bell set to all, every
// line another knight says to it too.
//
// A call rings when the screen in front of the player does not show it, or when no key
// has come for AlertIdle: a call's line shows on the dungeon screen, the screens over it
// (the questions), the market and the message log, and a battle on the dungeon screen and
// its statistics. The mark, "(!) whisper from Lis", is the first field of the status
// line until the player opens the message log or presses a key on a screen with the
// status line (the dungeon, the market): the first key after it shows. Screen-reader
// mode writes no bell (a screen reader may read the byte out, or nothing at all): a line
// that calls the knight is said with "Alert: " before it, and a battle held up for it is
// said in a line of its own.
//
// Alert tuning:
//
//	constant    value   effect
//	BellGap     5 s     the least time between two bells: a burst of whispers rings once;
//	                    the mark still names the newest call
//	AlertIdle   30 s    no key for this long and a call rings even on the screen that
//	                    shows it (the player may have looked away); a battle's grace
//	                    (30 s) is the same, so a knight that has played within it sees
//	                    its battle waiting
const (
	// BellGap is the least time between two bells of a session.
	BellGap = 5 * time.Second
	// AlertIdle is how long a session goes without a key before a call rings even where
	// it shows.
	AlertIdle = 30 * time.Second
)

// The values of world.Options.Bell: what rings the bell.
const (
	bellMentions = ""    // whispers, mentions, party invitations and requests, battles
	bellAll      = "all" // those and every line another knight says to the knight
	bellOff      = "off" // nothing
)

// bellChoices are the bell's settings in the order the options screen cycles through
// them, with the word /bell takes (the options' row says it) and what each rings.
var bellChoices = []struct{ key, word, says string }{
	{bellMentions, "mentions", "for whispers, your name, invitations and battles"},
	{bellAll, "all", "for every line said to you, and those"},
	{bellOff, "off", "for nothing"},
}

// callKind is what calls the knight: a row of callKinds.
type callKind uint8

const (
	callWhisper callKind = iota
	callMention
	callInvite
	callAsk
	callBattle
	callTalk // a line another knight says, naming it or not
	numCallKinds
)

// callRow is what the session does with one kind of call.
type callRow struct {
	// mark is the status line's mark for a call from a knight (the battle's has none).
	mark func(from string) string
	// everyBell says the call rings with the bell at mentions; otherwise only at all.
	everyBell bool
	// battle says the call shows where a battle shows, not where the messages do.
	battle bool
}

// callKinds are the calls, by kind.
var callKinds = [numCallKinds]callRow{
	callWhisper: {mark: func(n string) string { return "whisper from " + n }, everyBell: true},
	callMention: {mark: func(n string) string { return n + " named you" }, everyBell: true},
	callInvite:  {mark: func(n string) string { return "invitation from " + n }, everyBell: true},
	callAsk:     {mark: func(n string) string { return n + " asks to join" }, everyBell: true},
	callBattle:  {mark: func(string) string { return "the battle waits for you" }, everyBell: true, battle: true},
	callTalk:    {mark: func(n string) string { return n + " spoke" }},
}

// markPrefix starts the status line's mark; alertPrefix starts a calling line in
// screen-reader mode.
const (
	markPrefix  = "(!) "
	alertPrefix = "Alert: "
)

// call is one call to the knight: its kind, who made it, and the number of the message
// that is it (a view's Said counting), 0 for a battle.
type call struct {
	kind callKind
	from string
	said uint64
}

// alertState is the session's alerts. It is part of the Model.
type alertState struct {
	said     uint64    // the newest message read for calls
	started  bool      // said is set: a view of the knight has come
	round    int       // the battle round the knight was last called to, 0 for none
	lastKey  time.Time // when the player last pressed a key (or pasted)
	lastBell time.Time // when the bell last rang
	ring     bool      // a bell waits to be written (View)
	mark     string    // the status line's mark, "" for none
	// alerted are the messages screen-reader mode says with alertPrefix, by number;
	// battle says it is to say the battle waits for the knight's move, after the view's
	// own lines.
	alerted []uint64
	battle  bool
}

// callIn reads a line of the message log of kind k as a call to the knight named self,
// if it is one. The world writes every line another knight says as "NAME says: TEXT"
// (shouts, whispers), "[CHANNEL] NAME: TEXT" or "NAME (party): TEXT", and no knight's
// name holds a colon, so the first ": " ends who spoke and no text said can pass for it.
func callIn(line string, k world.MsgKind, self string) (callKind, string, bool) {
	head, text, ok := strings.Cut(line, ": ")
	if !ok {
		if k == world.MsgParty {
			for _, r := range []struct {
				kind callKind
				says string
			}{{callInvite, " invites you to join the party. ("}, {callAsk, " asks to join your party. ("}} {
				if from, _, ok := strings.Cut(line, r.says); ok && !strings.ContainsAny(from, "(:") {
					return r.kind, from, true
				}
			}
		}
		return 0, "", false
	}
	var from string
	switch k {
	case world.MsgWhisper:
		if from, ok = strings.CutSuffix(head, " whispers"); ok {
			return callWhisper, from, true
		}
		return 0, "", false
	case world.MsgGame:
		from, ok = strings.CutSuffix(head, " says")
		if !ok {
			from, ok = strings.CutSuffix(head, " shouts")
		}
	case world.MsgParty:
		from, ok = strings.CutSuffix(head, " (party)")
	case world.MsgChannel:
		if strings.HasPrefix(head, "[") {
			_, from, ok = strings.Cut(head, "] ")
		}
	default:
		ok = false
	}
	if !ok || from == "" || strings.EqualFold(from, self) { // the knight's own line on a channel
		return 0, "", false
	}
	if mentions(text, self) {
		return callMention, from, true
	}
	return callTalk, from, true
}

// mentions reports whether text has name in it as a whole word (or words), in any case:
// "Kay," and "kay's" name Kay; "Kaye" and "Okay" do not. It reads the text in place, a
// rune at a time, as the same text and name lowered (strings.ToLower) would compare: a
// copy of every line read for calls was most of what a crowd's talk cost a session.
func mentions(text, name string) bool {
	if name == "" {
		return false
	}
	for at := 0; at < len(text); {
		if n, ok := lowerPrefix(text[at:], name); ok && !wordBefore(text, at) && !wordAfter(text, at+n) {
			return true
		}
		if text[at] < utf8.RuneSelf {
			at++
		} else {
			_, size := utf8.DecodeRuneInString(text[at:])
			at += size
		}
	}
	return false
}

// lowerPrefix reports whether s starts with name, rune for rune in lower case, and how
// many bytes of s that takes. Lowering maps each rune to one rune (and a byte that is no
// UTF-8 to U+FFFD, as decoding it does), so a match of the lowered strings is one of as
// many runes in each.
func lowerPrefix(s, name string) (int, bool) {
	i := 0
	for _, want := range name {
		if i >= len(s) {
			return 0, false
		}
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if r != want && unicode.ToLower(r) != unicode.ToLower(want) {
			return 0, false
		}
		i += size
	}
	return i, true
}

// wordBefore and wordAfter report whether a letter or digit stands just before or just
// after byte i of s: a name found there is part of a longer word.
func wordBefore(s string, i int) bool {
	r, n := utf8.DecodeLastRuneInString(s[:i])
	return n > 0 && wordRune(r)
}

func wordAfter(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	return n > 0 && wordRune(r)
}

// wordRune reports whether r, lowered as mentions reads it, is a letter or a digit.
func wordRune(r rune) bool {
	r = unicode.ToLower(r)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// calls hands each to the calls in v since what was read before: its new messages, and
// its battle waiting for the knight's move in a round not called before. The first view
// of a knight reads none of its messages: what was said before it came is old news. It
// makes nothing: a crowd's talk is a view a line, on every session near it.
func (m *Model) calls(v *world.View, each func(call)) {
	a := &m.alert
	if !a.started || v.Said < a.said {
		a.started, a.said = true, v.Said
	}
	if n := min(int(v.Said-a.said), v.Log.Len()); n > 0 {
		first := v.Said - uint64(n) + 1 // the number of the first new message
		for i := range n {
			j := v.Log.Len() - n + i
			if k, from, ok := callIn(v.Log.Line(j), v.Log.Kind(j), v.Self.Name); ok {
				each(call{kind: k, from: from, said: first + uint64(i)})
			}
		}
	}
	a.said = v.Said
	// The battle waits for this knight while it holds up other heroes (GraceLeft counts
	// down only then): once a round.
	if f := v.Fight; f == nil {
		a.round = 0
	} else if f.YourMove && f.GraceLeft > 0 && f.Round+1 != a.round {
		a.round = f.Round + 1
		each(call{kind: callBattle})
	}
}

// alertOn takes the calls in a new view of the knight: each the bell's setting lets
// through and the player would not see marks the status line (or, in screen-reader mode,
// is said as an alert), and the first rings the bell unless it rang within BellGap.
func (m *Model) alertOn(v *world.View) {
	a := &m.alert
	a.alerted = a.alerted[:0]
	m.calls(v, func(c call) {
		row := callKinds[c.kind]
		if m.opts.Bell == bellOff || (!row.everyBell && m.opts.Bell != bellAll) || m.seesCall(row) {
			return
		}
		now := m.now()
		if m.pl.active {
			if c.said > 0 {
				a.alerted = append(a.alerted, c.said)
			} else {
				a.battle = true
			}
			return
		}
		a.mark = markPrefix + row.mark(c.from)
		if a.lastBell.IsZero() || now.Sub(a.lastBell) >= BellGap {
			a.lastBell, a.ring = now, true
		}
	})
}

// seesCall reports whether the player sees a call of row now: it pressed a key within
// AlertIdle, and the screen it is on shows the call (screen-reader mode says every line
// of its own knight's, but while it watches another).
func (m *Model) seesCall(row callRow) bool {
	if m.now().Sub(m.alert.lastKey) >= AlertIdle {
		return false
	}
	s := m.screen
	switch {
	case m.pl.active:
		return s != screenWatch
	case s == screenPlay || screens[s].ask != "":
		return true
	case row.battle:
		return s == screenStats
	}
	return s == screenLog || s == screenMarket
}

// sayBattleAlert says, in screen-reader mode, that the battle waits for the knight's move,
// once the view's lines and its move's prompt are said.
func (m *Model) sayBattleAlert() {
	if m.alert.battle {
		m.alert.battle = false
		m.say(alertPrefix + "the battle waits for your move.")
	}
}

// alertKey notes a key the player pressed (or a paste), on the screen it was pressed on:
// the player is at the keys, and a key where the status line shows has shown its mark.
func (m *Model) alertKey() {
	m.alert.lastKey = m.now()
	if s := m.screen; m.pl.active || s == screenPlay || s == screenMarket || screens[s].ask != "" {
		m.alert.mark = ""
	}
}

// alertLooked clears the mark once the player looks at the message log.
func (m *Model) alertLooked() {
	if m.screen == screenLog {
		m.alert.mark = ""
	}
}

// alertLine is a line of the knight's messages, numbered said, as screen-reader mode says
// it: with alertPrefix when it calls the knight.
func (m *Model) alertLine(said uint64, line string) string {
	for _, n := range m.alert.alerted {
		if n == said {
			return alertPrefix + line
		}
	}
	return line
}

// statusMark is the mark the status line shows for the knight's own view: none while it
// watches another knight.
func (m *Model) statusMark() string {
	if m.screen == screenWatch {
		return ""
	}
	return m.alert.mark
}

// bellChoice is the row of bellChoices of a setting (an unknown one is the default's).
func bellChoice(key string) int {
	for i, c := range bellChoices {
		if c.key == key {
			return i
		}
	}
	return 0
}

// setBell sets the bell from a word of /bell (all, mentions, off), or says it without one.
func (m *Model) setBell(word string) string {
	word = strings.ToLower(strings.TrimSpace(word))
	if word == "" {
		return "The bell rings " + bellChoices[bellChoice(m.opts.Bell)].says + ". /bell all, /bell mentions or /bell off changes it."
	}
	for _, c := range bellChoices {
		if c.word == word || (c.key == bellMentions && word == "on") {
			o := m.opts.Clone()
			o.Bell = c.key
			m.setOptions(o)
			if c.key == bellOff {
				return "The bell is off: nothing rings it."
			}
			return "The bell rings " + c.says + ", when you are on another screen or away from the keys."
		}
	}
	return "The bell is all, mentions or off: /bell mentions rings for whispers, your name, invitations and battles."
}
