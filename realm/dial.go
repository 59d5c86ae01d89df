package realm

import (
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
)

// DialOptions are what a realm's etcd client needs besides its endpoints (give them
// to clientv3.Config.DialOptions). gRPC waits between tries to reconnect 1 s, then
// 1.6 s, 2.6 s, 4.1 s... up to two minutes, so a realm whose etcd restarted found it
// serving again only up to seconds later, its lease's margin spent meanwhile. Held
// to half a second, a realm reconnects within half a second of etcd's return, at the
// cost of a try every half second to an etcd that is down.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
		Backoff:           backoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 500 * time.Millisecond},
		MinConnectTimeout: 2 * time.Second,
	})}
}
