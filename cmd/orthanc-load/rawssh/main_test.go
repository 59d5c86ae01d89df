package main

import (
	"strings"
	"testing"
)

// Flags that cannot be right are refused before anything listens.
func TestBadFlagsAreRefused(t *testing.T) {
	for _, args := range [][]string{
		{"-frame-bytes", "-1"},
		{"-frame-every", "-1s"},
		{"-frame-bytes", "many"},
		{"-bogus"},
	} {
		err := run(t.Context(), append(args, "-addr", "127.0.0.1:0"))
		if err == nil || !strings.HasPrefix(err.Error(), "flags:") {
			t.Errorf("%v: %v, want a flags error", args, err)
		}
	}
}
