// Command orthanc-ssh runs the Orthanc dungeon server: players connect with `ssh -p 2222
// host`, their key is their account. The server is the package server; this command
// wires it to the process: its arguments, environment, signals and exit code.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/orthanc-ssh/orthanc-ssh/server"
)

// stampedVersion is the version a build without VCS information is given with -ldflags
// "-X main.stampedVersion=V" (the Dockerfile's).
var stampedVersion string

func main() {
	server.StampVersion(stampedVersion)
	if len(os.Args) > 1 && os.Args[1] == "health" { // the subcommand a HEALTHCHECK runs
		os.Exit(health(os.Args[2:], os.Getenv, os.Stdout, os.Stderr))
	}
	if os.Getenv("GOGC") == "" { // an operator's GOGC wins
		debug.SetGCPercent(server.DefaultGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(server.Run(ctx, os.Args[1:], os.Getenv, os.Stderr))
}
