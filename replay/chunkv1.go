package replay

import (
	"bytes"
	"compress/flate"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
)

// Version 1 chunks (the first replays) hold their frames gob-encoded: the frame struct
// itself, Set naming the same parts as version 2's. They are read still, so the records
// kept before version 2 play; nothing writes them.

// framesV1 reads every frame of a version 1 chunk, as frames does.
func framesV1(data []byte, each func(h chunkHead, f *frame)) error {
	h, rest, err := readHead(data)
	if err != nil {
		return err
	}
	dec := gob.NewDecoder(io.LimitReader(flate.NewReader(bytes.NewReader(rest)), maxFrames))
	for {
		var f frame
		switch err := dec.Decode(&f); {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil
		case err != nil:
			return fmt.Errorf("%w: %v", ErrBadChunk, err)
		}
		each(h, &f)
	}
}
