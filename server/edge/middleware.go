package edge

import (
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"

	"charm.land/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
)

// The middlewares of the edge: each wraps a session's handler, as wish.Middleware does.

// RecoverPanics is the outermost middleware: a panic in one session is logged with its
// stack and ends only that session.
func RecoverPanics(log *slog.Logger) func(ssh.Handler) ssh.Handler {
	return func(next ssh.Handler) ssh.Handler {
		return func(sess ssh.Session) {
			defer func() {
				if r := recover(); r != nil {
					log.Error("session panic", "panic", r, "stack", string(debug.Stack()))
					_ = sess.Exit(1)
				}
			}()
			next(sess)
		}
	}
}

// HoldSlot is a middleware that counts the session in its connection's place: the first
// session of a connection takes a player's place, and is refused (server full, reported
// to refused) when the server filled up while the connection logged in.
func HoldSlot(refused func(reason string, addr net.Addr)) func(ssh.Handler) ssh.Handler {
	return func(next ssh.Handler) ssh.Handler {
		return func(sess ssh.Session) {
			slot := SlotOf(sess.Context())
			if slot == nil {
				next(sess)
				return
			}
			if !slot.StartSession() {
				refused(RefusedFull, sess.RemoteAddr())
				fmt.Fprint(sess.Stderr(), ServerFullMsg)
				_ = sess.Exit(1)
				return
			}
			defer slot.EndSession()
			next(sess)
		}
	}
}

// Refuse ends a session with one line and status 1. With a terminal, the line goes to
// the screen (as sshd would merge stderr into the terminal), else to stderr.
func Refuse(sess ssh.Session, msg string) {
	if _, _, pty := sess.Pty(); pty {
		fmt.Fprintln(sess, msg)
	} else {
		fmt.Fprintln(sess.Stderr(), msg)
	}
	_ = sess.Exit(1)
}

// What a session over the per-key limit, or a guest's over the guests' limits, is told.
const (
	TooManyPerKey = "Too many sessions with this key are open; close one and try again."
	TooManyGuests = "Too many guests are playing from your address (or on the server); make a key (ssh-keygen -t ed25519) and connect again."
)

// KeyLimits counts open sessions per key, and guests' sessions per address and in all,
// against their limits. It is safe for concurrent use.
type KeyLimits struct {
	perKey, guestsPerAddr, allGuests int

	mu     sync.Mutex
	n      map[string]int
	guests int
}

// NewKeyLimits counts sessions against these limits: perKey sessions of one key,
// guestsPerAddr guests' sessions from one address, allGuests on the server.
func NewKeyLimits(perKey, guestsPerAddr, allGuests int) *KeyLimits {
	return &KeyLimits{perKey: perKey, guestsPerAddr: guestsPerAddr, allGuests: allGuests, n: map[string]int{}}
}

// Middleware refuses a key's sessions over the per-key limit, and a guest's over the
// guests' limits (per address, and on the server): a guest has no key to count it by,
// and takes the place of a player who may have none either.
func (k *KeyLimits) Middleware(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		fp := keys.Fingerprint(sess.PublicKey())
		guest := fp == ""
		if guest {
			fp = "guest " + AddrKey(sess.RemoteAddr())
		}
		if msg := k.take(fp, guest); msg != "" {
			fmt.Fprintln(sess.Stderr(), msg)
			_ = sess.Exit(1)
			return
		}
		defer k.give(fp, guest)
		next(sess)
	}
}

// take counts a session of fp, or says why it is one too many.
func (k *KeyLimits) take(fp string, guest bool) (refusal string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case guest && (k.n[fp] >= k.guestsPerAddr || k.guests >= k.allGuests):
		return TooManyGuests
	case !guest && k.n[fp] >= k.perKey:
		return TooManyPerKey
	}
	k.n[fp]++
	if guest {
		k.guests++
	}
	return ""
}

// give ends the count of a session of fp.
func (k *KeyLimits) give(fp string, guest bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if guest {
		k.guests--
	}
	if k.n[fp]--; k.n[fp] <= 0 {
		delete(k.n, fp)
	}
}

// TakeGuest counts a browser guest's game from addr (AddrKey's form) as a guest's
// session, or says why it is one too many; give ends the count.
func (k *KeyLimits) TakeGuest(addr string) (give func(), refusal string) {
	fp := "guest " + addr
	if msg := k.take(fp, true); msg != "" {
		return nil, msg
	}
	return func() { k.give(fp, true) }, ""
}

// TakeKey counts a browser's game played with the key fp (the play page's own key) as
// a session of that key, or says why it is one too many; give ends the count.
func (k *KeyLimits) TakeKey(fp string) (give func(), refusal string) {
	if msg := k.take(fp, false); msg != "" {
		return nil, msg
	}
	return func() { k.give(fp, false) }, ""
}
