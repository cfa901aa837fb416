package graphio_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/graphio"
)

type readFunc func(io.Reader, graphio.ReadOptions) (*graph.CSR, error)

type badCase struct {
	name      string
	in        string
	opt       graphio.ReadOptions
	want      error // the sentinel
	line, col int   // expected position (0: none)
}

type goodCase struct {
	name string
	in   string
	opt  graphio.ReadOptions
	want func(t testing.TB) *graph.CSR
}

// runBad checks that every case fails with a *ParseError at the expected
// position wrapping the expected sentinel, whether or not the reader can
// see the input's size.
func runBad(t *testing.T, read readFunc, cases []badCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, sized := range []bool{true, false} {
				var r io.Reader = strings.NewReader(c.in)
				if !sized {
					r = onlyReader{r}
				}
				g, err := read(r, c.opt)
				if err == nil {
					t.Fatalf("sized=%v: no error, got %v", sized, g)
				}
				if !errors.Is(err, c.want) {
					t.Fatalf("sized=%v: error %q does not wrap %q", sized, err, c.want)
				}
				var pe *graphio.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("sized=%v: error %q is not a *ParseError", sized, err)
				}
				if pe.Line != c.line || pe.Column != c.col {
					t.Errorf("sized=%v: error %q at line %d column %d, want line %d column %d",
						sized, err, pe.Line, pe.Column, c.line, c.col)
				}
				if pe.File != c.opt.Name {
					t.Errorf("File %q, want %q", pe.File, c.opt.Name)
				}
			}
		})
	}
}

func runGood(t *testing.T, read readFunc, cases []goodCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := read(strings.NewReader(c.in), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			if d := diffCSR(c.want(t), g); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// want builds the expected graph of a good case.
func want(n int, arcs [][3]float64, weighted, f64, sym bool) func(testing.TB) *graph.CSR {
	return func(t testing.TB) *graph.CSR { return mustBuild(t, n, arcs, weighted, f64, sym) }
}

func TestReadDIMACSGood(t *testing.T) {
	tri := [][3]float64{{0, 1, 5}, {1, 2, 7}}
	runGood(t, graphio.ReadDIMACS, []goodCase{
		{"plain", "c hello\np sp 3 2\na 1 2 5\na 2 3 7\n", graphio.ReadOptions{}, want(3, tri, true, false, false)},
		{"crlf", "c hello\r\np sp 3 2\r\na 1 2 5\r\na 2 3 7\r\n", graphio.ReadOptions{}, want(3, tri, true, false, false)},
		{"no final newline", "p sp 3 2\na 1 2 5\na 2 3 7", graphio.ReadOptions{}, want(3, tri, true, false, false)},
		{"blank lines tabs comments", "\n\tc x\np\tsp 3  2\n\nc between\n a 1\t2 5 \na 2 3 7\nc end\n", graphio.ReadOptions{}, want(3, tri, true, false, false)},
		{"byte order mark", "\xef\xbb\xbfp sp 3 2\na 1 2 5\na 2 3 7\n", graphio.ReadOptions{}, want(3, tri, true, false, false)},
		{"isolated vertices", "p sp 5 2\na 1 2 5\na 2 3 7\n", graphio.ReadOptions{}, want(5, tri, true, false, false)},
		{"empty graph", "p sp 0 0\n", graphio.ReadOptions{}, want(0, nil, true, false, false)},
		{"parallel arcs keep min, self-loop dropped", "p sp 3 4\na 1 2 9\na 1 2 5\na 3 3 1\na 2 3 7\n",
			graphio.ReadOptions{}, want(3, tri, true, false, false)},
		{"symmetrize", "p sp 3 2\na 1 2 5\na 2 3 7\n", graphio.ReadOptions{Symmetrize: true}, want(3, tri, true, false, true)},
		{"negative and signed weights", "p sp 3 2\na 1 2 -5\na 2 3 +7\n", graphio.ReadOptions{},
			want(3, [][3]float64{{0, 1, -5}, {1, 2, 7}}, true, false, false)},
		{"float64 keeps 2^53", "p sp 2 1\na 1 2 9007199254740992\n", graphio.ReadOptions{Float64: true},
			want(2, [][3]float64{{0, 1, 1 << 53}}, true, true, false)},
		{"float32 rounds above 2^24", "p sp 2 1\na 1 2 16777217\n", graphio.ReadOptions{},
			want(2, [][3]float64{{0, 1, 16777216}}, true, false, false)},
		{"limits exactly met", "p sp 3 2\na 1 2 5\na 2 3 7\n", graphio.ReadOptions{MaxVertices: 3, MaxEdges: 2}, want(3, tri, true, false, false)},
		{"long comment line", "c " + strings.Repeat("x", 3<<20) + "\np sp 3 2\na 1 2 5\na 2 3 7\n", graphio.ReadOptions{}, want(3, tri, true, false, false)},
	})
}

func TestReadDIMACSBad(t *testing.T) {
	const p = "p sp 3 2\n"
	runBad(t, graphio.ReadDIMACS, []badCase{
		{"empty", "", graphio.ReadOptions{}, graphio.ErrHeader, 0, 0},
		{"only comments", "c a\nc b\n", graphio.ReadOptions{}, graphio.ErrHeader, 0, 0},
		{"arc before p", "a 1 2 3\np sp 3 1\n", graphio.ReadOptions{}, graphio.ErrHeader, 1, 1},
		{"second p", p + "p sp 3 2\n", graphio.ReadOptions{}, graphio.ErrHeader, 2, 1},
		{"not sp", "p max 3 2\n", graphio.ReadOptions{}, graphio.ErrHeader, 1, 3},
		{"p 0 variant", "p 0 3353 8870\n", graphio.ReadOptions{}, graphio.ErrHeader, 1, 3},
		{"p missing count", "p sp 3\n", graphio.ReadOptions{}, graphio.ErrHeader, 1, 5},
		{"p bad count", "p sp three 2\n", graphio.ReadOptions{}, graphio.ErrHeader, 1, 6},
		{"p extra field", "p sp 3 2 1\n", graphio.ReadOptions{}, graphio.ErrHeader, 1, 10},
		{"too many arcs", p + "a 1 2 3\na 2 3 4\na 3 1 5\n", graphio.ReadOptions{}, graphio.ErrCount, 4, 1},
		{"too few arcs", p + "a 1 2 3\n", graphio.ReadOptions{Name: "f.gr"}, graphio.ErrCount, 1, 8},
		{"truncated mid-line", p + "a 1 2 3\na 2 ", graphio.ReadOptions{}, graphio.ErrSyntax, 3, 5},
		{"id zero", p + "a 0 2 3\n", graphio.ReadOptions{}, graphio.ErrRange, 2, 3},
		{"id above N", p + "a 1 4 3\n", graphio.ReadOptions{}, graphio.ErrRange, 2, 5},
		{"id huge", p + "a 1 99999999999999999999999 3\n", graphio.ReadOptions{}, graphio.ErrRange, 2, 5},
		{"id negative", p + "a -1 2 3\n", graphio.ReadOptions{}, graphio.ErrSyntax, 2, 3},
		{"weight not numeric", p + "a 1 2 x\n", graphio.ReadOptions{}, graphio.ErrSyntax, 2, 7},
		{"weight not integer", p + "a 1 2 1.5\n", graphio.ReadOptions{}, graphio.ErrSyntax, 2, 7},
		{"weight beyond 2^53", p + "a 1 2 9007199254740993\n", graphio.ReadOptions{}, graphio.ErrRange, 2, 7},
		{"weight missing", p + "a 1 2\n", graphio.ReadOptions{}, graphio.ErrSyntax, 2, 6},
		{"extra field", p + "a 1 2 3 4\n", graphio.ReadOptions{}, graphio.ErrSyntax, 2, 9},
		{"unknown line", p + "x 1 2 3\n", graphio.ReadOptions{}, graphio.ErrSyntax, 2, 1},
		{"word starting with a", p + "arc 1 2 3\n", graphio.ReadOptions{}, graphio.ErrSyntax, 2, 1},
		{"binary garbage", "\x00\x01\x02\xff\xfe\n\x00", graphio.ReadOptions{}, graphio.ErrSyntax, 1, 1},
		{"data line too long", p + "a 1 2 " + strings.Repeat("1", 2<<20) + "\n", graphio.ReadOptions{}, graphio.ErrSyntax, 2, 1},
		{"N above MaxVertices", "p sp 11 0\n", graphio.ReadOptions{MaxVertices: 10}, graphio.ErrTooLarge, 1, 6},
		{"M above MaxEdges", "p sp 3 11\n", graphio.ReadOptions{MaxEdges: 10}, graphio.ErrTooLarge, 1, 8},
		{"N above int32", "p sp 4294967296 0\n", graphio.ReadOptions{}, graphio.ErrTooLarge, 1, 6},
		{"M above default", "p sp 3 8589934593\n", graphio.ReadOptions{}, graphio.ErrTooLarge, 1, 8},
		{"sparsity guard", "p sp 2000000000 0\n", graphio.ReadOptions{}, graphio.ErrTooLarge, 1, 6},
	})
}

func TestReadMatrixMarketGood(t *testing.T) {
	arcs := [][3]float64{{1, 0, 2.5}, {2, 1, -1}}
	runGood(t, graphio.ReadMatrixMarket, []goodCase{
		{"real symmetric", "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 2\n2 1 2.5\n3 2 -1\n",
			graphio.ReadOptions{}, want(3, arcs, true, false, true)},
		{"case-insensitive banner, crlf", "%%matrixmarket MATRIX Coordinate REAL Symmetric\r\n3 3 2\r\n2 1 2.5\r\n3 2 -1e0\r\n",
			graphio.ReadOptions{}, want(3, arcs, true, false, true)},
		{"general is directed", "%%MatrixMarket matrix coordinate real general\n3 3 2\n2 1 2.5\n3 2 -1\n",
			graphio.ReadOptions{}, want(3, arcs, true, false, false)},
		{"general symmetrized", "%%MatrixMarket matrix coordinate real general\n3 3 2\n2 1 2.5\n3 2 -1\n",
			graphio.ReadOptions{Symmetrize: true}, want(3, arcs, true, false, true)},
		{"integer float64", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n2 1 9007199254740991\n3 2 -1\n",
			graphio.ReadOptions{Float64: true}, want(3, [][3]float64{{1, 0, 1<<53 - 1}, {2, 1, -1}}, true, true, false)},
		{"pattern", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n",
			graphio.ReadOptions{Float64: true}, want(3, arcs, false, false, true)},
		{"upper triangle entry and diagonal", "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 2 2.5\n3 2 -1\n2 3 4\n3 3 1\n",
			graphio.ReadOptions{}, want(3, arcs, true, false, true)},
		{"infinite values", "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 +Inf\n3 2 -inf\n",
			graphio.ReadOptions{}, want(3, [][3]float64{{1, 0, math.Inf(1)}, {2, 1, math.Inf(-1)}}, true, false, true)},
		{"comments and blanks among entries", "%%MatrixMarket matrix coordinate real symmetric\n\n3 3 2\n2 1 .25e1\n% x\n\n3 2 -1\n",
			graphio.ReadOptions{}, want(3, arcs, true, false, true)},
		{"empty", "%%MatrixMarket matrix coordinate real general\n0 0 0\n",
			graphio.ReadOptions{}, want(0, nil, true, false, false)},
	})
}

func TestReadMatrixMarketBad(t *testing.T) {
	const b = "%%MatrixMarket matrix coordinate real general\n"
	runBad(t, graphio.ReadMatrixMarket, []badCase{
		{"empty", "", graphio.ReadOptions{}, graphio.ErrHeader, 0, 0},
		{"no banner", "3 3 1\n1 2 1\n", graphio.ReadOptions{}, graphio.ErrHeader, 1, 1},
		{"short banner", "%%MatrixMarket matrix coordinate\n", graphio.ReadOptions{}, graphio.ErrHeader, 1, 33},
		{"array", "%%MatrixMarket matrix array real general\n", graphio.ReadOptions{}, graphio.ErrUnsupported, 1, 23},
		{"complex", "%%MatrixMarket matrix coordinate complex general\n", graphio.ReadOptions{}, graphio.ErrUnsupported, 1, 34},
		{"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n", graphio.ReadOptions{}, graphio.ErrUnsupported, 1, 39},
		{"skew-symmetric", "%%MatrixMarket matrix coordinate real skew-symmetric\n", graphio.ReadOptions{}, graphio.ErrUnsupported, 1, 39},
		{"vector", "%%MatrixMarket vector coordinate real general\n", graphio.ReadOptions{}, graphio.ErrUnsupported, 1, 16},
		{"unknown field", "%%MatrixMarket matrix coordinate quaternion general\n", graphio.ReadOptions{}, graphio.ErrHeader, 1, 34},
		{"no size line", b + "% only comments\n", graphio.ReadOptions{}, graphio.ErrHeader, 2, 0},
		{"not square", b + "3 4 1\n1 2 1\n", graphio.ReadOptions{}, graphio.ErrHeader, 2, 1},
		{"bad size", b + "3 x 1\n", graphio.ReadOptions{}, graphio.ErrHeader, 2, 3},
		{"short size line", b + "3 3\n", graphio.ReadOptions{}, graphio.ErrHeader, 2, 4},
		{"too many entries", b + "3 3 1\n1 2 1\n2 3 1\n", graphio.ReadOptions{}, graphio.ErrCount, 4, 1},
		{"too few entries", b + "3 3 3\n1 2 1\n2 3 1\n", graphio.ReadOptions{Name: "m.mtx"}, graphio.ErrCount, 2, 5},
		{"truncated", b + "3 3 2\n1 2 1\n2 3", graphio.ReadOptions{}, graphio.ErrSyntax, 4, 4},
		{"row zero", b + "3 3 1\n0 2 1\n", graphio.ReadOptions{}, graphio.ErrRange, 3, 1},
		{"col above N", b + "3 3 1\n1 4 1\n", graphio.ReadOptions{}, graphio.ErrRange, 3, 3},
		{"value not numeric", b + "3 3 1\n1 2 abc\n", graphio.ReadOptions{}, graphio.ErrSyntax, 3, 5},
		{"value NaN", b + "3 3 1\n1 2 NaN\n", graphio.ReadOptions{}, graphio.ErrSyntax, 3, 5},
		{"value overflows float32", b + "3 3 1\n1 2 1e39\n", graphio.ReadOptions{}, graphio.ErrRange, 3, 5},
		{"value overflows float64", b + "3 3 1\n1 2 1e309\n", graphio.ReadOptions{Float64: true}, graphio.ErrRange, 3, 5},
		{"integer not integer", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n", graphio.ReadOptions{}, graphio.ErrSyntax, 3, 5},
		{"pattern with value", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2 1\n", graphio.ReadOptions{}, graphio.ErrSyntax, 3, 5},
		{"real without value", b + "3 3 1\n1 2\n", graphio.ReadOptions{}, graphio.ErrSyntax, 3, 4},
		{"binary garbage", b + "3 3 1\n\x00\x7f\x80 1 2\n", graphio.ReadOptions{}, graphio.ErrSyntax, 3, 1},
		{"N above limit", b + "11 11 0\n", graphio.ReadOptions{MaxVertices: 10}, graphio.ErrTooLarge, 2, 1},
		{"nnz above limit", b + "3 3 11\n", graphio.ReadOptions{MaxEdges: 10}, graphio.ErrTooLarge, 2, 5},
		{"sizes overflow", b + "3 3 99999999999999999999\n", graphio.ReadOptions{}, graphio.ErrTooLarge, 2, 5},
		{"sparsity guard", b + "2000000000 2000000000 0\n", graphio.ReadOptions{}, graphio.ErrTooLarge, 2, 1},
	})
}

func TestReadEdgeListGood(t *testing.T) {
	arcs := [][3]float64{{0, 1, 1.5}, {1, 2, -2}}
	runGood(t, graphio.ReadEdgeList, []goodCase{
		{"weighted", "# c\n0 1 1.5\n1\t2\t-2\n", graphio.ReadOptions{}, want(3, arcs, true, false, false)},
		{"unweighted crlf", "0 1\r\n1 2\r\n", graphio.ReadOptions{}, want(3, arcs, false, false, false)},
		{"snap header", "# Directed graph (each unordered pair of nodes is saved once): x.txt\n# Nodes: 5 Edges: 2\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n",
			graphio.ReadOptions{}, want(5, arcs, false, false, false)},
		{"undirected marker", "# Undirected graph: x.txt\n# nodes: 3 EDGES: 2\n0 1 1.5\n1 2 -2\n",
			graphio.ReadOptions{}, want(3, arcs, true, false, true)},
		{"marker only on line 1", "# c\n# Undirected graph\n0 1 1.5\n1 2 -2\n",
			graphio.ReadOptions{}, want(3, arcs, true, false, false)},
		{"header after edges is a comment", "0 1 1.5\n# Nodes: 9 Edges: 9\n1 2 -2\n",
			graphio.ReadOptions{}, want(3, arcs, true, false, false)},
		{"prose in header comment", "# Nodes: many Edges: few\n0 1 1.5\n1 2 -2\n",
			graphio.ReadOptions{}, want(3, arcs, true, false, false)},
		{"symmetrize float64", "0 1 1.5\n1 2 -2\n", graphio.ReadOptions{Symmetrize: true, Float64: true}, want(3, arcs, true, true, true)},
		{"duplicates and loops", "0 1 3\n0 1 1.5\n2 2 1\n1 2 -2\n", graphio.ReadOptions{}, want(3, arcs, true, false, false)},
		{"empty", "", graphio.ReadOptions{}, want(0, nil, false, false, false)},
		{"only header", "# Nodes: 4 Edges: 0\n", graphio.ReadOptions{}, want(4, nil, false, false, false)},
	})
}

func TestReadEdgeListBad(t *testing.T) {
	runBad(t, graphio.ReadEdgeList, []badCase{
		{"one field", "0\n", graphio.ReadOptions{}, graphio.ErrSyntax, 1, 2},
		{"four fields", "0 1 2 3\n", graphio.ReadOptions{}, graphio.ErrSyntax, 1, 7},
		{"mixed weights", "0 1 2\n1 2\n", graphio.ReadOptions{}, graphio.ErrSyntax, 2, 1},
		{"mixed weights other way", "0 1\n1 2 3\n", graphio.ReadOptions{Name: "e.txt"}, graphio.ErrSyntax, 2, 1},
		{"id not numeric", "0 x\n", graphio.ReadOptions{}, graphio.ErrSyntax, 1, 3},
		{"id negative", "-1 0\n", graphio.ReadOptions{}, graphio.ErrSyntax, 1, 1},
		{"weight not numeric", "0 1 w\n", graphio.ReadOptions{}, graphio.ErrSyntax, 1, 5},
		{"weight NaN", "0 1 nan\n", graphio.ReadOptions{}, graphio.ErrSyntax, 1, 5},
		{"weight overflow", "0 1 1e39\n", graphio.ReadOptions{}, graphio.ErrRange, 1, 5},
		{"id beyond Nodes", "# Nodes: 3 Edges: 1\n0 3\n", graphio.ReadOptions{}, graphio.ErrRange, 2, 3},
		{"too many edges", "# Nodes: 3 Edges: 1\n0 1\n1 2\n", graphio.ReadOptions{}, graphio.ErrCount, 3, 1},
		{"too few edges", "# Nodes: 3 Edges: 3\n0 1\n1 2\n", graphio.ReadOptions{}, graphio.ErrCount, 1, 19},
		{"truncated", "# Nodes: 3 Edges: 2\n0 1\n1", graphio.ReadOptions{}, graphio.ErrSyntax, 3, 2},
		{"id above limit", "0 11\n", graphio.ReadOptions{MaxVertices: 11}, graphio.ErrTooLarge, 1, 3},
		{"id above int32", "0 2147483647\n", graphio.ReadOptions{}, graphio.ErrTooLarge, 1, 3},
		{"Nodes above limit", "# Nodes: 12 Edges: 1\n", graphio.ReadOptions{MaxVertices: 11}, graphio.ErrTooLarge, 1, 10},
		{"Edges above limit", "# Nodes: 3 Edges: 11\n", graphio.ReadOptions{MaxEdges: 10}, graphio.ErrTooLarge, 1, 19},
		{"edges above limit", "0 1\n1 2\n2 0\n", graphio.ReadOptions{MaxEdges: 2}, graphio.ErrTooLarge, 3, 1},
		{"sparsity guard by id", "0 1\n5 2000000000\n", graphio.ReadOptions{}, graphio.ErrTooLarge, 2, 3},
		{"sparsity guard by header", "# Nodes: 2000000000\n", graphio.ReadOptions{}, graphio.ErrTooLarge, 1, 10},
		{"binary garbage", "\x89PNG\r\n\x1a\n\x00\x00", graphio.ReadOptions{}, graphio.ErrSyntax, 1, 1},
		{"long line", "0 1 " + strings.Repeat("2", 1<<20), graphio.ReadOptions{}, graphio.ErrSyntax, 1, 1},
	})
}

// TestParseErrorMessage pins the message layout.
func TestParseErrorMessage(t *testing.T) {
	_, err := graphio.ReadDIMACS(strings.NewReader("p sp 3 1\na 1 9 4\n"), graphio.ReadOptions{Name: "x.gr"})
	const want = "graphio: x.gr:2:5: value out of range: vertex id 9 is outside 1..3"
	if err == nil || err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	_, err = graphio.ReadDIMACS(strings.NewReader("p sp 3 1\na 1 9 4\n"), graphio.ReadOptions{})
	if want := "graphio: line 2, column 5: value out of range: vertex id 9 is outside 1..3"; err == nil || err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	e := &graphio.ParseError{File: "f", Err: graphio.ErrTruncated}
	if got := e.Error(); got != "graphio: f: input ends early" {
		t.Fatalf("got %q", got)
	}
}

// TestHugeHeadersDoNotAllocate feeds headers that declare enormous
// graphs (within the default limits) and checks that the readers fail
// without allocating in proportion to the claims.
func TestHugeHeadersDoNotAllocate(t *testing.T) {
	cases := []struct {
		name string
		read readFunc
		in   string
		want error
	}{
		{"dimacs", graphio.ReadDIMACS, "p sp 2147483646 8589934592\na 1 2 3\n", graphio.ErrCount},
		{"mtx", graphio.ReadMatrixMarket, "%%MatrixMarket matrix coordinate real general\n2147483646 2147483646 8589934592\n1 2 3\n", graphio.ErrCount},
		{"edgelist", graphio.ReadEdgeList, "# Nodes: 2147483646 Edges: 8589934592\n0 1\n", graphio.ErrCount},
		{"dimacs exact count", graphio.ReadDIMACS, "p sp 2147483646 1\na 1 2 3\n", graphio.ErrTooLarge},
		{"edgelist exact count", graphio.ReadEdgeList, "# Nodes: 2147483646 Edges: 1\n0 1\n", graphio.ErrTooLarge},
		{"binary", func(r io.Reader, o graphio.ReadOptions) (*graph.CSR, error) { return graphio.ReadBinaryWith(r, o) },
			string(hugeBinaryHeader(t, 1<<31-2, 1<<33)), graphio.ErrTruncated},
	}
	for _, c := range cases {
		for _, sized := range []bool{true, false} {
			name := c.name + "/sized"
			if !sized {
				name = c.name + "/stream"
			}
			t.Run(name, func(t *testing.T) {
				run := func() error {
					var r io.Reader = strings.NewReader(c.in)
					if !sized {
						r = onlyReader{r}
					}
					_, err := c.read(r, graphio.ReadOptions{})
					return err
				}
				if err := run(); !errors.Is(err, c.want) {
					t.Fatalf("error %v, want %v", err, c.want)
				}
				const limit = 4 << 20
				got := allocatedBytes(func() { run() })
				t.Logf("allocated %d bytes", got)
				if got > limit {
					t.Errorf("allocated %d bytes for a %d-byte input, want at most %d", got, len(c.in), limit)
				}
			})
		}
	}
}

// TestReaderErrorsPassThrough checks that a failing io.Reader's error is
// returned wrapped, not turned into a ParseError.
func TestReaderErrorsPassThrough(t *testing.T) {
	boom := errors.New("disk on fire")
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			r := io.MultiReader(strings.NewReader("p sp"), errReader{boom})
			_, err := f.read(r, graphio.ReadOptions{})
			if !errors.Is(err, boom) {
				t.Fatalf("error %v does not wrap the reader's error", err)
			}
		})
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestLongCommentsAndBuffers reads files whose lines straddle the
// reader's buffer in many ways.
func TestLongCommentsAndBuffers(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("p sp 3 2\n")
	for i := range 300 {
		b.WriteString("c " + strings.Repeat("y", i*997%5000) + "\n")
	}
	b.WriteString("a 1 2 5\n" + "c " + strings.Repeat("z", (1<<20)+7) + "\na 2 3 7\n")
	for _, sized := range []bool{true, false} {
		var r io.Reader = bytes.NewReader(b.Bytes())
		if !sized {
			r = onlyReader{r}
		}
		g, err := graphio.ReadDIMACS(r, graphio.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := diffCSR(mustBuild(t, 3, [][3]float64{{0, 1, 5}, {1, 2, 7}}, true, false, false), g); d != "" {
			t.Fatal(d)
		}
	}
}
