// Package natstest holds what tests of the realms' talk share: a stranger that speaks
// NATS's client protocol by hand, to show a port gives it nothing.
package natstest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// Forgery is a message a stranger publishes: a subject and its body.
type Forgery struct{ Subject, Body string }

// Stranger speaks NATS's client protocol by hand at addr: CONNECT with no credentials,
// SUB to everything, PUB of each forgery, then PING; it reads until the server hangs up.
// It reports whether the port spoke NATS (its first line was INFO) and what it read after
// (or the first line, for a port of another protocol, left at once). A server that keeps
// the stranger's connection open for 10 s is an error: it did not refuse it.
func Stranger(addr string, forged []Forgery) (isNATS bool, read string, err error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return false, "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	first, _ := r.ReadString('\n')
	if !strings.HasPrefix(first, "INFO ") {
		return false, first, nil
	}
	var send strings.Builder
	send.WriteString("CONNECT {}\r\nSUB > 1\r\n")
	for _, f := range forged {
		fmt.Fprintf(&send, "PUB %s %d\r\n%s\r\n", f.Subject, len(f.Body), f.Body)
	}
	send.WriteString("PING\r\n")
	_, _ = io.WriteString(c, send.String()) // the server may hang up while this is written
	rest, err := io.ReadAll(r)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true, string(rest), fmt.Errorf("%s kept a stranger's connection open 10 s", addr)
	}
	return true, string(rest), nil
}
