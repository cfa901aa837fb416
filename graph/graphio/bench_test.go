package graphio_test

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/graph/graphio"
)

// benchText measures a text reader on an R-MAT graph written by the
// matching writer, reporting input MB/s and million arcs per second.
func benchText(b *testing.B, scale int, write func(io.Writer, *graph.CSR) error, read readFunc, opt graphio.ReadOptions, opts ...gen.Option) {
	g := rmat(b, scale, 16, opts...)
	var buf bytes.Buffer
	if err := write(&buf, g); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		h, err := read(bytes.NewReader(data), opt)
		if err != nil {
			b.Fatal(err)
		}
		if h.NumArcs() != g.NumArcs() {
			b.Fatalf("%d arcs, want %d", h.NumArcs(), g.NumArcs())
		}
	}
	b.ReportMetric(float64(g.NumArcs())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Marcs/s")
}

func BenchmarkReadDIMACS(b *testing.B) {
	for _, s := range []int{16} {
		b.Run(fmt.Sprintf("rmat_s%d_ef16", s), func(b *testing.B) {
			benchText(b, s, func(w io.Writer, g *graph.CSR) error { return graphio.WriteDIMACS(w, g) },
				graphio.ReadDIMACS, graphio.ReadOptions{Symmetrize: true}, gen.Integer(100000))
		})
	}
}

func BenchmarkReadMatrixMarket(b *testing.B) {
	b.Run("rmat_s16_ef16", func(b *testing.B) {
		benchText(b, 16, func(w io.Writer, g *graph.CSR) error { return graphio.WriteMatrixMarket(w, g) },
			graphio.ReadMatrixMarket, graphio.ReadOptions{})
	})
}

func BenchmarkReadEdgeList(b *testing.B) {
	b.Run("rmat_s16_ef16", func(b *testing.B) {
		benchText(b, 16, func(w io.Writer, g *graph.CSR) error { return graphio.WriteEdgeList(w, g) },
			graphio.ReadEdgeList, graphio.ReadOptions{})
	})
}

func BenchmarkWriteDIMACS(b *testing.B) {
	g := rmat(b, 16, 16, gen.Integer(100000))
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := graphio.WriteDIMACS(&buf, g); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

// BenchmarkBinary writes and reads the binary format in memory and
// through a file (Save / Load), reporting MB/s of encoded data.
func BenchmarkBinary(b *testing.B) {
	for _, s := range []int{20} {
		g := rmat(b, s, 16)
		var enc bytes.Buffer
		if err := graphio.WriteBinary(&enc, g); err != nil {
			b.Fatal(err)
		}
		size := int64(enc.Len())
		name := fmt.Sprintf("s%d", s)
		b.Run(name+"/write", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				enc.Reset()
				if err := graphio.WriteBinary(&enc, g); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/read", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				h, err := graphio.ReadBinary(bytes.NewReader(enc.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				if h.NumArcs() != g.NumArcs() {
					b.Fatal("arc count differs")
				}
			}
		})
		path := filepath.Join(b.TempDir(), name+".gnb")
		if err := graphio.Save(path, g); err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/save", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				if err := graphio.Save(path, g); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/load", func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				if _, err := graphio.Load(path, graphio.ReadOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
