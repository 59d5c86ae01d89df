// Package edge is the server's SSH edge: who is let in and how many, and what one
// connection may cost the server once it is in. It holds the connection-level mechanics
// that need no game state:
//
//   - the limiting listener (Listener, Limits): a place for each connection, in the
//     handshake or in a session (Slot), per-address limits, penalties for connections
//     dropped at the banner deadline and failed ones, early drop, the banner and channel
//     timeouts (limits.go, admission.go), and the address a client is counted by
//     (AddrKey, addr.go);
//   - the session channel (SessionChannel): at most max-per-key of them on a connection,
//     each with a context of its own, the requests a client may send on it (a window
//     change to the program, WatchWindow), and its frames written straight to the SSH
//     channel (channel.go);
//   - a game session's input and output: the input pump with its key rate and paste cut,
//     which waits for the world's views too and answers the session's requests once it
//     has started, so a session holds few goroutines (InputPump, Wait, input.go), its
//     connection's reads paced (PaceReads, readpace.go), and the stall and idle watch of
//     its frames (Guard, ioguard.go);
//   - the registry of open sessions that who, stats, kick and ban read (Registry,
//     sessions.go);
//   - the login (Login): the algorithms offered, keys and guests let in or refused by
//     the bans and limits it is given, each refusal told in the banner (login.go);
//   - the middlewares that need no game: a panic ends only its session, a session takes
//     its connection's place, sessions per key and guests per address are bounded
//     (RecoverPanics, HoldSlot, KeyLimits; middleware.go).
//
// The server decides who a key is, what it plays and what it is told; edge counts,
// bounds and closes. It imports nothing of the game.
package edge
