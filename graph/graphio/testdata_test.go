package graphio_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/graphio"
)

// dataDir is the repository's data folder, which holds the real graphs of
// the studies and tests (its README.md gives their provenance).
const dataDir = "../../data"

// The files of dataDir, with the SHA-256 recorded when they were taken.
var testFiles = map[string]string{
	"rome99.gr":      "cbc914b1d02327c2ea788b6f68a332995feadbdc97c1c7890c5e6272152f099d",
	"netscience.mtx": "ea8aceaaaa5840d82f2c98df348bf95f081daea6263beba54fccc8c2fc28da1d",
	"karate.mtx":     "074a23e758ebeddb766fb08f617ee4bc5debc8d2564287c3e1e24f5ccdb77813",
}

func TestTestdataSHA256(t *testing.T) {
	for name, want := range testFiles {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dataDir, name))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			if got := hex.EncodeToString(sum[:]); got != want {
				t.Errorf("SHA-256 %s, want %s: the file was changed (it must stay byte for byte as published)", got, want)
			}
		})
	}
}

func load(t *testing.T, name string, opt graphio.ReadOptions) *graph.CSR {
	t.Helper()
	g, err := graphio.Load(filepath.Join(dataDir, name), opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return g
}

// components returns the size of each weakly connected component.
func components(g *graph.CSR) []int {
	n := g.NumVertices()
	adj := make([][]int32, n) // both directions
	for u := 0; u < n; u++ {
		for _, v := range g.Neighbors(int32(u)) {
			adj[u] = append(adj[u], v)
			adj[v] = append(adj[v], int32(u))
		}
	}
	seen := make([]bool, n)
	var sizes []int
	for s := 0; s < n; s++ {
		if seen[s] {
			continue
		}
		seen[s] = true
		queue := []int32{int32(s)}
		for i := 0; i < len(queue); i++ {
			for _, v := range adj[queue[i]] {
				if !seen[v] {
					seen[v] = true
					queue = append(queue, v)
				}
			}
		}
		sizes = append(sizes, len(queue))
	}
	return sizes
}

// reach counts the vertices reachable from s along arcs (reverse: against them).
func reach(g *graph.CSR, s int32, reverse bool) int {
	n := g.NumVertices()
	adj := make([][]int32, n)
	for u := 0; u < n; u++ {
		for _, v := range g.Neighbors(int32(u)) {
			if reverse {
				adj[v] = append(adj[v], int32(u))
			} else {
				adj[u] = append(adj[u], v)
			}
		}
	}
	seen := make([]bool, n)
	seen[s] = true
	queue := []int32{s}
	for i := 0; i < len(queue); i++ {
		for _, v := range adj[queue[i]] {
			if !seen[v] {
				seen[v] = true
				queue = append(queue, v)
			}
		}
	}
	return len(queue)
}

func weightOf(t *testing.T, g *graph.CSR, u, v int32) float64 {
	t.Helper()
	nb := g.Neighbors(u)
	for i, h := range nb {
		if h == v {
			return g.ArcWeight(g.Offsets[u] + int64(i))
		}
	}
	t.Fatalf("no arc %d→%d", u, v)
	return 0
}

func TestRome99(t *testing.T) {
	// The file itself: 8870 arc lines under "p sp 3353 8870".
	data, err := os.ReadFile(filepath.Join(dataDir, "rome99.gr"))
	if err != nil {
		t.Fatal(err)
	}
	var arcLines int
	var pLine string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		switch {
		case strings.HasPrefix(sc.Text(), "a "):
			arcLines++
		case strings.HasPrefix(sc.Text(), "p "):
			pLine = sc.Text()
		}
	}
	if arcLines != 8870 || pLine != "p sp 3353 8870" {
		t.Fatalf("file has %d arc lines and p line %q, want 8870 and \"p sp 3353 8870\"", arcLines, pLine)
	}
	// A limit just below the file's arc count must refuse it from the header.
	if _, err := graphio.ReadDIMACS(bytes.NewReader(data), graphio.ReadOptions{MaxEdges: 8869}); err == nil {
		t.Error("MaxEdges 8869 accepted a file that declares 8870 arcs")
	}

	g := load(t, "rome99.gr", graphio.ReadOptions{})
	if !g.Directed || g.Weights == nil {
		t.Fatalf("got %v, want a directed float32-weighted graph", g)
	}
	if g.NumVertices() != 3353 || g.NumArcs() != 8859 {
		t.Fatalf("%d vertices, %d arcs; want 3353 and 8859 distinct ordered pairs (11 parallel arcs merged)", g.NumVertices(), g.NumArcs())
	}
	lo, hi := g.ArcWeight(0), g.ArcWeight(0)
	for k := range g.Adj {
		lo, hi = min(lo, g.ArcWeight(int64(k))), max(hi, g.ArcWeight(int64(k)))
	}
	if lo != 1 || hi != 12711 {
		t.Errorf("weights %v..%v, want 1..12711", lo, hi)
	}
	if f, b := reach(g, 0, false), reach(g, 0, true); f != 3353 || b != 3353 {
		t.Errorf("vertex 0 reaches %d and is reached by %d vertices; want 3353 each (strongly connected)", f, b)
	}
	// First and last arcs of the file: a 2958 2959 535, a 1374 3353 211.
	if w := weightOf(t, g, 2957, 2958); w != 535 {
		t.Errorf("arc 2957→2958 weighs %v, want 535", w)
	}
	if w := weightOf(t, g, 1373, 3352); w != 211 {
		t.Errorf("arc 1373→3352 weighs %v, want 211", w)
	}
	// Parallel arcs keep the minimum: 788→789 (83, 81), 2956→2941 (3975, 3177).
	if w := weightOf(t, g, 787, 788); w != 81 {
		t.Errorf("parallel arcs 788→789 kept weight %v, want the minimum 81", w)
	}
	if w := weightOf(t, g, 2955, 2940); w != 3177 {
		t.Errorf("parallel arcs 2956→2941 kept weight %v, want the minimum 3177", w)
	}

	u := load(t, "rome99.gr", graphio.ReadOptions{Symmetrize: true, Float64: true})
	if u.Directed || u.Weights64 == nil || u.NumEdges() != 4831 {
		t.Errorf("symmetrized: %v; want undirected float64 with 4831 edges (distinct vertex pairs)", u)
	}
	if err := u.CheckSymmetric(); err != nil {
		t.Error(err)
	}
}

func TestKarate(t *testing.T) {
	g := load(t, "karate.mtx", graphio.ReadOptions{})
	if g.Directed || g.Weighted() || g.NumVertices() != 34 || g.NumEdges() != 78 {
		t.Fatalf("got %v, want undirected unweighted, 34 vertices, 78 edges", g)
	}
	if c := components(g); len(c) != 1 {
		t.Errorf("%d components, want 1", len(c))
	}
	if err := g.CheckSymmetric(); err != nil {
		t.Error(err)
	}
}

func TestNetscience(t *testing.T) {
	g := load(t, "netscience.mtx", graphio.ReadOptions{})
	if g.Directed || g.Weights == nil || g.NumVertices() != 1589 || g.NumEdges() != 2742 {
		t.Fatalf("got %v, want undirected float32-weighted, 1589 vertices, 2742 edges", g)
	}
	isolated := 0
	for v := range int32(g.NumVertices()) {
		if g.Degree(v) == 0 {
			isolated++
		}
	}
	c := components(g)
	largest := 0
	for _, s := range c {
		largest = max(largest, s)
	}
	if isolated != 128 || len(c) != 396 || largest != 379 {
		t.Errorf("%d isolated, %d components, largest %d; want 128, 396, 379", isolated, len(c), largest)
	}
	lo, hi := g.ArcWeight(0), g.ArcWeight(0)
	for k := range g.Adj {
		lo, hi = min(lo, g.ArcWeight(int64(k))), max(hi, g.ArcWeight(int64(k)))
	}
	if lo < 0.0526 || lo > 0.0527 || hi != float64(float32(4.75)) {
		t.Errorf("weights %v..%v, want 0.0526..4.75", lo, hi)
	}
	// First entry of the file: "2 1 2.5".
	if w := weightOf(t, g, 1, 0); w != 2.5 {
		t.Errorf("edge 1–0 weighs %v, want 2.5", w)
	}
	if err := g.CheckSymmetric(); err != nil {
		t.Error(err)
	}
}

// TestTestdataRoundTrip writes each test file in every format that can
// hold it and reads it back.
func TestTestdataRoundTrip(t *testing.T) {
	for name := range testFiles {
		g := load(t, name, graphio.ReadOptions{})
		for _, f := range formats {
			t.Run(name+"/"+f.name, func(t *testing.T) {
				opt := graphio.ReadOptions{Symmetrize: !g.Directed}
				var buf bytes.Buffer
				err := f.write(&buf, g)
				switch {
				case f.name == "dimacs" && name == "netscience.mtx":
					if !errors.Is(err, graphio.ErrWeight) {
						t.Fatalf("writing real weights as DIMACS: err = %v, want ErrWeight", err)
					}
					return
				case err != nil:
					t.Fatal(err)
				}
				h, err := f.read(&buf, opt)
				if err != nil {
					t.Fatal(err)
				}
				want := g
				if f.name == "dimacs" && !g.Weighted() {
					// DIMACS has no unweighted form: arcs come back with weight 1.
					want = g.WithFloat64Weights()
					if h.Weights == nil {
						t.Fatal("DIMACS read back an unweighted graph")
					}
					h = h.WithFloat64Weights()
				}
				if d := diffCSR(want, h); d != "" {
					t.Fatal(d)
				}
			})
		}
	}
}
