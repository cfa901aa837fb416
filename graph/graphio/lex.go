package graphio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/membudget"
)

const (
	// maxLine is the longest data line the text readers accept, in bytes.
	// Longer comment lines are allowed; only their first maxLine bytes
	// are looked at.
	maxLine = 1 << 20
	// cancelEvery is how many lines a reader handles between two
	// cancellation checks (a power of two).
	cancelEvery = 1 << 16
	// maxExactInt is the largest integer weight magnitude accepted: 2^53,
	// above which float64 no longer holds every integer.
	maxExactInt = 1 << 53
)

// lineReader hands out the lines of a text input, counting line numbers
// and bytes, with lines longer than maxLine cut short and flagged.
type lineReader struct {
	br       *bufio.Reader
	file     string
	lineNo   int   // number of the line last returned (1-based)
	consumed int64 // bytes read so far
	long     []byte
	tooLong  bool // the line last returned was longer than maxLine
}

func newLineReader(r io.Reader, file string, size int64, known bool) *lineReader {
	bufSize := 1 << 20
	if known && size < int64(bufSize) {
		bufSize = max(int(size)+1, 4096)
	}
	return &lineReader{br: bufio.NewReaderSize(r, bufSize), file: file}
}

// next returns the next line without its "\n" or "\r\n", io.EOF at the
// end of the input, or the underlying reader's error. The line is only
// valid until the next call.
func (lr *lineReader) next() ([]byte, error) {
	b, err := lr.br.ReadSlice('\n')
	lr.tooLong = false
	if err == bufio.ErrBufferFull {
		b, err = lr.slow(b)
	} else {
		lr.consumed += int64(len(b))
	}
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("graphio: reading %s: %w", lr.nameOr("input"), err)
	}
	if len(b) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	lr.lineNo++
	if lr.lineNo&(cancelEvery-1) == 0 {
		if err := cancel.Check(); err != nil {
			return nil, fmt.Errorf("graphio: reading %s: %w", lr.nameOr("input"), err)
		}
	}
	if lr.lineNo == 1 {
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // UTF-8 byte order mark
	}
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b, nil
}

// slow collects a line longer than the buffer, keeping at most maxLine
// bytes of it (and flagging the line when it had more).
func (lr *lineReader) slow(first []byte) ([]byte, error) {
	lr.long = append(lr.long[:0], first...)
	lr.consumed += int64(len(first))
	for {
		b, err := lr.br.ReadSlice('\n')
		lr.consumed += int64(len(b))
		if room := maxLine - len(lr.long); len(b) > room {
			lr.tooLong = true
			b = b[:max(room, 0)]
		}
		lr.long = append(lr.long, b...)
		if err != bufio.ErrBufferFull {
			return lr.long, err
		}
	}
}

func (lr *lineReader) nameOr(s string) string {
	if lr.file != "" {
		return lr.file
	}
	return s
}

// errAt reports an error at a 1-based column of the current line.
func (lr *lineReader) errAt(col int, sentinel error, format string, args ...any) *ParseError {
	return perr(lr.file, lr.lineNo, col, sentinel, format, args...)
}

// tooLongErr is the error for a data line longer than maxLine.
func (lr *lineReader) tooLongErr() *ParseError {
	return lr.errAt(1, ErrSyntax, "line is longer than %d bytes", maxLine)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// field returns the bounds [s, e) of the first field of line at or after
// i; s == e when there is none.
func field(line []byte, i int) (s, e int) {
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	s = i
	for i < len(line) && !isSpace(line[i]) {
		i++
	}
	return s, i
}

// numStatus says why a number did not parse.
type numStatus uint8

const (
	numOK numStatus = iota
	numSyntax
	numOverflow
)

// parseUint reads a run of decimal digits. Values of 2^62 and more report
// numOverflow (after checking the rest is digits).
func parseUint(b []byte) (uint64, numStatus) {
	if len(b) == 0 {
		return 0, numSyntax
	}
	var v uint64
	over := false
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, numSyntax
		}
		if v > (math.MaxUint64-9)/10 {
			over = true
			continue
		}
		v = v*10 + uint64(d)
	}
	if over || v >= 1<<62 {
		return 0, numOverflow
	}
	return v, numOK
}

// parseInt reads an optionally signed decimal integer of magnitude at
// most 2^53.
func parseInt(b []byte) (int64, numStatus) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	u, st := parseUint(b)
	if st != numOK {
		return 0, st
	}
	if u > maxExactInt {
		return 0, numOverflow
	}
	if neg {
		return -int64(u), numOK
	}
	return int64(u), numOK
}

// parseFloat reads a decimal number, rounded once to float32 (bits 32) or
// float64. "Inf" and "-Inf" (any case, as strconv spells them) are
// accepted, since a CSR may hold infinite weights; NaN is not, and a
// finite literal beyond the type's range is numOverflow. Short integers
// take a fast path; anything else goes through strconv.ParseFloat.
func parseFloat(b []byte, bits int) (float64, numStatus) {
	d := b
	if len(d) > 0 && (d[0] == '-' || d[0] == '+') {
		d = d[1:]
	}
	if n := len(d); n > 0 && n <= 15 {
		var v uint64
		i := 0
		for ; i < n; i++ {
			c := d[i] - '0'
			if c > 9 {
				break
			}
			v = v*10 + uint64(c)
		}
		if i == n { // exact in float64; one rounding to float32
			f := float64(v)
			if b[0] == '-' {
				f = -f
			}
			if bits == 32 {
				f = float64(float32(f))
			}
			return f, numOK
		}
	}
	if len(b) == 0 || len(b) > 400 {
		return 0, numSyntax
	}
	f, err := strconv.ParseFloat(string(b), bits)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, numOverflow
		}
		return 0, numSyntax
	}
	if math.IsNaN(f) {
		return 0, numSyntax
	}
	return f, numOK
}

// collector gathers the entries of a text file for graph.Build. Before
// its slices grow past growCheck entries it checks that they, and what
// graph.Build will need for them, fit in the memory available (package
// membudget): a file larger than memory is refused, not read until the
// process is killed.
type collector struct {
	el      graph.EdgeList
	refused error // the membudget error that stopped add
}

// growCheck is the entry count from which growing the slices is checked
// (a check reads /proc: tens of microseconds, once per growth).
const growCheck = 1 << 16

// entryBytes is the size of one collected entry.
func (c *collector) entryBytes() int64 {
	switch {
	case c.el.Weights64 != nil:
		return 16
	case c.el.Weights != nil:
		return 12
	}
	return 8
}

// check refuses entries entries (about to be held) whose list and CSR
// would not fit in the memory available.
func (c *collector) check(entries int64, what string) error {
	need := membudget.Bytes(entries, c.entryBytes(), graph.BuildBytes(0, entries, false), 1)
	return membudget.Check(fmt.Sprintf("graphio: reading %s (%d entries)", what, entries), need)
}

// checkDeclared refuses the entries a header declares when the input is
// of known size and could hold them: no more than size/minBytes entries
// are counted, so a header that lies fails on its count, not here. A
// stream of unknown size is checked as the entries arrive (add).
func (c *collector) checkDeclared(declared, size int64, known bool, minBytes int64, what string) error {
	if !known || declared <= 0 {
		return nil
	}
	return c.check(min(declared, size/minBytes+1), what)
}

// tooLarge is the reader's error for a refusal of check.
func tooLarge(lr *lineReader, err error) *ParseError {
	return &ParseError{File: lr.file, Line: lr.lineNo, Err: fmt.Errorf("%w: %w", ErrTooLarge, err)}
}

func newCollector(prealloc int, weighted, f64 bool) *collector {
	c := &collector{el: graph.EdgeList{
		Src: make([]int32, 0, prealloc),
		Dst: make([]int32, 0, prealloc),
	}}
	if weighted {
		if f64 {
			c.el.Weights64 = make([]float64, 0, prealloc)
		} else {
			c.el.Weights = make([]float32, 0, prealloc)
		}
	}
	return c
}

// add appends an entry; false when growing the slices was refused (the
// error is c.refused).
func (c *collector) add(u, v int32, w float64) bool {
	if n := len(c.el.Src); n == cap(c.el.Src) && n >= growCheck {
		if err := c.check(int64(n)+int64(n)/2, "a text graph"); err != nil {
			c.refused = err
			return false
		}
	}
	c.el.Src = append(c.el.Src, u)
	c.el.Dst = append(c.el.Dst, v)
	if c.el.Weights != nil {
		c.el.Weights = append(c.el.Weights, float32(w))
	} else if c.el.Weights64 != nil {
		c.el.Weights64 = append(c.el.Weights64, w)
	}
	return true
}

// build turns the collected entries into a CSR over n vertices.
func (c *collector) build(n int, symmetrize bool) (*graph.CSR, error) {
	c.el.N = n
	g, err := graph.Build(c.el, graph.BuildOptions{Symmetrize: symmetrize})
	if errors.Is(err, membudget.ErrTooLarge) {
		return nil, &ParseError{Err: fmt.Errorf("%w: %w", ErrTooLarge, err)}
	}
	if err != nil {
		// The readers check every id and weight, so this is an
		// interrupt, or a bug.
		return nil, fmt.Errorf("graphio: building the graph: %w", err)
	}
	return g, nil
}

// numErr turns a failed number parse into a ParseError at column col.
func (lr *lineReader) numErr(st numStatus, col int, what string, tok []byte) *ParseError {
	if st == numOverflow {
		return lr.errAt(col, ErrRange, "%s %q is too large", what, clip(tok))
	}
	return lr.errAt(col, ErrSyntax, "%s %q is not a valid number", what, clip(tok))
}

// clip shortens a token for an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
