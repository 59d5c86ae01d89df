package world

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Talk across realms: a realm is one server of several that share the knights;
// shouts, channel lines and whispers reach knights wherever they play. The world knows
// nothing of how: it hands the lines that leave to CommunityConfig.Abroad (the server's
// talk bus, realm/talk), and the bus hands it what other realms said (HearFar), which
// knights play where (SetPresence) and how a whisper sent away was taken (WhisperAnswered).
// Without Abroad the world is one server alone, as it always was.
//
// A line from another realm is told as a local one would be, the speaker's name marked
// with its realm: "Kay (in Avalon) shouts: …", "Kay (in Avalon) whispers: …",
// "[ooc] Kay (in Avalon): …"; the speaker reads "You whisper to Gawain (in Avalon): …".
// Its text, names and realm are cleaned again here (CleanText), whoever cleaned them
// before: no realm trusts another's bytes.

// MaxRealmName caps a realm's name (it is a word of the bus's subjects, too).
const MaxRealmName = 32

// FarLine is a line of talk that crosses realms.
type FarLine struct {
	Kind ChatKind // ChatShout, ChatChannel or ChatWhisper (a reply is a whisper)
	// Realm is the realm it was said in (the bus sets it on the way out), ToRealm the
	// realm a whisper is for.
	Realm, ToRealm string
	From, FromID   string // the speaker's name and knight id (Adventurer.ID, one in every realm)
	// To is a whisper's knight (ToID its id, from presence) or a channel line's channel.
	To, ToID string
	Text     string
	// Deed is set on a channel line that tells of a rare deed From earned (its id, on
	// newbie): the realm that hears it tells it in its own words from its own deeds'
	// table, so another realm can name a deed but not word it. Text is how the sending
	// realm said it.
	Deed string
}

// FarStatus is what became of a whisper sent to another realm.
type FarStatus uint8

// The whisper's fates.
const (
	FarDelivered   FarStatus = iota // the knight had it (or mutes the speaker, which looks the same)
	FarNotThere                     // the realm answered, but the knight no longer plays there
	FarUnreachable                  // the realm did not answer
	FarDropped                      // the bus had no room for it
)

// FarAnswer is what a whisper sent away came to, as the realm it went to answers.
type FarAnswer struct {
	Status     FarStatus
	Away       bool   // the knight said it is away
	AwayReason string // and why
}

// FarKnight is a knight that plays in another realm, as that realm's presence says: what
// the who-list shows of it, and its id, which a whisper carries.
type FarKnight struct {
	Realm, Name, ID string
	Level           int
	IdleSeconds     int
	Away            bool
	AwayReason      string
	Guest           bool
}

// Abroad takes the lines that leave the realm (the talk bus). Send is called from the
// engine goroutine and must not block: a bus without room drops the line (and answers a
// whisper FarDropped through WhisperAnswered).
type Abroad interface {
	Send(l FarLine)
}

// cleanFar cleans what another realm sent, as any player's text is.
func cleanFar(l FarLine) FarLine {
	l.Realm, l.ToRealm = CleanText(l.Realm, MaxRealmName), CleanText(l.ToRealm, MaxRealmName)
	l.From, l.To = CleanText(l.From, MaxNameLen), CleanText(l.To, MaxNameLen)
	l.FromID, l.ToID = CleanText(l.FromID, maxIDRunes), CleanText(l.ToID, maxIDRunes)
	l.Text = CleanText(l.Text, MaxChatRunes)
	l.Deed = CleanText(l.Deed, maxIDRunes)
	return l
}

// maxIDRunes caps a knight's id from afar (a key's fingerprint is 50 characters).
const maxIDRunes = 100

// farName is a speaker's name marked with its realm.
func farName(name, realm string) string { return name + " (in " + realm + ")" }

// abroad is the bus, or nil when the realm is alone.
func (e *Engine) abroad() Abroad { return e.cfg.Community.Abroad }

// sendAbroad hands a line of p's to the bus, if there is one.
func (e *Engine) sendAbroad(p *player, l FarLine) {
	if a := e.abroad(); a != nil {
		l.From, l.FromID = p.rec.Name, p.rec.ID
		a.Send(l)
	}
}

// --- presence ---------------------------------------------------------------------------

type presenceReq struct {
	realm   string
	knights []FarKnight
}

// SetPresence says which knights play in the realm now, replacing what was known of it;
// none: the realm is gone (or empty). Names and reasons are cleaned here.
func (e *Engine) SetPresence(ctx context.Context, realm string, knights []FarKnight) error {
	realm = CleanText(realm, MaxRealmName)
	ks := make([]FarKnight, 0, len(knights))
	for _, k := range knights {
		k.Realm, k.Name = realm, CleanText(k.Name, MaxNameLen)
		k.ID, k.AwayReason = CleanText(k.ID, maxIDRunes), CleanText(k.AwayReason, MaxAwayRunes)
		if k.Name != "" && k.ID != "" {
			ks = append(ks, k)
		}
	}
	return e.send(ctx, presenceReq{realm, ks})
}

func (m presenceReq) handle(e *Engine) {
	if e.soc.far == nil {
		e.soc.far = map[string][]FarKnight{}
	}
	if len(m.knights) == 0 {
		delete(e.soc.far, m.realm)
		return
	}
	e.soc.far[m.realm] = m.knights
	for _, k := range m.knights {
		// Letters reach a knight made in another realm after this one started: its name
		// is one across realms (etcd claims it), so the presence names it rightly.
		if !k.Guest {
			e.soc.known[NameKey(k.Name)] = KnownKnight{ID: k.ID, Name: k.Name}
		}
	}
}

// FarWho lists the knights that play in other realms, by realm name, each realm's in the
// order its presence gave them.
func (e *Engine) FarWho(ctx context.Context) ([]FarKnight, error) {
	var out []FarKnight
	err := e.query(ctx, func() {
		for _, r := range slices.Sorted(maps.Keys(e.soc.far)) {
			out = append(out, e.soc.far[r]...)
		}
	})
	return out, err
}

// farNamed is the knight of another realm with the name (any case), or nil; a knight
// online here is never far (presence may be behind a knight that moved).
func (e *Engine) farNamed(name string) *FarKnight {
	if e.abroad() == nil || e.online(name) != nil {
		return nil
	}
	return e.farWhere(func(k *FarKnight) bool { return strings.EqualFold(k.Name, name) })
}

// farByID is the knight of another realm with the id, or nil.
func (e *Engine) farByID(id string) *FarKnight {
	if e.abroad() == nil || id == "" || e.players[id] != nil {
		return nil
	}
	return e.farWhere(func(k *FarKnight) bool { return k.ID == id })
}

// farWhere is the first far knight, by realm name, that ok takes.
func (e *Engine) farWhere(ok func(*FarKnight) bool) *FarKnight {
	for _, r := range slices.Sorted(maps.Keys(e.soc.far)) {
		for i := range e.soc.far[r] {
			if k := &e.soc.far[r][i]; ok(k) {
				c := *k
				return &c
			}
		}
	}
	return nil
}

// --- whispers going out -----------------------------------------------------------------

// farWhisperee is whisperee for the knights of other realms: the knight named to, or the
// one whose name starts text, and the rest; nil when there is none.
func (e *Engine) farWhisperee(to, text string) (*FarKnight, string) {
	if e.abroad() == nil || len(e.soc.far) == 0 {
		return nil, ""
	}
	name, rest := splitAddressee(to, text, func(n string) bool { return e.farNamed(n) != nil })
	if name == "" {
		return nil, ""
	}
	return e.farNamed(name), rest
}

// whisperFar sends p's whisper to a knight of another realm; how it went comes back by
// WhisperAnswered.
func (e *Engine) whisperFar(p *player, to *FarKnight, text string) {
	e.tell(p, MsgWhisper, fmt.Sprintf("You whisper to %s: %s", farName(to.Name, to.Realm), text))
	e.sendAbroad(p, FarLine{Kind: ChatWhisper, ToRealm: to.Realm, To: to.Name, ToID: to.ID, Text: text})
}

type answeredReq struct {
	line FarLine
	ans  FarAnswer
}

// WhisperAnswered tells the knight who sent a whisper away (l.FromID) what came of it,
// when there is something to tell: the knight is away, no longer there, or the realm did
// not answer.
func (e *Engine) WhisperAnswered(ctx context.Context, l FarLine, a FarAnswer) error {
	l = cleanFar(l)
	a.AwayReason = CleanText(a.AwayReason, MaxAwayRunes)
	return e.send(ctx, answeredReq{l, a})
}

func (m answeredReq) handle(e *Engine) {
	p := e.players[m.line.FromID]
	if p == nil {
		return
	}
	if note := answerNote(m.line, m.ans); note != "" {
		e.tell(p, MsgWhisper, note)
		e.publish()
	}
}

// answerNote is what a whisperer is told of its whisper's fate, or "".
func answerNote(l FarLine, a FarAnswer) string {
	switch a.Status {
	case FarNotThere:
		return fmt.Sprintf("%s is no longer in %s: your whisper was not delivered.", l.To, l.ToRealm)
	case FarUnreachable:
		return fmt.Sprintf("%s, where %s plays, does not answer: your whisper was not delivered.", l.ToRealm, l.To)
	case FarDropped:
		return fmt.Sprintf("Too much talk between the realms just now: your whisper to %s was not delivered.", l.To)
	case FarDelivered:
		if a.Away && a.AwayReason != "" {
			return fmt.Sprintf("%s is away: %s.", l.To, a.AwayReason)
		}
		if a.Away {
			return l.To + " is away."
		}
	}
	return ""
}

// --- lines coming in --------------------------------------------------------------------

type farReq struct {
	line  FarLine
	reply chan FarAnswer
}

// HearFar gives the world a line said in another realm: a shout for everyone, a channel
// line for the channel's knights, a whisper for its knight, whose answer it returns. Its
// text and names are cleaned here; a line from a knight silenced here, or with nothing
// printable left, is dropped.
func (e *Engine) HearFar(ctx context.Context, l FarLine) (FarAnswer, error) {
	m := farReq{cleanFar(l), make(chan FarAnswer, 1)}
	if err := e.send(ctx, m); err != nil {
		return FarAnswer{}, err
	}
	select {
	case a := <-m.reply:
		return a, nil
	case <-ctx.Done():
		return FarAnswer{}, ctx.Err()
	case <-e.done:
		return FarAnswer{}, ErrStopped
	}
}

func (m farReq) handle(e *Engine) {
	m.reply <- e.hearFar(m.line)
	e.publish()
}

// hearFar tells the line to those it is for and keeps it as a local line is kept.
func (e *Engine) hearFar(l FarLine) FarAnswer {
	if l.Text == "" || l.From == "" || l.Realm == "" {
		return FarAnswer{}
	}
	if l.Deed != "" { // the realm's own announcement, not the knight's speech: no silence stops it
		e.hearFarDeed(l)
		return FarAnswer{}
	}
	if e.farSilenced(l.FromID) {
		return FarAnswer{}
	}
	switch l.Kind {
	case ChatWhisper:
		return e.hearFarWhisper(l)
	case ChatShout:
		e.hearFarShout(l)
	case ChatChannel:
		e.hearFarChannel(l)
	}
	return FarAnswer{}
}

// farSilenced reports whether a far speaker is silenced here too (a silence travels as
// a moderation event; a line sent before it arrived is dropped here).
func (e *Engine) farSilenced(id string) bool {
	s, ok := e.soc.silenced[id]
	return ok && e.turn < s.until
}

func (e *Engine) hearFarWhisper(l FarLine) FarAnswer {
	q := e.players[l.ToID]
	if q == nil {
		q = e.online(l.To)
	}
	if q == nil {
		return FarAnswer{Status: FarNotThere}
	}
	if !q.rec.Options.Mutes(l.From) {
		e.tell(q, MsgWhisper, farName(l.From, l.Realm)+" whispers: "+l.Text)
		q.soc.replyTo, q.soc.replyName = l.FromID, l.From
	}
	e.keepFar(l, "whisper", q.rec.ID, farName(l.From, l.Realm)+" whispers: "+l.Text)
	return FarAnswer{Away: q.soc.away, AwayReason: q.soc.awayReason}
}

func (e *Engine) hearFarShout(l FarLine) {
	line := farName(l.From, l.Realm) + " shouts: " + l.Text
	for _, q := range e.order {
		if !q.rec.Options.Mutes(l.From) {
			e.hear(q, line)
		}
	}
	e.keepFar(l, "shout", "", line)
}

func (e *Engine) hearFarChannel(l FarLine) {
	ch := ChannelNamed(l.To)
	if ch == nil {
		return
	}
	line := channelLine(ch, farName(l.From, l.Realm), l.Text)
	e.hearOnChannel(ch, nil, l.From, line)
	e.keepFar(l, ch.Name, "", line)
}

// hearFarDeed tells the knights on newbie of a rare deed earned in another realm, as
// one earned here is told (earn), the knight's name marked with its realm. A deed this
// realm does not know, one not rare, or one told on another channel is dropped.
func (e *Engine) hearFarDeed(l FarLine) {
	newbie := &Channels[0]
	r, ok := DeedByID(l.Deed)
	if !ok || !r.Rare || l.Kind != ChatChannel || l.To != newbie.Name {
		return
	}
	e.hearOnChannel(newbie, nil, l.From, "["+newbie.Name+"] "+r.saidOf(farName(l.From, l.Realm), l.From))
}

// keepFar keeps a line from another realm as keep keeps a local one: for reports, and a
// channel's for its history.
func (e *Engine) keepFar(l FarLine, where, to, line string) {
	e.soc.lineSeq++
	k := keptLine{seq: e.soc.lineSeq, turn: e.turn, speaker: NameKey(l.From), speakerID: l.FromID,
		name: l.From, where: where, to: to, line: line}
	if where == "whisper" {
		e.soc.whispers = append(e.soc.whispers, k)
		return
	}
	if ch := ChannelNamed(where); ch != nil {
		e.keepOnChannel(ch, k)
	}
	e.keepPublic(k)
}

// --- letters from other realms ----------------------------------------------------------

type mailboxReq struct {
	id      string
	letters []Letter
	applied func([]Letter)
}

// SetMail replaces the mailbox of knight id with what another realm wrote (the letters
// are kept where every realm reads them): the knight, if it plays here, is told of each
// letter that came. It is not handed back to the Archive, which it came from; applied,
// when set, is called on the world's goroutine with the letters as kept (cleaned) once
// the mailbox is replaced, so the Archive knows which of its PutMail calls came after (a
// letter gone from a later one was deleted here). It must not keep or change them.
func (e *Engine) SetMail(ctx context.Context, id string, letters []Letter, applied func([]Letter)) error {
	ls := make([]Letter, len(letters))
	for i, l := range letters {
		ls[i] = Letter{From: CleanText(l.From, MaxNameLen), To: CleanText(l.To, MaxNameLen),
			Text: CleanText(l.Text, MaxLetterRunes), Sent: l.Sent, Read: l.Read}
	}
	return e.send(ctx, mailboxReq{id, ls, applied})
}

func (m mailboxReq) handle(e *Engine) {
	p := e.players[m.id]
	before := 0
	if p != nil {
		before = e.unread(p)
	}
	for i := range m.letters {
		e.soc.nextLetter++
		m.letters[i].ID = e.soc.nextLetter
	}
	if len(m.letters) == 0 {
		delete(e.soc.mail, m.id)
	} else {
		e.soc.mail[m.id] = m.letters
	}
	if m.applied != nil {
		m.applied(m.letters)
	}
	if p == nil || e.unread(p) <= before {
		return
	}
	n := e.unread(p) - before // the newest unread letters are the ones that came
	for i := len(m.letters) - 1; i >= 0 && n > 0; i-- {
		if l := m.letters[i]; !l.Read && !p.rec.Options.Mutes(l.From) {
			e.tell(p, MsgLetter, fmt.Sprintf("A letter from %s has come. (/mail reads it.)", l.From))
			n--
		}
	}
	p.dirty = true
	e.publish()
}
