package world

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// Letters: a knight writes to any knight that has been here, online or not,
// by name. A letter waits in the recipient's mailbox, kept by the knight's id (so it
// waits for the knight whichever of its keys plays it, and a knight that takes a freed
// name later reads none of it), and is handed to the Archive to be kept across restarts;
// the knight is told how many wait when it arrives, and at once when one comes while it
// is online. Reading a letter marks it read; a read letter is kept until the knight
// deletes it or more come. The text is cleaned like chat.
//
// Guests neither write nor receive letters: a guest is never saved, its name is let go
// when it leaves, and a letter could only wait for whoever is given the name next.
//
// Limits:
//
//	constant          value   effect
//	MaxUnread         20      unread letters a mailbox takes; the 21st is refused, its writer told
//	MaxFromOne        5       unread letters from one writer a mailbox takes, so no one fills another's
//	MaxRead           20      read letters kept; beyond, the oldest read one goes
//	MaxLetterRunes    500     characters a letter keeps after cleaning; its writer is told of a cut
const (
	MaxUnread      = 20
	MaxFromOne     = 5
	MaxRead        = 20
	MaxLetterRunes = 500
)

// Letter is one letter in a mailbox.
type Letter struct {
	// ID names the letter in the engine while it runs (it is not kept: the engine numbers
	// the letters it loads).
	ID   uint64    `json:"-"`
	From string    `json:"from"`
	To   string    `json:"to"` // the recipient's name as the writer spelt it when sent
	Text string    `json:"text"`
	Sent time.Time `json:"sent"` // when the writer's session sent it; the world never reads the clock
	Read bool      `json:"read,omitempty"`
}

type mailReq struct {
	from
	to   string // the recipient's name; when empty, the name starts text
	text string
	sent time.Time
}

// SendLetter writes a letter to the knight named to, or (to empty) to the knight whose
// name starts text (the longest run of words that is a knight's name). sent is when the
// session sent it, as the letter says.
func (p *Player) SendLetter(ctx context.Context, to, text string, sent time.Time) error {
	return p.e.send(ctx, mailReq{p.from, to, text, sent})
}

// Letters returns the knight's letters, the unread ones first, each group newest first.
// With markRead, the unread ones it returns are read from now on (the session shows them).
func (p *Player) Letters(ctx context.Context, markRead bool) ([]Letter, error) {
	var out []Letter
	err := p.e.query(ctx, func() {
		if q := p.player(p.e); q != nil {
			out = p.e.letters(q, markRead)
		}
	})
	return out, err
}

type deleteLetterReq struct {
	from
	letter uint64
}

// DeleteLetter deletes one of the knight's letters, by its ID.
func (p *Player) DeleteLetter(ctx context.Context, id uint64) error {
	return p.e.send(ctx, deleteLetterReq{p.from, id})
}

func (m mailReq) handle(e *Engine) {
	m.carryOut(e, func(p *player) {
		if p.rec.Guest {
			e.tell(p, MsgLetter, GuestLettersNote)
			return
		}
		if note := e.silencedNote(p); note != "" {
			e.tell(p, MsgLetter, note)
			return
		}
		k, text, note := e.knightIn(m.to, m.text, "Write to whom? (/mail NAME TEXT)", false)
		if note != "" {
			e.tell(p, MsgLetter, note)
			return
		}
		id := k.ID
		whole := CleanText(text, 0)
		text = CleanText(whole, MaxLetterRunes)
		unread, mine := 0, 0
		for _, l := range e.soc.mail[id] {
			if !l.Read {
				unread++
				if NameKey(l.From) == NameKey(p.rec.Name) {
					mine++
				}
			}
		}
		switch {
		case k.guest:
			e.tell(p, MsgLetter, fmt.Sprintf("%s is a guest: letters do not reach guests, who are not saved. (/w %s TEXT whispers to it now.)", k.Name, k.Name))
			return
		case k.Ended:
			e.tell(p, MsgLetter, fmt.Sprintf("%s is no longer of this world: letters do not reach a knight who has died or retired.", k.Name))
			return
		case id == p.rec.ID:
			e.tell(p, MsgLetter, "You cannot write to yourself.")
			return
		case text == "":
			e.tell(p, MsgLetter, fmt.Sprintf("Write what? (/mail %s TEXT)", k.Name))
			return
		case unread >= MaxUnread:
			e.tell(p, MsgLetter, fmt.Sprintf("%s has %d unread letters, as many as a mailbox holds: yours was not sent.", k.Name, unread))
			return
		case mine >= MaxFromOne:
			e.tell(p, MsgLetter, fmt.Sprintf("%s has not read the %d letters you sent yet: yours was not sent.", k.Name, mine))
			return
		case !e.allowTalk(p, talkLetter):
			e.tell(p, MsgLetter, floodNote(p))
			return
		}
		e.soc.counts.said[talkLetter]++
		e.soc.nextLetter++
		e.soc.mail[id] = keepRead(append(e.soc.mail[id],
			Letter{ID: e.soc.nextLetter, From: p.rec.Name, To: k.Name, Text: text, Sent: m.sent}))
		e.archiveMail(id)
		cut := ""
		if len([]rune(whole)) > len([]rune(text)) {
			cut = fmt.Sprintf(" (It was cut to %d characters.)", MaxLetterRunes)
		}
		if q := e.players[id]; q != nil {
			e.tell(p, MsgLetter, fmt.Sprintf("Your letter to %s is delivered.%s", k.Name, cut))
			if !q.rec.Options.Mutes(p.rec.Name) {
				e.tell(q, MsgLetter, fmt.Sprintf("A letter from %s has come. (/mail reads it.)", p.rec.Name))
			}
			return
		}
		e.tell(p, MsgLetter, fmt.Sprintf("Your letter to %s is sent: %s will find it on arriving.%s", k.Name, k.Name, cut))
	})
}

func (m deleteLetterReq) handle(e *Engine) {
	m.carryOut(e, func(p *player) {
		id := p.rec.ID
		ls := e.soc.mail[id]
		for i, l := range ls {
			if l.ID == m.letter {
				e.soc.mail[id] = append(ls[:i:i], ls[i+1:]...)
				e.archiveMail(id)
				e.tell(p, MsgLetter, fmt.Sprintf("You delete the letter from %s.", l.From))
				return
			}
		}
	})
}

// letters is p's mailbox as Letters returns it.
func (e *Engine) letters(p *player, markRead bool) []Letter {
	id := p.rec.ID
	ls := e.soc.mail[id]
	out := make([]Letter, 0, len(ls))
	for _, read := range []bool{false, true} {
		for i := len(ls) - 1; i >= 0; i-- {
			if ls[i].Read == read && !p.rec.Options.Mutes(ls[i].From) {
				out = append(out, ls[i])
			}
		}
	}
	if markRead && e.unread(p) > 0 {
		kept := make([]Letter, len(ls)) // views and answers share no letters with the engine
		for i, l := range ls {
			l.Read = true
			kept[i] = l
		}
		e.soc.mail[id] = keepRead(kept)
		e.archiveMail(id)
		p.dirty = true // the count of unread letters changed
	}
	return out
}

// keepRead drops the oldest read letters beyond MaxRead.
func keepRead(ls []Letter) []Letter {
	read := 0
	for _, l := range ls {
		if l.Read {
			read++
		}
	}
	out := ls[:0]
	for _, l := range ls {
		if l.Read && read > MaxRead {
			read--
			continue
		}
		out = append(out, l)
	}
	return out
}

// unread is how many letters wait unread for p, leaving out those of the knights it
// mutes (which it never reads).
func (e *Engine) unread(p *player) int {
	n := 0
	for _, l := range e.soc.mail[p.rec.ID] {
		if !l.Read && !p.rec.Options.Mutes(l.From) {
			n++
		}
	}
	return n
}

// unreadNote tells a knight arriving how many letters wait for it.
func unreadNote(n int) string {
	return fmt.Sprintf("You have %s. (/mail reads them.)", english.Count(n, "unread letter", "unread letters"))
}

// archiveMail hands the mailbox of the knight id to the Archive.
func (e *Engine) archiveMail(id string) {
	if a := e.cfg.Community.Archive; a != nil {
		a.PutMail(id, append([]Letter(nil), e.soc.mail[id]...))
	}
	if len(e.soc.mail[id]) == 0 {
		delete(e.soc.mail, id)
	}
}

// GuestLettersNote is what a guest is told when it would write a letter, or read its
// letters.
const GuestLettersNote = "Guests cannot send or receive letters: a guest is not saved. Keep your knight with the code you are given when you leave, and letters reach it."

// namedKnight is a knight a letter or a report names: a stored one, or a guest online.
type namedKnight struct {
	KnownKnight
	guest bool
}

// knightNamed is the knight with the name: one online (a guest too) first, then one that
// has been here; with spoke, last one whose lines are kept (a guest that has left).
func (e *Engine) knightNamed(name string, spoke bool) (namedKnight, bool) {
	if q := e.online(name); q != nil {
		k := namedKnight{KnownKnight{ID: q.rec.ID, Name: q.rec.Name, Ended: q.rec.Ended()}, q.rec.Guest}
		return k, true
	}
	if k, ok := e.soc.known[NameKey(name)]; ok {
		return namedKnight{KnownKnight: k}, true
	}
	if spoke {
		return e.speakerNamed(name)
	}
	return namedKnight{}, false
}

// knightIn finds the knight a letter or a report names: the knight named name, or (name
// empty) the knight whose name starts text, the longest run of its words that is the name
// of a knight online or that has been here (with spoke, or whose lines are kept). It
// returns the knight, the text after the name, and a note for the sender when there is no
// such knight.
func (e *Engine) knightIn(name, text, whom string, spoke bool) (k namedKnight, rest, note string) {
	if name = strings.TrimSpace(name); name != "" {
		if k, ok := e.knightNamed(name, spoke); ok {
			return k, text, ""
		}
		return namedKnight{}, "", unknownKnightNote(name)
	}
	words := strings.Fields(text)
	if len(words) == 0 {
		return namedKnight{}, "", whom
	}
	for n := min(len(words), MaxNameLen); n >= 1; n-- {
		if k, ok := e.knightNamed(strings.Join(words[:n], " "), spoke); ok {
			return k, strings.Join(words[n:], " "), ""
		}
	}
	return namedKnight{}, "", unknownKnightNote(words[0])
}

func unknownKnightNote(name string) string {
	return fmt.Sprintf("No knight named %s has been here.", CleanText(name, MaxNameLen+10))
}

// UnknownRecipient is whom a letter to to (or, to empty, to the knight whose name starts
// text) may be for when the world knows no such knight: the names to look up elsewhere,
// longest first; none when the world knows the knight, or the letter names no one. A
// realm's world knows the knights it read at start and those it has met since; a knight
// imported into etcd, or made on another realm, since then is found in the realms'
// records by the session, off the world, and handed to it (KnowKnight) before the letter.
func (p *Player) UnknownRecipient(ctx context.Context, to, text string) ([]string, error) {
	var names []string
	err := p.e.query(ctx, func() { names = p.e.unknownRecipient(to, text) })
	return names, err
}

// unknownRecipient is UnknownRecipient on the engine's goroutine: the names knightIn
// would try, when it would find none.
func (e *Engine) unknownRecipient(to, text string) []string {
	if to = strings.TrimSpace(to); to != "" {
		if _, ok := e.knightNamed(to, false); ok {
			return nil
		}
		return []string{to}
	}
	words := strings.Fields(text)
	var names []string
	for n := min(len(words), MaxNameLen); n >= 1; n-- {
		name := strings.Join(words[:n], " ")
		if _, ok := e.knightNamed(name, false); ok {
			return nil
		}
		if utf8.RuneCountInString(name) <= MaxNameLen {
			names = append(names, name)
		}
	}
	return names
}

type knowReq struct{ k KnownKnight }

// KnowKnight enters a stored knight in the book of knights at once, so letters reach it
// before it first joins: a claimed guest's knight, stored under a new id and name, which
// would otherwise be known only when its new key first connects.
func (e *Engine) KnowKnight(ctx context.Context, id, name string) error {
	return e.send(ctx, knowReq{KnownKnight{ID: id, Name: name}})
}

func (m knowReq) handle(e *Engine) { e.soc.known[NameKey(m.k.Name)] = m.k }
