package transform

import (
	"errors"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

var benchScale = flag.Int("transform.scale", 22, "the transform benchmarks' R-MAT scale (edge factor 16, seed 1, float32 weights)")

// BenchmarkGPUPermute measures what flipping the SSSP/BFS study's Permute
// switch costs on a device-resident R-MAT graph (-transform.scale, 22 by
// default): the COO view (UndirectedCOO) and the segment permutation
// (PermuteCOO, segment size graph.SegmentSizeFor the device's L2 with
// 4-byte distances, as algo/sssp picks for float32 weights), each checked
// once against the host's (untimed). Metrics, means per iteration:
//
//	coo_ms       UndirectedCOO (wall)
//	permute_ms   PermuteCOO of that COO (wall)
//	total_ms     both, and the Close of their results
//
// On the GPU machine:
//
//	./transform.test -test.run '^$' -test.bench 'GPUPermute' -test.benchtime 5x
func BenchmarkGPUPermute(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	g, err := gen.RMAT(*benchScale, 16, gen.Seed(1))
	if err != nil {
		b.Fatal(err)
	}
	dg, err := dev.Upload(g)
	if err != nil {
		b.Fatal(err)
	}
	defer dg.Close()
	l2 := int64(50 << 20)
	if info, err := dev.Info(); err == nil && info.L2Bytes > 0 {
		l2 = info.L2Bytes
	}
	seg, err := graph.SegmentSizeFor(l2, 4)
	if err != nil {
		b.Fatal(err)
	}
	verify(b, g, dg, seg)
	b.Run(fmt.Sprintf("s%d_p%d", *benchScale, seg), func(b *testing.B) {
		var coo, perm, total time.Duration
		for range b.N {
			t0 := time.Now()
			c, err := UndirectedCOO(dg)
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			pc, err := PermuteCOO(c, seg)
			if err != nil {
				b.Fatal(err)
			}
			if err := dev.Synchronize(); err != nil {
				b.Fatal(err)
			}
			t2 := time.Now()
			if err := errors.Join(c.Close(), pc.Close()); err != nil {
				b.Fatal(err)
			}
			coo += t1.Sub(t0)
			perm += t2.Sub(t1)
			total += time.Since(t0)
		}
		ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(b.N) }
		b.ReportMetric(ms(coo), "coo_ms")
		b.ReportMetric(ms(perm), "permute_ms")
		b.ReportMetric(ms(total), "total_ms")
	})
}

// verify checks the device transforms against the host's once.
func verify(b *testing.B, g *graph.CSR, dg *gpu.Graph, seg int) {
	want, err := g.UndirectedCOO()
	if err != nil {
		b.Fatal(err)
	}
	if want, err = graph.PermuteCOO(want, seg); err != nil {
		b.Fatal(err)
	}
	c, err := UndirectedCOO(dg)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	pc, err := PermuteCOO(c, seg)
	if err != nil {
		b.Fatal(err)
	}
	defer pc.Close()
	got, err := pc.Download()
	if err != nil {
		b.Fatal(err)
	}
	if !sameCOO(got, want) {
		b.Fatal("the device's permuted COO differs from the host's")
	}
}

// sameCOO reports whether two COOs are equal bit for bit.
func sameCOO(a, b *graph.COO) bool {
	if a.N != b.N || len(a.Start) != len(b.Start) || len(a.Weights) != len(b.Weights) || len(a.Weights64) != len(b.Weights64) {
		return false
	}
	for i := range a.Start {
		if a.Start[i] != b.Start[i] || a.End[i] != b.End[i] {
			return false
		}
	}
	for i := range a.Weights {
		if a.Weights[i] != b.Weights[i] {
			return false
		}
	}
	for i := range a.Weights64 {
		if a.Weights64[i] != b.Weights64[i] {
			return false
		}
	}
	return true
}
