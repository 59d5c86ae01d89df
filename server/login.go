package server

import (
	"net"
	"net/netip"

	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
)

// The login (edge.Login), given what it asks of the server: the bans, whether the
// knights' records can be reached, and where each refusal is logged and counted.

// login is the server's SSH login.
func (s *Server) login() *edge.Login {
	return &edge.Login{
		Log:    s.log,
		Guests: s.cfg.Guests,
		KeyBanned: func(fp string) (bool, error) {
			return s.knights.IsBanned(fp, s.now())
		},
		AddrBanned: func(a netip.Addr) (bool, string, error) {
			return s.knights.IsAddrBanned(a, s.now())
		},
		Closed: func() string {
			if s.knights.Err() != nil {
				return realmDownLine
			}
			return ""
		},
		Slot:            func(remote string) *edge.Slot { return s.limits.Slot(remote) },
		Failed:          s.authFailed,
		Refused:         s.refused,
		HandshakeFailed: s.obs.handshakeFails.Inc,
	}
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
