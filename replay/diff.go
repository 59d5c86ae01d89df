package replay

import "slices"

// A list that changes a little from view to view (the knights, monsters and shadows in
// sight) is written as its changes from the list before: runs of "keep k of the old
// list, drop d of it, add a new ones" (three uvarints, then the a new ones), ended by a
// run of nothing; the old list's rest is dropped. The runs need not be the fewest: a
// writer that finds no match near is still read right, only longer.

// lookAhead is how far into the old list a writer looks for where the new one goes on.
const lookAhead = 8

// putList writes cur as its changes from old.
func putList[T comparable](e *enc, old, cur []T, put func(*enc, T)) {
	for p, i := 0, 0; i < len(cur); {
		k, d, a := nextRun(old[p:], cur[i:])
		e.uint(uint64(k))
		e.uint(uint64(d))
		e.uint(uint64(a))
		for _, x := range cur[i+k : i+k+a] {
			put(e, x)
		}
		p, i = p+k+d, i+k+a
	}
	e.uint(0)
	e.uint(0)
	e.uint(0)
}

// nextRun is the next run of the changes from old to cur: as many kept as match, then
// either the old ones dropped up to where cur's next is (within lookAhead), or the new
// ones added up to one found there.
func nextRun[T comparable](old, cur []T) (k, d, a int) {
	for k < len(old) && k < len(cur) && old[k] == cur[k] {
		k++
	}
	old, cur = old[k:], cur[k:]
	near := func(x T) int { return slices.Index(old[:min(lookAhead, len(old))], x) }
	if len(cur) == 0 {
		return k, 0, 0
	}
	if d = near(cur[0]); d >= 0 {
		return k, d, 0
	}
	for a < len(cur) && near(cur[a]) < 0 {
		a++
	}
	return k, 0, a
}

// getList reads a list written by putList from old, into a new slice (old is shared
// with views made before).
func getList[T any](d *dec, old []T, get func(*dec) T) []T {
	var out []T
	for p := 0; d.err == nil; {
		k, drop, a := d.uint(), d.uint(), d.count()
		if k == 0 && drop == 0 && a == 0 {
			break
		}
		if k > uint64(len(old)-p) || drop > uint64(len(old)-p)-k {
			d.fail()
			break
		}
		out = append(out, old[p:p+int(k)]...)
		p += int(k + drop)
		for range a {
			out = append(out, get(d))
		}
	}
	return out
}

// putBits writes a bitset (the squares in sight, the map) as its bytes XORed with the
// old one's, in runs of "z bytes unchanged, then l changed" with the l bytes, ended at
// the bitset's length (written first). A bitset of another length is written whole.
func putBits(e *enc, old, cur []byte) {
	if len(old) != len(cur) {
		old = nil
	}
	x := func(i int) byte {
		if old == nil {
			return cur[i]
		}
		return cur[i] ^ old[i]
	}
	e.uint(uint64(len(cur)))
	for i := 0; i < len(cur); {
		z := i
		for z < len(cur) && x(z) == 0 {
			z++
		}
		l := z
		for l < len(cur) && (x(l) != 0 || l+1 < len(cur) && x(l+1) != 0) {
			l++ // a lone unchanged byte between changed ones costs less kept in the run
		}
		e.uint(uint64(z - i))
		e.uint(uint64(l - z))
		for j := z; j < l; j++ {
			e.b = append(e.b, x(j))
		}
		i = l
	}
}

// maxBits bounds a bitset read back (its bytes may be fewer than its length): a level
// of a million squares.
const maxBits = 1 << 17

// getBits reads a bitset written by putBits from old, into a new slice.
func getBits(d *dec, old []byte) []byte {
	n := int(d.uint())
	if n == 0 || n > maxBits {
		if n > maxBits {
			d.fail()
		}
		return nil
	}
	out := make([]byte, n)
	if len(old) == n {
		copy(out, old)
	}
	for i := 0; i < n && d.err == nil; {
		z, l := d.uint(), d.uint()
		if z > uint64(n-i) || l > uint64(n-i)-z || l > uint64(len(d.b)) {
			d.fail()
			break
		}
		i += int(z)
		for _, c := range d.b[:l] {
			out[i] ^= c
			i++
		}
		d.b = d.b[l:]
	}
	return out
}
