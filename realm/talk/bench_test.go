package talk

import (
	"context"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// BenchmarkShoutsThroughTheBus: lines a second from one realm's bus, through two servers
// joined by a route, to another realm's bus and on into its (stand-in) world, each line
// encoded, limited, decoded and cleaned. Queues are large enough that nothing is dropped;
// the drops are reported all the same.
//
//	go test -run '^$' -bench ShoutsThroughTheBus -benchtime 100000x ./realm/talk
func BenchmarkShoutsThroughTheBus(b *testing.B) {
	srvs := cluster(b, "Camelot", "Avalon")
	big := func(c *Config) { c.Queue = 1 << 18 }
	heard := newFakeWorld()
	to := fakeBus(b, "Avalon", srvs[1], heard, big)
	from := fakeBus(b, "Camelot", srvs[0], newFakeWorld(), big)
	waitFor(b, "Avalon to answer a ping", func() bool { _, ok := from.Ping(context.Background(), "Avalon"); return ok })
	l := world.FarLine{Kind: world.ChatShout, From: "Arthur", FromID: "SHA256:abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", Text: "to arms, knights of the realm, the dragon is at the gate"}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		from.Send(l)
	}
	waitFor(b, "every line heard or dropped", func() bool {
		s, r := from.Stats(), to.Stats()
		return uint64(heard.heard.Load())+r.DroppedIn+r.DroppedSlow+s.DroppedOut >= uint64(b.N)
	})
	took := time.Since(start)
	b.StopTimer()
	s, r := from.Stats(), to.Stats()
	b.ReportMetric(float64(heard.heard.Load())/took.Seconds(), "lines/s")
	b.ReportMetric(float64(r.DroppedIn+r.DroppedSlow+s.DroppedOut), "dropped")
}
