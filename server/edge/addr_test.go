package edge

import (
	"net"
	"testing"
)

// IPv6 clients are counted per /64, IPv4 ones per address.
func TestAddrKey(t *testing.T) {
	for _, tc := range []struct{ addr, key string }{
		{"192.0.2.7:5000", "192.0.2.7"},
		{"[2001:db8:1:2:3:4:5:6]:22", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:22", "2001:db8:1:2::/64"},
		{"[2001:db8:1:3::1]:22", "2001:db8:1:3::/64"},
		{"[::ffff:192.0.2.7]:5000", "192.0.2.7"},
		{"[fe80::1%eth0]:22", "fe80::/64"},
	} {
		a, err := net.ResolveTCPAddr("tcp", tc.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := AddrKey(a); got != tc.key {
			t.Errorf("AddrKey(%s) = %s, want %s", tc.addr, got, tc.key)
		}
	}
}
