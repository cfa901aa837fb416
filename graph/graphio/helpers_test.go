package graphio_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/graphio"
)

// diffCSR describes the first difference between two graphs, or returns
// "" when they are identical: same vertex count, direction, weight kind,
// offsets, neighbour order and weights.
func diffCSR(a, b *graph.CSR) string {
	switch {
	case a.Directed != b.Directed:
		return fmt.Sprintf("Directed %v vs %v", a.Directed, b.Directed)
	case len(a.Offsets) != len(b.Offsets):
		return fmt.Sprintf("%d vs %d vertices", a.NumVertices(), b.NumVertices())
	case len(a.Adj) != len(b.Adj):
		return fmt.Sprintf("%d vs %d arcs", len(a.Adj), len(b.Adj))
	case (a.Weights == nil) != (b.Weights == nil) || (a.Weights64 == nil) != (b.Weights64 == nil):
		return fmt.Sprintf("weight kinds differ: %v vs %v", a, b)
	}
	for v := range a.Offsets {
		if a.Offsets[v] != b.Offsets[v] {
			return fmt.Sprintf("Offsets[%d] %d vs %d", v, a.Offsets[v], b.Offsets[v])
		}
	}
	for k := range a.Adj {
		if a.Adj[k] != b.Adj[k] {
			return fmt.Sprintf("Adj[%d] %d vs %d", k, a.Adj[k], b.Adj[k])
		}
		if a.ArcWeight(int64(k)) != b.ArcWeight(int64(k)) {
			return fmt.Sprintf("weight of arc %d: %v vs %v", k, a.ArcWeight(int64(k)), b.ArcWeight(int64(k)))
		}
	}
	return ""
}

// mustBuild builds a graph from explicit arcs (0-based), failing the test
// on error.
func mustBuild(t testing.TB, n int, arcs [][3]float64, weighted, f64, sym bool) *graph.CSR {
	t.Helper()
	el := graph.EdgeList{N: n}
	for _, a := range arcs {
		el.Src = append(el.Src, int32(a[0]))
		el.Dst = append(el.Dst, int32(a[1]))
		if weighted && f64 {
			el.Weights64 = append(el.Weights64, a[2])
		} else if weighted {
			el.Weights = append(el.Weights, float32(a[2]))
		}
	}
	if weighted && f64 && el.Weights64 == nil {
		el.Weights64 = []float64{}
	}
	if weighted && !f64 && el.Weights == nil {
		el.Weights = []float32{}
	}
	g, err := graph.Build(el, graph.BuildOptions{Symmetrize: sym})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// rmat returns an undirected R-MAT graph, failing the test on error.
func rmat(t testing.TB, scale, ef int, opts ...gen.Option) *graph.CSR {
	t.Helper()
	g, err := gen.RMAT(scale, ef, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// randomDirected returns a directed graph with n vertices and about m
// arcs of random weights (float32 or float64, integer or not).
func randomDirected(t testing.TB, seed uint64, n, m int, integer, f64 bool) *graph.CSR {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	el := graph.EdgeList{N: n, Src: make([]int32, m), Dst: make([]int32, m)}
	if f64 {
		el.Weights64 = make([]float64, m)
	} else {
		el.Weights = make([]float32, m)
	}
	for i := range m {
		el.Src[i], el.Dst[i] = int32(r.IntN(n)), int32(r.IntN(n))
		w := r.NormFloat64() * 1000
		if integer {
			w = float64(r.IntN(1_000_000) - 1000)
		}
		if f64 {
			el.Weights64[i] = w
		} else {
			el.Weights[i] = float32(w)
		}
	}
	g, err := graph.Build(el, graph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// formatIO bundles a format's writer and reader for table-driven tests.
type formatIO struct {
	name  string
	write func(io.Writer, *graph.CSR) error
	read  func(io.Reader, graphio.ReadOptions) (*graph.CSR, error)
}

var formats = []formatIO{
	{"dimacs", func(w io.Writer, g *graph.CSR) error { return graphio.WriteDIMACS(w, g, "test") }, graphio.ReadDIMACS},
	{"mtx", func(w io.Writer, g *graph.CSR) error { return graphio.WriteMatrixMarket(w, g, "test") }, graphio.ReadMatrixMarket},
	{"edgelist", func(w io.Writer, g *graph.CSR) error { return graphio.WriteEdgeList(w, g, "test") }, graphio.ReadEdgeList},
	{"binary", graphio.WriteBinary, graphio.ReadBinaryWith},
}

// roundTrip writes g with f and reads it back with opt.
func roundTrip(t testing.TB, f formatIO, g *graph.CSR, opt graphio.ReadOptions) (*graph.CSR, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := f.write(&buf, g); err != nil {
		t.Fatalf("%s write: %v", f.name, err)
	}
	data := bytes.Clone(buf.Bytes())
	h, err := f.read(&buf, opt)
	if err != nil {
		t.Fatalf("%s read back: %v", f.name, err)
	}
	return h, data
}

// onlyReader hides every method of r but Read, so readers cannot learn
// the input's size.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }
