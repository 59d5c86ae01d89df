package realm

import (
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/internal/etcdtest"
)

// etcdAddr is the embedded etcd's client address, host:port on loopback.
var etcdAddr string

// TestMain starts one etcd for the package's tests (on free loopback ports, without
// fsync); each test keeps to a prefix of its own.
func TestMain(m *testing.M) { etcdtest.Main(m, &etcdAddr) }
