// Command orthanc-ssh runs the Orthanc dungeon server: players connect with `ssh -p 2222
// host`, their key is their account. The server is the package server; this command
// wires it to the process: its flags and ORTHANC_ variables, its log, its version,
// signals and exit code, and the -check, -import and health entry points.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "health" { // the subcommand a HEALTHCHECK runs
		os.Exit(health(os.Args[2:], os.Getenv, os.Stdout, os.Stderr))
	}
	if os.Getenv("GOGC") == "" { // an operator's GOGC wins
		debug.SetGCPercent(defaultGCPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Getenv, os.Stderr))
}
