package command

import (
	"fmt"
	"text/tabwriter"

	"github.com/orthanc-ssh/orthanc-ssh/keys"
	"github.com/orthanc-ssh/orthanc-ssh/world"
)

// Reload is reload's row.
func (o Operations) Reload() Command {
	return Command{Name: "reload", Usage: "reload [--json]", Summary: "read the admin keys and the message of the day's file again; no one is dropped",
		Help: "SIGHUP does the same. Each admin key added or removed is named by its fingerprint, here\n" +
			"and in the log; a key taken out is refused at its next admin command. The message of the\n" +
			"day is the file's (-motd-file, <data>/motd by default) while the file exists, else the one\n" +
			"motd set stored. A file that cannot be read keeps what was there.",
		Admin: true, Takes: TakesJSON, Run: o.reload}
}

// Admins is admins' row.
func (o Operations) Admins() Command {
	return Command{Name: "admins", Usage: "admins [--json]", Summary: "the admin keys loaded: fingerprint, type and comment",
		Admin: true, Takes: TakesJSON, Run: o.admins}
}

// Reloaded is what a reload did, as the log, the reload command and its --json say it.
// The server makes it (SIGHUP reloads too); it is declared here, where reload prints it.
type Reloaded struct {
	AdminKeysFile string       `json:"admin_keys_file"`
	Admins        int          `json:"admin_keys"`
	Added         []keys.Entry `json:"admin_keys_added"`
	Removed       []keys.Entry `json:"admin_keys_removed"`
	// KeysError is why the admin keys were kept as they were: the file could not be read.
	KeysError string   `json:"admin_keys_error,omitempty"`
	Skipped   []string `json:"admin_keys_skipped,omitempty"` // bad lines, each skipped
	// MOTDFile is the file the message of the day came from, "" for the stored one.
	MOTDFile    string `json:"motd_file,omitempty"`
	MOTDChanged bool   `json:"motd_changed"`
	MOTDError   string `json:"motd_error,omitempty"` // why the message was kept as it was
}

// MOTDFrom says where a message of the day came from (its file, "" for the stored one),
// for the log and reload.
func MOTDFrom(file string) string {
	if file == "" {
		return "the stored message (motd set)"
	}
	return file
}

// reload reads the admin keys and the message of the day again, as SIGHUP does, and says
// what changed.
func (o Operations) reload(c *Call) int {
	r := o.ReadAgain()
	c.Result = fmt.Sprintf("%d admin keys, %d added, %d removed, motd changed %v", r.Admins, len(r.Added), len(r.Removed), r.MOTDChanged)
	if c.JSON {
		return c.WriteJSON(r)
	}
	writeReloaded(c, r)
	return 0
}

// writeReloaded prints what a reload did.
func writeReloaded(c *Call, r Reloaded) {
	if r.KeysError != "" {
		fmt.Fprintf(c.Out, "Admin keys: kept as they were (%d): %s\n", r.Admins, r.KeysError)
	} else {
		fmt.Fprintf(c.Out, "Admin keys: %d, from %s.\n", r.Admins, r.AdminKeysFile)
	}
	tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
	for _, e := range r.Added {
		fmt.Fprintf(tw, "  added\t%s\t%s\n", e.Fingerprint, world.CleanLine(e.Comment))
	}
	for _, e := range r.Removed {
		fmt.Fprintf(tw, "  removed\t%s\t%s\n", e.Fingerprint, world.CleanLine(e.Comment))
	}
	_ = tw.Flush()
	for _, line := range r.Skipped {
		fmt.Fprintf(c.Out, "  skipped %s\n", world.CleanLine(line))
	}
	switch {
	case r.MOTDError != "":
		fmt.Fprintf(c.Out, "Message of the day: kept as it was: %s\n", r.MOTDError)
	case r.MOTDChanged:
		fmt.Fprintf(c.Out, "Message of the day: changed, from %s.\n", MOTDFrom(r.MOTDFile))
	default:
		fmt.Fprintf(c.Out, "Message of the day: unchanged, from %s.\n", MOTDFrom(r.MOTDFile))
	}
}

// admins lists the admin keys loaded, in the file's order.
func (o Operations) admins(c *Call) int {
	list := o.AdminKeys().Entries()
	if list == nil {
		list = []keys.Entry{} // --json: [], not null
	}
	c.Result = fmt.Sprintf("%d admin keys", len(list))
	if c.JSON {
		return c.WriteJSON(list)
	}
	fmt.Fprintf(c.Out, "%d admin keys, from %s:\n", len(list), o.AdminKeysFile)
	tw := tabwriter.NewWriter(c.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FINGERPRINT\tTYPE\tCOMMENT")
	for _, e := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", e.Fingerprint, e.Type, world.CleanLine(e.Comment))
	}
	_ = tw.Flush()
	return 0
}
