package server

import (
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server/edge"
	"github.com/orthanc-ssh/orthanc-ssh/server/webpage"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// defaultSeed is the seed of the "original" dungeon: every server that keeps the default
// builds the same one.
const defaultSeed = 1977

// defaultSaveRetry is -save-retry's default: long enough for an operator to free some
// space, short enough for a supervisor's stop.
const defaultSaveRetry = 2 * time.Minute

// defaultReplayMB is -replay-store-mb's default: room on a small disk for about a
// thousand deaths' replays, or a hundred knights' rolling ten minutes and more.
const defaultReplayMB = 200

// defaultReplayKeep is -replay-keep's default: a month, as reports are kept.
const defaultReplayKeep = 30 * 24 * time.Hour

// defaultRealmTTL is -realm-ttl's default: a dead realm's knights wait this long.
const defaultRealmTTL = 10 * time.Second

// Limits are the server's protections against too many, too idle or too greedy clients:
// the SSH edge's (edge.Limits), and the guests' and new knights', which the server counts
// itself (middleware.go, identity.go). Each has a flag of cmd/orthanc-ssh.
type Limits struct {
	edge.Limits
	MaxGuestsPerIP    int // guest sessions from one address (an IPv6 /64)
	MaxGuests         int // guest sessions on the server
	NewKnightsPerHour int // new knights made from one address (an IPv6 /64) in an hour
}

// defaultLimits are the limits' defaults: edge.DefaultLimits, and
//
//	limit                default  effect
//	max-guests-per-ip    2        guests (no key) from one address: a second device, not a crowd
//	max-guests           50       guests on the server: a tenth of the players' places
//	new-knights-per-hour 5        knights made from one address in an hour: a family's, not a script's
var defaultLimits = Limits{Limits: edge.DefaultLimits, MaxGuestsPerIP: 2, MaxGuests: 50, NewKnightsPerHour: 5}

// Config is what a server is started with (New). cmd/orthanc-ssh fills it from its flags
// and ORTHANC_ variables, a test or another program in code; DefaultConfig has the
// defaults. New refuses only a Config it cannot start with (no Data, no Tick): a bad
// value is the caller's to refuse, naming the setting the operator gave.
type Config struct {
	// Addr is the address the server listens on, as ":2222". Serve is given its listener;
	// until it listens, the port players are told comes from here.
	Addr string
	// Data is the folder of orthanc.db and the host key, made if need be.
	Data string
	// AdminKeys is the authorized_keys file of the admins' keys, read again on Reload;
	// empty: Data/admin_keys.
	AdminKeys string
	// MOTDFile is the message of the day's file: when it exists, its text is the message,
	// read again on Reload, and motd set is refused (reload.go). Empty: Data/motd.
	MOTDFile string
	// Seed is the seed of the original dungeon.
	Seed uint64
	// Tick is the wall time of one game turn, from 1 ms to 1 s; ten turns make a round.
	Tick time.Duration
	// MetricsAddr is where /metrics is served in Prometheus text format; empty: nowhere.
	MetricsAddr string
	// BattleGrace is how long a hero who holds up the others of its battle has to choose
	// (a knight alone is never hurried; DESIGN §3).
	BattleGrace time.Duration
	// ChatHistory is how long what is said aloud is kept for reports and channel history;
	// zero keeps none.
	ChatHistory time.Duration
	// Limits are the caps on connections, sessions, guests and new knights, and their
	// timeouts.
	Limits Limits

	// Name is the server's name, for the web page and the listing.
	Name string
	// PublicAddr is the host[:port] players connect to, as the web page and messages show
	// it; empty: this machine's name and the listen port.
	PublicAddr string
	// Guests lets a client with no key in, as a guest (keyboard-interactive, edge.Login).
	Guests bool
	// HTTPAddr is where the web page is served (web/); empty: nowhere.
	HTTPAddr string
	// Web is the web page's caps and the proxies trusted in front of it.
	Web webpage.Config
	// clock is the wall clock of the server's edge (timed bans and silences); nil is
	// time.Now. No flag sets it: tests inject one, so a ban lapses exactly when they say.
	clock func() time.Time
	// SaveRetry is how long a server that is stopping retries a save that fails (a full
	// disk) before it gives up.
	SaveRetry time.Duration
	// ReplayMB bounds the replays kept in the database, in megabytes; 0 records none.
	ReplayMB int
	// ReplayKeep is how long a kept replay is kept (0: until the bound takes it). A
	// knight's rolling record is kept replay.Rolling, however long ago it played.
	ReplayKeep time.Duration
	// Realm is this server's realm name, among the servers that share their knights in
	// the etcd of Etcd (realm.go); both empty: a server alone, as ever.
	Realm string
	// Etcd are the endpoints of the etcd that keeps the realms' shared records.
	Etcd []string
	// RealmTTL is the realm's lease, in whole seconds of 2 or more: how long a dead realm
	// holds its knights.
	RealmTTL time.Duration
	// NATSURL is the external nats-server through which a realm talks with the others
	// (realmtalk.go), or several separated by commas; empty: none.
	NATSURL string
	// NATSListen is the address at which a nats-server run in this process takes the other
	// realms' routes, instead of NATSURL. All the NATS settings empty: no talk.
	NATSListen string
	// NATSRoutes are the other realms' NATSListen addresses, which this one's joins.
	NATSRoutes []string
	// RealmSecret admits the realm to the talk: with NATSListen the routes' credential,
	// the same on every realm (required unless NATSTLS puts the routes under TLS); with
	// NATSURL the realm's password on that server, whose user is the realm's name.
	RealmSecret string
	// EtcdTLS are the PEM files of TLS to etcd; empty: plaintext.
	EtcdTLS TLSFiles
	// NATSTLS are the PEM files of TLS on NATS: the embedded server's routes, or the
	// connection to NATSURL; empty: plaintext.
	NATSTLS TLSFiles
	// Webhook is the URL the server posts its public events to (webhook.go): deaths,
	// retirements, new knights' first levels, admins' broadcasts; empty: none. Its path
	// may hold a secret (a Discord webhook's token), never logged.
	Webhook string
	// Version names the server's build, in its stats, web page and metrics: the command's
	// own version, which the server cannot read from its build when it is a library.
	// Empty: "devel".
	Version string
}

// DefaultConfig is the configuration of a server given no flag: the original dungeon,
// on :2222, in ./data.
func DefaultConfig() Config {
	return Config{Addr: ":2222", Data: "./data", Seed: defaultSeed, Tick: world.DefaultTick, BattleGrace: defaultBattleGrace,
		ChatHistory: defaultChatHistory, Limits: defaultLimits, Name: "Orthanc", Guests: true, Web: webpage.DefaultConfig,
		SaveRetry: defaultSaveRetry, ReplayMB: defaultReplayMB, ReplayKeep: defaultReplayKeep, RealmTTL: defaultRealmTTL}
}

// TLSFiles are the PEM files of one side's TLS; all empty: plaintext. The connections
// read them themselves (etcd's TLSInfo, nats' options), so a certificate renewed in
// place is taken at the next connection.
type TLSFiles struct {
	// CA is the certificate of the authority that signed the other end's; empty: the
	// system's authorities.
	CA string
	// Cert is this end's certificate, shown to an end that asks for one (etcd's
	// --client-cert-auth, a route's other server).
	Cert string
	// Key is the private key of Cert.
	Key string
}

func (f TLSFiles) empty() bool { return f == TLSFiles{} }
