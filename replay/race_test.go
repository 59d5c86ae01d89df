//go:build race

package replay

// raceDetector is true in a test binary built with -race, whose sync.Pool drops what is
// put in it now and then (encoding/json's and bbolt's buffers): allocations counted vary.
const raceDetector = true
