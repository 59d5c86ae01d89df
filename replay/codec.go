package replay

import (
	"encoding/binary"
	"errors"
	"math"
)

// The bytes of a version 2 or 3 frame are written by hand, not by reflection: an enc appends
// varints, strings and bytes to a slice; a dec reads them back and remembers the first
// thing that did not fit, so a reader checks once at the end of a frame.

// enc appends a frame's parts to b.
type enc struct{ b []byte }

func (e *enc) uint(n uint64) { e.b = binary.AppendUvarint(e.b, n) }
func (e *enc) int(n int)     { e.b = binary.AppendVarint(e.b, int64(n)) }

func (e *enc) bool(x bool) {
	if x {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *enc) bytes(p []byte) { e.uint(uint64(len(p))); e.b = append(e.b, p...) }
func (e *enc) str(s string)   { e.uint(uint64(len(s))); e.b = append(e.b, s...) }

func (e *enc) strs(ss []string) {
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

func (e *enc) ints(ns []int) {
	e.uint(uint64(len(ns)))
	for _, n := range ns {
		e.int(n)
	}
}

// errShort is a frame that ends early or claims more than its chunk holds.
var errShort = errors.New("a frame's bytes end early or are out of range")

// dec reads a frame's parts from b; err is the first failure, after which every read
// gives zero.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail() { d.err, d.b = errShort, nil }

func (d *dec) uint() uint64 {
	n, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[k:]
	return n
}

func (d *dec) int() int {
	n, k := binary.Varint(d.b)
	if k <= 0 || n < math.MinInt32 || n > math.MaxInt32 {
		d.fail()
		return 0
	}
	d.b = d.b[k:]
	return int(n)
}

func (d *dec) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *dec) bool() bool { return d.byte() != 0 }

// count reads a length, at most what is left (each thing counted takes a byte or more).
func (d *dec) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *dec) bytes() []byte {
	n := d.count()
	if n == 0 {
		return nil
	}
	p := append([]byte(nil), d.b[:n]...)
	d.b = d.b[n:]
	return p
}

func (d *dec) str() string {
	n := d.count()
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *dec) strs() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = d.str()
	}
	return ss
}

func (d *dec) ints() []int {
	n := d.count()
	if n == 0 {
		return nil
	}
	ns := make([]int, n)
	for i := range ns {
		ns[i] = d.int()
	}
	return ns
}
