package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/server"
	"github.com/orthanc-ssh/orthanc-ssh/web"
	"github.com/orthanc-ssh/orthanc-ssh/webhook"
)

// options are the command's settings: the server's configuration, and what the command
// does besides starting a server (-check, -import, -version) and how it logs.
type options struct {
	server.Config
	// check verifies the database in Data and exits; the server does not start.
	check bool
	// importing copies the knights of the store in Data (or of the export or database
	// copy Data names) into etcd (-import) and exits;
	// the server does not start.
	importing bool
	// showVersion prints the version and exits; the server does not start.
	showVersion bool
	// secretFile is -realm-secret's file, read into RealmSecret (configsecret.go).
	secretFile string
	// makeSecret is -make-realm-secret's file: a new secret is written there, and the
	// server does not start.
	makeSecret string
	// log is the log's level and format (logging.go).
	log logConfig
	// envNames are the ORTHANC_ variables the flags read, to warn of others (env.go).
	envNames []string
}

// parseConfig reads flags and environment (DESIGN §2).
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (options, error) {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	fs := flag.NewFlagSet("orthanc-ssh", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := options{Config: server.DefaultConfig()} // the flags' defaults are the server's
	var seed, tick string
	fs.StringVar(&c.Addr, "addr", env("ORTHANC_ADDR", c.Addr), "listen address (env ORTHANC_ADDR)")
	fs.StringVar(&c.Data, "data", env("ORTHANC_DATA", c.Data), "folder for orthanc.db and the host key (env ORTHANC_DATA)")
	fs.StringVar(&c.AdminKeys, "admin-keys", getenv("ORTHANC_ADMIN_KEYS"), "authorized_keys file of admin keys (env ORTHANC_ADMIN_KEYS; default <data>/admin_keys)")
	fs.StringVar(&c.MOTDFile, "motd-file", getenv("ORTHANC_MOTD_FILE"), "file of the message of the day; when it exists it is the message, read again on reload (SIGHUP), and motd set is refused (env ORTHANC_MOTD_FILE; default <data>/motd)")
	fs.StringVar(&seed, "seed", env("ORTHANC_SEED", strconv.FormatUint(c.Seed, 10)), "seed of the original dungeon (env ORTHANC_SEED)")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", getenv("ORTHANC_METRICS_ADDR"), "serve Prometheus metrics at http://ADDR/metrics, such as 127.0.0.1:9222; off when empty (env ORTHANC_METRICS_ADDR)")
	fs.StringVar(&tick, "tick", env("ORTHANC_TICK", c.Tick.String()), "wall time of one game turn; ten turns make a round (env ORTHANC_TICK)")
	fs.StringVar(&c.HTTPAddr, "http-addr", getenv("ORTHANC_HTTP_ADDR"), "serve the server's web page (who is on, the hall of fame, how to connect) at http://ADDR/, such as :8080; off when empty (env ORTHANC_HTTP_ADDR)")
	fs.StringVar(&c.Name, "name", env("ORTHANC_NAME", c.Name), "the server's name, on its web page and in the listing for MUD directories (env ORTHANC_NAME)")
	fs.StringVar(&c.PublicAddr, "public-addr", getenv("ORTHANC_PUBLIC_ADDR"), "host[:port] players connect to, as the web page and messages show it; default this machine's name and the listen port (env ORTHANC_PUBLIC_ADDR)")
	fs.BoolVar(&c.check, "check", false, "verify every record of the database in -data (pages, checksums, decoding; -data may name a backup's file instead) without writing to it, and exit: 0 when sound, 1 otherwise; the server does not start (a running server's: the admin command check)")
	fs.BoolVar(&c.importing, "import", false, "copy the knights of the server alone in -data (sheets, keys, names, bans, fame, tombstones, letters) into the etcd of -etcd, as realm -realm's, and exit: 0 when all is there, 1 when something was refused or did not read back; what etcd has already stands. Stop the server first. -data may name a file instead: a copy of the database (backup), or a realm world's export (export), whose sheets stay the realms' that wrote them")
	fs.BoolVar(&c.showVersion, "version", false, "print the server's version (its release, or the commit it was built from) and exit")
	logLevel, logFormat := env("ORTHANC_LOG_LEVEL", "info"), env("ORTHANC_LOG_FORMAT", "text")
	fs.Func("log-level", "least level of the lines logged: debug, info, warn or error (env ORTHANC_LOG_LEVEL; default info)", func(v string) error { logLevel = v; return nil })
	fs.Func("log-format", "text (key=value) or json, one object a line (env ORTHANC_LOG_FORMAT; default text)", func(v string) error { logFormat = v; return nil })
	guests := env("ORTHANC_GUESTS", strconv.FormatBool(c.Guests))
	fs.Func("guests", "let a client with no key play as a guest, not saved (env ORTHANC_GUESTS)", func(v string) error { guests = v; return nil })
	fs.Lookup("guests").DefValue = strconv.FormatBool(c.Guests)
	// A number's or a duration's value, from the flag or else the variable, is read
	// after the flags, so that a bad one is refused naming both.
	var checks []func() error
	intFlag := func(p *int, name, envName, usage string) {
		raw := getenv(envName)
		fs.Func(name, fmt.Sprintf("%s (env %s; default %d)", usage, envName, *p), func(v string) error { raw = v; return nil })
		checks = append(checks, func() error { return parseInt(p, raw, name, envName, p == &c.ReplayMB) })
	}
	durFlag := func(p *time.Duration, name, envName, usage string) {
		raw := getenv(envName)
		fs.Func(name, fmt.Sprintf("%s (env %s; default %v)", usage, envName, *p), func(v string) error { raw = v; return nil })
		checks = append(checks, func() error { return parseDur(p, raw, name, envName, p == &c.ChatHistory || p == &c.ReplayKeep) })
	}
	intFlag(&c.Limits.MaxSessions, "max-sessions", "ORTHANC_MAX_SESSIONS", "connections with a session open (a game or a command)")
	intFlag(&c.Limits.MaxHandshakes, "max-handshakes", "ORTHANC_MAX_HANDSHAKES", "connections not in a session: in the SSH handshake, logging in, or yet to open one")
	intFlag(&c.Limits.EarlyDropAt, "early-drop-at", "ORTHANC_EARLY_DROP_AT", "connections in the SSH handshake (not logged in yet) from which places are scarce: new ones from an address with some there are dropped past its share, else at random, 30 % at first, rising to all at max-handshakes")
	intFlag(&c.Limits.MaxPerIP, "max-per-ip", "ORTHANC_MAX_PER_IP", "connections from one address (an IPv6 /64)")
	intFlag(&c.Limits.MaxShakesPerIP, "max-handshakes-per-ip", "ORTHANC_MAX_HANDSHAKES_PER_IP", "connections from one address (an IPv6 /64) in the SSH handshake at once, not logged in yet")
	intFlag(&c.Limits.MaxPerKey, "max-per-key", "ORTHANC_MAX_PER_KEY", "sessions of one key, and of one connection")
	intFlag(&c.Limits.MaxGuestsPerIP, "max-guests-per-ip", "ORTHANC_MAX_GUESTS_PER_IP", "guest sessions from one address (an IPv6 /64)")
	intFlag(&c.Limits.NewKnightsPerHour, "new-knights-per-hour", "ORTHANC_NEW_KNIGHTS_PER_HOUR", "new knights made from one address (an IPv6 /64) in an hour")
	intFlag(&c.Limits.MaxGuests, "max-guests", "ORTHANC_MAX_GUESTS", "guest sessions on the server")
	durFlag(&c.Limits.HandshakeTimeout, "handshake-timeout", "ORTHANC_HANDSHAKE_TIMEOUT", "time to finish the SSH handshake")
	durFlag(&c.Limits.BannerTimeout, "banner-timeout", "ORTHANC_BANNER_TIMEOUT", "a connection that sends nothing (an SSH client's version line) for this long is dropped, and its address charged a penalty; so is one not through its key exchange while handshake places are scarce (-early-drop-at)")
	durFlag(&c.Limits.ChannelTimeout, "channel-timeout", "ORTHANC_CHANNEL_TIMEOUT", "a connection with no session open for this long (after logging in, or after its last session) is closed")
	durFlag(&c.Limits.IdleTimeout, "idle-timeout", "ORTHANC_IDLE_TIMEOUT", "a game session with no keystroke for this long is closed (knight saved)")
	durFlag(&c.Limits.MaxLifetime, "max-lifetime", "ORTHANC_MAX_LIFETIME", "longest a connection may last")
	intFlag(&c.Web.MaxConns, "http-max-conns", "ORTHANC_HTTP_MAX_CONNS", "connections to the web page at once, from everyone")
	intFlag(&c.Web.MaxPerAddr, "http-max-conns-per-ip", "ORTHANC_HTTP_MAX_CONNS_PER_IP", "connections to the web page at once from one address (an IPv6 /64); a trusted proxy has no such cap")
	intFlag(&c.Web.Rate, "http-rate", "ORTHANC_HTTP_RATE", "requests to the web page a second from one client address, on average (more are answered 429)")
	intFlag(&c.Web.Burst, "http-burst", "ORTHANC_HTTP_BURST", "requests to the web page one client address may make at once")
	durFlag(&c.Web.PlayGrace, "http-play-grace", "ORTHANC_HTTP_PLAY_GRACE", "how long a browser's game whose socket dropped (a phone that slept, a network that changed) goes on for its page to come back to it; then it ends as a closed page's, its place in the caps held till then")
	proxies := getenv("ORTHANC_HTTP_TRUSTED_PROXIES")
	fs.Func("http-trusted-proxies", "reverse proxies in front of the web page, as addresses or CIDR prefixes separated by commas, such as 127.0.0.1,10.0.0.0/8: from them the client's address is read from X-Forwarded-For, for the rate cap and the logs; never from anyone else (env ORTHANC_HTTP_TRUSTED_PROXIES; default none)",
		func(v string) error { proxies = v; return nil })
	checks = append(checks, func() (err error) {
		if c.Web.Trusted, err = web.ParsePrefixes(proxies); err != nil {
			return fmt.Errorf("%s %w", named("http-trusted-proxies", "ORTHANC_HTTP_TRUSTED_PROXIES"), err)
		}
		return nil
	})
	origins := getenv("ORTHANC_HTTP_ORIGINS")
	fs.Func("http-origins", "host names (with a port if not the default, * as a wildcard) of the web page's public address behind a proxy that does not pass the Host header on, separated by commas: the play page's socket is opened only from the page's own origin or these (env ORTHANC_HTTP_ORIGINS; default none)",
		func(v string) error { origins = v; return nil })
	checks = append(checks, func() error {
		for o := range strings.SplitSeq(origins, ",") {
			if o = strings.TrimSpace(o); o != "" {
				c.Web.Origins = append(c.Web.Origins, o)
			}
		}
		return nil
	})
	webhookFlag(fs, &c, getenv, &checks)
	durFlag(&c.BattleGrace, "battle-grace", "ORTHANC_BATTLE_GRACE", "how long a hero who holds up the others of its battle has to choose; a knight alone is never hurried, a screen-reader player has three times as long")
	durFlag(&c.SaveRetry, "save-retry", "ORTHANC_SAVE_RETRY", "how long a server that is stopping keeps retrying a save that fails (a full disk), the players told and playing on, before it gives up")
	intFlag(&c.ReplayMB, "replay-store-mb", "ORTHANC_REPLAY_STORE_MB", "megabytes of the database the replays may take (each knight's last 10 minutes, the last 5 before each death and retirement, 2 before each report), the oldest going first; 0 records none")
	durFlag(&c.ReplayKeep, "replay-keep", "ORTHANC_REPLAY_KEEP", "how long a kept replay (a death's, a retirement's, a report's) is kept before it goes (a report's goes sooner, when the report is closed); 0 keeps them until -replay-store-mb takes the oldest")
	durFlag(&c.ChatHistory, "chat-history", "ORTHANC_CHAT_HISTORY", "how long what is said aloud (says, emotes, shouts, channels) is kept in memory for players' reports and channel history; 0 keeps none (whispers: 10 minutes at most)")
	fs.StringVar(&c.Realm, "realm", getenv("ORTHANC_REALM"), "this server's realm name, among servers that share their knights in etcd (needs -etcd); empty: a server alone (env ORTHANC_REALM)")
	etcd := getenv("ORTHANC_ETCD")
	fs.Func("etcd", "etcd endpoints (host:port, separated by commas) that keep the realms' knights, keys, names, bans, fame and letters (needs -realm) (env ORTHANC_ETCD)", func(v string) error { etcd = v; return nil })
	durFlag(&c.RealmTTL, "realm-ttl", "ORTHANC_REALM_TTL", "the realm's lease in etcd, in whole seconds of 2 or more: a realm that dies holds its knights this long, and one cut off stops a quarter of it before it could lapse")
	checks = append(checks, func() error { return c.checkRealm(etcd) })
	fs.StringVar(&c.NATSURL, "nats", getenv("ORTHANC_NATS"), "a realm's NATS server (nats://host:4222, or several separated by commas), through which it talks with the other realms: shouts, whispers, channels, who, bans (needs -realm; or -nats-listen) (env ORTHANC_NATS)")
	fs.StringVar(&c.NATSListen, "nats-listen", getenv("ORTHANC_NATS_LISTEN"), "run a nats-server in this process for the realm's talk, taking the other realms' routes at this host:port (needs -realm; not with -nats) (env ORTHANC_NATS_LISTEN)")
	routes := getenv("ORTHANC_NATS_ROUTES")
	fs.Func("nats-routes", "the other realms' -nats-listen addresses (host:port, separated by commas) the embedded nats-server joins by routes (needs -nats-listen) (env ORTHANC_NATS_ROUTES)", func(v string) error { routes = v; return nil })
	checks = append(checks, func() error { return c.checkNATS(routes) })
	tlsFlags(fs, &c.EtcdTLS, getenv, "etcd", "ORTHANC_ETCD",
		"PEM file of the certificate authority that signed etcd's certificate (its --cert-file), which the realm trusts; default the system's authorities. Any -etcd-* file: TLS to etcd",
		"PEM file of the certificate the realm shows etcd, which asks for one with --client-cert-auth")
	tlsFlags(fs, &c.NATSTLS, getenv, "nats", "ORTHANC_NATS",
		"PEM file of the certificate authority that signed the other realms' certificates (for the routes) or -nats's server's, which the realm trusts; default the system's authorities, for -nats only. Any -nats-* file: TLS on the routes (all three needed), or to -nats",
		"PEM file of the certificate the realm shows on its routes, or to -nats's server when it asks for one")
	checks = append(checks, c.checkTLS)
	secretFlags(fs, &c, getenv)
	checks = append(checks, c.readSecret)
	durFlag(&c.Limits.StallTimeout, "stall-timeout", "ORTHANC_STALL_TIMEOUT", "a client that does not take in a frame for this long is closed")
	if err := fs.Parse(args); err != nil {
		return options{}, err
	}
	if fs.NArg() > 0 {
		return options{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.makeSecret != "" {
		return c, nil
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return options{}, err
		}
	}
	if c.importing && c.Realm == "" {
		return options{}, fmt.Errorf("-import needs %s and %s: the realm this server becomes, and the etcd to copy its knights into",
			named("realm", "ORTHANC_REALM"), named("etcd", "ORTHANC_ETCD"))
	}
	c.envNames = envNames(fs)
	c.Version = version()
	var err error
	if c.log.level, err = parseLogLevel(logLevel); err != nil {
		return options{}, fmt.Errorf("%s %w", named("log-level", "ORTHANC_LOG_LEVEL"), err)
	}
	if c.log.json, err = parseLogFormat(logFormat); err != nil {
		return options{}, fmt.Errorf("%s %w", named("log-format", "ORTHANC_LOG_FORMAT"), err)
	}
	if c.Guests, err = strconv.ParseBool(guests); err != nil {
		return options{}, fmt.Errorf("%s %q: want true or false", named("guests", "ORTHANC_GUESTS"), guests)
	}
	if c.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
		return options{}, fmt.Errorf("%s %q: want a whole number from 0 to 18446744073709551615", named("seed", "ORTHANC_SEED"), seed)
	}
	if c.Tick, err = time.ParseDuration(tick); err != nil || c.Tick < time.Millisecond || c.Tick > time.Second {
		return options{}, fmt.Errorf("%s %q: want a duration from 1ms to 1s, such as 25ms", named("tick", "ORTHANC_TICK"), tick)
	}
	if c.Data == "" {
		return options{}, fmt.Errorf("%s: the data folder must not be empty", named("data", "ORTHANC_DATA"))
	}
	return c, nil
}

// webhookFlag declares -webhook. Its value may hold a secret (a Discord webhook's token),
// so it is read by a function, whose help prints no default, and a bad one is refused
// without repeating it.
func webhookFlag(fs *flag.FlagSet, c *options, getenv func(string) string, checks *[]func() error) {
	raw := getenv("ORTHANC_WEBHOOK")
	fs.Func("webhook", "post deaths, retirements, new knights' first levels and admins' broadcasts as JSON, with a Discord-compatible content field, to this http or https URL, such as a Discord channel's webhook https://discord.com/api/webhooks/ID/TOKEN; the URL is a secret: give it by the variable (env ORTHANC_WEBHOOK; default none)",
		func(v string) error { raw = v; return nil })
	*checks = append(*checks, func() error {
		if raw == "" {
			return nil
		}
		if err := webhook.Validate(raw); err != nil {
			return fmt.Errorf("%s: %w", named("webhook", "ORTHANC_WEBHOOK"), err)
		}
		c.Webhook = raw
		return nil
	})
}

// checkRealm reads -etcd and checks that -realm and -etcd come together.
func (c *options) checkRealm(etcd string) error {
	for _, e := range strings.Split(etcd, ",") {
		if e = strings.TrimSpace(e); e != "" {
			c.Etcd = append(c.Etcd, e)
		}
	}
	switch {
	case c.Realm != "" && len(c.Etcd) == 0:
		return fmt.Errorf("%s %q needs %s: the etcd that keeps the realms' knights", named("realm", "ORTHANC_REALM"), c.Realm, named("etcd", "ORTHANC_ETCD"))
	case c.Realm == "" && len(c.Etcd) > 0:
		return fmt.Errorf("%s needs %s: this server's realm name", named("etcd", "ORTHANC_ETCD"), named("realm", "ORTHANC_REALM"))
	case strings.ContainsAny(c.Realm, "/ \x00") || len(c.Realm) > 32:
		return fmt.Errorf("%s %q: want a name of at most 32 characters, without spaces or slashes", named("realm", "ORTHANC_REALM"), c.Realm)
	case c.RealmTTL%time.Second != 0 || c.RealmTTL < 2*time.Second:
		return fmt.Errorf("%s %v: want whole seconds, 2s or more", named("realm-ttl", "ORTHANC_REALM_TTL"), c.RealmTTL)
	}
	return nil
}

// checkNATS reads -nats-routes and checks that the talk's settings go together: on a
// realm only, either an external server or an embedded one.
func (c *options) checkNATS(routes string) error {
	for _, r := range strings.Split(routes, ",") {
		if r = strings.TrimSpace(r); r != "" {
			c.NATSRoutes = append(c.NATSRoutes, r)
		}
	}
	switch {
	case c.Realm == "" && c.NATSURL != "":
		return fmt.Errorf("%s needs %s: only a realm talks with others", named("nats", "ORTHANC_NATS"), named("realm", "ORTHANC_REALM"))
	case c.Realm == "" && c.NATSListen != "":
		return fmt.Errorf("%s needs %s: only a realm talks with others", named("nats-listen", "ORTHANC_NATS_LISTEN"), named("realm", "ORTHANC_REALM"))
	case c.NATSURL != "" && c.NATSListen != "":
		return fmt.Errorf("%s and %s: give one, an external server or an embedded one", named("nats", "ORTHANC_NATS"), named("nats-listen", "ORTHANC_NATS_LISTEN"))
	case len(c.NATSRoutes) > 0 && c.NATSListen == "":
		return fmt.Errorf("%s needs %s: the routes join this realm's embedded nats-server to the others'", named("nats-routes", "ORTHANC_NATS_ROUTES"), named("nats-listen", "ORTHANC_NATS_LISTEN"))
	}
	return nil
}

// named names a setting as an operator may have given it: "-tick (env ORTHANC_TICK)".
func named(flagName, envName string) string {
	return fmt.Sprintf("-%s (env %s)", flagName, envName)
}

// parseInt sets *p to v, a limit of 1 or more (or 0 when zeroOK), unless v is empty (the
// default stays).
func parseInt(p *int, v, flagName, envName string, zeroOK bool) error {
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if least := 1 - b2i(zeroOK); err != nil || n < least {
		return fmt.Errorf("%s %q: want a whole number of %d or more", named(flagName, envName), v, least)
	}
	*p = n
	return nil
}

// parseDur sets *p to v, a positive duration (or 0 when zeroOK), unless v is empty.
func parseDur(p *time.Duration, v, flagName, envName string, zeroOK bool) error {
	if v == "" {
		return nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case zeroOK && (err != nil || d < 0):
		return fmt.Errorf("%s %q: want a duration of 0 or more, such as 24h", named(flagName, envName), v)
	case !zeroOK && (err != nil || d <= 0):
		return fmt.Errorf("%s %q: want a duration more than 0, such as 30s", named(flagName, envName), v)
	}
	*p = d
	return nil
}

// b2i is 1 for true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
