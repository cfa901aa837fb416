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

// mmField is the value type of a Matrix Market file.
type mmField uint8

const (
	mmPattern mmField = iota
	mmInteger
	mmReal
)

// ReadMatrixMarket reads a square sparse matrix in Matrix Market
// coordinate format as a graph, entry (i, j) being the arc i→j:
//
//	%%MatrixMarket matrix coordinate FIELD SYMMETRY
//	% comment lines
//	N N NNZ
//	I J [VALUE]     NNZ entry lines, ids 1..N
//
// FIELD is real, integer or pattern (no values: an unweighted graph);
// SYMMETRY is general (a directed graph, undirected with opt.Symmetrize)
// or symmetric (an undirected graph: each entry gives both arcs; the
// file holds one triangle, normally the lower one, but an entry of the
// other triangle is accepted and merged). The banner's words are matched
// without regard to case. array, complex, hermitian and skew-symmetric
// files are refused with an error naming the variant (ErrUnsupported), as
// is a non-square matrix (ErrHeader). Diagonal entries (self-loops) are
// dropped and duplicate entries keep the minimum value (graph.Build); real
// values must not be NaN (±Inf is accepted), integer values must lie
// within ±2^53. Blank lines and
// comment lines among the entries are skipped; "\r\n" is accepted.
//
// Errors are *ParseError values wrapping ErrHeader, ErrUnsupported,
// ErrSyntax, ErrRange (an id outside 1..N, a value too large), ErrCount
// (a number of entries other than NNZ) or ErrTooLarge.
func ReadMatrixMarket(r io.Reader, opt ReadOptions) (*graph.CSR, error) {
	lim := opt.limits()
	size, known := inputSize(r)
	lr := newLineReader(r, opt.Name, size, known)
	line, err := lr.next()
	if err == io.EOF {
		return nil, perr(lr.file, 0, 0, ErrHeader, "empty input (want a %%%%MatrixMarket banner line)")
	}
	if err != nil {
		return nil, err
	}
	fld, symmetric, pe := mmBanner(lr, line)
	if pe != nil {
		return nil, pe
	}
	// The size line.
	for {
		line, err = lr.next()
		if err == io.EOF {
			return nil, lr.errAt(0, ErrHeader, "no size line (want \"N N NNZ\" after the banner and comments)")
		}
		if err != nil {
			return nil, err
		}
		if s, e := field(line, 0); s < e && line[s] != '%' {
			break
		}
	}
	if lr.tooLong {
		return nil, lr.tooLongErr()
	}
	sizeLine := lr.lineNo
	n, nnz, nnzCol, nCol, pe := mmSize(lr, line, lim)
	if pe != nil {
		return nil, pe
	}
	bits := 32
	if opt.Float64 {
		bits = 64
	}
	col := newCollector(preallocation(nnz, size, known, 4), fld != mmPattern, opt.Float64)
	if err := col.checkDeclared(nnz, size, known, 4, nameOr(opt.Name, "a Matrix Market graph")); err != nil {
		return nil, tooLarge(lr, err)
	}
	var count int64
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		is, ie := field(line, 0)
		if is == ie || line[is] == '%' {
			if lr.tooLong && is == ie {
				return nil, lr.tooLongErr()
			}
			continue
		}
		if lr.tooLong {
			return nil, lr.tooLongErr()
		}
		count++
		if count > nnz {
			return nil, lr.errAt(is+1, ErrCount, "more than the %d entries the size line (line %d) declares", nnz, sizeLine)
		}
		js, je := field(line, ie)
		vs, ve := field(line, je)
		want := "\"I J VALUE\""
		if fld == mmPattern {
			want = "\"I J\" (pattern)"
			vs, ve = je, je
		}
		if js == je || (fld != mmPattern && vs == ve) {
			return nil, lr.errAt(max(js, vs)+1, ErrSyntax, "entry line needs %s", want)
		}
		if xs, xe := field(line, ve); xs != xe {
			return nil, lr.errAt(xs+1, ErrSyntax, "unexpected field %q: entry lines hold %s", clip(line[xs:xe]), want)
		}
		u, pe := vertex1(lr, line[is:ie], is+1, n)
		if pe != nil {
			return nil, pe
		}
		v, pe := vertex1(lr, line[js:je], js+1, n)
		if pe != nil {
			return nil, pe
		}
		var w float64
		switch fld {
		case mmInteger:
			iv, st := parseInt(line[vs:ve])
			if st != numOK {
				if st == numOverflow {
					return nil, lr.errAt(vs+1, ErrRange, "value %q exceeds 2^53 in magnitude", clip(line[vs:ve]))
				}
				return nil, lr.errAt(vs+1, ErrSyntax, "value %q is not an integer", clip(line[vs:ve]))
			}
			w = float64(iv)
		case mmReal:
			var st numStatus
			w, st = parseFloat(line[vs:ve], bits)
			if st != numOK {
				return nil, lr.numErr(st, vs+1, "value", line[vs:ve])
			}
		}
		if !col.add(u, v, w) {
			return nil, tooLarge(lr, col.refused)
		}
	}
	if count != nnz {
		return nil, perr(lr.file, sizeLine, nnzCol, ErrCount,
			"the size line declares %d entries but the input has %d (it ends at line %d)", nnz, count, lr.lineNo)
	}
	if lim.guard && n > sparseLimit(lr.consumed) {
		return nil, perr(lr.file, sizeLine, nCol, ErrTooLarge, "%d vertices for %d bytes of input: %s", n, lr.consumed, guardHint)
	}
	return col.build(int(n), symmetric || opt.Symmetrize)
}

// mmBanner parses "%%MatrixMarket matrix coordinate FIELD SYMMETRY".
func mmBanner(lr *lineReader, line []byte) (mmField, bool, *ParseError) {
	const want = "want \"%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric\""
	if lr.tooLong {
		return 0, false, lr.errAt(1, ErrHeader, "banner line is longer than %d bytes", maxLine)
	}
	var tok [5]string
	var cols [6]int
	e := 0
	for i := range tok {
		var s int
		s, e = field(line, e)
		cols[i] = s + 1
		tok[i] = strings.ToLower(string(line[s:e]))
		if i == 0 && tok[0] != "%%matrixmarket" {
			return 0, false, lr.errAt(1, ErrHeader, "no banner: %s on the first line", want)
		}
		if s == e {
			return 0, false, lr.errAt(s+1, ErrHeader, "the banner has %d words: %s", i, want)
		}
	}
	if xs, xe := field(line, e); xs != xe {
		return 0, false, lr.errAt(xs+1, ErrHeader, "unexpected word %q after the banner: %s", clip(line[xs:xe]), want)
	}
	if tok[1] != "matrix" {
		return 0, false, lr.errAt(cols[1], ErrUnsupported, "object %q: only matrix files describe graphs", tok[1])
	}
	switch tok[2] {
	case "coordinate":
	case "array":
		return 0, false, lr.errAt(cols[2], ErrUnsupported, "format \"array\" (a dense matrix): only coordinate files are read; convert it to coordinate format")
	default:
		return 0, false, lr.errAt(cols[2], ErrHeader, "unknown format %q: %s", tok[2], want)
	}
	var fld mmField
	switch tok[3] {
	case "pattern":
		fld = mmPattern
	case "integer":
		fld = mmInteger
	case "real":
		fld = mmReal
	case "complex":
		return 0, false, lr.errAt(cols[3], ErrUnsupported, "field \"complex\": graph weights are real; use real, integer or pattern")
	default:
		return 0, false, lr.errAt(cols[3], ErrHeader, "unknown field %q: %s", tok[3], want)
	}
	switch tok[4] {
	case "general":
		return fld, false, nil
	case "symmetric":
		return fld, true, nil
	case "skew-symmetric", "hermitian":
		return 0, false, lr.errAt(cols[4], ErrUnsupported, "symmetry %q has no graph meaning here; use general or symmetric", tok[4])
	}
	return 0, false, lr.errAt(cols[4], ErrHeader, "unknown symmetry %q: %s", tok[4], want)
}

// mmSize parses the size line "N N NNZ".
func mmSize(lr *lineReader, line []byte, lim limits) (n, nnz int64, nnzCol, nCol int, err *ParseError) {
	var v [3]uint64
	var cols [3]int
	e := 0
	for i := range v {
		var s int
		s, e = field(line, e)
		if s == e {
			return 0, 0, 0, 0, lr.errAt(s+1, ErrHeader, "size line needs \"ROWS COLS NNZ\"")
		}
		cols[i] = s + 1
		var st numStatus
		v[i], st = parseUint(line[s:e])
		if st == numSyntax {
			return 0, 0, 0, 0, lr.errAt(s+1, ErrHeader, "size %q is not a number", clip(line[s:e]))
		}
		if st == numOverflow {
			return 0, 0, 0, 0, lr.errAt(s+1, ErrTooLarge, "size %s exceeds the limits", clip(line[s:e]))
		}
	}
	if xs, xe := field(line, e); xs != xe {
		return 0, 0, 0, 0, lr.errAt(xs+1, ErrHeader, "unexpected field %q after \"ROWS COLS NNZ\"", clip(line[xs:xe]))
	}
	if v[0] != v[1] {
		return 0, 0, 0, 0, lr.errAt(cols[0], ErrHeader, "the matrix is %d×%d: a graph's adjacency matrix must be square", v[0], v[1])
	}
	if int64(v[0]) > lim.maxV {
		return 0, 0, 0, 0, lr.errAt(cols[0], ErrTooLarge, "%d vertices exceed the limit of %d", v[0], lim.maxV)
	}
	if int64(v[2]) > lim.maxE {
		return 0, 0, 0, 0, lr.errAt(cols[2], ErrTooLarge, "%d entries exceed the limit of %d", v[2], lim.maxE)
	}
	return int64(v[0]), int64(v[2]), cols[2], cols[0], nil
}

// WriteMatrixMarket writes g as a Matrix Market coordinate file that
// ReadMatrixMarket reads back to the same graph: a directed graph as
// "general" with every arc u→v as entry (u+1, v+1); an undirected one as
// "symmetric" with the lower triangle only (u ≥ v), so g must hold both
// arcs of every edge with equal weights (as graph.Build makes it). The
// field is pattern for an unweighted graph, integer when every weight is
// a whole number within ±2^53, real otherwise (shortest decimal that
// reads back to the same float32 or float64). Each comment (split at
// newlines) becomes a "%" line after the banner. Output is buffered.
func WriteMatrixMarket(w io.Writer, g *graph.CSR, comments ...string) error {
	if err := checkWritable(g); err != nil {
		return err
	}
	n := g.NumVertices()
	fld := mmPattern
	if g.Weighted() {
		fld = mmInteger
		for k := range g.Adj {
			wt := g.ArcWeight(int64(k))
			if wt != math.Trunc(wt) || math.Abs(wt) > maxExactInt {
				fld = mmReal
				break
			}
		}
	}
	nnz := g.NumArcs()
	sym := "general"
	if !g.Directed {
		sym = "symmetric"
		nnz = 0
		for u := 0; u < n; u++ {
			for _, v := range g.Neighbors(int32(u)) {
				if int(v) <= u {
					nnz++
				}
			}
		}
	}
	bits := 32
	if g.Weights64 != nil {
		bits = 64
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate %s %s\n", [...]string{"pattern", "integer", "real"}[fld], sym)
	for _, c := range comments {
		writeComments(bw, "%", c)
	}
	fmt.Fprintf(bw, "%d %d %d\n", n, n, nnz)
	for u := 0; u < n; u++ {
		if u&(cancelEvery-1) == 0 {
			if err := cancel.Check(); err != nil {
				return fmt.Errorf("graphio: writing Matrix Market: %w", err)
			}
		}
		for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
			v := g.Adj[k]
			if !g.Directed && int(v) > u {
				continue
			}
			buf := bw.AvailableBuffer()
			buf = strconv.AppendInt(buf, int64(u)+1, 10)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(v)+1, 10)
			switch fld {
			case mmInteger:
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(g.ArcWeight(k)), 10)
			case mmReal:
				buf = append(buf, ' ')
				buf = strconv.AppendFloat(buf, g.ArcWeight(k), 'g', -1, bits)
			}
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return fmt.Errorf("graphio: writing Matrix Market: %w", err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("graphio: writing Matrix Market: %w", err)
	}
	return nil
}
