package command

import "fmt"

// Backup is backup's row.
func (o Operations) Backup() Command {
	return Command{Name: "backup", Usage: "backup", Summary: "a consistent copy of the database on stdout",
		Help: "Run it without a terminal and redirect it: ssh -p PORT host backup > orthanc.db\n" +
			"The copy is taken in one read transaction while the game runs, after the saver has\n" +
			"written what it holds; it opens with bbolt like the live file. On a realm it holds the\n" +
			"realm's own levels, reports and replays: the knights are in etcd, which export copies.",
		Shell: "backup streams the database as binary; run it from a shell: ssh -p PORT host backup > orthanc.db",
		Admin: true, Run: o.backup}
}

// backup writes a consistent copy of the database on stdout, once the saver has written
// what it holds.
func (o Operations) backup(c *Call) int {
	if c.PTY {
		return c.Fail("backup writes binary and a terminal would mangle it; run it without -t: %s backup > orthanc.db", c.SSH())
	}
	if err := o.Saver.Flush(); err != nil {
		// The copy is still consistent; it lacks what the saver could not write.
		o.Log.Error("admin: flush before backup", "err", err)
		fmt.Fprintf(c.ErrOut, "orthanc: warning: the last %d changes could not be written first: %v\n", o.Saver.Pending(), err)
	}
	n, err := o.Store.Backup(c.Out)
	if err != nil {
		o.Log.Error("admin: backup", "bytes", n, "err", err)
		return c.Fail("backup failed after %d bytes: %v", n, err)
	}
	c.Result = fmt.Sprintf("%d bytes", n)
	if o.Shared != nil {
		c.Result += "; the knights are in etcd"
		fmt.Fprintf(c.ErrOut, "orthanc: this copy holds this realm's own levels, reports and replays; the knights are in etcd, "+
			"shared by the realms: back them up with %s export > %s\n", c.SSH(), exportFile)
	}
	return 0
}
