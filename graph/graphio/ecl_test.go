package graphio

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// TestECLRoundTrip writes generated graphs (weighted with whole numbers,
// and unweighted) as .egr and reads them back unchanged.
func TestECLRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func() (*graph.CSR, error)
	}{
		{"rmat int weights", func() (*graph.CSR, error) { return gen.RMAT(8, 8, gen.Seed(3), gen.Integer(255)) }},
		{"grid unweighted", func() (*graph.CSR, error) { return gen.Grid(5, 7, gen.Unweighted()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteECL(&buf, g); err != nil {
				t.Fatal(err)
			}
			wantLen := 8 + 4*(g.NumVertices()+1) + 4*len(g.Adj)
			if g.Weighted() {
				wantLen += 4 * len(g.Adj)
			}
			if buf.Len() != wantLen {
				t.Fatalf("wrote %d bytes, want %d", buf.Len(), wantLen)
			}
			back, err := ReadECL(&buf, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(back.Offsets, g.Offsets) || !slices.Equal(back.Adj, g.Adj) || !slices.Equal(back.Weights, g.Weights) {
				t.Fatalf("read back a different graph: %d/%d vertices, %d/%d arcs", back.NumVertices(), g.NumVertices(), len(back.Adj), len(g.Adj))
			}
		})
	}
}

// TestECLWriteRefusesFractionalWeights: .egr holds int32 weights, so
// uniform [0,1) weights are an error, not silently truncated.
func TestECLWriteRefusesFractionalWeights(t *testing.T) {
	g := &graph.CSR{Offsets: []int64{0, 1, 2}, Adj: []int32{1, 0}, Weights: []float32{0.5, 0.5}}
	if err := WriteECL(&bytes.Buffer{}, g); err == nil {
		t.Fatal("WriteECL accepted weight 0.5")
	}
}

// TestECLReadErrors: truncated and inconsistent files give ParseErrors.
func TestECLReadErrors(t *testing.T) {
	le := func(xs ...int32) []byte {
		var b []byte
		for _, x := range xs {
			b = append(b, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"negative count", le(-1, 0), ErrHeader},
		{"short offsets", le(2, 2, 0, 1), ErrTruncated},
		{"offsets out of order", le(2, 2, 0, 2, 1, 1, 0), ErrRange},
		{"neighbour out of range", le(2, 2, 0, 1, 2, 1, 5), ErrRange},
		{"half the weights", le(2, 2, 0, 1, 2, 1, 0, 7), ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadECL(bytes.NewReader(tc.data), ReadOptions{Name: "x.egr"})
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want a ParseError wrapping %v", err, tc.want)
			}
		})
	}
}

// TestECLSaveLoad: Save and Load pick the format from ".egr".
func TestECLSaveLoad(t *testing.T) {
	g, err := gen.RMAT(6, 4, gen.Seed(1), gen.Integer(9))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "g.egr")
	if err := Save(path, g); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path, ReadOptions{})
	if err != nil || !slices.Equal(back.Adj, g.Adj) || !slices.Equal(back.Weights, g.Weights) {
		t.Fatalf("Load(%s): %v", path, err)
	}
	if f, err := FormatOf("X.EGR.gz"); err != nil || f != FormatECL || f.String() != "ECL" || f.Extension() != ".egr" {
		t.Fatalf("FormatOf: %v, %v", f, err)
	}
}
