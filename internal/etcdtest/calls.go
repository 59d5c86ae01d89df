package etcdtest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/server/v3/embed"
	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"
)

// Recorded is an etcd that serves its clients on two addresses and records the calls
// made through the second, Watched: a test gives it to the one client whose calls it
// counts (a realm's), and Addr to every other. What a call costs a client far from etcd
// is a round trip, so a test can bound the round trips a path takes by its calls.
type Recorded struct {
	// Addr is the client address whose calls are not recorded; Watched the one whose
	// calls are.
	Addr, Watched string

	mu    sync.Mutex
	calls []Call
}

// Call is one call made through Recorded.Watched: a unary call of the KV or the lease
// API, or a watch created on a watch stream. A lease's keep-alives are not calls.
type Call struct {
	// Method is the call's gRPC method without its service ("Range", "Txn", "Put",
	// "DeleteRange", "LeaseGrant"...), or "Watch" for a watch created.
	Method string
	// Keys are the keys it names (a Txn's compares', then its operations'), without
	// repeats.
	Keys []string
	// Start and End are when etcd began it and answered it.
	Start, End time.Time
}

func (c Call) String() string { return c.Method + " " + strings.Join(c.Keys, " ") }

// StartRecorded starts one etcd as Start does, recording the calls made through its
// second client address; it is stopped with the test.
func StartRecorded(t testing.TB) *Recorded {
	t.Helper()
	r := &Recorded{}
	watched := freeURL()
	if watched == nil {
		t.Fatal("etcdtest: no free port")
	}
	r.Watched = watched.Host
	addr, stop, err := start(nil, func(cfg *embed.Config) {
		cfg.ListenClientUrls = append(cfg.ListenClientUrls, *watched)
		cfg.AdvertiseClientUrls = append(cfg.AdvertiseClientUrls, *watched)
		cfg.GRPCAdditionalServerOptions = []grpc.ServerOption{
			grpc.ChainUnaryInterceptor(r.unary), grpc.ChainStreamInterceptor(r.stream)}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	r.Addr = addr
	return r
}

// Calls are the calls recorded so far, in the order etcd began them.
func (r *Recorded) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// Reset forgets the calls recorded so far.
func (r *Recorded) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = nil
}

// watched reports whether a call came through the watched address.
func (r *Recorded) watched(ctx context.Context) bool {
	p, ok := peer.FromContext(ctx)
	return ok && p.LocalAddr != nil && p.LocalAddr.String() == r.Watched
}

// add records a call and returns its index.
func (r *Recorded) add(c Call) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
	return len(r.calls) - 1
}

// ended notes when call i was answered.
func (r *Recorded) ended(i int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i < len(r.calls) { // a Reset meanwhile forgot it
		r.calls[i].End = time.Now()
	}
}

func (r *Recorded) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if !r.watched(ctx) || strings.HasPrefix(info.FullMethod, "/etcdserverpb.Maintenance/") {
		return handler(ctx, req) // the client's status asks are its own, not the caller's
	}
	i := r.add(Call{Method: info.FullMethod[strings.LastIndex(info.FullMethod, "/")+1:], Keys: keysOf(req), Start: time.Now()})
	defer r.ended(i)
	return handler(ctx, req)
}

func (r *Recorded) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if !r.watched(ss.Context()) || !strings.HasSuffix(info.FullMethod, "/Watch") {
		return handler(srv, ss)
	}
	return handler(srv, &watchStream{ServerStream: ss, r: r})
}

// watchStream records each watch created on a watch stream, from its request to the
// answer that it was created.
type watchStream struct {
	grpc.ServerStream
	r *Recorded

	mu      sync.Mutex
	pending []int // the calls of creates not answered yet, in order (etcd answers them so)
}

func (w *watchStream) RecvMsg(m any) error {
	err := w.ServerStream.RecvMsg(m)
	if req, ok := m.(*pb.WatchRequest); ok && err == nil {
		if c := req.GetCreateRequest(); c != nil {
			i := w.r.add(Call{Method: "Watch", Keys: []string{string(c.Key)}, Start: time.Now()})
			w.mu.Lock()
			w.pending = append(w.pending, i)
			w.mu.Unlock()
		}
	}
	return err
}

func (w *watchStream) SendMsg(m any) error {
	if resp, ok := m.(*pb.WatchResponse); ok && resp.Created {
		w.mu.Lock()
		if len(w.pending) > 0 {
			w.r.ended(w.pending[0])
			w.pending = w.pending[1:]
		}
		w.mu.Unlock()
	}
	return w.ServerStream.SendMsg(m)
}

// keysOf are the keys a request names.
func keysOf(req any) []string {
	var keys []string
	add := func(k []byte) {
		for _, have := range keys {
			if have == string(k) {
				return
			}
		}
		keys = append(keys, string(k))
	}
	var ops func(ops []*pb.RequestOp)
	ops = func(list []*pb.RequestOp) {
		for _, op := range list {
			switch {
			case op.GetRequestRange() != nil:
				add(op.GetRequestRange().Key)
			case op.GetRequestPut() != nil:
				add(op.GetRequestPut().Key)
			case op.GetRequestDeleteRange() != nil:
				add(op.GetRequestDeleteRange().Key)
			case op.GetRequestTxn() != nil:
				txn := op.GetRequestTxn()
				for _, c := range txn.Compare {
					add(c.Key)
				}
				ops(txn.Success)
				ops(txn.Failure)
			}
		}
	}
	switch q := req.(type) {
	case *pb.RangeRequest:
		add(q.Key)
	case *pb.PutRequest:
		add(q.Key)
	case *pb.DeleteRangeRequest:
		add(q.Key)
	case *pb.TxnRequest:
		for _, c := range q.Compare {
			add(c.Key)
		}
		ops(q.Success)
		ops(q.Failure)
	case *pb.LeaseGrantRequest, *pb.LeaseRevokeRequest, *pb.LeaseTimeToLiveRequest:
	default:
		add([]byte(fmt.Sprintf("%T", req)))
	}
	return keys
}

// Rounds groups calls, in the order etcd began them, into the round trips their client
// made them in, for a client gap or more from etcd each way (tcpproxy.Delay): a call made
// after an answer reaches etcd at least twice gap after that answer left it, while
// calls made at once reach it within a moment of each other. So a call begun more than
// gap after every call before it ended begins a round.
func Rounds(calls []Call, gap time.Duration) [][]Call {
	var rounds [][]Call
	var last time.Time // the latest end so far
	for _, c := range calls {
		if len(rounds) == 0 || c.Start.Sub(last) > gap {
			rounds = append(rounds, nil)
		}
		rounds[len(rounds)-1] = append(rounds[len(rounds)-1], c)
		if end := c.End; end.After(last) {
			last = end
		} else if c.Start.After(last) {
			last = c.Start
		}
	}
	return rounds
}
