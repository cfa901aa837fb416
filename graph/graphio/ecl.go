package graphio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/graphnb/graphnb/graph"
)

// The ECL graph format (.egr) of the ECL suite (ECL-MST, ECL-CC, …), as
// its readers (ECLgraph.h) expect it. All integers are little-endian
// int32:
//
//	nodes, arcs, offsets[nodes+1], adj[arcs], weights[arcs] (optional)
//
// An undirected graph lists both arcs of every edge. The file carries no
// magic and no flags, so the reader cannot tell a directed graph from an
// undirected one: ReadECL returns an undirected graph.

// WriteECL writes g in the ECL graph format (.egr), which ECL-MST and the
// other ECL codes read, and ReadECL reads back. The graph must have fewer
// than 2^31 vertices and arcs and, when weighted, whole-number weights in
// the int32 range; other weights are refused (graph.RankWeights turns
// them into ranks, which keep an MST). Output is buffered; it is
// 4·(N+1) + 4·A (+ 4·A with weights) bytes, plus 8.
func WriteECL(w io.Writer, g *graph.CSR) error {
	if err := checkWritable(g); err != nil {
		return err
	}
	n, a := g.NumVertices(), len(g.Adj)
	if n >= math.MaxInt32 || a >= math.MaxInt32 {
		return fmt.Errorf("graphio: .egr holds int32 counts; the graph has %d vertices and %d arcs (write a smaller graph or another format, e.g. .gnb)", n, a)
	}
	weights, err := eclWeights(g)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var word [4]byte
	put := func(x int32) {
		binary.LittleEndian.PutUint32(word[:], uint32(x))
		bw.Write(word[:])
	}
	put(int32(n))
	put(int32(a))
	for _, o := range g.Offsets {
		put(int32(o))
	}
	for _, v := range g.Adj {
		put(v)
	}
	for _, x := range weights {
		put(x)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("graphio: writing .egr: %w", err)
	}
	return nil
}

// eclWeights converts g's weights to int32, or returns nil for an
// unweighted graph; a weight that is not a whole number in the int32
// range is an error naming the arc.
func eclWeights(g *graph.CSR) ([]int32, error) {
	if !g.Weighted() {
		return nil, nil
	}
	out := make([]int32, len(g.Adj))
	for i := range out {
		var x float64
		if g.Weights64 != nil {
			x = g.Weights64[i]
		} else {
			x = float64(g.Weights[i])
		}
		if x != math.Trunc(x) || x < math.MinInt32 || x > math.MaxInt32 {
			return nil, fmt.Errorf("graphio: .egr holds int32 weights, but arc %d weighs %g (generate whole weights, e.g. int:255, or rank them with graph.RankWeights, which keeps an MST)", i, x)
		}
		out[i] = int32(x)
	}
	return out, nil
}

// ReadECL reads a graph in the ECL graph format (.egr) written by WriteECL
// or the ECL tools: an undirected graph (the format does not say) with
// float32 weights when the file has them. Counts are checked against
// opt's limits, and the offsets and neighbour ids against each other, so
// a malformed file gives a *ParseError wrapping ErrHeader, ErrRange,
// ErrTooLarge or ErrTruncated (Line 0; Column is the byte offset).
func ReadECL(r io.Reader, opt ReadOptions) (*graph.CSR, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	name := nameOr(opt.Name, ".egr")
	var at int64
	read := func(dst []int32, what string) error {
		if err := binary.Read(br, binary.LittleEndian, dst); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return perr(name, 0, int(at), ErrTruncated, "the file ends inside the %s", what)
			}
			return fmt.Errorf("graphio: reading %s: %w", name, err)
		}
		at += 4 * int64(len(dst))
		return nil
	}
	var head [2]int32
	if err := read(head[:], "header"); err != nil {
		return nil, err
	}
	n, a := head[0], head[1]
	lim := opt.limits()
	if n < 0 || a < 0 {
		return nil, perr(name, 0, 0, ErrHeader, "negative counts: %d nodes, %d arcs", n, a)
	}
	if int64(n) > lim.maxV || int64(a) > lim.maxE {
		return nil, perr(name, 0, 0, ErrTooLarge, "%d nodes and %d arcs exceed the limits (%d, %d); raise ReadOptions.MaxVertices or MaxEdges", n, a, lim.maxV, lim.maxE)
	}
	off := make([]int32, int(n)+1)
	if err := read(off, "offsets"); err != nil {
		return nil, err
	}
	g := &graph.CSR{Offsets: make([]int64, len(off)), Adj: make([]int32, a)}
	for i, o := range off {
		if o < 0 || o > a || (i > 0 && o < off[i-1]) || (i == 0 && o != 0) || (i == int(n) && o != a) {
			return nil, perr(name, 0, 8+4*i, ErrRange, "offset %d of vertex %d is out of order or outside 0..%d", o, i, a)
		}
		g.Offsets[i] = int64(o)
	}
	if err := read(g.Adj, "neighbour list"); err != nil {
		return nil, err
	}
	for i, v := range g.Adj {
		if v < 0 || v >= n {
			return nil, perr(name, 0, int(8+4*(int64(n)+1)+4*int64(i)), ErrRange, "arc %d goes to vertex %d, outside 0..%d", i, v, n-1)
		}
	}
	if a == 0 {
		return g, nil
	}
	w := make([]int32, a)
	switch err := binary.Read(br, binary.LittleEndian, w); {
	case err == nil:
		g.Weights = make([]float32, a)
		for i, x := range w {
			g.Weights[i] = float32(x)
		}
	case errors.Is(err, io.EOF):
		// no weights: the format makes them optional
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, perr(name, 0, int(at), ErrTruncated, "the file ends inside the weights")
	default:
		return nil, fmt.Errorf("graphio: reading %s: %w", name, err)
	}
	return g, nil
}
