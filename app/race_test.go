//go:build race

package app

// raceDetector is true in a test binary built with -race, whose sync.Pool drops what is
// put in it now and then: fmt's buffers are then made again, and allocations vary.
const raceDetector = true
