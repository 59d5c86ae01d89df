package edge

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"strings"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
)

// The SSH algorithms the server offers, chosen here rather than left to the library's
// defaults, which include key exchanges on NIST curves and with SHA-1, and MACs with
// SHA-1 or that MAC the plain text (encrypt-and-MAC) rather than the cipher text, all of
// which ssh-audit fails or warns on. What stays: a post-quantum hybrid and curve25519 key
// exchange, with a 4096-bit Diffie-Hellman group for clients without curve25519; AEAD
// ciphers, and AES-CTR with encrypt-then-MAC SHA-2. OpenSSH from 7.4 and current PuTTY
// and Dropbear clients negotiate them. The host key is ed25519
// (keys.LoadOrCreateHostKey). Players' keys may be ed25519, ECDSA or RSA with SHA-2
// signatures; RSA signatures with SHA-1 (ssh-rsa) are refused, as OpenSSH has refused
// them by default since 8.8.
var (
	KeyExchanges = []string{gossh.KeyExchangeMLKEM768X25519, gossh.KeyExchangeCurve25519, gossh.KeyExchangeDH16SHA512}
	Ciphers      = []string{gossh.CipherChaCha20Poly1305, gossh.CipherAES256GCM, gossh.CipherAES128GCM,
		gossh.CipherAES256CTR, gossh.CipherAES192CTR, gossh.CipherAES128CTR}
	MACs              = []string{gossh.HMACSHA256ETM, gossh.HMACSHA512ETM}
	UserKeyAlgorithms = []string{gossh.KeyAlgoED25519, gossh.KeyAlgoSKED25519, gossh.KeyAlgoECDSA256, gossh.KeyAlgoECDSA384,
		gossh.KeyAlgoECDSA521, gossh.KeyAlgoSKECDSA256, gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256}
)

// Why a login attempt failed, as the auth failure log and its metric name it.
const (
	AuthBanned    = "banned"    // a banned key
	AuthSignature = "signature" // a key whose signature did not verify, or a malformed login
	AuthMethod    = "method"    // a method or key algorithm the server does not take
	AuthClosed    = "closed"    // the server takes no one in just now (a realm cut off from its records)
)

// AuthReasons are every reason a login attempt fails for.
var AuthReasons = []string{AuthBanned, AuthSignature, AuthMethod, AuthClosed}

// BannedMessage is what a banned key is told; BannedAddrMessage what a connection from a
// banned address is told.
const (
	BannedMessage     = "This key is banned from this server."
	BannedAddrMessage = "Your address is banned from this server."
)

// What a login refused for a ban, or as a guest where guests are off, is told in the SSH
// login banner, which OpenSSH and other clients show.
const (
	bannedBanner     = "orthanc: " + BannedMessage + "\r\n"
	bannedAddrBanner = "orthanc: " + BannedAddrMessage + "\r\n"
	noGuestsBanner   = "orthanc: this server takes no guests: make a key (ssh-keygen -t ed25519) and connect again.\r\n"
)

// Login is the SSH login: the algorithms offered, and who is let in. Every key is let in
// but a banned one, and a client with no key as a guest where guests are allowed, on a
// connection the limits took (SlotOf); each refusal is told in the login banner, and each
// failed attempt is reported once. The key a session then plays as is the one that
// signed (sess.PublicKey()), never one merely offered.
type Login struct {
	Log *slog.Logger
	// Guests lets a client with no key in, as a guest.
	Guests bool
	// KeyBanned reports whether the key with a fingerprint is banned now.
	KeyBanned func(fp string) (bool, error)
	// AddrBanned reports whether an address is banned now, and by which prefix.
	AddrBanned func(a netip.Addr) (banned bool, prefix string, err error)
	// Closed is why every login is refused just now (a realm cut off from its records),
	// "" when logins are taken.
	Closed func() string
	// Slot is the place in the limits of the connection from a remote address; the
	// limiting listener is made when the server starts serving, after the login.
	Slot func(remote string) *Slot
	// Failed logs and counts a failed login attempt, by its reason.
	Failed func(reason, method, fp string, addr net.Addr, err error)
	// Refused logs and counts a connection the limits refuse.
	Refused func(reason string, addr net.Addr)
	// HandshakeFailed counts a handshake that failed, for whatever reason.
	HandshakeFailed func()
}

type preAuthKey struct{}

// ServerConfig is the SSH server's base configuration for one connection: the
// algorithms above, and the login's callbacks: the end of the key exchange is told to
// the connection's place (its banner deadline), the client's login is kept (for the
// banner of a banned key) and every failed attempt is reported.
func (l *Login) ServerConfig(ctx ssh.Context) *gossh.ServerConfig {
	slot := SlotOf(ctx)
	return &gossh.ServerConfig{
		Config:                  gossh.Config{KeyExchanges: KeyExchanges, Ciphers: Ciphers, MACs: MACs},
		PublicKeyAuthAlgorithms: UserKeyAlgorithms,
		// Called once the key exchange is through, which ends the banner deadline.
		PreAuthConnCallback: func(c gossh.ServerPreAuthConn) {
			ctx.SetValue(preAuthKey{}, c)
			if slot != nil {
				slot.KeyExchanged()
			}
		},
		AuthLogCallback: func(conn gossh.ConnMetadata, method string, err error) {
			// "none" is how a client asks which methods there are; a refused
			// connection's attempts are its refusal, reported once.
			if err == nil || method == "none" || (slot != nil && slot.IsRefused()) {
				return
			}
			if slot != nil && slot.Auth.Closed {
				// Every attempt of a closed server's connection is the one refusal.
				if slot.Auth.ClosedLogged {
					return
				}
				slot.Auth.ClosedLogged = true
				l.Failed(AuthClosed, method, slot.Auth.Fingerprint, conn.RemoteAddr(), err)
				return
			}
			reason, fp := AuthMethod, ""
			if slot != nil && slot.Auth.Reason != "" {
				reason, fp = slot.Auth.Reason, slot.Auth.Fingerprint
				slot.Auth.Reason, slot.Auth.Fingerprint = "", ""
			}
			l.Failed(reason, method, fp, conn.RemoteAddr(), err)
		},
	}
}

// banner sends the client a line of the login banner, when the login is far enough
// along to take one.
func banner(ctx ssh.Context, line string) {
	if c, ok := ctx.Value(preAuthKey{}).(gossh.ServerPreAuthConn); ok {
		_ = c.SendAuthBanner(line)
	}
}

// Banner is the login banner: for a connection the limits refuse, why. Clients show it
// before they report that the login failed.
func (l *Login) Banner(ctx ssh.Context) string {
	slot := SlotOf(ctx)
	if slot == nil {
		return ""
	}
	reason, msg := slot.Refusal()
	if reason != "" {
		l.Refused(reason, ctx.RemoteAddr())
	}
	return msg
}

// CheckKey is the public-key handler: it lets in every key except on a connection the
// limits refuse, a banned key, and any key from a banned address, which are told so in a
// banner.
func (l *Login) CheckKey(ctx ssh.Context, key ssh.PublicKey) bool {
	slot := SlotOf(ctx)
	if slot != nil && slot.IsRefused() {
		return false
	}
	if l.closed(ctx) {
		return false
	}
	fp := keys.Fingerprint(key)
	// The key's ban is read while the address's is: records far away cost one round trip
	// for the two, not two.
	type keyBan struct {
		banned bool
		err    error
	}
	read := make(chan keyBan, 1)
	go func() {
		banned, err := l.KeyBanned(fp)
		read <- keyBan{banned, err}
	}()
	if l.addrBanned(ctx) {
		return false
	}
	kb := <-read
	banned, err := kb.banned, kb.err
	if err != nil {
		// The session's own check says so to the player.
		l.Log.Error("check ban", "fingerprint", fp, "err", err)
	}
	if banned {
		banner(ctx, bannedBanner)
		if slot != nil {
			slot.Auth.Reason, slot.Auth.Fingerprint = AuthBanned, fp
			slot.Auth.OfferedBanned = true // and no guest, when the client falls back
		}
		return false
	}
	if slot != nil {
		slot.Auth.Offered = true
		slot.LoggedIn()
	}
	return true
}

// Guest is the keyboard-interactive handler: the way in for a client with no key, as a
// guest. It asks nothing (OpenSSH then goes straight in). It lets no one in when guests
// are off, on a connection the limits refuse, from a banned address, or on a connection
// that offered a banned key: OpenSSH falls back to keyboard-interactive when its keys
// are refused, and a banned key's owner must not come back as a guest. A client whose key
// was let in never gets here. A guest's session has no key (sess.PublicKey() is nil:
// charm's ssh takes the key from the method that succeeded), which is how the server
// knows it for a guest.
func (l *Login) Guest(ctx ssh.Context, _ gossh.KeyboardInteractiveChallenge) bool {
	slot := SlotOf(ctx)
	switch {
	case !l.Guests:
		banner(ctx, noGuestsBanner)
		return false
	case slot != nil && slot.IsRefused():
		return false
	case slot != nil && slot.Auth.OfferedBanned:
		slot.Auth.Reason = AuthBanned
		return false
	case l.closed(ctx), l.addrBanned(ctx):
		return false
	}
	if slot != nil {
		slot.LoggedIn()
	}
	return true
}

// closed refuses every login while the server takes none, saying why in a banner once
// (a client tries a key, then keyboard-interactive).
func (l *Login) closed(ctx ssh.Context) bool {
	slot := SlotOf(ctx)
	if slot != nil && slot.Auth.Closed {
		return true
	}
	why := l.Closed()
	if why == "" {
		return false
	}
	banner(ctx, why+"\r\n")
	if slot != nil {
		slot.Auth.Closed = true
	}
	return true
}

// addrBanned reports whether the connection comes from a banned address, telling it so
// in a banner the first time.
func (l *Login) addrBanned(ctx ssh.Context) bool {
	slot := SlotOf(ctx)
	if slot != nil && slot.Auth.AddrBanned {
		return true
	}
	a, err := netip.ParseAddr(HostOf(ctx.RemoteAddr()))
	if err != nil {
		return false
	}
	banned, prefix, err := l.AddrBanned(a)
	if err != nil {
		l.Log.Error("check ban of address", "addr", a.String(), "err", err)
		return false // the session's own check says so to the player
	}
	if !banned {
		return false
	}
	banner(ctx, bannedAddrBanner)
	if slot != nil {
		slot.Auth.AddrBanned = true
		slot.Auth.Reason, slot.Auth.Fingerprint = AuthBanned, "addr:"+prefix
	}
	return true
}

// ConnFailed is the SSH server's ConnectionFailedCallback. The SSH library ends a
// connection at once, with no failed attempt to log, when a signature does not verify: a
// connection that ends with an error of its own after a key was let in for signing is
// reported as that auth failure. Failed logins end with the attempts already reported;
// hang-ups and timeouts are no failure of authentication.
func (l *Login) ConnFailed(c net.Conn, err error) {
	l.HandshakeFailed()
	l.Log.Debug("handshake failed", "addr", c.RemoteAddr().String(), "err", err)
	slot := l.Slot(c.RemoteAddr().String())
	if slot != nil {
		slot.HandshakeFailed() // its address charged, unless it was refused or dropped at the banner deadline
	}
	if slot == nil || !slot.Auth.Offered || slot.IsRefused() {
		return
	}
	var authErr *gossh.ServerAuthError
	var netErr net.Error
	if errors.As(err, &authErr) || errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		strings.HasPrefix(err.Error(), "ssh: disconnect") {
		return
	}
	l.Failed(AuthSignature, "publickey", "", c.RemoteAddr(), err)
}
