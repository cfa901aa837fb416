package graphio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/membudget"
	"github.com/graphnb/graphnb/internal/par"
)

// The binary CSR format (.gnb), version 1. All integers are little-endian.
//
//	offset  size  field
//	0       8     magic "\x89GNB\r\n\x1a\n"
//	8       4     version, 1
//	12      4     flags: bit 0 directed; bits 8-15 weight kind
//	              (0 none, 1 float32, 2 float64); other bits zero
//	16      8     N, the number of vertices
//	24      8     A, the number of arcs
//	32      4     CRC-32C (Castagnoli) of bytes 0-31
//	36      4     reserved, zero
//	40      8(N+1)  Offsets, int64
//	        4A      Adj, int32
//	        4(A%2)  zero padding, so what follows is 8-byte aligned
//	        4A|8A   weights, float32 or float64 (absent when unweighted)
//	        4     CRC-32C of every byte from offset 40 up to here
//
// The magic's first byte and its "\r\n" / "\x1a" catch text-mode
// transfers, as PNG's does.
const (
	binMagic      = "\x89GNB\r\n\x1a\n"
	binVersion    = 1
	binHeaderSize = 40

	flagDirected = 1 << 0
	weightShift  = 8
	weightMask   = 0xff << weightShift
	knownFlags   = flagDirected | weightMask

	weightNone = 0
	weightF32  = 1
	weightF64  = 2

	// chunkBytes is the block size of binary reads and writes.
	chunkBytes = 16 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// WriteBinary writes g in graphnb's binary CSR format (extension .gnb),
// which ReadBinary loads back to an identical CSR: the same Offsets, Adj,
// weights (none, float32 or float64) and Directed flag, neighbour order
// included. The arrays are written straight from memory in large blocks
// and checksummed (CRC-32C) on a second goroutine, so writing runs at
// about the speed of w. The file takes 40 + 8(N+1) + 4A (+4A or 8A
// weights) + at most 8 bytes for N vertices and A arcs.
//
// WriteBinary checks g's lengths and offsets (O(N)) but not its vertex
// ids or weights; the reader validates those.
func WriteBinary(w io.Writer, g *graph.CSR) error {
	return writeBinary(w, g, nativeLE)
}

// header encodes the 40-byte header of g.
func header(g *graph.CSR) [binHeaderSize]byte {
	var h [binHeaderSize]byte
	copy(h[:8], binMagic)
	le := binary.LittleEndian
	le.PutUint32(h[8:], binVersion)
	flags := uint32(0)
	if g.Directed {
		flags |= flagDirected
	}
	switch {
	case g.Weights != nil:
		flags |= weightF32 << weightShift
	case g.Weights64 != nil:
		flags |= weightF64 << weightShift
	}
	le.PutUint32(h[12:], flags)
	le.PutUint64(h[16:], uint64(g.NumVertices()))
	le.PutUint64(h[24:], uint64(len(g.Adj)))
	le.PutUint32(h[32:], crc32.Checksum(h[:32], castagnoli))
	return h
}

// section is one array of the file: its bytes in memory and its element
// size (for byte swapping on big-endian hosts).
type section struct {
	name string
	b    []byte
	size int
}

func sections(g *graph.CSR) []section {
	s := []section{
		{"offsets", asBytes(g.Offsets), 8},
		{"adjacency", asBytes(g.Adj), 4},
	}
	if len(g.Adj)%2 == 1 {
		s = append(s, section{"padding", make([]byte, 4), 4})
	}
	switch {
	case g.Weights != nil:
		s = append(s, section{"weights", asBytes(g.Weights), 4})
	case g.Weights64 != nil:
		s = append(s, section{"weights", asBytes(g.Weights64), 8})
	}
	return s
}

// writeBinary writes g; le says whether memory is in file byte order.
func writeBinary(w io.Writer, g *graph.CSR, le bool) error {
	if err := checkWritable(g); err != nil {
		return err
	}
	wrap := func(err error) error { return fmt.Errorf("graphio: writing binary graph: %w", err) }
	h := header(g)
	if _, err := w.Write(h[:]); err != nil {
		return wrap(err)
	}
	secs := sections(g)
	var crc uint32
	if le {
		// Checksum on another goroutine while the arrays are written.
		sum := make(chan uint32, 1)
		go func() {
			var c uint32
			for _, s := range secs {
				c = crc32.Update(c, castagnoli, s.b)
			}
			sum <- c
		}()
		for _, s := range secs {
			for b := s.b; len(b) > 0; b = b[min(len(b), chunkBytes):] {
				if err := cancel.Check(); err != nil {
					return wrap(err)
				}
				if _, err := w.Write(b[:min(len(b), chunkBytes)]); err != nil {
					return wrap(err)
				}
			}
		}
		crc = <-sum
	} else {
		buf := make([]byte, min(chunkBytes, maxSectionLen(secs)))
		for _, s := range secs {
			for b := s.b; len(b) > 0; b = b[min(len(b), chunkBytes):] {
				if err := cancel.Check(); err != nil {
					return wrap(err)
				}
				c := buf[:min(len(b), chunkBytes)]
				copy(c, b)
				swapBytes(c, s.size)
				crc = crc32.Update(crc, castagnoli, c)
				if _, err := w.Write(c); err != nil {
					return wrap(err)
				}
			}
		}
	}
	var t [4]byte
	binary.LittleEndian.PutUint32(t[:], crc)
	if _, err := w.Write(t[:]); err != nil {
		return wrap(err)
	}
	return nil
}

func maxSectionLen(secs []section) int {
	m := 0
	for _, s := range secs {
		m = max(m, len(s.b))
	}
	return m
}

// ReadBinary reads a graph written by WriteBinary under the default
// limits. See ReadBinaryWith.
func ReadBinary(r io.Reader) (*graph.CSR, error) {
	return ReadBinaryWith(r, ReadOptions{})
}

// ReadBinaryWith reads a graph written by WriteBinary.
//
// Trust model: the header has its own checksum and is checked (magic,
// version, flags, N ≤ opt.MaxVertices, arcs ≤ opt.MaxEdges) before
// anything is allocated; when r's size is known (*os.File on a regular
// file, bytes.Reader and the like) the declared arrays must fit in it.
// The arrays are then read straight into the CSR's slices, on
// little-endian hosts without any conversion: from an io.ReaderAt and
// io.Seeker of known size (*os.File, bytes.Reader) in 4 MiB blocks on all
// cores, each block checksummed by the goroutine that read it and the
// sums combined; from any other reader in 16 MiB blocks in order while a
// second goroutine checksums them. From a stream of unknown size the
// slices grow as data arrives, so a lying header costs at most about
// twice the bytes actually read. The data checksum (CRC-32C) catches corruption;
// then the CSR is validated in parallel as graph.(*CSR).Validate does
// (offsets, vertex ids, weight lengths, no NaN), so a forged file with a
// correct checksum still cannot make an algorithm index out of range.
// Symmetry of an undirected graph is not checked. ReadBinaryWith reads
// exactly the encoded bytes and no further.
//
// opt.Symmetrize turns a directed graph undirected after loading;
// opt.Float64 widens float32 weights; opt.Name names the input in errors.
// Errors are *ParseError values (Line 0) wrapping ErrHeader,
// ErrUnsupported, ErrChecksum, ErrTooLarge, ErrTruncated (also
// io.ErrUnexpectedEOF) or ErrCorrupt; read errors of r are wrapped as
// they are.
func ReadBinaryWith(r io.Reader, opt ReadOptions) (_ *graph.CSR, err error) {
	defer cancel.Recover(&err) // Undirected and WithFloat64Weights panic when interrupted
	g, err := readBinary(r, opt, nativeLE)
	if err != nil {
		return nil, err
	}
	if opt.Symmetrize && g.Directed {
		g = g.Undirected()
	}
	if opt.Float64 && g.Weights != nil {
		g = g.WithFloat64Weights()
	}
	return g, nil
}

func readBinary(r io.Reader, opt ReadOptions, le bool) (*graph.CSR, error) {
	lim := opt.limits()
	size, known := inputSize(r)
	bad := func(sentinel error, format string, args ...any) error {
		return perr(opt.Name, 0, 0, sentinel, format, args...)
	}
	var h [binHeaderSize]byte
	if n, err := io.ReadFull(r, h[:]); err != nil {
		switch err {
		case io.EOF:
			return nil, bad(ErrHeader, "empty input (want a graphnb binary header)")
		case io.ErrUnexpectedEOF:
			if string(h[:min(n, 8)]) != binMagic[:min(n, 8)] {
				return nil, bad(ErrHeader, "not a graphnb binary file (bad magic)")
			}
			return nil, &ParseError{File: opt.Name, Err: fmt.Errorf(
				"%w: %d bytes, shorter than the %d-byte header (%w)", ErrTruncated, n, binHeaderSize, io.ErrUnexpectedEOF)}
		}
		return nil, fmt.Errorf("graphio: reading %s: %w", nameOr(opt.Name, "binary graph"), err)
	}
	if string(h[:8]) != binMagic {
		return nil, bad(ErrHeader, "not a graphnb binary file (bad magic %q)", h[:8])
	}
	leo := binary.LittleEndian
	if got, want := leo.Uint32(h[32:]), crc32.Checksum(h[:32], castagnoli); got != want {
		return nil, bad(ErrChecksum, "header checksum %08x, computed %08x: the header is damaged", got, want)
	}
	if v := leo.Uint32(h[8:]); v != binVersion {
		return nil, bad(ErrUnsupported, "binary format version %d (this reader knows version %d)", v, binVersion)
	}
	flags := leo.Uint32(h[12:])
	if flags&^knownFlags != 0 {
		return nil, bad(ErrHeader, "unknown flags %#x", flags&^knownFlags)
	}
	wk := (flags & weightMask) >> weightShift
	if wk > weightF64 {
		return nil, bad(ErrHeader, "unknown weight kind %d", wk)
	}
	if res := leo.Uint32(h[36:]); res != 0 {
		return nil, bad(ErrHeader, "reserved header field is %#x, want 0", res)
	}
	n64, a64 := leo.Uint64(h[16:]), leo.Uint64(h[24:])
	if n64 > uint64(lim.maxV) {
		return nil, bad(ErrTooLarge, "%d vertices exceed the limit of %d", n64, lim.maxV)
	}
	if a64 > uint64(lim.maxE) {
		return nil, bad(ErrTooLarge, "%d arcs exceed the limit of %d", a64, lim.maxE)
	}
	n, arcs := int64(n64), int64(a64)
	wsize := [...]int64{0, 4, 8}[wk]
	pad := (arcs % 2) * 4
	body := 8*(n+1) + 4*arcs + pad + wsize*arcs + 4
	if known && size-binHeaderSize < body {
		return nil, &ParseError{File: opt.Name, Err: fmt.Errorf(
			"%w: the header declares %d bytes of data but the input holds %d (%w)",
			ErrTruncated, body, size-binHeaderSize, io.ErrUnexpectedEOF)}
	}
	// A stream of unknown size is checked as its arrays grow (readSection).
	if known {
		if err := membudget.Check(fmt.Sprintf("graphio: reading %s (%d vertices, %d arcs)", nameOr(opt.Name, "a binary graph"), n, arcs), body); err != nil {
			return nil, &ParseError{File: opt.Name, Err: fmt.Errorf("%w: %w", ErrTooLarge, err)}
		}
	}

	br := newBinReader(r, opt.Name, known)
	defer br.finish() // stops the checksum goroutine on early returns
	g := &graph.CSR{Directed: flags&flagDirected != 0}
	var err error
	if g.Offsets, err = readSection[int64](br, "offsets", n+1); err != nil {
		return nil, err
	}
	if g.Adj, err = readSection[int32](br, "adjacency", arcs); err != nil {
		return nil, err
	}
	if pad > 0 {
		p, err := readSection[int32](br, "padding", 1)
		if err != nil {
			return nil, err
		}
		if p[0] != 0 {
			return nil, bad(ErrCorrupt, "padding after the adjacency array is not zero")
		}
	}
	switch wk {
	case weightF32:
		g.Weights, err = readSection[float32](br, "weights", arcs)
	case weightF64:
		g.Weights64, err = readSection[float64](br, "weights", arcs)
	}
	if err != nil {
		return nil, err
	}
	var t [4]byte
	if err := br.trailer(t[:]); err != nil {
		return nil, err
	}
	if got, want := leo.Uint32(t[:]), br.finish(); got != want {
		return nil, bad(ErrChecksum, "data checksum %08x, computed %08x: the file is damaged", got, want)
	}
	if !le {
		swapBytes(asBytes(g.Offsets), 8)
		swapBytes(asBytes(g.Adj), 4)
		swapBytes(asBytes(g.Weights), 4)
		swapBytes(asBytes(g.Weights64), 8)
	}
	if err := validate(g); errors.Is(err, cancel.ErrInterrupted) {
		return nil, fmt.Errorf("graphio: reading %s: %w", nameOr(opt.Name, "binary graph"), err)
	} else if err != nil {
		return nil, bad(ErrCorrupt, "%v", err)
	}
	return g, nil
}

func nameOr(name, alt string) string {
	if name != "" {
		return name
	}
	return alt
}

// binReader reads the arrays of a binary file and checksums them. From a
// plain stream it reads blocks in order while a goroutine checksums the
// blocks already read. From an input that is an io.ReaderAt and
// io.Seeker of known size (*os.File, bytes.Reader) it reads blocks in
// parallel with ReadAt, checksums each, and combines the sums in order.
type binReader struct {
	r     io.Reader
	name  string
	known bool
	read  int64 // bytes read after the header

	// Stream mode.
	ch  chan []byte
	sum chan uint32

	// Positioned mode.
	ra   io.ReaderAt
	seek io.Seeker
	off  int64 // input offset of the next byte

	crc  uint32
	done bool
}

// atBlock is the block size of parallel positioned reads.
const atBlock = 4 << 20

func newBinReader(r io.Reader, name string, known bool) *binReader {
	br := &binReader{r: r, name: name, known: known}
	if ra, ok := r.(io.ReaderAt); ok && known {
		if sk, ok := r.(io.Seeker); ok {
			if off, err := sk.Seek(0, io.SeekCurrent); err == nil {
				br.ra, br.seek, br.off = ra, sk, off
				return br
			}
		}
	}
	br.ch, br.sum = make(chan []byte, 4), make(chan uint32, 1)
	go func() {
		var c uint32
		for b := range br.ch {
			c = crc32.Update(c, castagnoli, b)
		}
		br.sum <- c
	}()
	return br
}

// finish stops the checksum goroutine and returns the checksum of all
// bytes read. It may be called more than once.
func (br *binReader) finish() uint32 {
	if !br.done && br.ra == nil {
		close(br.ch)
		br.crc = <-br.sum
	}
	br.done = true
	return br.crc
}

// fill reads exactly len(b) bytes into b and adds them to the checksum.
func (br *binReader) fill(b []byte, what string) error {
	if br.ra != nil {
		return br.fillAt(b, what)
	}
	for len(b) > 0 {
		c := b[:min(len(b), chunkBytes)]
		n, err := io.ReadFull(br.r, c)
		br.read += int64(n)
		if n > 0 {
			br.ch <- c[:n]
		}
		if err != nil {
			return br.readErr(what, err)
		}
		b = b[n:]
		if err := cancel.Check(); err != nil {
			return fmt.Errorf("graphio: reading %s: %w", nameOr(br.name, "binary graph"), err)
		}
	}
	return nil
}

// fillAt is fill for positioned mode: blocks are read and checksummed
// on all cores, and their sums combined in order.
func (br *binReader) fillAt(b []byte, what string) error {
	nb := (len(b) + atBlock - 1) / atBlock
	sums := make([]uint32, nb)
	errs := make([]error, nb)
	got := make([]int, nb)
	err := par.ForChunks(len(b), atBlock, func(c, lo, hi int) {
		n, err := br.ra.ReadAt(b[lo:hi], br.off+int64(lo))
		got[c] = n
		if n == hi-lo {
			sums[c] = crc32.Update(0, castagnoli, b[lo:hi])
			return
		}
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		errs[c] = err
	})
	if err != nil {
		return fmt.Errorf("graphio: reading %s: %w", nameOr(br.name, "binary graph"), err)
	}
	for c := range nb {
		if errs[c] != nil {
			br.read += int64(got[c])
			if errors.Is(errs[c], cancel.ErrInterrupted) {
				return errs[c]
			}
			return br.readErr(what, errs[c])
		}
		blen := int64(min(atBlock, len(b)-c*atBlock))
		br.crc = crc32Combine(br.crc, sums[c], blen)
		br.read += blen
		br.off += blen
	}
	return nil
}

// trailer reads the final 4 bytes, which are not checksummed, and leaves
// the input just after them.
func (br *binReader) trailer(t []byte) error {
	if br.ra == nil {
		if _, err := io.ReadFull(br.r, t); err != nil {
			return br.readErr("checksum", err)
		}
		return nil
	}
	if n, err := br.ra.ReadAt(t, br.off); n < len(t) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return br.readErr("checksum", err)
	}
	br.off += int64(len(t))
	if _, err := br.seek.Seek(br.off, io.SeekStart); err != nil {
		return fmt.Errorf("graphio: reading %s: %w", nameOr(br.name, "binary graph"), err)
	}
	return nil
}

func (br *binReader) readErr(what string, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &ParseError{File: br.name, Err: fmt.Errorf("%w: in the %s, %d bytes after the header (%w)",
			ErrTruncated, what, br.read, io.ErrUnexpectedEOF)}
	}
	return fmt.Errorf("graphio: reading %s: %w", nameOr(br.name, "binary graph"), err)
}

// crc32Combine returns the CRC-32C of A followed by B from crcA, the
// CRC-32C of A, crcB, that of B, and lenB, B's length in bytes. Appending
// a zero bit to a message is a linear map on the CRC register; the map
// for lenB zero bytes is built by repeated squaring of the one-bit map (a
// 32×32 matrix over GF(2)), so the cost is O(log lenB) matrix squarings.
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	// odd: the operator for one zero bit in the reflected Castagnoli CRC.
	var odd, even [32]uint32
	odd[0] = 0x82f63b78
	for i := 1; i < 32; i++ {
		odd[i] = 1 << (i - 1)
	}
	gf2Square(&even, &odd) // two zero bits
	gf2Square(&odd, &even) // four zero bits
	// Apply the operators for 8, 16, 32, ... zero bits where lenB has a 1.
	for {
		gf2Square(&even, &odd)
		if lenB&1 != 0 {
			crcA = gf2Times(&even, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
		gf2Square(&odd, &even)
		if lenB&1 != 0 {
			crcA = gf2Times(&odd, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
}

// gf2Times multiplies the GF(2) matrix m (column i is m[i]) by vector v.
func gf2Times(m *[32]uint32, v uint32) uint32 {
	var r uint32
	for i := 0; v != 0; i, v = i+1, v>>1 {
		if v&1 != 0 {
			r ^= m[i]
		}
	}
	return r
}

// gf2Square sets sq to m·m.
func gf2Square(sq, m *[32]uint32) {
	for i := range m {
		sq[i] = gf2Times(m, m[i])
	}
}

// readSection reads n elements of type T. When the input's size was
// checked the slice is made at once; otherwise it grows with the data.
func readSection[T int32 | int64 | float32 | float64](br *binReader, what string, n int64) ([]T, error) {
	var zero T
	es := int64(unsafe.Sizeof(zero))
	const start = 1 << 20 // bytes reserved up front for a stream of unknown size
	if br.known || n*es <= start {
		s := make([]T, n)
		return s, br.fill(asBytes(s), what)
	}
	// Unknown size: start small and double as the data arrives.
	s := make([]T, 0, start/es)
	for int64(len(s)) < n {
		if len(s) == cap(s) {
			more := min(n-int64(len(s)), int64(len(s))) // double, up to n
			what := fmt.Sprintf("graphio: reading the %s of %s (%d entries)", what, nameOr(br.name, "a binary graph"), n)
			if err := membudget.Check(what, (int64(len(s))+more)*es); err != nil {
				return nil, &ParseError{File: br.name, Err: fmt.Errorf("%w: %w", ErrTooLarge, err)}
			}
			s = slices.Grow(s, int(more))
		}
		old, end := len(s), int(min(int64(cap(s)), n))
		s = s[:end]
		if err := br.fill(asBytes(s[old:end]), what); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// asBytes views a slice's memory as bytes (no copy).
func asBytes[T int32 | int64 | float32 | float64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// swapBytes reverses the byte order of each size-byte element of b.
func swapBytes(b []byte, size int) {
	switch size {
	case 4:
		for i := 0; i+4 <= len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], binary.BigEndian.Uint32(b[i:]))
		}
	case 8:
		for i := 0; i+8 <= len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], binary.BigEndian.Uint64(b[i:]))
		}
	}
}

// validate checks what graph.(*CSR).Validate checks, in parallel: offsets
// start at 0, never decrease and end at len(Adj); heads are vertices;
// weight slices match Adj; weights are not NaN. An interrupt returns
// cancel's error.
func validate(g *graph.CSR) error {
	n := g.NumVertices()
	if g.Offsets[0] != 0 {
		return fmt.Errorf("Offsets[0] = %d, want 0", g.Offsets[0])
	}
	if g.Offsets[n] != int64(len(g.Adj)) {
		return fmt.Errorf("Offsets[N] = %d but there are %d arcs", g.Offsets[n], len(g.Adj))
	}
	if v, err := firstBad(n, func(lo, hi int) int {
		for v := lo; v < hi; v++ {
			if g.Offsets[v+1] < g.Offsets[v] {
				return v
			}
		}
		return -1
	}); err != nil {
		return err
	} else if v >= 0 {
		return fmt.Errorf("Offsets decrease at vertex %d (%d > %d)", v, g.Offsets[v], g.Offsets[v+1])
	}
	if k, err := firstBad(len(g.Adj), func(lo, hi int) int {
		for k, h := range g.Adj[lo:hi] {
			if uint32(h) >= uint32(n) {
				return lo + k
			}
		}
		return -1
	}); err != nil {
		return err
	} else if k >= 0 {
		return fmt.Errorf("arc %d points to vertex %d, outside [0,%d)", k, g.Adj[k], n)
	}
	if k, err := firstBad(len(g.Weights), func(lo, hi int) int {
		for k, w := range g.Weights[lo:hi] {
			if w != w {
				return lo + k
			}
		}
		return -1
	}); err != nil {
		return err
	} else if k >= 0 {
		return fmt.Errorf("weight of arc %d is NaN", k)
	}
	if k, err := firstBad(len(g.Weights64), func(lo, hi int) int {
		for k, w := range g.Weights64[lo:hi] {
			if w != w {
				return lo + k
			}
		}
		return -1
	}); err != nil {
		return err
	} else if k >= 0 {
		return fmt.Errorf("weight of arc %d is NaN", k)
	}
	return nil
}

// firstBad runs scan over a split of [0, n) in parallel and returns the
// smallest index any call reported, or -1.
// An interrupt returns cancel's error.
func firstBad(n int, scan func(lo, hi int) int) (int, error) {
	var first atomic.Int64
	first.Store(math.MaxInt64)
	err := par.For(n, func(lo, hi int) {
		if i := scan(lo, hi); i >= 0 {
			for {
				cur := first.Load()
				if int64(i) >= cur || first.CompareAndSwap(cur, int64(i)) {
					return
				}
			}
		}
	})
	if err != nil {
		return 0, err
	}
	if f := first.Load(); f != math.MaxInt64 {
		return int(f), nil
	}
	return -1, nil
}
