package records

import (
	"context"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// In etcd a code vanishes by itself when its life is over: it is on a lease that long.
func TestACodeVanishesFromEtcdAtItsEnd(t *testing.T) {
	cli := newClient(t)
	st := New(cli, Options{Prefix: prefixOf(t)})
	if err := st.PutCode(knights.Code{Code: "SOON-GONE", Kind: "link", Knight: "K-kay", Expires: time.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := cli.Get(context.Background(), st.codeKey("SOON-GONE"))
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Kvs) == 0 {
			return
		}
		if resp.Kvs[0].Lease == 0 {
			t.Fatal("the code is on no lease")
		}
		if time.Now().After(deadline) {
			t.Fatal("the code outlived its lease")
		}
		time.Sleep(100 * time.Millisecond) // polling etcd for the lease's end
	}
}
