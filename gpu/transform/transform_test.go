package transform

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/cudasrc"
	"github.com/graphnb/graphnb/internal/fakegpu"
	tg "github.com/graphnb/graphnb/internal/testgraphs"
)

// TestKernelSource checks transform.cu against the kernels transform.go
// launches and the sizes both sides assume.
func TestKernelSource(t *testing.T) {
	cudasrc.Check(t, "transform.cu", kernelSource, 1000, kernelNames())
	d := cudasrc.Defines(kernelSource)
	for name, want := range map[string]int{"GT_BLOCK": blockSize, "GT_SCAN_ITEMS": scanTile / blockSize, "GT_RADIX_ROUNDS": radixTile / blockSize} {
		if got, ok := d[name]; !ok || got != int64(want) {
			t.Errorf("transform.cu: #define %s %d (found %v), transform.go says %d", name, got, ok, want)
		}
	}
}

// TestKernelSourceSyntax compiles transform.cu with the emulator's
// built-ins (testdata/fake_kernels.cpp includes both).
func TestKernelSourceSyntax(t *testing.T) {
	cudasrc.Syntax(t, "-I"+fakegpu.IncludeDir(), "testdata/fake_kernels.cpp")
}

// TestHostDevice checks that every transform refuses the host device
// clearly.
func TestHostDevice(t *testing.T) {
	dev := gpu.Host()
	x, err := dev.AllocInt64s(3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ExclusiveScan(x, 2, true); err == nil {
		t.Error("ExclusiveScan on the host device: no error")
	}
	g, err := dev.Upload(tg.Build(t, 3, false, tg.Float64, tg.Edge{0, 1, 1}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := UndirectedCOO(g); err == nil {
		t.Error("UndirectedCOO on the host device: no error")
	}
	if err := NewSorter(dev).Reserve(10, 4); err == nil {
		t.Error("Sorter.Reserve on the host device: no error")
	}
	if _, err := UndirectedCOO(nil); err == nil {
		t.Error("UndirectedCOO(nil): no error")
	}
}

func TestFakeGPU(t *testing.T) {
	fakegpu.Run(t, "TestFakeGPUChild", 3*time.Minute, func(b *fakegpu.Builder) []string {
		return []string{b.CXX("testdata/fake_kernels.cpp")}
	})
}

// TestFakeGPUChild is TestFakeGPU's child process.
func TestFakeGPUChild(t *testing.T) {
	dev := fakegpu.Device(t)
	checkScan(t, dev)
	checkSortPairs(t, dev)
	checkSortKinds(t, dev)
	checkUndirectedCOO(t, dev, testGraphs(t))
	checkPermuteCOO(t, dev, testGraphs(t))
}

// TestGPU runs the same checks on a real GPU (skipped without one).
func TestGPU(t *testing.T) {
	dev := gpu.Default()
	if dev.IsHost() {
		t.Skip(gpu.DefaultReason())
	}
	checkScan(t, dev)
	checkSortPairs(t, dev)
	checkSortKinds(t, dev)
	checkUndirectedCOO(t, dev, testGraphs(t))
	checkPermuteCOO(t, dev, testGraphs(t))
}

// testGraphs are small graphs of every weight kind, some with self-loops.
func testGraphs(t *testing.T) map[string]*graph.CSR {
	must := func(g *graph.CSR, err error) *graph.CSR {
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	r := rand.New(rand.NewPCG(1, 2))
	return map[string]*graph.CSR{
		"rmat_s7":           must(gen.RMAT(7, 8, gen.Seed(1))),
		"rmat_s6_float64":   must(gen.RMAT(6, 8, gen.Seed(2), gen.Float64())),
		"rmat_s6_unweighed": must(gen.RMAT(6, 4, gen.Seed(3), gen.Unweighted())),
		"random_loops":      randomWithLoops(t, r, 40, 120),
		"empty":             tg.Build(t, 0, false, tg.Float64),
		"one":               tg.Build(t, 1, false, tg.Float64),
	}
}

// randomWithLoops is a random undirected float32 graph with a self-loop
// on every third vertex (graph.Build drops self-loops: they are inserted
// into its lists, in id order).
func randomWithLoops(t *testing.T, r *rand.Rand, n, m int) *graph.CSR {
	g := tg.Build(t, n, false, tg.Float32, tg.Random(r, n, m, func(r *rand.Rand) float64 { return float64(r.IntN(5)) })...)
	out := &graph.CSR{Offsets: []int64{0}, Adj: []int32{}, Weights: []float32{}}
	for v := range int32(n) {
		loop := v%3 == 0
		for k := g.Offsets[v]; k < g.Offsets[v+1]; k++ {
			if loop && g.Adj[k] > v {
				out.Adj, out.Weights, loop = append(out.Adj, v), append(out.Weights, 2), false
			}
			out.Adj, out.Weights = append(out.Adj, g.Adj[k]), append(out.Weights, g.Weights[k])
		}
		if loop {
			out.Adj, out.Weights = append(out.Adj, v), append(out.Weights, 2)
		}
		out.Offsets = append(out.Offsets, int64(len(out.Adj)))
	}
	return out
}

func checkScan(t *testing.T, dev *gpu.Device) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5, scanTile - 1, scanTile, scanTile + 1, 3*scanTile + 17, scanTile*scanTile + 3} {
		in := make([]int64, n+1)
		for i := range n {
			in[i] = r.Int64N(1000) - 100
		}
		x, err := dev.Int64sFrom(in)
		if err != nil {
			t.Fatal(err)
		}
		total, err := ExclusiveScan(x, int64(n), true)
		if err != nil {
			t.Fatal(err)
		}
		got, err := x.ToHost()
		x.Free()
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int64, n+1)
		for i := range n {
			want[i+1] = want[i] + in[i]
		}
		if !slices.Equal(got, want) || total != want[n] {
			t.Errorf("ExclusiveScan of %d elements: total %d, want %d; prefix sums equal: %v", n, total, want[n], slices.Equal(got, want))
		}
	}
}

func checkSortPairs(t *testing.T, dev *gpu.Device) {
	r := rand.New(rand.NewPCG(5, 6))
	sorter := NewSorter(dev)
	defer sorter.Free()
	for _, c := range []struct {
		n    int
		bits int
		max  uint64
	}{{0, 8, 1}, {1, 8, 1}, {2, 8, 0}, {300, 8, 7}, {radixTile + 5, 64, 1<<64 - 1}, {3*radixTile + 1, 20, 1 << 20},
		{9000, 40, 1 << 33}, {9000, 16, 1 << 33}, {700, 12, 1 << 20}, {2*radixTile + 9, 1, 1<<64 - 1},
		{radixTile + 100, 64, 3}, {5000, 64, 1<<63 | 0xf0f}, {6000, 44, 0xfff_0000_00ff}, {radixTile, 22, 1<<22 - 1},
		{10*radixTile - 1, 16, 1<<16 - 1}} { // the last: counters scanned by more than one tile
		keys := make([]uint64, c.n)
		vals := make([]uint32, c.n)
		for i := range keys {
			keys[i] = r.Uint64() & c.max
			vals[i] = uint32(i)
		}
		k, err := dev.Uint64sFrom(keys)
		if err != nil {
			t.Fatal(err)
		}
		v, err := dev.Uint32sFrom(vals)
		if err != nil {
			t.Fatal(err)
		}
		sort := SortPairs
		if c.n%2 == 0 { // a Sorter kept across sorts of several lengths
			sort = sorter.Sort
		}
		if err := sort(k, v, c.bits); err != nil {
			t.Fatal(err)
		}
		gk, _ := k.ToHost()
		gv, _ := v.ToHost()
		k.Free()
		v.Free()
		mask := ^uint64(0)
		if c.bits < 64 {
			mask = 1<<c.bits - 1
		}
		order := slices.Clone(vals)
		slices.SortStableFunc(order, func(a, b uint32) int {
			x, y := keys[a]&mask, keys[b]&mask
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		})
		want := make([]uint64, c.n)
		for i, j := range order {
			want[i] = keys[j]
		}
		if c.n == 0 {
			gk, gv = []uint64{}, []uint32{}
		}
		if !slices.Equal(gv, order) || !slices.Equal(gk, want) {
			t.Errorf("SortPairs of %d pairs on %d bits: not the stable order", c.n, c.bits)
		}
	}
}

// stableOrder returns the indices of keys in the order of a stable sort by
// their low bits bits.
func stableOrder(keys []uint64, bits int) []int {
	mask := ^uint64(0)
	if bits < 64 {
		mask = 1<<bits - 1
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(keys[a]&mask, keys[b]&mask) })
	return order
}

// permuted returns x in order.
func permuted[T any](x []T, order []int) []T {
	out := make([]T, len(order))
	for i, j := range order {
		out[i] = x[j]
	}
	return out
}

// checkSortKinds checks SortKeys, SortFloat32s and SortFloat64s against a
// stable host sort, with one Sorter whose scratch grows and shrinks
// across the calls; the values are arbitrary bit patterns (NaNs
// included), which must travel unchanged.
func checkSortKinds(t *testing.T, dev *gpu.Device) {
	r := rand.New(rand.NewPCG(7, 8))
	sorter := NewSorter(dev)
	defer sorter.Free()
	for _, bad := range [][2]int{{-1, 4}, {10, 2}, {10, 16}} {
		if err := sorter.Reserve(int64(bad[0]), bad[1]); err == nil {
			t.Errorf("Reserve(%d, %d): no error", bad[0], bad[1])
		}
	}
	// Scratch the device cannot hold: an error, and the Sorter stays
	// usable (no half-made scratch that a later, smaller sort would trust).
	if err := sorter.Reserve(1<<45, 8); err == nil {
		t.Error("Reserve(2^45, 8): no error")
	}
	if err := sorter.Reserve(3*radixTile+7, 8); err != nil { // the first case sorts in it
		t.Fatal(err)
	}
	for _, c := range []struct {
		n, bits int
		max     uint64
	}{{3*radixTile + 7, 48, 1<<48 - 1}, {radixTile - 3, 40, 0xff_0000_ffff}, {2, 64, 1}, {5000, 9, 1<<9 - 1}} {
		keys := make([]uint64, c.n)
		w32 := make([]float32, c.n)
		w64 := make([]float64, c.n)
		for i := range keys {
			keys[i] = r.Uint64() & c.max
			w32[i] = math.Float32frombits(r.Uint32())
			w64[i] = math.Float64frombits(r.Uint64())
		}
		order := stableOrder(keys, c.bits)
		want := permuted(keys, order)
		for _, kind := range []string{"SortFloat64s", "SortKeys", "SortFloat32s"} {
			k, err := dev.Uint64sFrom(keys)
			if err != nil {
				t.Fatal(err)
			}
			var get func() (any, any)
			switch kind {
			case "SortKeys":
				err = sorter.SortKeys(k, c.bits)
				get = func() (any, any) { return nil, nil }
			case "SortFloat32s":
				v, verr := dev.Float32sFrom(w32)
				if verr != nil {
					t.Fatal(verr)
				}
				defer v.Free()
				err = sorter.SortFloat32s(k, v, c.bits)
				get = func() (any, any) { got, _ := v.ToHost(); return bitsOf32(got), bitsOf32(permuted(w32, order)) }
			case "SortFloat64s":
				v, verr := dev.Float64sFrom(w64)
				if verr != nil {
					t.Fatal(verr)
				}
				defer v.Free()
				err = sorter.SortFloat64s(k, v, c.bits)
				get = func() (any, any) { got, _ := v.ToHost(); return bitsOf64(got), bitsOf64(permuted(w64, order)) }
			}
			if err != nil {
				t.Fatalf("%s of %d pairs on %d bits: %v", kind, c.n, c.bits, err)
			}
			gk, _ := k.ToHost()
			k.Free()
			gotV, wantV := get()
			if !slices.Equal(gk, want) || !reflect.DeepEqual(gotV, wantV) {
				t.Errorf("%s of %d pairs on %d bits: not the stable order", kind, c.n, c.bits)
			}
		}
	}
}

func bitsOf32(x []float32) []uint32 {
	out := make([]uint32, len(x))
	for i, v := range x {
		out[i] = math.Float32bits(v)
	}
	return out
}

func bitsOf64(x []float64) []uint64 {
	out := make([]uint64, len(x))
	for i, v := range x {
		out[i] = math.Float64bits(v)
	}
	return out
}

// TestDigits checks the passes of the radix sort: the fewest digits of at
// most radixBits over the varying span, covering it, and none where no
// key differs.
func TestDigits(t *testing.T) {
	for _, c := range []struct {
		vary uint64
		want []digit
	}{
		{0, nil},
		{1, []digit{{0, 1}}},
		{1<<22 - 1, []digit{{0, 7}, {7, 7}, {14, 8}}},
		{1<<32 - 1, []digit{{0, 8}, {8, 8}, {16, 8}, {24, 8}}},
		{1<<48 - 1, []digit{{0, 8}, {8, 8}, {16, 8}, {24, 8}, {32, 8}, {40, 8}}},
		{1<<44 - 1, []digit{{0, 7}, {7, 7}, {14, 8}, {22, 7}, {29, 7}, {36, 8}}},
		{0xff << 20, []digit{{20, 8}}},
		{1<<63 | 1, []digit{{0, 8}, {56, 8}}},
		{^uint64(0), []digit{{0, 8}, {8, 8}, {16, 8}, {24, 8}, {32, 8}, {40, 8}, {48, 8}, {56, 8}}},
	} {
		if got := digits(c.vary); !reflect.DeepEqual(got, c.want) {
			t.Errorf("digits(%#x) = %v, want %v", c.vary, got, c.want)
		}
	}
}

func checkUndirectedCOO(t *testing.T, dev *gpu.Device, graphs map[string]*graph.CSR) {
	for name, g := range graphs {
		t.Run("coo/"+name, func(t *testing.T) {
			want, err := g.UndirectedCOO()
			if err != nil {
				t.Fatal(err)
			}
			dg, err := dev.Upload(g)
			if err != nil {
				t.Fatal(err)
			}
			defer dg.Close()
			c, err := UndirectedCOO(dg)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			got, err := c.Download()
			if err != nil {
				t.Fatal(err)
			}
			norm := func(c *graph.COO) {
				for _, s := range []*[]int32{&c.Start, &c.End} {
					if len(*s) == 0 {
						*s = nil
					}
				}
				if c.Weights != nil && len(c.Weights) == 0 {
					c.Weights = []float32{}
				}
				if c.Weights64 != nil && len(c.Weights64) == 0 {
					c.Weights64 = []float64{}
				}
			}
			norm(got)
			norm(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("UndirectedCOO differs from the host's: %d edges, want %d", got.NumEdges(), want.NumEdges())
			}
		})
	}
}

// checkPermuteCOO compares PermuteCOO and PermuteCOOIndex with the host's
// on the graphs' COO views (and the same edges reversed) for several
// segment sizes, and the error for an id out of range.
func checkPermuteCOO(t *testing.T, dev *gpu.Device, graphs map[string]*graph.CSR) {
	for name, g := range graphs {
		c, err := g.UndirectedCOO()
		if err != nil {
			t.Fatal(err)
		}
		rev := &graph.COO{N: c.N, Start: c.End, End: c.Start, Weights: c.Weights, Weights64: c.Weights64}
		for _, in := range []struct {
			name string
			c    *graph.COO
		}{{"", c}, {"_reversed", rev}} {
			for _, p := range []int{1, 3, 16, 1 << 20} {
				t.Run(fmt.Sprintf("permute/%s%s/p%d", name, in.name, p), func(t *testing.T) {
					want, wantIdx, err := graph.PermuteCOOIndex(in.c, p)
					if err != nil {
						t.Fatal(err)
					}
					dc, err := dev.UploadCOO(in.c)
					if err != nil {
						t.Fatal(err)
					}
					defer dc.Close()
					out, idx, err := PermuteCOOIndex(dc, p)
					if err != nil {
						t.Fatal(err)
					}
					defer out.Close()
					defer idx.Free()
					got, err := out.Download()
					if err != nil {
						t.Fatal(err)
					}
					gotIdx, err := idx.ToHost()
					if err != nil {
						t.Fatal(err)
					}
					if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(gotIdx) != fmt.Sprint(wantIdx) {
						t.Errorf("PermuteCOOIndex differs from the host's")
					}
					plain, err := PermuteCOO(dc, p)
					if err != nil {
						t.Fatal(err)
					}
					defer plain.Close()
					if again, err := plain.Download(); err != nil || fmt.Sprint(again) != fmt.Sprint(want) {
						t.Errorf("PermuteCOO differs from the host's (%v)", err)
					}
				})
			}
		}
	}
	bad := &graph.COO{N: 4, Start: []int32{0, 1, 2}, End: []int32{1, 7, 3}}
	_, want := graph.PermuteCOO(bad, 2)
	dc, err := dev.UploadCOO(bad)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	if _, got := PermuteCOO(dc, 2); want == nil || got == nil || got.Error() != want.Error() {
		t.Errorf("PermuteCOO of an id out of range: %v; the host says %v", got, want)
	}
	if _, got := PermuteCOO(dc, 0); got == nil {
		t.Error("PermuteCOO with P = 0: no error")
	}
}
