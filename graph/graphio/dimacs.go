package graphio

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
)

// ReadDIMACS reads a graph in the shortest-path format of the 9th DIMACS
// Implementation Challenge (.gr files such as rome99.gr, docs/studies.md §4):
//
//	c comment lines, anywhere
//	p sp N M        exactly one, before the arcs: N vertices, M arcs
//	a U V W         M arc lines: arc U→V of integer weight W, ids 1..N
//
// Vertex U of the file is vertex U-1 of the graph. The graph is directed
// unless opt.Symmetrize is set. Self-loops are dropped and parallel arcs
// keep their minimum weight (graph.Build). Weights are whole numbers of
// magnitude at most 2^53, stored as float32 (rounded above 2^24) or, with
// opt.Float64, float64. Blank lines are skipped and "\r\n" line ends are
// accepted.
//
// Bad input gives a *ParseError wrapping ErrSyntax, ErrHeader (no p line,
// a second one, an arc before it, a problem type other than sp), ErrRange
// (an id outside 1..N), ErrCount (a number of arcs other than M) or
// ErrTooLarge (N or M above the limits). Memory is O(N + M), reserved
// from M only as far as the input's size allows; time is O(M log d) for
// the build.
func ReadDIMACS(r io.Reader, opt ReadOptions) (*graph.CSR, error) {
	lim := opt.limits()
	size, known := inputSize(r)
	lr := newLineReader(r, opt.Name, size, known)
	var (
		n, m       int64 = -1, 0
		pLine      int
		nCol, mCol int
		arcs       int64
		col        *collector
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
		switch {
		case line[s] == 'c':
			continue
		case lr.tooLong:
			return nil, lr.tooLongErr()
		case e-s == 1 && line[s] == 'p':
			if n >= 0 {
				return nil, lr.errAt(s+1, ErrHeader, "second p line (the first is line %d)", pLine)
			}
			var err *ParseError
			n, m, nCol, mCol, err = dimacsHeader(lr, line, e, lim)
			if err != nil {
				return nil, err
			}
			pLine = lr.lineNo
			col = newCollector(preallocation(m, size, known, 8), true, opt.Float64)
			if err := col.checkDeclared(m, size, known, 8, nameOr(opt.Name, "a DIMACS graph")); err != nil {
				return nil, tooLarge(lr, err)
			}
		case e-s == 1 && line[s] == 'a':
			if n < 0 {
				return nil, lr.errAt(s+1, ErrHeader, "arc line before the p line (want \"p sp N M\" first)")
			}
			arcs++
			if arcs > m {
				return nil, lr.errAt(s+1, ErrCount, "more than the %d arcs the p line (line %d) declares", m, pLine)
			}
			if err := dimacsArc(lr, line, e, n, col); err != nil {
				return nil, err
			}
		default:
			return nil, lr.errAt(s+1, ErrSyntax, "unknown line type %q (want c, p or a)", clip(line[s:e]))
		}
	}
	if n < 0 {
		return nil, perr(lr.file, 0, 0, ErrHeader, "no p line (want \"p sp N M\" before the arcs)")
	}
	if arcs != m {
		return nil, perr(lr.file, pLine, mCol, ErrCount,
			"the p line declares %d arcs but the input has %d (it ends at line %d)", m, arcs, lr.lineNo)
	}
	if lim.guard && n > sparseLimit(lr.consumed) {
		return nil, perr(lr.file, pLine, nCol, ErrTooLarge, "%d vertices for %d bytes of input: %s", n, lr.consumed, guardHint)
	}
	return col.build(int(n), opt.Symmetrize)
}

// guardHint explains the sparsity guard in errors.
const guardHint = "more vertices than the default limit allows for so small an input; set ReadOptions.MaxVertices if the graph really has that many"

// dimacsHeader parses "p sp N M" (the "p" ends at column e).
func dimacsHeader(lr *lineReader, line []byte, e int, lim limits) (n, m int64, nCol, mCol int, err *ParseError) {
	ts, te := field(line, e)
	if ts == te {
		return 0, 0, 0, 0, lr.errAt(e+1, ErrHeader, "p line needs \"p sp N M\"")
	}
	if !strings.EqualFold(string(line[ts:te]), "sp") {
		return 0, 0, 0, 0, lr.errAt(ts+1, ErrHeader, "problem type %q is not sp (shortest paths)", clip(line[ts:te]))
	}
	ns, ne := field(line, te)
	ms, me := field(line, ne)
	if ms == me {
		return 0, 0, 0, 0, lr.errAt(te+1, ErrHeader, "p line needs \"p sp N M\"")
	}
	if xs, xe := field(line, me); xs != xe {
		return 0, 0, 0, 0, lr.errAt(xs+1, ErrHeader, "unexpected field %q after \"p sp N M\"", clip(line[xs:xe]))
	}
	nu, st := parseUint(line[ns:ne])
	if st == numSyntax {
		return 0, 0, 0, 0, lr.errAt(ns+1, ErrHeader, "vertex count %q is not a number", clip(line[ns:ne]))
	}
	if st == numOverflow || int64(nu) > lim.maxV {
		return 0, 0, 0, 0, lr.errAt(ns+1, ErrTooLarge, "%s vertices exceed the limit of %d", clip(line[ns:ne]), lim.maxV)
	}
	mu, st := parseUint(line[ms:me])
	if st == numSyntax {
		return 0, 0, 0, 0, lr.errAt(ms+1, ErrHeader, "arc count %q is not a number", clip(line[ms:me]))
	}
	if st == numOverflow || int64(mu) > lim.maxE {
		return 0, 0, 0, 0, lr.errAt(ms+1, ErrTooLarge, "%s arcs exceed the limit of %d", clip(line[ms:me]), lim.maxE)
	}
	return int64(nu), int64(mu), ns + 1, ms + 1, nil
}

// dimacsArc parses the fields after "a" (which ends at column e).
func dimacsArc(lr *lineReader, line []byte, e int, n int64, col *collector) *ParseError {
	us, ue := field(line, e)
	vs, ve := field(line, ue)
	ws, we := field(line, ve)
	if ws == we {
		return lr.errAt(ws+1, ErrSyntax, "arc line needs \"a U V W\"")
	}
	if xs, xe := field(line, we); xs != xe {
		return lr.errAt(xs+1, ErrSyntax, "unexpected field %q after \"a U V W\"", clip(line[xs:xe]))
	}
	u, err := vertex1(lr, line[us:ue], us+1, n)
	if err != nil {
		return err
	}
	v, err := vertex1(lr, line[vs:ve], vs+1, n)
	if err != nil {
		return err
	}
	w, st := parseInt(line[ws:we])
	if st != numOK {
		if st == numOverflow {
			return lr.errAt(ws+1, ErrRange, "weight %q exceeds 2^53 in magnitude", clip(line[ws:we]))
		}
		return lr.errAt(ws+1, ErrSyntax, "weight %q is not an integer", clip(line[ws:we]))
	}
	if !col.add(u, v, float64(w)) {
		return tooLarge(lr, col.refused)
	}
	return nil
}

// vertex1 parses a 1-based vertex id in 1..n and returns it 0-based.
func vertex1(lr *lineReader, tok []byte, col int, n int64) (int32, *ParseError) {
	id, st := parseUint(tok)
	if st == numSyntax {
		return 0, lr.errAt(col, ErrSyntax, "vertex id %q is not a number", clip(tok))
	}
	if st == numOverflow || id < 1 || int64(id) > n {
		return 0, lr.errAt(col, ErrRange, "vertex id %s is outside 1..%d", clip(tok), n)
	}
	return int32(id - 1), nil
}

// WriteDIMACS writes g in the DIMACS shortest-path format that ReadDIMACS
// reads: each comment (split at newlines) as a "c" line, "p sp N M", then
// one "a U V W" line per arc with 1-based ids, in CSR order. An
// undirected graph is written as all of its arcs (both directions) with a
// comment saying so; read it back with ReadOptions.Symmetrize. An
// unweighted graph is written with weight 1 on every arc.
//
// DIMACS weights are integers: a weight that is not a whole number, or
// whose magnitude exceeds 2^53, makes WriteDIMACS stop with an error
// wrapping ErrWeight (the output is then incomplete). Write such graphs
// as Matrix Market or an edge list instead. Output is buffered; w is
// written in large blocks.
func WriteDIMACS(w io.Writer, g *graph.CSR, comments ...string) error {
	if err := checkWritable(g); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	for _, c := range comments {
		writeComments(bw, "c", c)
	}
	if !g.Directed {
		writeComments(bw, "c", "undirected graph: every edge is written as two arcs (read it with Symmetrize)")
	}
	n := g.NumVertices()
	fmt.Fprintf(bw, "p sp %d %d\n", n, g.NumArcs())
	for u := 0; u < n; u++ {
		if u&(cancelEvery-1) == 0 {
			if err := cancel.Check(); err != nil {
				return fmt.Errorf("graphio: writing DIMACS: %w", err)
			}
		}
		for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
			wt := g.ArcWeight(k)
			if wt != math.Trunc(wt) || math.Abs(wt) > maxExactInt {
				return fmt.Errorf("graphio: writing DIMACS: arc %d→%d weighs %g: %w (DIMACS needs whole numbers within ±2^53; write Matrix Market or an edge list instead)",
					u, g.Adj[k], wt, ErrWeight)
			}
			buf := bw.AvailableBuffer()
			buf = append(buf, 'a', ' ')
			buf = strconv.AppendInt(buf, int64(u)+1, 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(g.Adj[k])+1, 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(wt), 10)
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return fmt.Errorf("graphio: writing DIMACS: %w", err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("graphio: writing DIMACS: %w", err)
	}
	return nil
}

// writeComments writes text as comment lines, one per line of text, each
// starting with the marker and a space.
func writeComments(bw *bufio.Writer, marker, text string) {
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, "\r")
		if l == "" {
			bw.WriteString(marker + "\n")
			continue
		}
		bw.WriteString(marker + " " + l + "\n")
	}
}

// checkWritable makes sure the writers can walk g without going out of
// bounds. It checks lengths and offsets in O(N), not ids or weights.
func checkWritable(g *graph.CSR) error {
	if g == nil || len(g.Offsets) == 0 {
		return fmt.Errorf("graphio: the graph has no Offsets (a CSR needs N+1 of them)")
	}
	n := g.NumVertices()
	if g.Offsets[0] != 0 || g.Offsets[n] != int64(len(g.Adj)) {
		return fmt.Errorf("graphio: Offsets run from %d to %d but there are %d arcs", g.Offsets[0], g.Offsets[n], len(g.Adj))
	}
	for v := 0; v < n; v++ {
		if g.Offsets[v+1] < g.Offsets[v] {
			return fmt.Errorf("graphio: Offsets decrease at vertex %d", v)
		}
	}
	if g.Weights != nil && g.Weights64 != nil {
		return fmt.Errorf("graphio: the graph has both float32 and float64 weights")
	}
	if (g.Weights != nil && len(g.Weights) != len(g.Adj)) || (g.Weights64 != nil && len(g.Weights64) != len(g.Adj)) {
		return fmt.Errorf("graphio: the graph has %d arcs but %d weights", len(g.Adj), max(len(g.Weights), len(g.Weights64)))
	}
	return nil
}
