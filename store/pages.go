package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// checkPages reads the structure of a bbolt file from disk, with every offset checked,
// before bbolt itself reads it. bbolt trusts the pages it reads: on some damage its
// reader faults outside the file, descends for ever (a branch page that points to
// itself), or its consistency check, on a goroutine of its own, loops for hours (a page
// header claiming four billion overflow pages). So the pages bbolt will follow are
// checked here first: the newest valid meta page (as bbolt chooses it), the file's
// length against it, the free list page, and every branch and leaf page reachable from
// the root, each reached once, of the right type, its elements inside it and its
// children inside the file. pageSize and txid are what bbolt read from the file.
func checkPages(f io.ReaderAt, size int64, pageSize int, txid uint64) error {
	if pageSize < 1024 || pageSize > 1<<24 {
		return fmt.Errorf("page size %d", pageSize)
	}
	m, err := newestMeta(f, pageSize)
	if err != nil {
		return err
	}
	if m.txid != txid {
		return fmt.Errorf("the meta page read has transaction %d, bbolt's %d", m.txid, txid)
	}
	if m.pgid < 2 || m.pgid > uint64(size)/uint64(pageSize) {
		return fmt.Errorf("the file is %d bytes, its header says %d pages of %d: it was cut short", size, m.pgid, pageSize)
	}
	c := pageChecker{f: f, pageSize: pageSize, pages: m.pgid, seen: map[uint64]bool{0: true, 1: true}}
	if m.freelist != noFreelist {
		if err := c.freelist(m.freelist); err != nil {
			return err
		}
	}
	return c.tree(m.root)
}

// Page layout of bbolt 1.x (native byte order): a 16-byte header (id, flags, count,
// overflow), then elements of 16 bytes, then keys and values. A meta page holds, after
// the header: magic, version, page size, flags, the root bucket (root page, sequence),
// the free list page, the page count, the transaction id, and an FNV-1a checksum of the
// fields before it.
const (
	pageHeader   = 16
	elemSize     = 16
	branchFlag   = 0x01
	leafFlag     = 0x02
	freelistFlag = 0x10
	bucketFlag   = 0x01 // a leaf element whose value is a bucket
	boltMagic    = 0xED0CDAED
	boltVersion  = 2
	noFreelist   = ^uint64(0)
)

var order = binary.NativeEndian

type metaPage struct {
	root, freelist, pgid, txid uint64
}

// newestMeta returns the valid meta page with the higher transaction id.
func newestMeta(f io.ReaderAt, pageSize int) (metaPage, error) {
	var best metaPage
	found := false
	for i := range 2 {
		b := make([]byte, pageHeader+64)
		if _, err := f.ReadAt(b, int64(i*pageSize)); err != nil {
			continue
		}
		m := b[pageHeader:]
		h := fnv.New64a()
		_, _ = h.Write(m[:56])
		// As bbolt validates a meta page: magic, version, checksum (not the page flags).
		if order.Uint32(m[0:]) != boltMagic || order.Uint32(m[4:]) != boltVersion || order.Uint64(m[56:]) != h.Sum64() {
			continue
		}
		mp := metaPage{root: order.Uint64(m[16:]), freelist: order.Uint64(m[32:]), pgid: order.Uint64(m[40:]), txid: order.Uint64(m[48:])}
		if !found || mp.txid > best.txid {
			best, found = mp, true
		}
	}
	if !found {
		return metaPage{}, errors.New("neither meta page is valid")
	}
	return best, nil
}

// pageChecker walks a file's pages, each once.
type pageChecker struct {
	f        io.ReaderAt
	pageSize int
	pages    uint64
	seen     map[uint64]bool
}

// read returns page id with its overflow pages, after checking that it lies inside the
// file, has not been reached before, and carries its own id and one of the flags in want.
func (c *pageChecker) read(id uint64, want uint16) ([]byte, error) {
	if id < 2 || id >= c.pages {
		return nil, fmt.Errorf("page %d is outside the file's %d pages", id, c.pages)
	}
	head := make([]byte, pageHeader)
	if _, err := c.f.ReadAt(head, int64(id)*int64(c.pageSize)); err != nil {
		return nil, fmt.Errorf("read page %d: %w", id, err)
	}
	flags, overflow := order.Uint16(head[8:]), uint64(order.Uint32(head[12:]))
	switch {
	case order.Uint64(head) != id:
		return nil, fmt.Errorf("page %d says it is page %d", id, order.Uint64(head))
	case flags&want == 0:
		return nil, fmt.Errorf("page %d has type %#x", id, flags)
	case overflow >= c.pages-id:
		return nil, fmt.Errorf("page %d runs %d pages past the file's end", id, overflow)
	}
	for p := id; p <= id+overflow; p++ {
		if c.seen[p] {
			return nil, fmt.Errorf("page %d is reached twice", p)
		}
		c.seen[p] = true
	}
	b := make([]byte, int(overflow+1)*c.pageSize)
	if _, err := c.f.ReadAt(b, int64(id)*int64(c.pageSize)); err != nil {
		return nil, fmt.Errorf("read page %d: %w", id, err)
	}
	return b, nil
}

// freelist checks the free list page: its count fits in it, and its ids are pages of the
// file.
func (c *pageChecker) freelist(id uint64) error {
	b, err := c.read(id, freelistFlag)
	if err != nil {
		return fmt.Errorf("free list: %w", err)
	}
	start, count := pageHeader, uint64(order.Uint16(b[10:]))
	if count == 0xFFFF { // the count is the first element
		count, start = order.Uint64(b[pageHeader:]), pageHeader+8
	}
	if count > uint64(len(b)-start)/8 {
		return fmt.Errorf("free list: %d ids do not fit in page %d", count, id)
	}
	for i := range count {
		if p := order.Uint64(b[start+int(i)*8:]); p < 2 || p >= c.pages {
			return fmt.Errorf("free list: page %d is outside the file", p)
		}
	}
	return nil
}

// tree checks the pages of the bucket whose root is page root, and of its buckets.
func (c *pageChecker) tree(root uint64) error {
	stack := []uint64{root}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		b, err := c.read(id, branchFlag|leafFlag)
		if err != nil {
			return err
		}
		children, err := c.elements(id, b, true)
		if err != nil {
			return err
		}
		stack = append(stack, children...)
	}
	return nil
}

// elements checks the elements of page b (page id; an inline bucket's page when !onDisk)
// and returns the pages they lead to: a branch page's children, and the roots of the
// buckets a leaf page holds. An inline bucket's page is checked where it lies.
func (c *pageChecker) elements(id uint64, b []byte, onDisk bool) ([]uint64, error) {
	flags, count := order.Uint16(b[8:]), int(order.Uint16(b[10:]))
	branch := flags&branchFlag != 0
	if pageHeader+count*elemSize > len(b) || (branch && count == 0) || (!onDisk && branch) {
		return nil, fmt.Errorf("page %d: %d elements do not fit in it", id, count)
	}
	var next []uint64
	for i := range count {
		e := pageHeader + i*elemSize
		if branch {
			pos, ksize := uint64(order.Uint32(b[e:])), uint64(order.Uint32(b[e+4:]))
			if uint64(e)+pos+ksize > uint64(len(b)) {
				return nil, fmt.Errorf("page %d: key %d lies outside the page", id, i)
			}
			next = append(next, order.Uint64(b[e+8:]))
			continue
		}
		eflags, pos := order.Uint32(b[e:]), uint64(order.Uint32(b[e+4:]))
		ksize, vsize := uint64(order.Uint32(b[e+8:])), uint64(order.Uint32(b[e+12:]))
		end := uint64(e) + pos + ksize + vsize
		if end > uint64(len(b)) {
			return nil, fmt.Errorf("page %d: element %d lies outside the page", id, i)
		}
		if eflags&bucketFlag == 0 {
			continue
		}
		v := b[end-vsize : end]
		if len(v) < 16 || !onDisk {
			return nil, fmt.Errorf("page %d: element %d is not a bucket", id, i)
		}
		if r := order.Uint64(v); r != 0 {
			next = append(next, r)
			continue
		}
		// An inline bucket: its one leaf page follows the bucket's header in the value.
		inline := v[16:]
		if len(inline) < pageHeader || order.Uint16(inline[8:])&leafFlag == 0 {
			return nil, fmt.Errorf("page %d: element %d holds no bucket page", id, i)
		}
		if _, err := c.elements(id, inline, false); err != nil {
			return nil, err
		}
	}
	return next, nil
}

// checkFile runs checkPages on the file at path.
func checkFile(path string, size int64, pageSize int, txid uint64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return checkPages(f, size, pageSize, txid)
}
