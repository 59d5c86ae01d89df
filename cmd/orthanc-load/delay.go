package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/tcpproxy"
)

// runDelay is the delay command: a TCP proxy that holds every byte -delay each way, to
// put a realm far from its etcd on one box (PERFORMANCE, "A realm far from etcd"). It
// runs until ctx ends.
//
//	orthanc-load delay -listen 127.0.0.1:23795 -to 127.0.0.1:2379 -delay 75ms
func runDelay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("orthanc-load delay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	to := fs.String("to", "", "address to forward to (host:port)")
	delay := fs.Duration("delay", 75*time.Millisecond, "how long every byte is held, each way (a round trip takes twice this more)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *to == "" {
		fmt.Fprintln(stderr, "orthanc-load delay: -to is needed")
		return 2
	}
	d, err := tcpproxy.ListenDelay(*listen, *to, *delay)
	if err != nil {
		fmt.Fprintln(stderr, "orthanc-load delay:", err)
		return 1
	}
	fmt.Fprintf(stdout, "delaying %s to %s by %v each way\n", d.Addr(), *to, *delay)
	<-ctx.Done()
	if err := d.Close(); err != nil {
		fmt.Fprintln(stderr, "orthanc-load delay:", err)
		return 1
	}
	return 0
}
