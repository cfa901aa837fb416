package graphio

import (
	"io"
	"math"
	"os"
)

// ReadOptions controls the readers. The zero value reads a directed
// format as a directed graph with float32 weights under the default limits.
type ReadOptions struct {
	// Symmetrize makes the graph undirected: every arc u→v also gets v→u
	// (the minimum weight is kept where both existed). Formats that say
	// they are undirected (Matrix Market symmetric, an edge list whose
	// first line is "# Undirected graph…") are undirected regardless.
	Symmetrize bool
	// Float64 stores weights as float64 (CSR.Weights64) instead of float32.
	// Whole-number weights above 2^24 are exact only in float64.
	Float64 bool
	// MaxVertices bounds the number of vertices a file may declare or
	// imply. Zero or negative means DefaultMaxVertices together with the
	// sparsity guard described in the package documentation; a positive
	// value (at most DefaultMaxVertices) is used as given, without the guard.
	MaxVertices int
	// MaxEdges bounds the number of entries a text file may declare or
	// hold (lines of arcs or edges), or the arcs of a binary file. Zero or
	// negative means DefaultMaxEdges.
	MaxEdges int64
	// Name is the file name reported in errors ("" for none). Load sets
	// it to the path when it is empty.
	Name string
}

const (
	// DefaultMaxVertices is the largest vertex count a reader accepts:
	// graph.Build's limit, since vertex ids are int32.
	DefaultMaxVertices = math.MaxInt32 - 1
	// DefaultMaxEdges is the default bound on entries (text) or arcs
	// (binary): 2^33, about 8.6 billion.
	DefaultMaxEdges int64 = 1 << 33

	// With the default vertex limit, a text file may imply at most
	// sparseBase + sparsePerByte·(bytes read) vertices.
	sparseBase    = 1 << 20
	sparsePerByte = 16
)

type limits struct {
	maxV  int64
	maxE  int64
	guard bool // apply the sparsity guard (default vertex limit)
}

func (o *ReadOptions) limits() limits {
	l := limits{maxV: DefaultMaxVertices, maxE: DefaultMaxEdges, guard: true}
	if o.MaxVertices > 0 {
		l.maxV = min(int64(o.MaxVertices), DefaultMaxVertices)
		l.guard = false
	}
	if o.MaxEdges > 0 {
		l.maxE = o.MaxEdges
	}
	// Keeps byte counts such as 12·arcs within int64 (and a slice's
	// length within int on 32-bit hosts).
	l.maxE = min(l.maxE, int64(math.MaxInt)/32)
	return l
}

// sparseLimit returns the most vertices the guard allows for an input of
// the given length in bytes.
func sparseLimit(bytes int64) int64 {
	if bytes > (math.MaxInt64-sparseBase)/sparsePerByte {
		return math.MaxInt64
	}
	return sparseBase + sparsePerByte*bytes
}

// inputSize returns the number of bytes left in r when r can tell without
// being read: *os.File on a regular file, or a reader with a Len method
// (bytes.Reader, bytes.Buffer, strings.Reader).
func inputSize(r io.Reader) (int64, bool) {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len()), true
	case *os.File:
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return 0, false
		}
		pos, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, false
		}
		return max(fi.Size()-pos, 0), true
	}
	return 0, false
}

// preallocation returns how many entries to reserve: never more than the
// input could hold (minBytes per entry) when its size is known, never more
// than a small start when it is not; the slices grow by append past it.
func preallocation(declared int64, size int64, known bool, minBytes int64) int {
	const unknownStart = 1 << 16
	n := int64(unknownStart)
	if known {
		n = size/minBytes + 1
	}
	if declared >= 0 {
		n = min(n, declared)
	}
	return int(max(n, 0))
}
