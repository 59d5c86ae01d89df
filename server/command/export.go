package command

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/orthanc-ssh/orthanc-ssh/internal/english"
	"github.com/orthanc-ssh/orthanc-ssh/knights"
)

// SharedRecords are the knights' records every realm shares in etcd: export writes them
// all, stats counts them.
type SharedRecords interface {
	// Export writes every knight's records to w, read at one revision, taken at now.
	Export(ctx context.Context, w io.Writer, now time.Time) (knights.Tally, error)
	// Tally counts them, bans and silences in force at now.
	Tally(ctx context.Context, now time.Time) (knights.Tally, error)
}

// exportFile is what an export's command lines call its file.
const exportFile = "world.export"

// Export is export's row.
func (o Operations) Export() Command {
	return Command{Name: "export", Usage: "export", Summary: "on a realm: every knight's records in etcd on stdout, the realm world's backup",
		Help: "Run it without a terminal and redirect it: ssh -p PORT host export > " + exportFile + "\n" +
			"The knights' sheets, names, keys, letters, hall of fame, tombstones, bans and silences,\n" +
			"read at one revision of etcd while the realms run: a knight that plays is as of its last\n" +
			"checkpoint (this realm's are written first). orthanc-ssh -import -data " + exportFile + "\n" +
			"-realm NAME -etcd ENDPOINTS writes it into an etcd; what etcd has already stands.",
		Shell: "export streams every knight's records; run it from a shell: ssh -p PORT host export > " + exportFile,
		Admin: true, Run: o.export}
}

// export writes every knight's records in etcd on stdout, once this realm's knights'
// last sheets are written, and says on stderr what it wrote.
func (o Operations) export(c *Call) int {
	if o.Shared == nil {
		return c.Fail("this server is not a realm: its knights are in its database, which backup copies (%s backup > orthanc.db)", c.SSH())
	}
	if c.PTY {
		return c.Fail("export writes a file and a terminal is no place for it; run it without -t: %s export > %s", c.SSH(), exportFile)
	}
	if err := o.Knights.Flush(); err != nil {
		// The export is still consistent: it has these knights as of their last checkpoint.
		o.Log.Error("admin: flush before export", "err", err)
		fmt.Fprintf(c.ErrOut, "orthanc: warning: this realm's newest sheets could not be written first: %v\n", err)
	}
	t, err := o.Shared.Export(c.Ctx, c.Out, o.Now())
	if err != nil {
		o.Log.Error("admin: export", "err", err)
		return c.Fail("export failed: %v; the file is not whole (-import refuses it), take it again", err)
	}
	c.Result = "exported " + tallyText(t)
	fmt.Fprintf(c.ErrOut, "exported %s, at etcd's revision %d\n", tallyText(t), t.Revision)
	return 0
}

// tallyText says what a tally counts, in a line.
func tallyText(t knights.Tally) string {
	parts := []string{
		english.Count(t.Knights, "knight", "knights"),
		english.Count(t.Keys, "key", "keys"),
		fmt.Sprintf("%s in %s", english.Count(t.Letters, "letter", "letters"), english.Count(t.Mailboxes, "mailbox", "mailboxes")),
		fmt.Sprintf("%d in the hall of fame", t.Fame),
		english.Count(t.Tombstones, "tombstone", "tombstones"),
		english.Count(t.Bans, "ban", "bans"),
		english.Count(t.Silences, "silence", "silences"),
	}
	return strings.Join(parts, ", ")
}
