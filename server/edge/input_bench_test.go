package edge

import (
	"io"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
)

// keyFeed is a client's input a read at a time: each read returns the next slice sent.
type keyFeed chan []byte

func (f keyFeed) Read(p []byte) (int, error) {
	b, ok := <-f
	if !ok {
		return 0, io.EOF
	}
	return copy(p, b), nil
}

// BenchmarkInputPumpKey is one key read from the client (a read of its own, as a key an
// SSH packet arrives) to its event handed to the program: what the pump costs a key,
// its goroutines' hand-offs included. The key rate is not limited here.
func BenchmarkInputPumpKey(b *testing.B) {
	for _, bc := range []struct {
		name string
		key  []byte
	}{{"letter", []byte("a")}, {"arrow", []byte("\x1b[A")}} {
		b.Run(bc.name, func(b *testing.B) {
			feed := make(keyFeed)
			got := make(chan struct{}, 1)
			p := StartInput(feed, func(uv.Event) { got <- struct{}{} }, nil)
			defer p.Stop()
			defer close(feed)
			b.ReportAllocs()
			for b.Loop() {
				feed <- bc.key
				<-got
			}
		})
	}
}
