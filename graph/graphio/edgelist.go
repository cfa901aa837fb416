package graphio

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
)

// ReadEdgeList reads a SNAP-style edge list: one edge per line, "U V" or
// "U V W", fields separated by blanks or tabs, 0-based vertex ids, "#"
// comment lines. Weights are all there or all absent: a file that mixes
// two- and three-field lines is an error (ErrSyntax). W is any decimal
// number or ±Inf (not NaN), rounded once to float32 (float64 with
// opt.Float64).
//
// Two kinds of comment before the first edge carry meaning, as in the
// files SNAP publishes:
//
//   - "# Nodes: N Edges: M" (words matched without regard to case; the
//     first such comment counts): the graph has N vertices, ids must be
//     below N (else ErrRange), and the file must hold exactly M edge lines
//     (else ErrCount). Without it N is the largest id plus one.
//   - a first line "# Undirected graph…" makes the graph undirected, as
//     opt.Symmetrize does. Anything else leaves it directed.
//
// Self-loops are dropped and repeated edges keep the minimum weight
// (graph.Build). Blank lines are skipped and "\r\n" is accepted. Errors
// are *ParseError values wrapping ErrSyntax, ErrRange, ErrCount or
// ErrTooLarge (an id or count beyond the limits).
func ReadEdgeList(r io.Reader, opt ReadOptions) (*graph.CSR, error) {
	lim := opt.limits()
	size, known := inputSize(r)
	lr := newLineReader(r, opt.Name, size, known)
	bits := 32
	if opt.Float64 {
		bits = 64
	}
	var (
		nodes, edges       int64  = -1, -1
		nodesAt, edgesAt   [2]int // line, column of the header counts
		undirected         bool
		col                *collector
		nf, firstLine      int   // fields per edge line and where that was set
		maxID              int64 = -1
		maxIDLine, maxIDCl int
		count              int64
	)
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		s, e := field(line, 0)
		if s == e {
			if lr.tooLong {
				return nil, lr.tooLongErr()
			}
			continue
		}
		if line[s] == '#' {
			if col != nil {
				continue
			}
			if lr.lineNo == 1 && undirectedMarker(line[s+1:]) {
				undirected = true
			}
			if pe := snapHeader(lr, line, s+1, lim, &nodes, &edges, &nodesAt, &edgesAt); pe != nil {
				return nil, pe
			}
			continue
		}
		if lr.tooLong {
			return nil, lr.tooLongErr()
		}
		if _, st := parseUint(line[s:e]); st == numSyntax {
			return nil, lr.errAt(s+1, ErrSyntax, "vertex id %q is not a non-negative integer", clip(line[s:e]))
		}
		vs, ve := field(line, e)
		ws, we := field(line, ve)
		if vs == ve {
			return nil, lr.errAt(vs+1, ErrSyntax, "edge line needs \"U V\" or \"U V W\"")
		}
		if xs, xe := field(line, we); xs != xe {
			return nil, lr.errAt(xs+1, ErrSyntax, "unexpected field %q: edge lines hold \"U V\" or \"U V W\"", clip(line[xs:xe]))
		}
		k := 2
		if ws != we {
			k = 3
		}
		if col == nil {
			nf, firstLine = k, lr.lineNo
			col = newCollector(edgePrealloc(edges, size, known), k == 3, opt.Float64)
			if err := col.checkDeclared(edges, size, known, 4, nameOr(opt.Name, "an edge list")); err != nil {
				return nil, tooLarge(lr, err)
			}
		} else if k != nf {
			return nil, lr.errAt(1, ErrSyntax, "%d fields but line %d has %d: weights must be on every edge line or on none", k, firstLine, nf)
		}
		count++
		if edges >= 0 && count > edges {
			return nil, lr.errAt(s+1, ErrCount, "more than the %d edges the header (line %d) declares", edges, edgesAt[0])
		}
		if count > lim.maxE {
			return nil, lr.errAt(s+1, ErrTooLarge, "more than the limit of %d edges", lim.maxE)
		}
		var ids [2]int32
		for i, b := range [2][2]int{{s, e}, {vs, ve}} {
			tok := line[b[0]:b[1]]
			id, st := parseUint(tok)
			switch {
			case st == numSyntax:
				return nil, lr.errAt(b[0]+1, ErrSyntax, "vertex id %q is not a non-negative integer", clip(tok))
			case nodes >= 0 && (st == numOverflow || int64(id) >= nodes):
				return nil, lr.errAt(b[0]+1, ErrRange, "vertex id %s is outside 0..%d (the header's Nodes: %d)", clip(tok), nodes-1, nodes)
			case st == numOverflow || int64(id) >= lim.maxV:
				return nil, lr.errAt(b[0]+1, ErrTooLarge, "vertex id %s needs more vertices than the limit of %d", clip(tok), lim.maxV)
			}
			if int64(id) > maxID {
				maxID, maxIDLine, maxIDCl = int64(id), lr.lineNo, b[0]+1
			}
			ids[i] = int32(id)
		}
		var w float64
		if k == 3 {
			var st numStatus
			if w, st = parseFloat(line[ws:we], bits); st != numOK {
				return nil, lr.numErr(st, ws+1, "weight", line[ws:we])
			}
		}
		if !col.add(ids[0], ids[1], w) {
			return nil, tooLarge(lr, col.refused)
		}
	}
	if edges >= 0 && count != edges {
		return nil, perr(lr.file, edgesAt[0], edgesAt[1], ErrCount,
			"the header declares %d edges but the input has %d (it ends at line %d)", edges, count, lr.lineNo)
	}
	n, at := nodes, nodesAt
	if n < 0 {
		n, at = maxID+1, [2]int{maxIDLine, maxIDCl}
	}
	if lim.guard && n > sparseLimit(lr.consumed) {
		return nil, perr(lr.file, at[0], at[1], ErrTooLarge, "%d vertices for %d bytes of input: %s", n, lr.consumed, guardHint)
	}
	if col == nil {
		col = newCollector(0, false, false)
	}
	return col.build(int(n), opt.Symmetrize || undirected)
}

// edgePrealloc reserves room for the declared edges, or for a typical
// 16 bytes per line of a file of known size.
func edgePrealloc(declared, size int64, known bool) int {
	if declared >= 0 {
		return preallocation(declared, size, known, 4)
	}
	return preallocation(-1, size, known, 16)
}

// undirectedMarker reports whether a comment's text starts with
// "undirected graph" (SNAP's first line for undirected data sets).
func undirectedMarker(text []byte) bool {
	const m = "undirected graph"
	text = bytes.TrimLeft(text, " \t")
	return len(text) >= len(m) && bytes.EqualFold(text[:len(m)], []byte(m))
}

// snapHeader looks in a comment (text from column i on) for "Nodes: N"
// and "Edges: M", recording the first of each.
func snapHeader(lr *lineReader, line []byte, i int, lim limits, nodes, edges *int64, nodesAt, edgesAt *[2]int) *ParseError {
	var prev []byte
	for {
		s, e := field(line, i)
		if s == e {
			return nil
		}
		i = e
		tok := line[s:e]
		isNodes, isEdges := bytes.EqualFold(prev, []byte("nodes:")), bytes.EqualFold(prev, []byte("edges:"))
		prev = tok
		if !(isNodes && *nodes < 0) && !(isEdges && *edges < 0) {
			continue
		}
		v, st := parseUint(tok)
		if st == numSyntax {
			continue // prose, not a header
		}
		if isNodes {
			if st == numOverflow || int64(v) > lim.maxV {
				return lr.errAt(s+1, ErrTooLarge, "%s vertices exceed the limit of %d", clip(tok), lim.maxV)
			}
			*nodes, *nodesAt = int64(v), [2]int{lr.lineNo, s + 1}
		} else {
			if st == numOverflow || int64(v) > lim.maxE {
				return lr.errAt(s+1, ErrTooLarge, "%s edges exceed the limit of %d", clip(tok), lim.maxE)
			}
			*edges, *edgesAt = int64(v), [2]int{lr.lineNo, s + 1}
		}
	}
}

// WriteEdgeList writes g as a SNAP-style edge list that ReadEdgeList
// reads back to the same graph: a first comment line "# Directed graph…"
// or "# Undirected graph…", then "# Nodes: N Edges: M", each comment
// (split at newlines) as a "#" line, a column-title comment, and one line
// "U<TAB>V" or "U<TAB>V<TAB>W" per edge with 0-based ids. A directed graph
// lists every arc; an undirected one each edge once (u < v), so g must hold
// both arcs of every edge with equal weights (as graph.Build makes it).
// Weights are the shortest decimals that read back to the same float32 or
// float64. A weighted graph with no edges reads back unweighted. Output is
// buffered.
func WriteEdgeList(w io.Writer, g *graph.CSR, comments ...string) error {
	if err := checkWritable(g); err != nil {
		return err
	}
	n := g.NumVertices()
	m := g.NumArcs()
	kind := "Directed graph (every arc listed)"
	if !g.Directed {
		kind = "Undirected graph (each edge listed once)"
		m = 0
		for u := 0; u < n; u++ {
			for _, v := range g.Neighbors(int32(u)) {
				if int(v) >= u {
					m++
				}
			}
		}
	}
	bits := 32
	if g.Weights64 != nil {
		bits = 64
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "# %s, 0-based vertex ids\n# Nodes: %d Edges: %d\n", kind, n, m)
	for _, c := range comments {
		writeComments(bw, "#", c)
	}
	if g.Weighted() {
		bw.WriteString("# FromNodeId\tToNodeId\tWeight\n")
	} else {
		bw.WriteString("# FromNodeId\tToNodeId\n")
	}
	for u := 0; u < n; u++ {
		if u&(cancelEvery-1) == 0 {
			if err := cancel.Check(); err != nil {
				return fmt.Errorf("graphio: writing edge list: %w", err)
			}
		}
		for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
			v := g.Adj[k]
			if !g.Directed && int(v) < u {
				continue
			}
			buf := bw.AvailableBuffer()
			buf = strconv.AppendInt(buf, int64(u), 10)
			buf = append(buf, '\t')
			buf = strconv.AppendInt(buf, int64(v), 10)
			if g.Weighted() {
				buf = append(buf, '\t')
				buf = strconv.AppendFloat(buf, g.ArcWeight(k), 'g', -1, bits)
			}
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return fmt.Errorf("graphio: writing edge list: %w", err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("graphio: writing edge list: %w", err)
	}
	return nil
}
