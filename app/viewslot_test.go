package app

import (
	"context"
	"testing"

	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// A view slot keeps only the newest view, hands it out once, and says so when it is empty;
// a view delivered while the session waits wakes it, and waiting ends with the session.
func TestViewSlotKeepsTheNewestView(t *testing.T) {
	mb := NewViewSlot()
	if _, ok := mb.Take(); ok {
		t.Fatal("an empty view slot gave a view")
	}
	mb.Deliver(world.View{Turn: 1})
	mb.Deliver(world.View{Turn: 2})
	if !mb.Wait(context.Background()) {
		t.Fatal("Wait with a view waiting returned false")
	}
	if v, ok := mb.Take(); !ok || v.Turn != 2 {
		t.Fatalf("Take = turn %d, %v; want the newest, turn 2", v.Turn, ok)
	}
	if _, ok := mb.Take(); ok {
		t.Fatal("a view was handed out twice")
	}

	got := make(chan world.View)
	go func() {
		v, _ := mb.Next(context.Background())
		got <- v
	}()
	mb.Deliver(world.View{Turn: 3})
	if v := <-got; v.Turn != 3 {
		t.Fatalf("Next = turn %d, want 3", v.Turn)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if mb.Wait(ctx) {
		t.Fatal("Wait on an ended session, with no view, returned true")
	}
	if _, ok := mb.Next(ctx); ok {
		t.Fatal("Next on an ended session gave a view")
	}
}
