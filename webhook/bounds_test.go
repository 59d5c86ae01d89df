package webhook

import (
	"testing"
	"time"
)

// The numbers of docs/DESIGN.md's "A bridge out" rulings and docs/OPERATIONS.md's
// "Posting to Discord", written out here rather than read from the constants, so that a
// change to one is a change to the other: a queue of 256, a post's 10 s, five tries
// after 1, 2, 4 and 8 s (at most 30 s apart), Retry-After honoured up to 60 s, content
// cut at Discord's 2000.
func TestTheBridgesNumbers(t *testing.T) {
	if QueueSize != 256 || DefaultTimeout != 10*time.Second || maxAttempts != 5 || firstBackoff != time.Second ||
		maxBackoff != 30*time.Second || maxRetryAfter != 60*time.Second || maxContent != 2000 {
		t.Errorf("queue %d, timeout %v, %d tries from %v to %v apart, Retry-After up to %v, content %d",
			QueueSize, DefaultTimeout, maxAttempts, firstBackoff, maxBackoff, maxRetryAfter, maxContent)
	}
	var waits []time.Duration
	for attempt := 1; attempt < maxAttempts; attempt++ {
		waits = append(waits, min(maxBackoff, firstBackoff<<(attempt-1)))
	}
	if len(waits) != 4 || waits[0] != time.Second || waits[3] != 8*time.Second {
		t.Errorf("the backoffs %v, want 1, 2, 4, 8 s", waits)
	}
}
