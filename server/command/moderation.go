package command

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/realm/talk"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// The admin commands that keep the peace: kick, bans and silences (kick.go, ban.go,
// silence.go).

// Moderation is what kick, ban, unban, bans, silence, unsilence and silences use: how
// to find the knight named, the admin keys (never banned nor silenced), the guests'
// silences, and the other realms, told of a ban or a silence made here.
type Moderation struct {
	Finder
	// Admins is the admin allow-list, read again on reload: an admin's key is neither
	// banned nor silenced.
	Admins *atomic.Pointer[keys.AllowList]
	// Guests are the guests' silences, which no keeper keeps.
	Guests *GuestSilences
	// WorldSilence is a kept silence as the world runs it from now: the server's, since
	// it counts the time left in the server's turns.
	WorldSilence func(sl knights.Silence, now time.Time) world.Silence
	// TellRealms tells the other realms of a kick, a ban or a silence made here (nothing
	// without talk, nor of a guest): the server's, since it holds the talk.
	TellRealms func(talk.Moderation)
	// Now is the wall clock.
	Now func() time.Time
}

// adminKey reports whether fp is a key of the admin allow-list now.
func (m Moderation) adminKey(fp string) bool {
	return slices.Contains(m.Admins.Load().Fingerprints(), fp)
}

// actionJSON is the --json output of kick, ban and unban.
type actionJSON struct {
	Fingerprint string `json:"fingerprint,omitempty"`
	// Fingerprints are every key a ban of a knight banned, Addr the address prefix a
	// ban of a guest or an address banned.
	Fingerprints []string `json:"fingerprints,omitempty"`
	Addr         string   `json:"addr,omitempty"`
	Name         string   `json:"name,omitempty"`
	Kicked       bool     `json:"kicked"`
	// Realm is the realm a knight kicked plays on, when another.
	Realm  string `json:"realm,omitempty"`
	Banned bool   `json:"banned"`
	// Until is when a timed ban lapses; left out for a ban without an end.
	Until time.Time `json:"until,omitzero"`
	// Reason is what the knight removed was told, after world.KickedMessage.
	Reason string `json:"reason,omitempty"`
}
