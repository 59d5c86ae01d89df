//go:build race

package main

// raceDetector is true in a test binary built with -race, whose handshakes take seconds.
const raceDetector = true
