package command

import (
	"log/slog"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Operations is what the admin commands that keep the server running use: backup and
// check (the database, once the saver has written), export (a realm's knights in etcd), stats (the server's numbers), reload
// and admins (the admin keys and the message of the day), and keys move (a lost key's
// knight given to a new key).
type Operations struct {
	Log *slog.Logger
	// Store is the server's own database: backup copies it, check reads all of it.
	Store *store.Store
	// Saver writes the game's changes to Store; backup and check flush it first, and
	// stats shows its counters.
	Saver *store.Saver
	World *world.Engine
	// Knights are the knights' records: stats counts them and their bans, keys move
	// gives a knight to another key.
	Knights knights.Keeper
	// Shared is the records the realms share in etcd, nil on a server alone: export
	// writes them, stats counts them, backup says they are not in its copy.
	Shared SharedRecords
	// Names is the book of the knights' names, which lets go of a knight keys move
	// entombed.
	Names *knights.NameBook
	// Sessions are the open sessions: stats counts them, keys move closes the old key's.
	Sessions *edge.Registry
	// Now is the clock the bans are counted at.
	Now func() time.Time

	// Version is the server's build and Seed the original dungeon's seed, for stats.
	Version string
	Seed    uint64
	// ReplayLimit is the replays' bound in bytes (-replay-store-mb), for stats.
	ReplayLimit int64
	// Replays is the writer of the replays, nil when the server records none. It is a
	// func since the server makes the writer when it starts serving, after its table.
	Replays func() *store.ReplayWriter
	// Measure is what the server measures of itself (its observer, which the metrics
	// endpoint shares and only the server holds): its uptime, tick and save times.
	Measure func() Measures
	// Warnings are the server's files other users could read or change; only the server
	// knows its files.
	Warnings func() []PermissionWarning

	// ReadAgain reads the admin keys and the message of the day again, as SIGHUP does,
	// and says what changed: the server's, as it holds both and logs the change.
	ReadAgain func() Reloaded
	// AdminKeys is the admin allow-list loaded now: the server swaps it on reload.
	AdminKeys func() *keys.AllowList
	// AdminKeysFile is the admin keys' file (-admin-keys), for admins.
	AdminKeysFile string

	// EndGames ends every game open with the key fp, each told why, its knight saved:
	// the server's, as it alone holds the games' programs.
	EndGames func(fp, why string)
}
