package edge

import (
	"slices"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/internal/rawssh"
)

// The load tool's raw reference server offers the algorithms this server offers, so that
// its handshakes a second are a fair measure of what the SSH library alone sustains.
func TestRawReferenceOffersTheGamesAlgorithms(t *testing.T) {
	for _, c := range []struct {
		name      string
		game, raw []string
	}{
		{"key exchanges", KeyExchanges, rawssh.KeyExchanges},
		{"ciphers", Ciphers, rawssh.Ciphers},
		{"MACs", MACs, rawssh.MACs},
		{"user key algorithms", UserKeyAlgorithms, rawssh.UserKeyAlgorithms},
	} {
		if !slices.Equal(c.game, c.raw) {
			t.Errorf("%s: the game offers %q, the raw reference %q", c.name, c.game, c.raw)
		}
	}
}
