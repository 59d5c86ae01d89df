package world

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
)

// Parties of heroes (seed 002, DESIGN §9). A knight alone is a party of one and leads it;
// a party of two or more is made when a knight answers yes to an invitation or to an
// asking. Only the leader invites and answers askings; a knight joining another party
// leaves its own first; when the leader leaves, the next member (in the order they joined)
// leads; a party left with one member ends. Parties live in the engine only: a knight
// that leaves the world (quitting, a lost connection, death, retiring) leaves its party,
// and every invitation or asking it sent or was sent lapses.
//
// Invitations and askings are requests between two knights, carried out when the one they
// wait for answers: at that moment the knight on the party's side must still lead its
// party (or be alone, and a party forms), and the party must have room. Like a whisper, a
// request to a knight who mutes the sender goes nowhere, and requests count against the
// same flood allowance as chat lines (they put a line in another knight's log).
//
// Tuning, at the default 25 ms tick:
//
//	constant           value   effect
//	MaxParty           6       knights in one party at most
//	PartyRequestWait   5 min   an invitation or an asking waits for its answer (time to hear it, and the help, in screen-reader mode)
//
// Expired requests are swept at every checkpoint (forgetTalk calls partyTick) and before
// every party action, so an answer never finds one older than PartyRequestWait.
const (
	MaxParty         = 6
	PartyRequestWait = 5 * time.Minute
)

// PartyActionKind is what a party action does.
type PartyActionKind uint8

// The party actions (seed 002's party of heroes, DESIGN §9).
const (
	PartyInvite  PartyActionKind = iota // invite Name into the knight's party (making one if alone)
	PartyAsk                            // ask to join Name's party
	PartyAccept                         // accept Name's invitation, or let Name in after it asked
	PartyDecline                        // decline Name's invitation, or refuse its asking; withdraw one's own to Name
	PartyLeave                          // leave the party
	PartyDisband                        // the leader ends the party
)

// PartyAction is one party command from a player. It is carried out at once, whatever
// the knight's energy: like talking, it takes no time.
type PartyAction struct {
	Kind PartyActionKind
	Name string // the other knight, for invite, ask, accept and decline (empty: the only one pending)
}

// Notes party actions leave in the knight's messages.
const (
	// NoPartyNote answers /p, /leave and /disband from a knight alone.
	NoPartyNote = "You are not in a party. (/invite NAME)"
	// PartyFloodNote is what a knight sending invitations or askings too fast is told.
	PartyFloodNote = "You are sending requests too fast: that one was not sent. (At most 5 in 10 seconds, chat lines included.)"
	// GuestPartyFloodNote is PartyFloodNote for a guest, at its stricter allowance.
	GuestPartyFloodNote = "You are sending requests too fast: that one was not sent. (A guest may send 2 in 10 seconds, chat lines included.)"
)

type partyReq struct {
	from
	act PartyAction
}

// Party sends a party action.
func (p *Player) Party(ctx context.Context, a PartyAction) error {
	return p.e.send(ctx, partyReq{p.from, a})
}

// partyState is the engine's parties.
type partyState struct {
	of      map[*player]*party // the party of each knight in one of two or more; none when alone
	pending []partyRequest     // invitations and askings waiting for an answer, oldest first
}

// party is a party of two or more knights.
type party struct {
	members []*player     // the leader first, then in the order they joined
	shown   []PartyMember // the list as the members were last sent it (partyTick)
}

// partyRequest is an invitation (from leads the party, to is invited) or an asking (from
// asks to join to's party). It waits for to's answer.
type partyRequest struct {
	from, to *player
	ask      bool
	turn     uint64 // when it was made
}

// leader is the knight on the party's side of the request; joiner the one who would join.
func (r partyRequest) leader() *player {
	if r.ask {
		return r.to
	}
	return r.from
}

func (r partyRequest) joiner() *player {
	if r.ask {
		return r.from
	}
	return r.to
}

// fromSide and toSide name the request as each side reads it.
func (r partyRequest) fromSide() string {
	if r.ask {
		return fmt.Sprintf("your request to join %s's party", r.to.rec.Name)
	}
	return "your invitation to " + r.to.rec.Name
}

func (r partyRequest) toSide() string {
	if r.ask {
		return r.from.rec.Name + "'s request to join your party"
	}
	return r.from.rec.Name + "'s invitation"
}

// handle is Party on the engine goroutine.
func (m partyReq) handle(e *Engine) {
	m.carryOut(e, func(p *player) {
		e.expireRequests()
		switch a := m.act; a.Kind {
		case PartyInvite:
			e.invite(p, a.Name)
		case PartyAsk:
			e.ask(p, a.Name)
		case PartyAccept:
			e.answer(p, a.Name, true)
		case PartyDecline:
			e.answer(p, a.Name, false)
		case PartyLeave:
			if e.parties.of[p] == nil {
				e.tell(p, MsgParty, NoPartyNote)
				return
			}
			e.tell(p, MsgParty, "You leave the party.")
			e.leaveParty(p)
		case PartyDisband:
			e.disband(p)
		}
	})
}

// invite is p inviting the knight named into its party.
func (e *Engine) invite(p *player, name string) {
	q, note := e.partyKnight(name, "Invite whom? (/invite NAME)")
	if q == nil {
		e.tell(p, MsgParty, note)
		return
	}
	pt := e.parties.of[p]
	switch {
	case q == p:
		e.tell(p, MsgParty, "You cannot invite yourself.")
		return
	case pt != nil && pt.members[0] != p:
		e.tell(p, MsgParty, fmt.Sprintf("Only the leader of the party, %s, may invite.", pt.members[0].rec.Name))
		return
	case pt != nil && e.parties.of[q] == pt:
		e.tell(p, MsgParty, q.rec.Name+" is already in your party.")
		return
	case pt != nil && len(pt.members) >= MaxParty:
		e.tell(p, MsgParty, fullNote("Your party"))
		return
	}
	n := p.rec.Name
	e.sendRequest(p, q, false,
		fmt.Sprintf("You have already invited %s; the invitation waits for an answer.", q.rec.Name),
		fmt.Sprintf("You invite %s to join the party.", q.rec.Name),
		fmt.Sprintf("%s invites you to join the party. (/accept %s or /decline %s)", n, n, n))
}

// ask is p asking to join the party of the knight named; its leader answers.
func (e *Engine) ask(p *player, name string) {
	q, note := e.partyKnight(name, "Ask whom? (/ask NAME)")
	if q == nil {
		e.tell(p, MsgParty, note)
		return
	}
	lead := e.leaderOf(q)
	switch {
	case q == p:
		e.tell(p, MsgParty, "You cannot ask yourself.")
		return
	case e.parties.of[q] != nil && e.parties.of[q] == e.parties.of[p]:
		e.tell(p, MsgParty, q.rec.Name+" is already in your party.")
		return
	case e.partySize(lead) >= MaxParty:
		e.tell(p, MsgParty, fullNote(lead.rec.Name+"'s party"))
		return
	}
	sent := fmt.Sprintf("You ask %s to let you join the party.", q.rec.Name)
	if lead != q {
		sent = fmt.Sprintf("You ask %s, who leads %s's party, to let you join it.", lead.rec.Name, q.rec.Name)
	}
	n := p.rec.Name
	e.sendRequest(p, lead, true,
		fmt.Sprintf("You have already asked %s; your request waits for an answer.", lead.rec.Name),
		sent, fmt.Sprintf("%s asks to join your party. (/accept %s or /decline %s)", n, n, n))
}

// sendRequest sends p's invitation (ask false) or request to join (ask true) to the knight
// who answers it. The opposite request already waiting from that knight is an answer yes
// (inviting a knight who asked, asking a leader who invited). already is what p reads when
// its request already waits, sent what it reads on sending, told what the other reads; a
// knight who mutes p is not told, like a whisper.
func (e *Engine) sendRequest(p, to *player, ask bool, already, sent, told string) {
	if i := e.request(to, p, !ask); i >= 0 {
		e.accept(i)
		return
	}
	if e.request(p, to, ask) >= 0 {
		e.tell(p, MsgParty, already)
		return
	}
	if !e.allowTalk(p, talkRequest) {
		if p.rec.Guest {
			e.tell(p, MsgParty, GuestPartyFloodNote)
		} else {
			e.tell(p, MsgParty, PartyFloodNote)
		}
		return
	}
	e.tell(p, MsgParty, sent)
	if to.rec.Options.Mutes(p.rec.Name) {
		return
	}
	e.parties.pending = append(e.parties.pending, partyRequest{from: p, to: to, ask: ask, turn: e.turn})
	e.tell(to, MsgParty, told)
}

// answer is p accepting (yes) or declining the request named (the only one when name is
// empty). Declining a name with no request waiting for p withdraws p's own request to it.
func (e *Engine) answer(p *player, name string, yes bool) {
	name = strings.TrimSpace(name)
	var waiting []int
	for i, r := range e.parties.pending {
		if r.to == p && (name == "" || sameName(r.from.rec.Name, name)) {
			waiting = append(waiting, i)
		}
	}
	verb := "/accept"
	if !yes {
		verb = "/decline"
	}
	switch {
	case len(waiting) == 1 || (len(waiting) > 1 && name != ""):
		if yes {
			e.accept(waiting[0])
		} else {
			e.decline(waiting[0])
		}
	case len(waiting) > 1:
		var names []string
		for _, i := range waiting {
			names = append(names, e.parties.pending[i].from.rec.Name)
		}
		e.tell(p, MsgParty, fmt.Sprintf("Several wait for your answer: %s. (%s NAME)", strings.Join(names, ", "), verb))
	case name == "":
		e.tell(p, MsgParty, "Nothing waits for your answer.")
	default:
		if !yes {
			for i, r := range e.parties.pending {
				if r.from == p && sameName(r.to.rec.Name, name) {
					e.withdraw(i)
					return
				}
			}
		}
		e.tell(p, MsgParty, fmt.Sprintf("No invitation or request from %s waits for your answer.", CleanText(name, MaxNameLen+10)))
	}
}

// accept carries out request i: its joiner joins its leader's party, leaving its own.
func (e *Engine) accept(i int) {
	r := e.dropRequest(i)
	lead, joiner := r.leader(), r.joiner()
	both := func(msg string) { e.tell(r.to, MsgParty, msg); e.tell(r.from, MsgParty, msg) }
	pt := e.parties.of[lead]
	switch {
	case pt != nil && pt.members[0] != lead:
		both(fmt.Sprintf("%s no longer leads a party, so %s cannot join it.", lead.rec.Name, joiner.rec.Name))
		return
	case pt != nil && e.parties.of[joiner] == pt:
		both(joiner.rec.Name + " is already in the party.")
		return
	case pt != nil && len(pt.members) >= MaxParty:
		both(fullNote(lead.rec.Name + "'s party"))
		return
	}
	// Any other request between the two is answered by this one.
	e.dropRequests(func(o partyRequest) bool {
		return (o.from == lead && o.to == joiner) || (o.from == joiner && o.to == lead)
	})
	if e.parties.of[joiner] != nil {
		e.tell(joiner, MsgParty, "You leave the party.")
		e.leaveParty(joiner)
	}
	if pt == nil {
		pt = &party{members: []*player{lead}}
		e.setParty(lead, pt)
	}
	for _, q := range pt.members {
		e.tell(q, MsgParty, joiner.rec.Name+" joins the party.")
	}
	pt.members = append(pt.members, joiner)
	e.setParty(joiner, pt)
	e.tell(joiner, MsgParty, fmt.Sprintf("You join %s's party. (/p talks to the party.)", lead.rec.Name))
}

// decline refuses request i, telling both sides.
func (e *Engine) decline(i int) {
	r := e.dropRequest(i)
	if r.ask {
		e.tell(r.to, MsgParty, fmt.Sprintf("You turn down %s's request to join the party.", r.from.rec.Name))
		e.tell(r.from, MsgParty, fmt.Sprintf("%s turns down your request to join the party.", r.to.rec.Name))
		return
	}
	e.tell(r.to, MsgParty, fmt.Sprintf("You decline %s's invitation.", r.from.rec.Name))
	e.tell(r.from, MsgParty, fmt.Sprintf("%s declines your invitation.", r.to.rec.Name))
}

// withdraw takes back request i, which its sender made.
func (e *Engine) withdraw(i int) {
	r := e.dropRequest(i)
	if r.ask {
		e.tell(r.from, MsgParty, fmt.Sprintf("You withdraw your request to join %s's party.", r.to.rec.Name))
		e.tell(r.to, MsgParty, fmt.Sprintf("%s withdraws the request to join your party.", r.from.rec.Name))
		return
	}
	e.tell(r.from, MsgParty, fmt.Sprintf("You withdraw your invitation to %s.", r.to.rec.Name))
	e.tell(r.to, MsgParty, fmt.Sprintf("%s withdraws the invitation.", r.from.rec.Name))
}

// disband is the leader ending its party.
func (e *Engine) disband(p *player) {
	pt := e.parties.of[p]
	switch {
	case pt == nil:
		e.tell(p, MsgParty, NoPartyNote)
	case pt.members[0] != p:
		e.tell(p, MsgParty, fmt.Sprintf("Only the leader of the party, %s, may disband it. (/leave leaves it.)", pt.members[0].rec.Name))
	default:
		for _, q := range pt.members {
			delete(e.parties.of, q)
			e.tell(q, MsgParty, "The party is disbanded.")
		}
	}
}

// leaveParty takes p out of its party, if it is in one, telling the others: the next
// member leads if p led, and a party left with one knight ends.
func (e *Engine) leaveParty(p *player) {
	pt := e.parties.of[p]
	if pt == nil {
		return
	}
	led := pt.members[0] == p
	pt.members = slices.DeleteFunc(pt.members, func(q *player) bool { return q == p })
	delete(e.parties.of, p)
	p.dirty = true
	for _, q := range pt.members {
		e.tell(q, MsgParty, p.rec.Name+" leaves the party.")
	}
	switch lead := pt.members[0]; {
	case len(pt.members) == 1:
		delete(e.parties.of, lead)
		e.tell(lead, MsgParty, "The party has ended: you are on your own.")
	case led:
		e.tell(lead, MsgParty, "You now lead the party.")
		for _, q := range pt.members[1:] {
			e.tell(q, MsgParty, lead.rec.Name+" now leads the party.")
		}
	}
}

// partyLeft takes a knight that leaves the world out of its party, telling the others.
// Every request it sent or was sent lapses, and the other side is told.
func (e *Engine) partyLeft(p *player) {
	e.leaveParty(p)
	e.dropRequests(func(r partyRequest) bool {
		switch p {
		case r.from:
			e.tell(r.to, MsgParty, fmt.Sprintf("%s has lapsed: %s has left the game.", upperFirst(r.toSide()), p.rec.Name))
		case r.to:
			e.tell(r.from, MsgParty, fmt.Sprintf("%s has lapsed: %s has left the game.", upperFirst(r.fromSide()), p.rec.Name))
		default:
			return false
		}
		return true
	})
}

// partyTick runs at every checkpoint: requests expire, and the members of a party whose
// list changed (a member's hits, place or fight) are sent it again, so a party list is
// never more than a checkpoint (2 s) old even for members who see nothing else change.
func (e *Engine) partyTick() {
	e.expireRequests()
	for _, p := range e.order {
		pt := e.parties.of[p]
		if pt == nil || pt.members[0] != p {
			continue
		}
		if list := partyList(pt); !slices.Equal(list, pt.shown) {
			pt.shown = list
			for _, q := range pt.members {
				q.dirty = true
			}
		}
	}
}

// expireRequests drops the requests older than PartyRequestWait, telling both sides.
func (e *Engine) expireRequests() {
	e.dropRequests(func(r partyRequest) bool {
		if !e.expired(r) {
			return false
		}
		e.tell(r.from, MsgParty, upperFirst(r.fromSide())+" has expired.")
		e.tell(r.to, MsgParty, upperFirst(r.toSide())+" has expired.")
		return true
	})
}

func (e *Engine) expired(r partyRequest) bool {
	return e.turn-r.turn >= uint64(e.turns(PartyRequestWait))
}

// fillParty adds the party list, invitations and askings to p's view.
func (e *Engine) fillParty(p *player, v *View) {
	if pt := e.parties.of[p]; pt != nil {
		v.Party = partyList(pt)
	}
	for _, r := range e.parties.pending {
		if r.to != p || e.expired(r) {
			continue
		}
		if r.ask {
			v.Asks = append(v.Asks, r.from.rec.Name)
		} else {
			v.Invites = append(v.Invites, r.from.rec.Name)
		}
	}
}

// partyList is the party as its members' views list it, the leader first.
func partyList(pt *party) []PartyMember {
	out := make([]PartyMember, len(pt.members))
	for i, q := range pt.members {
		out[i] = PartyMember{Name: q.rec.Name, Leader: i == 0, Level: q.rec.Level,
			Hits: q.rec.Hits, MaxHits: q.rec.MaxHits, Depth: q.rec.Depth, Pos: q.rec.Pos(),
			Fighting: q.fight != nil}
	}
	return out
}

// partyHere is p and the members of its party who stand on p's square (same depth and
// position) and are not in a fight, p first: the heroes who share what p meets there.
func (e *Engine) partyHere(p *player) []*player {
	here := []*player{p}
	pt := e.parties.of[p]
	if pt == nil {
		return here
	}
	for _, q := range pt.members {
		if q != p && q.fight == nil && q.rec.Depth == p.rec.Depth && q.rec.Pos() == p.rec.Pos() {
			here = append(here, q)
		}
	}
	return here
}

// partyTogether reports whether p and q are one knight or in one party.
func (e *Engine) partyTogether(p, q *player) bool {
	return p == q || (e.parties.of[p] != nil && e.parties.of[p] == e.parties.of[q])
}

// partyMembers is p's party, the leader first, or nil when p is alone.
func (e *Engine) partyMembers(p *player) []*player {
	if pt := e.parties.of[p]; pt != nil {
		return pt.members
	}
	return nil
}

// leaderOf is the leader of p's party: p itself when it is alone.
func (e *Engine) leaderOf(p *player) *player {
	if pt := e.parties.of[p]; pt != nil {
		return pt.members[0]
	}
	return p
}

// partySize is the number of knights in p's party, one when it is alone.
func (e *Engine) partySize(p *player) int {
	if pt := e.parties.of[p]; pt != nil {
		return len(pt.members)
	}
	return 1
}

func (e *Engine) setParty(p *player, pt *party) {
	if e.parties.of == nil {
		e.parties.of = map[*player]*party{}
	}
	e.parties.of[p] = pt
	p.dirty = true
}

// request is the index of the waiting request from → to of the kind, or -1.
func (e *Engine) request(from, to *player, ask bool) int {
	return slices.IndexFunc(e.parties.pending, func(r partyRequest) bool {
		return r.from == from && r.to == to && r.ask == ask
	})
}

// dropRequest removes request i and returns it; both sides' views change.
func (e *Engine) dropRequest(i int) partyRequest {
	r := e.parties.pending[i]
	e.parties.pending = slices.Delete(e.parties.pending, i, i+1)
	r.from.dirty, r.to.dirty = true, true
	return r
}

// dropRequests removes the requests drop reports true for (it may tell their sides);
// both sides' views change.
func (e *Engine) dropRequests(drop func(partyRequest) bool) {
	e.parties.pending = slices.DeleteFunc(e.parties.pending, func(r partyRequest) bool {
		if !drop(r) {
			return false
		}
		r.from.dirty, r.to.dirty = true, true
		return true
	})
}

// partyKnight is the knight online a party action names: its name compared without
// regard to case, then as uniqueness compares names (NameKey). whom is the note for an
// empty name.
func (e *Engine) partyKnight(name, whom string) (*player, string) {
	if name = strings.TrimSpace(name); name == "" {
		return nil, whom
	}
	if q := e.online(name); q != nil {
		return q, ""
	}
	for _, q := range e.order {
		if sameName(q.rec.Name, name) {
			return q, ""
		}
	}
	return nil, fmt.Sprintf("No knight named %s is in the game.", CleanText(name, MaxNameLen+10))
}

// sameName compares names as uniqueness does.
func sameName(a, b string) bool { return NameKey(a) == NameKey(b) }

func fullNote(whose string) string {
	return fmt.Sprintf("%s is full: %d knights at most.", whose, MaxParty)
}

// upperFirst capitalises a sentence that starts with "your".
func upperFirst(s string) string {
	if strings.HasPrefix(s, "your ") {
		return english.Capital(s)
	}
	return s
}
