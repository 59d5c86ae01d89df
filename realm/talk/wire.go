package talk

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// What crosses the wire: small JSON messages, each with its version "v" (a realm drops a
// message of a version it does not know, and ignores fields it does not know, so a field
// can be added without a new version). Every one is read under a size limit, and every
// name and text in it is cleaned on receipt (world.CleanText), whatever the sender did.

// version is the messages' version.
const version = 1

// Size limits of a message on the wire, checked before it is read (and before one is sent).
//
//	limit             value    what it holds
//	maxLineBytes      4 KiB    a line: 200 runes of text (800 bytes at most) and names
//	maxSmallBytes     2 KiB    a whisper's answer, a ping, a moderation event
//	maxAnnounceBytes  768 KiB  a realm's presence: some 5000 knights at a typical 150 bytes
//	                           (NATS's own default cap on a message is 1 MiB)
const (
	maxLineBytes     = 4 << 10
	maxSmallBytes    = 2 << 10
	maxAnnounceBytes = 768 << 10
)

// Why a message was not read.
var (
	errTooBig  = errors.New("talk: message over its size limit")
	errVersion = errors.New("talk: message of an unknown version")
	errInvalid = errors.New("talk: message missing what it must hold")
)

// lineMsg is a line of talk: a shout, a channel line or a whisper.
type lineMsg struct {
	V      int    `json:"v"`
	Kind   string `json:"kind"`  // "shout", "channel", "whisper"
	Realm  string `json:"realm"` // where it was said
	From   string `json:"from"`
	FromID string `json:"from_id"`
	To     string `json:"to,omitempty"`    // a whisper's knight, a channel line's channel
	ToID   string `json:"to_id,omitempty"` // a whisper's knight's id
	Text   string `json:"text"`
	Deed   string `json:"deed,omitempty"` // a rare deed's id, on a newbie line that tells of it
}

// answerMsg is a realm's answer to a whisper sent to it.
type answerMsg struct {
	V          int    `json:"v"`
	Status     string `json:"status"` // "delivered", "not-there", "dropped"
	Away       bool   `json:"away,omitempty"`
	AwayReason string `json:"away_reason,omitempty"`
}

// announceMsg is a realm's presence: who plays there, and where to reach it.
type announceMsg struct {
	V       int         `json:"v"`
	Realm   string      `json:"realm"`
	Addr    string      `json:"addr,omitempty"` // its public SSH address
	Players int         `json:"players"`        // all of them, even when Knights had to be cut
	Knights []knightMsg `json:"knights,omitempty"`
	Gone    bool        `json:"gone,omitempty"` // the realm is closing
}

// knightMsg is a knight of a realm's presence, as the who-list shows it.
type knightMsg struct {
	Name       string `json:"name"`
	ID         string `json:"id"`
	Level      int    `json:"level"`
	Idle       int    `json:"idle_s"`
	Away       bool   `json:"away,omitempty"`
	AwayReason string `json:"away_reason,omitempty"`
	Guest      bool   `json:"guest,omitempty"`
}

// pingMsg is a ping and its pong: the realm that sends it.
type pingMsg struct {
	V     int    `json:"v"`
	Realm string `json:"realm"`
}

// modMsg is a moderation event.
type modMsg struct {
	V       int    `json:"v"`
	Realm   string `json:"realm"`
	Kind    string `json:"kind"` // "ban", "silence", "unsilence", "kick", "rename"
	Knight  string `json:"knight"`
	Name    string `json:"name,omitempty"`    // a rename's new name
	Seconds int64  `json:"seconds,omitempty"` // a silence's length
	Until   string `json:"until,omitempty"`   // when it ends, as the knight is told
	Reason  string `json:"reason,omitempty"`
}

func (m lineMsg) ver() int     { return m.V }
func (m answerMsg) ver() int   { return m.V }
func (m announceMsg) ver() int { return m.V }
func (m pingMsg) ver() int     { return m.V }
func (m modMsg) ver() int      { return m.V }

// decode reads a message of at most limit bytes and of this version.
func decode[T interface{ ver() int }](data []byte, limit int) (T, error) {
	var m T
	if len(data) > limit {
		return m, errTooBig
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("talk: %w", err)
	}
	if m.ver() != version {
		return m, errVersion
	}
	return m, nil
}

// encode writes a message, refusing one over limit.
func encode(m any, limit int) ([]byte, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if len(data) > limit {
		return nil, errTooBig
	}
	return data, nil
}

// The kinds of line, as the wire names them.
var lineKinds = map[world.ChatKind]string{world.ChatShout: "shout", world.ChatChannel: "channel", world.ChatWhisper: "whisper"}

// toLine is a world's line as the wire carries it.
func toLine(l world.FarLine) lineMsg {
	return lineMsg{V: version, Kind: lineKinds[l.Kind], Realm: l.Realm, From: l.From, FromID: l.FromID, To: l.To, ToID: l.ToID, Text: l.Text, Deed: l.Deed}
}

// fromLine is a line from the wire, cleaned, as the world takes it; errInvalid when it
// lacks what a line must hold.
func fromLine(m lineMsg) (world.FarLine, error) {
	l := world.FarLine{Realm: cleanRealm(m.Realm), From: world.CleanText(m.From, world.MaxNameLen),
		FromID: cleanID(m.FromID), To: world.CleanText(m.To, world.MaxNameLen), ToID: cleanID(m.ToID),
		Text: world.CleanText(m.Text, world.MaxChatRunes), Deed: cleanID(m.Deed)}
	kind := -1
	for k, name := range lineKinds {
		if name == m.Kind {
			kind = int(k)
		}
	}
	if kind < 0 || l.Realm == "" || l.From == "" || l.FromID == "" || l.Text == "" {
		return l, errInvalid
	}
	l.Kind = world.ChatKind(kind)
	return l, nil
}

// The statuses of an answer on the wire; a realm that did not answer has none.
var answerStatus = map[world.FarStatus]string{world.FarDelivered: "delivered", world.FarNotThere: "not-there", world.FarDropped: "dropped"}

func toAnswer(a world.FarAnswer) answerMsg {
	return answerMsg{V: version, Status: answerStatus[a.Status], Away: a.Away, AwayReason: a.AwayReason}
}

// fromAnswer is an answer from the wire, cleaned; one the realm could not have meant
// counts as no answer.
func fromAnswer(m answerMsg) world.FarAnswer {
	for s, name := range answerStatus {
		if name == m.Status {
			return world.FarAnswer{Status: s, Away: m.Away, AwayReason: world.CleanText(m.AwayReason, world.MaxAwayRunes)}
		}
	}
	return world.FarAnswer{Status: world.FarUnreachable}
}

// fromAnnounce is a realm's presence, cleaned, as the world takes it.
func fromAnnounce(m announceMsg) []world.FarKnight {
	ks := make([]world.FarKnight, 0, len(m.Knights))
	for _, k := range m.Knights {
		fk := world.FarKnight{Realm: m.Realm, Name: world.CleanText(k.Name, world.MaxNameLen), ID: cleanID(k.ID),
			Level: max(k.Level, 0), IdleSeconds: max(k.Idle, 0), Away: k.Away,
			AwayReason: world.CleanText(k.AwayReason, world.MaxAwayRunes), Guest: k.Guest}
		if fk.Name != "" && fk.ID != "" {
			ks = append(ks, fk)
		}
	}
	return ks
}

// cleanID cleans a knight's id from afar.
func cleanID(id string) string { return world.CleanText(id, 100) }

// cleanRealm is a realm's name from afar, or "" when it is not one (a realm's name is a
// word of the subjects, so nothing in it needs cleaning but it is checked all the same).
func cleanRealm(name string) string {
	if !validWord(name) {
		return ""
	}
	return name
}

// validWord reports whether s may be a word of a subject: a realm's or a channel's name,
// 1 to world.MaxRealmName letters, digits, '-' and '_'.
func validWord(s string) bool {
	if s == "" || len(s) > world.MaxRealmName {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) < 0
}
