package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// ClientAddr is the address a request came from, as the rate cap and the logs count it.
// It is the peer's address, unless the peer is one of trusted, a reverse proxy in front
// of the page: then it is the rightmost address of X-Forwarded-For that is not a trusted
// proxy. Each proxy appends the address it was reached from, so everything right of
// that one was written by proxies we trust, and everything left of it by the client,
// who may write anything. A header from any other peer is ignored: anyone could send
// one. Behind a trusted proxy with no usable header (its own health check), the answer
// is the last trusted address, the proxy's.
func ClientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := parseAddr(r.RemoteAddr)
	if !isTrusted(peer, trusted) {
		return peer
	}
	hops := forwardedFor(r.Header)
	for i := len(hops) - 1; i >= 0; i-- {
		a := parseAddr(hops[i])
		if !a.IsValid() {
			break // not an address: written by no proxy of ours, so nothing left of it is ours either
		}
		peer = a
		if !isTrusted(a, trusted) {
			break
		}
	}
	return peer
}

// forwardedFor lists the addresses of every X-Forwarded-For line of h, left to right.
func forwardedFor(h http.Header) []string {
	var hops []string
	for _, line := range h.Values("X-Forwarded-For") {
		for hop := range strings.SplitSeq(line, ",") {
			hops = append(hops, strings.TrimSpace(hop))
		}
	}
	return hops
}

// parseAddr reads an address with or without a port ("192.0.2.1", "192.0.2.1:4000",
// "[2001:db8::1]:80", "2001:db8::1"), without its zone, IPv4-mapped IPv6 as IPv4; the
// zero Addr if s is none.
func parseAddr(s string) netip.Addr {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		return netip.Addr{}
	}
	return a.WithZone("").Unmap()
}

// isTrusted tells whether a is in one of the prefixes.
func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ParsePrefixes reads a list of trusted proxies separated by commas: CIDR prefixes
// ("10.0.0.0/8", "2001:db8::/32") or single addresses ("127.0.0.1"). Empty is none.
func ParsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		p, err := netip.ParsePrefix(item)
		if err != nil {
			a, aerr := netip.ParseAddr(item)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is neither an address nor a CIDR prefix such as 10.0.0.0/8", item)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
