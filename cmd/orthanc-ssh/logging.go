package main

import (
	"io"
	"log/slog"
)

// newLogger makes the server's logger as cfg asks, and writes its first line: the
// version, so that every log says which build wrote it.
func newLogger(cfg config, w io.Writer) *slog.Logger {
	log := slog.New(slog.NewTextHandler(w, nil))
	log.Info("orthanc-ssh", "version", version(), "go", goVersion())
	return log
}
