package edge

import (
	"net"
	"net/netip"
)

// AddrKey is what the per-address limits count: an IPv4 address, or the /64 an IPv6
// address is in (a household or a host is usually given a whole /64, so counting single
// IPv6 addresses would give it unlimited places).
func AddrKey(a net.Addr) string {
	host := HostOf(a)
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// HostOf is the host of an address, without its port.
func HostOf(a net.Addr) string {
	if host, _, err := net.SplitHostPort(a.String()); err == nil {
		return host
	}
	return a.String()
}

// stringAddr is a net.Addr of an address string, for HostOf.
type stringAddr string

func (a stringAddr) Network() string { return "tcp" }
func (a stringAddr) String() string  { return string(a) }
