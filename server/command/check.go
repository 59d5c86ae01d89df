package command

import (
	"fmt"
	"strings"
)

// Check is check's row.
func (o Operations) Check() Command {
	return Command{Name: "check", Usage: "check [--json]", Summary: "verify every record of the live database: pages, checksums, decoding",
		Help: "Runs while the game goes on, in one read transaction, after the saver has written what it\n" +
			"holds. Exit status 1 when a problem is found, each named by its bucket and key. A stopped\n" +
			"server's database is checked with orthanc-ssh -check.",
		Admin: true, Takes: TakesJSON, Run: o.check}
}

// checkJSON is check --json's answer.
type checkJSON struct {
	Path     string   `json:"path"`
	Sound    bool     `json:"sound"`
	Problems []string `json:"problems,omitempty"`
}

// check verifies every record of the live database (store.Check): bbolt's pages, every
// value's checksum, every value decoded. Exit status 1 on a problem.
func (o Operations) check(c *Call) int {
	if err := o.Saver.Flush(); err != nil {
		o.Log.Error("admin: flush before check", "err", err)
	}
	err := o.Store.Check()
	out := checkJSON{Path: o.Store.Path(), Sound: err == nil}
	if err != nil {
		out.Problems = strings.Split(err.Error(), "\n")
		o.Log.Error("admin: check found problems", "err", err)
	}
	c.Result = fmt.Sprintf("sound: %v", out.Sound)
	if c.JSON {
		if code := c.WriteJSON(out); code != 0 || out.Sound {
			return code
		}
		return 1
	}
	if out.Sound {
		fmt.Fprintf(c.Out, "%s is sound: every page, checksum and record read.\n", out.Path)
		return 0
	}
	return c.Fail("%s", err)
}
