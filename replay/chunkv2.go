package replay

import (
	"bytes"
	"compress/flate"
	"io"
)

// Version 2 chunks hold their frames as one flate stream. They are read still, so the
// records kept before version 3 play; nothing writes them.

// flateFrames reads a version 2 chunk's frames' bytes (after its head); cut says they
// end early.
func flateFrames(z []byte) (raw []byte, cut bool) {
	raw, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(z)), maxFrames))
	return raw, err != nil
}
