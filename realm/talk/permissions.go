package talk

import (
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Who may say what on the bus. Every subject a realm publishes on ends with its own name
// (the sender), and a realm takes the sender of what it reads from the subject, never
// from the message: the message's own realm field must agree, or it is dropped. The
// NATS server holds each realm to its subjects, as a user with these permissions: the
// embedded server its in-process client (server.go), an external nats-server each realm's
// user (NATSUser, the block OPERATIONS shows). So a message on a subject naming realm X
// was published by X, and Open refuses a server that would let a realm publish under
// another's name.

// Permissions are the subjects realm may publish on and subscribe to, as a nats-server's
// permissions take them. Publishing: subjects whose last word is realm. Subscribing:
// what every realm hears (shouts, channels, presence, moderation, mail) and what is sent
// to realm alone (its whispers, its pings, the asks of its reports), and realm's own reply inbox. Besides these a
// realm may answer a request it received (allow_responses), once.
func Permissions(prefix, realm string) (publish, subscribe []string) {
	publish = []string{prefix + ".*." + realm, prefix + ".*.*." + realm}
	subscribe = []string{prefix + ".shout.*", prefix + ".channel.*.*", prefix + ".whisper." + realm + ".*",
		prefix + ".realm.*", prefix + ".ping." + realm + ".*", prefix + ".reports." + realm + ".*", prefix + ".mod.*", prefix + ".mail.*",
		inboxPrefix(realm) + ".>"}
	return publish, subscribe
}

// realmUser is realm's user on a nats-server, held to its subjects: NATSUser as the
// server's options take it.
func realmUser(prefix, realm, password string) *server.User {
	pub, sub := Permissions(prefix, realm)
	return &server.User{Username: realm, Password: password, Permissions: &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: pub},
		Subscribe: &server.SubjectPermission{Allow: sub},
		Response:  &server.ResponsePermission{MaxMsgs: 1, Expires: time.Minute},
	}}
}

// inboxPrefix is where the answers to realm's requests come: its own, so that no other
// realm may read them.
func inboxPrefix(realm string) string { return "_INBOX." + realm }

// NATSUser is the entry of a nats-server configuration's authorization users for realm,
// with password, as OPERATIONS shows it: the realm's user, held to its subjects.
func NATSUser(prefix, realm, password string) string {
	pub, sub := Permissions(prefix, realm)
	quote := func(ss []string) string {
		q := make([]string, len(ss))
		for i, s := range ss {
			q[i] = fmt.Sprintf("%q", s)
		}
		return strings.Join(q, ", ")
	}
	return fmt.Sprintf("    {user: %q, password: %q, permissions: {\n"+
		"      publish: [%s]\n"+
		"      subscribe: [%s]\n"+
		"      allow_responses: true\n"+
		"    }}\n", realm, password, quote(pub), quote(sub))
}
