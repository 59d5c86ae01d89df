package talk

import (
	"context"

	"github.com/nats-io/nats.go"
)

// Letters across realms: a knight's mailbox lives where the knights are (etcd), and each
// realm's world keeps a copy of the mailboxes it may need. A realm that has written a
// mailbox tells the others (MailCame), and each reads it anew (Config.OnMail), so a letter
// written in one realm reaches its knight in another at once, and waits for it there.

// mailMsg says a knight's mailbox has changed.
type mailMsg struct {
	V      int    `json:"v"`
	Realm  string `json:"realm"`
	Knight string `json:"knight"`
}

func (m mailMsg) ver() int { return m.V }

// MailCame tells the other realms that knight's mailbox was written here.
func (b *Bus) MailCame(knight string) {
	if b.started.Load() {
		b.publish(b.from("mail"), mailMsg{V: version, Realm: b.cfg.Realm, Knight: knight}, maxSmallBytes)
	}
}

// onMail takes another realm's word that a mailbox changed, and hands it to OnMail off
// NATS's goroutine.
func (b *Bus) onMail(msg *nats.Msg) {
	m, err := decode[mailMsg](msg.Data, maxSmallBytes)
	realm, knight := cleanRealm(m.Realm), cleanID(m.Knight)
	if err == nil && (realm == "" || realm != sender(msg.Subject) || knight == "") {
		err = errInvalid
	}
	if err != nil {
		b.refused(err)
		return
	}
	if realm == b.cfg.Realm || b.cfg.OnMail == nil {
		return
	}
	b.counts.received.Add(1)
	b.toWorld(func(context.Context) error {
		b.cfg.OnMail(knight)
		return nil
	})
}
