package records

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/store"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A code is taken once, of its kind; one of the other kind stays; an expired one is
// none; a deleted one is gone.
func TestCodesAreTakenOnce(t *testing.T) {
	onBoth(t, func(t *testing.T, st backend) {
		now := time.Now()
		link := store.Code{Code: "7KQM-3XRT", Kind: "link", Knight: "K-kay", Addr: "192.0.2.1", Expires: now.Add(10 * time.Minute)}
		claim := store.Code{Code: "ABCD-EFGH", Kind: "claim", Guest: &world.Adventurer{ID: "guest-1", Name: "guest Tom"}, Expires: now.Add(10 * time.Minute)}
		for _, c := range []store.Code{link, claim} {
			if err := st.PutCode(c); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := st.TakeCode(link.Code, "claim", now); !errors.Is(err, store.ErrCodeKind) {
			t.Fatalf("a link code taken as a claim: %v", err)
		}
		got, err := st.TakeCode(link.Code, "link", now)
		if err != nil || got.Knight != "K-kay" || got.Addr != link.Addr || !got.Expires.Equal(link.Expires) {
			t.Fatalf("take the link code: %+v, %v", got, err)
		}
		if _, err := st.TakeCode(link.Code, "link", now); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the link code taken twice: %v", err)
		}
		if _, err := st.TakeCode(claim.Code, "claim", claim.Expires); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("an expired claim code: %v", err)
		}
		if _, err := st.TakeCode(claim.Code, "claim", now); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("an expired code was kept: %v", err)
		}
		if err := st.PutCode(claim); err != nil {
			t.Fatal(err)
		}
		if got, err := st.TakeCode(claim.Code, "claim", now); err != nil || got.Guest == nil || got.Guest.Name != "guest Tom" {
			t.Fatalf("take the claim code: %+v, %v", got, err)
		}
		if err := st.PutCode(link); err != nil {
			t.Fatal(err)
		}
		for range 2 { // a code not kept is no error
			if err := st.DeleteCode(link.Code); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := st.TakeCode(link.Code, "link", now); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a deleted code: %v", err)
		}
	})
}

// Of takes of one code at once, one has it.
func TestACodeTakenAtOnceIsTakenOnce(t *testing.T) {
	onBoth(t, func(t *testing.T, st backend) {
		now := time.Now()
		for round := range 5 {
			c := store.Code{Code: "RACE-000" + string(rune('A'+round)), Kind: "link", Knight: "K-kay", Expires: now.Add(time.Minute)}
			if err := st.PutCode(c); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			won := 0
			for range 4 {
				wg.Go(func() {
					_, err := st.TakeCode(c.Code, "link", now)
					if err != nil && !errors.Is(err, store.ErrNotFound) {
						t.Error(err)
					}
					mu.Lock()
					won += map[bool]int{true: 1}[err == nil]
					mu.Unlock()
				})
			}
			wg.Wait()
			if won != 1 {
				t.Fatalf("round %d: %d takes had the code", round, won)
			}
		}
	})
}

// In etcd a code vanishes by itself when its life is over: it is on a lease that long.
func TestACodeVanishesFromEtcdAtItsEnd(t *testing.T) {
	cli := newClient(t)
	st := New(cli, Options{Prefix: prefixOf(t)})
	if err := st.PutCode(store.Code{Code: "SOON-GONE", Kind: "link", Knight: "K-kay", Expires: time.Now().Add(time.Second)}); err != nil {
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
