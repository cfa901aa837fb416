package graphio_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/graphio"
)

// TestRoundTrip writes R-MAT and random directed graphs in every format
// and checks that reading gives back the identical CSR.
func TestRoundTrip(t *testing.T) {
	graphs := []struct {
		name    string
		g       *graph.CSR
		integer bool // whole-number weights: DIMACS can hold them
	}{
		{"rmat_s10_ef8_int", rmat(t, 10, 8, gen.Integer(100000)), true},
		{"rmat_s10_ef8_uniform", rmat(t, 10, 8), false},
		{"rmat_s10_ef8_f64", rmat(t, 10, 8, gen.Float64()), false},
		{"rmat_s10_ef8_f64_int", rmat(t, 10, 8, gen.Integer(1<<30), gen.Float64()), true},
		{"rmat_s10_ef8_unweighted", rmat(t, 10, 8, gen.Unweighted()), false},
		{"rmat_s9_permuted", rmat(t, 9, 16, gen.PermuteVertices(true), gen.Seed(7)), false},
		{"directed_normal_f32", randomDirected(t, 1, 500, 4000, false, false), false},
		{"directed_normal_f64", randomDirected(t, 2, 500, 4000, false, true), false},
		{"directed_int", randomDirected(t, 3, 500, 4000, true, false), true},
		{"directed_inf", mustBuild(t, 4, [][3]float64{{0, 1, math.Inf(1)}, {1, 2, math.Inf(-1)}, {2, 3, -0.0}, {3, 0, 1e-45}}, true, false, false), false},
		{"undirected_inf_f64", mustBuild(t, 3, [][3]float64{{0, 1, math.Inf(1)}, {1, 2, 5e-324}}, true, true, true), false},
	}
	for _, c := range graphs {
		for _, f := range formats {
			t.Run(c.name+"/"+f.name, func(t *testing.T) {
				opt := graphio.ReadOptions{Float64: c.g.Weights64 != nil}
				if f.name == "dimacs" {
					opt.Symmetrize = !c.g.Directed
					if !c.integer {
						var buf bytes.Buffer
						if err := graphio.WriteDIMACS(&buf, c.g); !errors.Is(err, graphio.ErrWeight) {
							if c.g.Weighted() {
								t.Fatalf("DIMACS wrote non-integer weights: err = %v", err)
							}
						}
						if c.g.Weighted() {
							return
						}
					}
				}
				h, _ := roundTrip(t, f, c.g, opt)
				want := c.g
				if f.name == "dimacs" && !c.g.Weighted() {
					want, h = c.g.WithFloat64Weights(), h.WithFloat64Weights()
				}
				if d := diffCSR(want, h); d != "" {
					t.Fatal(d)
				}
			})
		}
	}
}

func TestWriteDIMACS(t *testing.T) {
	g := mustBuild(t, 3, [][3]float64{{0, 1, 5}, {1, 2, -7}, {2, 0, 1e15}}, true, true, false)
	var buf bytes.Buffer
	if err := graphio.WriteDIMACS(&buf, g, "two\nlines", ""); err != nil {
		t.Fatal(err)
	}
	const want = "c two\nc lines\nc\np sp 3 3\na 1 2 5\na 2 3 -7\na 3 1 1000000000000000\n"
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
	for _, w := range []float64{0.5, 1 << 54, -1e300} {
		h := mustBuild(t, 2, [][3]float64{{0, 1, w}}, true, true, false)
		if err := graphio.WriteDIMACS(&bytes.Buffer{}, h); !errors.Is(err, graphio.ErrWeight) {
			t.Errorf("weight %g: err = %v, want ErrWeight", w, err)
		}
	}
	// Unweighted and undirected: weight 1, both arcs, a comment saying so.
	u := mustBuild(t, 2, [][3]float64{{0, 1, 0}}, false, false, true)
	buf.Reset()
	if err := graphio.WriteDIMACS(&buf, u); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); !strings.HasPrefix(s, "c undirected") || !strings.HasSuffix(s, "p sp 2 2\na 1 2 1\na 2 1 1\n") {
		t.Fatalf("got %q", s)
	}
}

func TestWriteMatrixMarket(t *testing.T) {
	cases := []struct {
		name string
		g    *graph.CSR
		want string
	}{
		{"pattern symmetric", mustBuild(t, 3, [][3]float64{{0, 1, 0}, {2, 1, 0}}, false, false, true),
			"%%MatrixMarket matrix coordinate pattern symmetric\n% hi\n3 3 2\n2 1\n3 2\n"},
		{"integer general", mustBuild(t, 3, [][3]float64{{0, 1, 4}, {2, 1, -3}}, true, false, false),
			"%%MatrixMarket matrix coordinate integer general\n% hi\n3 3 2\n1 2 4\n3 2 -3\n"},
		{"real symmetric", mustBuild(t, 3, [][3]float64{{0, 1, 0.1}, {2, 1, 3}}, true, false, true),
			"%%MatrixMarket matrix coordinate real symmetric\n% hi\n3 3 2\n2 1 0.1\n3 2 3\n"},
		{"real float64", mustBuild(t, 2, [][3]float64{{0, 1, 0.1}}, true, true, false),
			"%%MatrixMarket matrix coordinate real general\n% hi\n2 2 1\n1 2 0.1\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := graphio.WriteMatrixMarket(&buf, c.g, "hi"); err != nil {
				t.Fatal(err)
			}
			if buf.String() != c.want {
				t.Fatalf("got\n%s\nwant\n%s", buf.String(), c.want)
			}
		})
	}
}

func TestWriteEdgeList(t *testing.T) {
	g := mustBuild(t, 4, [][3]float64{{0, 1, 0.1}, {2, 1, 3}}, true, false, true)
	var buf bytes.Buffer
	if err := graphio.WriteEdgeList(&buf, g, "Nodes: 99 Edges: 99 (a comment must not override the header)"); err != nil {
		t.Fatal(err)
	}
	const want = "# Undirected graph (each edge listed once), 0-based vertex ids\n# Nodes: 4 Edges: 2\n" +
		"# Nodes: 99 Edges: 99 (a comment must not override the header)\n# FromNodeId\tToNodeId\tWeight\n0\t1\t0.1\n1\t2\t3\n"
	if buf.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", buf.String(), want)
	}
	h, err := graphio.ReadEdgeList(&buf, graphio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := diffCSR(g, h); d != "" {
		t.Fatal(d)
	}
}

// TestCancel checks that an interrupt stops a long read and a long write.
func TestCancel(t *testing.T) {
	g := rmat(t, 12, 16, gen.Integer(100))
	var text, bin bytes.Buffer
	if err := graphio.WriteDIMACS(&text, g); err != nil {
		t.Fatal(err)
	}
	if err := graphio.WriteBinary(&bin, g); err != nil {
		t.Fatal(err)
	}
	cancel.Request()
	defer cancel.Clear()
	if _, err := graphio.ReadDIMACS(bytes.NewReader(text.Bytes()), graphio.ReadOptions{}); !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("ReadDIMACS: %v, want ErrInterrupted", err)
	}
	if _, err := graphio.ReadBinary(bytes.NewReader(bin.Bytes())); !errors.Is(err, cancel.ErrInterrupted) {
		t.Errorf("ReadBinary: %v, want ErrInterrupted", err)
	}
	for _, f := range formats {
		if err := f.write(&bytes.Buffer{}, g); !errors.Is(err, cancel.ErrInterrupted) {
			t.Errorf("%s write: %v, want ErrInterrupted", f.name, err)
		}
	}
}
