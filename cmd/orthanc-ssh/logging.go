package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
)

// logConfig is how the command and its server log: the least level written, and text (key=value) or
// JSON lines.
type logConfig struct {
	level slog.Level
	json  bool
}

// parseLogLevel reads -log-level: debug, info, warn or error.
func parseLogLevel(v string) (slog.Level, error) {
	var l slog.Level
	switch strings.ToLower(v) {
	case "debug", "info", "warn", "error":
		_ = l.UnmarshalText([]byte(v))
		return l, nil
	}
	return 0, fmt.Errorf("%q: want debug, info, warn or error", v)
}

// parseLogFormat reads -log-format: text or json; it reports whether it is json.
func parseLogFormat(v string) (json bool, err error) {
	switch strings.ToLower(v) {
	case "text":
		return false, nil
	case "json":
		return true, nil
	}
	return false, fmt.Errorf("%q: want text or json", v)
}

// startLog makes the server's logger as cfg asks and writes what comes first: the
// version, so that every log says which build wrote it, then a warning for each
// ORTHANC_ variable of the environment that the server does not read.
func startLog(cfg options, w io.Writer) *slog.Logger {
	log := newLogger(cfg.log, w)
	warnUnknownEnv(log, os.Environ(), cfg.envNames)
	return log
}

// newLogger makes a logger as cfg asks, and writes the version in its first line.
func newLogger(cfg logConfig, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.level}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.json {
		h = slog.NewJSONHandler(w, opts)
	}
	log := slog.New(h)
	log.Info("orthanc-ssh", "version", version(), "go", goVersion())
	return log
}
