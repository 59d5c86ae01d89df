// Package edge is the server's SSH edge: who is let in and how many, and what one
// connection may cost the server once it is in. It holds the connection-level mechanics
// that need no game state:
//
//   - the address a client is counted by (AddrKey: an IPv6 /64 is one; addr.go);
//   - a game session's input: the input pump with its key rate and paste cut
//     (InputPump, input.go);
//   - the registry of open sessions that who, stats, kick and ban read (Registry,
//     sessions.go).
//
// The server decides who a key is, what it plays and what it is told; edge counts,
// bounds and closes. It imports nothing of the game.
package edge
