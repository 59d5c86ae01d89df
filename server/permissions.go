package server

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
)

// A permissionWarning (command.PermissionWarning, which stats shows) is a file of the
// server's that other users of the machine could read or change: the host key or the
// database read (the host key lets anyone pose as this server; the database holds every
// knight and ban), the data folder or the admin keys written (anyone could then replace
// the database, or make themselves an admin), the message of the day's file written
// (anyone could speak to every player as the server).
type permissionWarning = command.PermissionWarning

// permissionWarnings checks the modes of the server's files: at start (logged) and for
// the admin's stats. A file that does not exist is no warning. Windows keeps no such
// modes, so there it finds nothing.
func permissionWarnings(cfg Config) []permissionWarning {
	if runtime.GOOS == "windows" {
		return nil
	}
	var out []permissionWarning
	check := func(path string, bad fs.FileMode, problem, fix string) {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm()&bad == 0 {
			return
		}
		out = append(out, permissionWarning{Path: path, Mode: fmt.Sprintf("%04o", fi.Mode().Perm()), Problem: problem, Fix: fix + " " + path})
	}
	const byOthers, writeByOthers = 0o044, 0o022 // read, write by the group or anyone
	check(cfg.Data, writeByOthers, "the data folder can be written by other users", "chmod 700")
	check(filepath.Join(cfg.Data, keys.HostKeyFile), byOthers, "the host key can be read by other users", "chmod 600")
	check(filepath.Join(cfg.Data, "orthanc.db"), byOthers, "the database can be read by other users", "chmod 600")
	check(cfg.AdminKeys, writeByOthers, "the admin keys file can be written by other users", "chmod 644")
	check(cfg.MOTDFile, writeByOthers, "the message of the day's file can be written by other users", "chmod 644")
	return out
}
