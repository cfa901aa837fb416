package transform

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
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

// BenchmarkGPUSort sorts 64M (2^26) random pairs on the device: uint64
// keys of 22, 32, 48 and 64 random bits with uint32 values (the MST's and
// the permutation's sorts), and for 48-bit keys (gpugen's arcs at scale
// 24) also the keys alone and with float32 and float64 values. Each
// iteration restores the unsorted input on the device (untimed) and times
// one Sorter.Sort (scratch kept across iterations, as callers that sort
// repeatedly keep it), synchronised at the end. Metrics, means per
// iteration:
//
//	ms/sort     wall time of the sort
//	passes      radix passes run (one per digit of at most 8 bits)
//	ms/pass     ms/sort over passes
//	GB/s        the bytes the passes move by design (sortBytes), over
//	            the time
//
// The (key, uint32) results are checked to be the stable order (untimed).
// On the GPU machine:
//
//	./gpu_transform.test -test.run '^$' -test.bench GPUSort -test.benchtime 5x
func BenchmarkGPUSort(b *testing.B) {
	dev := gpu.Default()
	if dev.IsHost() {
		b.Skip(gpu.DefaultReason())
	}
	const n = 1 << 26
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	for _, c := range []struct {
		bits int
		kind string
	}{{22, "u32"}, {32, "u32"}, {48, "u32"}, {64, "u32"}, {48, "keys"}, {48, "f32"}, {48, "f64"}} {
		b.Run(fmt.Sprintf("64M_bits%d_%s", c.bits, c.kind), func(b *testing.B) {
			benchSort(b, dev, keys, c.bits, c.kind)
		})
	}
}

// benchSort is one case of BenchmarkGPUSort.
func benchSort(b *testing.B, dev *gpu.Device, all []uint64, bits int, kind string) {
	mask := ^uint64(0)
	if bits < 64 {
		mask = 1<<bits - 1
	}
	keys := make([]uint64, len(all))
	vals := make([]uint32, len(all))
	for i, k := range all {
		keys[i] = k & mask
		vals[i] = uint32(i)
	}
	mem := gpu.NewAllocations(dev)
	defer mem.Free()
	src, err := mem.Uint64sFrom(keys)
	if err != nil {
		b.Fatal(err)
	}
	k, err := mem.AllocUint64s(len(keys))
	if err != nil {
		b.Fatal(err)
	}
	vsrc, err := mem.Uint32sFrom(vals)
	if err != nil {
		b.Fatal(err)
	}
	words := map[string]int{"keys": 0, "u32": 1, "f32": 1, "f64": 2}[kind] // 4-byte words a value
	v, err := mem.AllocUint32s(len(keys))                                  // the u32 case's values
	if err != nil {
		b.Fatal(err)
	}
	w32, err := mem.AllocFloat32s(len(keys))
	if err != nil {
		b.Fatal(err)
	}
	w64, err := mem.AllocFloat64s(len(keys))
	if err != nil {
		b.Fatal(err)
	}
	s := NewSorter(dev)
	defer s.Free()
	sort := func() error {
		switch kind {
		case "keys":
			return s.SortKeys(k, bits)
		case "f32":
			return s.SortFloat32s(k, w32, bits)
		case "f64":
			return s.SortFloat64s(k, w64, bits)
		}
		return s.Sort(k, v, bits)
	}
	restore := func() error {
		return errors.Join(k.CopyFrom(src), v.CopyFrom(vsrc), w32.Fill(0), w64.Fill(0), dev.Synchronize())
	}
	var total time.Duration
	for range b.N {
		if err := restore(); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := sort(); err != nil {
			b.Fatal(err)
		}
		if err := dev.Synchronize(); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
	}
	if kind == "u32" {
		checkStable(b, keys, k, v)
	}
	passes := len(digits(^uint64(0) & mask))
	ms := total.Seconds() * 1e3 / float64(b.N)
	b.ReportMetric(ms, "ms/sort")
	b.ReportMetric(float64(passes), "passes")
	b.ReportMetric(ms/float64(passes), "ms/pass")
	b.ReportMetric(sortBytes(int64(len(keys)), passes, words)/(ms*1e-3)/1e9, "GB/s")
}

// sortBytes is what passes radix passes over n keys with values of words
// 4-byte words read and write in global memory, leaving out the digit
// counters: the first pass counts from the keys (8 bytes each), the
// others from digit bytes (1); every pass reads and writes each key and
// value once, and all but the last write a digit byte.
func sortBytes(n int64, passes, words int) float64 {
	if passes == 0 {
		return 0
	}
	pair := float64(2 * (8 + 4*words))
	return float64(n) * (8 + float64(passes-1)*1 + float64(passes)*pair + float64(passes-1)*1)
}

// checkStable fails b unless k and v (sorted from keys and the values 0,
// 1, …) are the stable order of keys: v a permutation, k[i] = keys[v[i]],
// and the pairs increasing by key, then by value — the one order a stable
// sort gives, checked in O(n).
func checkStable(b *testing.B, keys []uint64, k *gpu.Uint64s, v *gpu.Uint32s) {
	gk, err := k.ToHost()
	if err != nil {
		b.Fatal(err)
	}
	gv, err := v.ToHost()
	if err != nil {
		b.Fatal(err)
	}
	seen := make([]bool, len(keys))
	for i, j := range gv {
		if int(j) >= len(keys) || seen[j] || gk[i] != keys[j] {
			b.Fatalf("pair %d, (%#x, %d), is not one of the input's pairs or appears twice", i, gk[i], j)
		}
		seen[j] = true
		if i > 0 && (gk[i-1] > gk[i] || gk[i-1] == gk[i] && gv[i-1] > j) {
			b.Fatalf("pairs %d and %d, (%#x, %d) and (%#x, %d), are out of the stable order", i-1, i, gk[i-1], gv[i-1], gk[i], j)
		}
	}
}
