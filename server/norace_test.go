//go:build !race

package server

// raceDetector is true in a test binary built with -race, whose handshakes take seconds.
const raceDetector = false
