package server

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
)

// The SSH algorithms the server offers, chosen here rather than left to the library's
// defaults, which include key exchanges on NIST curves and with SHA-1, and MACs with
// SHA-1 or that MAC the plain text (encrypt-and-MAC) rather than the cipher text, all of
// which ssh-audit fails or warns on. What stays: a post-quantum hybrid and curve25519 key
// exchange, with a 4096-bit Diffie-Hellman group for clients without curve25519; AEAD
// ciphers, and AES-CTR with encrypt-then-MAC SHA-2. OpenSSH from 7.4 and current PuTTY
// and Dropbear clients negotiate them (TestClientsConnect runs ssh, plink and dbclient).
// The host key is ed25519 (keys.LoadOrCreateHostKey). Players' keys may be ed25519,
// ECDSA or RSA with SHA-2 signatures; RSA signatures with SHA-1 (ssh-rsa) are refused, as
// OpenSSH has refused them by default since 8.8.
var (
	kexAlgorithms    = []string{gossh.KeyExchangeMLKEM768X25519, gossh.KeyExchangeCurve25519, gossh.KeyExchangeDH16SHA512}
	cipherAlgorithms = []string{gossh.CipherChaCha20Poly1305, gossh.CipherAES256GCM, gossh.CipherAES128GCM,
		gossh.CipherAES256CTR, gossh.CipherAES192CTR, gossh.CipherAES128CTR}
	macAlgorithms     = []string{gossh.HMACSHA256ETM, gossh.HMACSHA512ETM}
	userKeyAlgorithms = []string{gossh.KeyAlgoED25519, gossh.KeyAlgoSKED25519, gossh.KeyAlgoECDSA256, gossh.KeyAlgoECDSA384,
		gossh.KeyAlgoECDSA521, gossh.KeyAlgoSKECDSA256, gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256}
)

// Why a login attempt failed, as the auth failure log and orthanc_auth_failures_total
// name it.
const (
	authBanned    = "banned"    // a banned key
	authSignature = "signature" // a key whose signature did not verify, or a malformed login
	authMethod    = "method"    // a method or key algorithm the server does not take
)

// bannedMessage is what a banned key is told at login; bannedAddrMessage what a
// connection from a banned address is told.
const (
	bannedMessage     = "This key is banned from this server."
	bannedAddrMessage = "Your address is banned from this server."
)

// What a login refused for a ban, or as a guest where guests are off, is told in the SSH
// login banner, which OpenSSH and other clients show.
const (
	bannedMsg     = "orthanc: " + bannedMessage + "\r\n"
	bannedAddrMsg = "orthanc: " + bannedAddrMessage + "\r\n"
	noGuestsMsg   = "orthanc: this server takes no guests: make a key (ssh-keygen -t ed25519) and connect again.\r\n"
)

// serverConfig is the SSH server's base configuration for one connection: the
// algorithms above, and the login's callbacks: the client's login is kept (for the
// banner of a banned key) and every failed attempt is logged and counted.
func (s *Server) serverConfig(ctx ssh.Context) *gossh.ServerConfig {
	slot := edge.SlotOf(ctx)
	return &gossh.ServerConfig{
		Config:                  gossh.Config{KeyExchanges: kexAlgorithms, Ciphers: cipherAlgorithms, MACs: macAlgorithms},
		PublicKeyAuthAlgorithms: userKeyAlgorithms,
		PreAuthConnCallback:     func(c gossh.ServerPreAuthConn) { ctx.SetValue(preAuthKey, c) },
		AuthLogCallback: func(conn gossh.ConnMetadata, method string, err error) {
			// "none" is how a client asks which methods there are; a refused
			// connection's attempts are its refusal, logged once.
			if err == nil || method == "none" || (slot != nil && slot.IsRefused()) {
				return
			}
			reason, fp := authMethod, ""
			if slot != nil && slot.Auth.Reason != "" {
				reason, fp = slot.Auth.Reason, slot.Auth.Fingerprint
				slot.Auth.Reason, slot.Auth.Fingerprint = "", ""
			}
			s.authFailed(reason, method, fp, conn.RemoteAddr(), err)
		},
	}
}

// loginBanner is the login banner: for a connection the limits refuse, why. Clients show
// it before they report that the login failed.
func (s *Server) loginBanner(ctx ssh.Context) string {
	slot := edge.SlotOf(ctx)
	if slot == nil {
		return ""
	}
	reason, msg := slot.Refusal()
	if reason != "" {
		s.refused(reason, ctx.RemoteAddr())
	}
	return msg
}

// checkKey is the public-key handler: it lets in every key except on a connection the
// limits refuse, a banned key, and any key from a banned address, which are told so in a
// banner. The key a session then plays as is the one that signed (sess.PublicKey()),
// never one merely offered here.
func (s *Server) checkKey(ctx ssh.Context, key ssh.PublicKey) bool {
	slot := edge.SlotOf(ctx)
	if slot != nil && slot.IsRefused() {
		return false
	}
	if s.refuseRealmDown(ctx) || s.addrBanned(ctx) {
		return false
	}
	fp := keys.Fingerprint(key)
	banned, err := s.knights.IsBanned(fp, s.now())
	if err != nil {
		// The session's own check (refuseBanned) says so to the player.
		s.log.Error("check ban", "fingerprint", fp, "err", err)
	}
	if banned {
		if c, ok := ctx.Value(preAuthKey).(gossh.ServerPreAuthConn); ok {
			_ = c.SendAuthBanner(bannedMsg)
		}
		if slot != nil {
			slot.Auth.Reason, slot.Auth.Fingerprint = authBanned, fp
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

// guestLogin is the keyboard-interactive handler: the way in for a client with no key,
// as a guest. It asks nothing (OpenSSH then goes straight in). It lets no one in when
// guests are off, on a connection the limits refuse, from a banned address, or on a
// connection that offered a banned key: OpenSSH falls back to keyboard-interactive when
// its keys are refused, and a banned key's owner must not come back as a guest. A client
// whose key was let in never gets here. A guest's session has no key (sess.PublicKey()
// is nil: charm's ssh takes the key from the method that succeeded), which is how the
// server knows it for a guest.
func (s *Server) guestLogin(ctx ssh.Context, _ gossh.KeyboardInteractiveChallenge) bool {
	slot := edge.SlotOf(ctx)
	switch {
	case !s.cfg.Guests:
		if c, ok := ctx.Value(preAuthKey).(gossh.ServerPreAuthConn); ok {
			_ = c.SendAuthBanner(noGuestsMsg)
		}
		return false
	case slot != nil && slot.IsRefused():
		return false
	case slot != nil && slot.Auth.OfferedBanned:
		slot.Auth.Reason = authBanned
		return false
	case s.refuseRealmDown(ctx), s.addrBanned(ctx):
		return false
	}
	if slot != nil {
		slot.LoggedIn()
	}
	return true
}

// refuseRealmDown refuses every login on a realm that has stopped (cut off from etcd, its
// records out of reach), saying so in a banner.
func (s *Server) refuseRealmDown(ctx ssh.Context) bool {
	if s.knights.Err() == nil {
		return false
	}
	if c, ok := ctx.Value(preAuthKey).(gossh.ServerPreAuthConn); ok {
		_ = c.SendAuthBanner(realmDownLine + "\r\n")
	}
	return true
}

// addrBanned reports whether the connection comes from a banned address, telling it so
// in a banner the first time.
func (s *Server) addrBanned(ctx ssh.Context) bool {
	slot := edge.SlotOf(ctx)
	if slot != nil && slot.Auth.AddrBanned {
		return true
	}
	a, err := netip.ParseAddr(edge.HostOf(ctx.RemoteAddr()))
	if err != nil {
		return false
	}
	banned, prefix, err := s.knights.IsAddrBanned(a, s.now())
	if err != nil {
		s.log.Error("check ban of address", "addr", a.String(), "err", err)
		return false // the session's own check (refuseBanned) says so to the player
	}
	if !banned {
		return false
	}
	if c, ok := ctx.Value(preAuthKey).(gossh.ServerPreAuthConn); ok {
		_ = c.SendAuthBanner(bannedAddrMsg)
	}
	if slot != nil {
		slot.Auth.AddrBanned = true
		slot.Auth.Reason, slot.Auth.Fingerprint = authBanned, "addr:"+prefix
	}
	return true
}

// connFailed is the SSH server's ConnectionFailedCallback. The SSH library ends a
// connection at once, with no failed attempt to log, when a signature does not verify: a
// connection that ends with an error of its own after a key was let in for signing is
// logged and counted as that auth failure. Failed logins end with the attempts already
// logged; hang-ups and timeouts are no failure of authentication.
func (s *Server) connFailed(c net.Conn, err error) {
	s.obs.handshakeFails.Inc()
	s.log.Debug("handshake failed", "addr", c.RemoteAddr().String(), "err", err)
	slot := s.limits.Slot(c.RemoteAddr().String())
	if slot != nil {
		slot.HandshakeFailed() // its address charged, unless it was refused or dropped silent
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
	s.authFailed(authSignature, "publickey", "", c.RemoteAddr(), err)
}

// authFailed logs and counts one failed login attempt.
func (s *Server) authFailed(reason, method, fp string, addr net.Addr, err error) {
	s.obs.authFailures.WithLabelValues(reason).Inc()
	args := []any{"addr", addr.String(), "method", method, "reason", reason, "err", err}
	if fp != "" {
		args = append(args, "fingerprint", fp)
	}
	s.log.Info("auth failure", args...)
}

// refused logs and counts a connection the limits refuse.
func (s *Server) refused(reason string, addr net.Addr) {
	s.obs.refusals.WithLabelValues(reason).Inc()
	s.log.Info("connection refused", "reason", reason, "addr", addr.String())
}
