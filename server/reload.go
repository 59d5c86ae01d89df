package server

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"slices"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/server/command"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// What the server reads again while it runs, on SIGHUP or an admin's reload, without
// dropping anyone: the admin keys file and the message of the day's file.
//
// The message of the day has two sources, and one rules at a time (DESIGN §12, "The
// message of the day"): the file (-motd-file, <data>/motd by default) when it exists,
// else the text stored by motd set. While the file is there, motd set and motd clear are
// refused with a line naming it, so an admin never sets a message the next reload would
// undo unseen; an operator who removes the file and reloads is back on the stored one.

// maxMOTDFile bounds the message of the day's file: the message itself is cut to
// world.MaxBroadcastRunes, and a file far larger is a mistake (the wrong file named).
const maxMOTDFile = 64 << 10

// motdRead is the message of the day as read: its text, and the file it came from
// ("" for the stored one).
type motdRead struct {
	text string
	file string
	cut  bool // the file's text was longer than a message may be
}

// readMOTD reads the message of the day from its file when there is one, else from
// the store.
func (s *Server) readMOTD() (motdRead, error) {
	text, found, err := readMOTDFile(s.cfg.MOTDFile)
	if err != nil {
		// Named as the operator gave it, at start and on reload alike.
		return motdRead{}, fmt.Errorf("-motd-file (env ORTHANC_MOTD_FILE): %w", err)
	}
	if found {
		m := motdRead{text: world.CleanText(text, world.MaxBroadcastRunes), file: s.cfg.MOTDFile}
		m.cut = m.text != world.CleanText(text, 0)
		return m, nil
	}
	stored, err := s.store.LoadMOTD()
	if err != nil {
		return motdRead{}, err
	}
	return motdRead{text: stored.Text}, nil
}

// readMOTDFile reads the file at path whole; found is false when there is none.
func readMOTDFile(path string) (text string, found bool, err error) {
	if path == "" {
		return "", false, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxMOTDFile+1))
	switch {
	case err != nil:
		return "", false, fmt.Errorf("read %s: %w", path, err)
	case len(b) > maxMOTDFile:
		return "", false, fmt.Errorf("%s is larger than %d KiB: is it the right file?", path, maxMOTDFile>>10)
	}
	return string(b), true, nil
}

// useMOTD makes m the message of the day shown from now on.
func (s *Server) useMOTD(m motdRead) {
	s.motdText.Store(&m.text)
	s.motdFile.Store(&m.file)
	if m.cut {
		s.log.Warn("motd file: cut to the longest message", "file", m.file, "runes", world.MaxBroadcastRunes)
	}
}

// reload reads the admin keys and the message of the day again, on SIGHUP or an admin's
// reload, and logs what changed: each admin key added or removed, by fingerprint, and the
// message. A file that cannot be read keeps what was there. No session is closed: a key
// taken out of the file is refused at its next admin command.
func (s *Server) reload() command.Reloaded {
	s.reloading.Lock()
	defer s.reloading.Unlock()
	r := command.Reloaded{AdminKeysFile: s.cfg.AdminKeys, Added: []keys.Entry{}, Removed: []keys.Entry{}}
	s.reloadAdmins(&r)
	old, oldFile := s.motd(), s.motdSource()
	if m, err := s.readMOTD(); err != nil {
		r.MOTDError, r.MOTDFile = err.Error(), oldFile
		s.log.Error("reload: message of the day kept as it was", "err", err)
	} else {
		s.useMOTD(m)
		r.MOTDFile, r.MOTDChanged = m.file, m.text != old || m.file != oldFile
		if r.MOTDChanged {
			s.log.Info("reload: message of the day changed", "from", command.MOTDFrom(m.file), "motd", m.text)
		}
	}
	r.Admins = s.admins.Load().Len()
	s.log.Info("reloaded", "admins", r.Admins, "added", len(r.Added), "removed", len(r.Removed), "motd_changed", r.MOTDChanged)
	return r
}

// reloadAdmins reads the admin keys file again into r, logging each key added or removed.
func (s *Server) reloadAdmins(r *command.Reloaded) {
	admins, bad, err := keys.LoadAllowList(s.cfg.AdminKeys)
	if err != nil {
		r.KeysError = err.Error()
		s.log.Error("reload: admin keys kept as they were", "file", s.cfg.AdminKeys, "err", err)
		return
	}
	r.Skipped = noteAdminKeys(s.log, s.cfg.AdminKeys, admins, bad)
	before := s.admins.Swap(admins)
	r.Added = entriesNotIn(admins.Entries(), before)
	r.Removed = entriesNotIn(before.Entries(), admins)
	for _, e := range r.Added {
		s.log.Info("reload: admin key added", "fingerprint", e.Fingerprint, "comment", e.Comment)
	}
	for _, e := range r.Removed {
		s.log.Info("reload: admin key removed", "fingerprint", e.Fingerprint, "comment", e.Comment)
	}
}

// badLinesShown is how many bad lines of the admin keys file are named one by one; the
// rest are counted, so a junk file gives a few lines of log, not one a line.
const badLinesShown = 3

// noteAdminKeys logs what is wrong with the admin keys file at path, as loaded (admins,
// its bad lines): a file that is not there (no key may run an admin command), and its
// bad lines, the first few named and the rest counted. It returns those same lines, for
// reload's answer.
func noteAdminKeys(log *slog.Logger, path string, admins *keys.AllowList, bad []error) (skipped []string) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		log.Warn("admin keys: no such file, so no key may run admin commands", "file", path,
			"fix", "put an admin's public key (a line of its .pub file) in "+path+", then run reload or send SIGHUP")
	}
	for i, e := range bad {
		if i == badLinesShown {
			more := fmt.Sprintf("and %d more bad lines", len(bad)-badLinesShown)
			log.Warn("admin keys: skipped "+more, "file", path, "keys_loaded", len(admins.Entries()))
			skipped = append(skipped, more)
			break
		}
		skipped = append(skipped, e.Error())
		log.Warn("admin keys: skipped a bad line", "file", path, "err", e)
	}
	return skipped
}

// entriesNotIn are the entries whose keys are not on the list al (never nil: --json
// says [] for none).
func entriesNotIn(entries []keys.Entry, al *keys.AllowList) []keys.Entry {
	have := al.Fingerprints()
	out := []keys.Entry{}
	for _, e := range entries {
		if !slices.Contains(have, e.Fingerprint) {
			out = append(out, e)
		}
	}
	return out
}

// motdSource is the file the message of the day shown came from, "" for the stored one.
func (s *Server) motdSource() string {
	if f := s.motdFile.Load(); f != nil {
		return *f
	}
	return ""
}
