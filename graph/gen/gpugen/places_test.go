package gpugen

import (
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/graph/gen"
)

// placeBias is the number of kept arcs checkPlacesPast32Bits pretends
// come before a graph's: past 32 bits, and no multiple of a tile.
const placeBias = 1<<32 + 12345

// placesCase is a graph whose arcs checkPlacesPast32Bits places past 32
// bits: its host generator and its device draw (into r.tmp).
type placesCase struct {
	name  string
	scale int
	n     int
	host  func() (*graph.CSR, error)
	draw  func(r *run) (*gpu.Uint64s, *gpu.Float32s, *gpu.Float64s, error)
}

// rmatPlaces is the placesCase of gen.RMAT(scale, ef, opts...).
func rmatPlaces(t *testing.T, name string, scale, ef int, opts ...gen.Option) placesCase {
	p, err := gen.PlanRMAT(scale, ef, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return placesCase{name, p.Scale, p.N, func() (*graph.CSR, error) { return gen.RMAT(scale, ef, opts...) },
		func(r *run) (*gpu.Uint64s, *gpu.Float32s, *gpu.Float64s, error) { return r.rmatEdges(p) }}
}

// ssca2Places is the placesCase of gen.SSCA2(scale, opts...).
func ssca2Places(t *testing.T, name string, scale int, opts ...gen.Option) placesCase {
	p, err := gen.PlanSSCA2(scale, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return placesCase{name, p.Scale, p.N, func() (*graph.CSR, error) { return gen.SSCA2(scale, opts...) },
		func(r *run) (*gpu.Uint64s, *gpu.Float32s, *gpu.Float64s, error) { return r.ssca2Edges(p, name) }}
}

// checkPlacesPast32Bits runs the CSR build (run.number, then run.compact)
// of each case's sorted arcs, whole and split into the blocks of 2 and 3
// ranks, as if placeBias kept arcs came before them: every place and
// offset is then past 2^32, as on a device or rank of more than 2^32
// arcs, and the arrays are passed at addresses placeBias elements before
// their buffers, so that the kernels write inside them only if they
// compute places in 64 bits. The rows, less the bias, must equal the host
// generator's.
func checkPlacesPast32Bits(t *testing.T, dev *gpu.Device, cases []placesCase) {
	t.Helper()
	fn, err := kernels.Functions(dev, kernelNames)
	if err != nil {
		t.Fatal(err)
	}
	used := dev.MemoryUsed()
	for _, c := range cases {
		want, err := c.host()
		if err != nil {
			t.Fatal(err)
		}
		type rows struct {
			name string
			lo   int
			got  *graph.CSR
		}
		var out []rows
		tmp := gpu.NewAllocations(dev)
		err = dev.Exec(func(th *gpu.Thread) error {
			r := &run{t: th, fn: fn, tmp: tmp, scale: c.scale, n: c.n}
			keys, w32, w64, err := c.draw(r)
			if err != nil {
				return err
			}
			if err := r.sort(keys, w32, w64); err != nil {
				return err
			}
			var all arcsOnHost
			if all, err = downloadArcs(keys, w32, w64); err != nil {
				return err
			}
			for size := 1; size <= 3; size++ {
				for k := range size {
					lo, hi := gpu.Block(c.n, size, k)
					got, err := biasedRows(r, all.block(lo, hi, c.scale), lo, hi-lo)
					if err != nil {
						return err
					}
					out = append(out, rows{fmt.Sprintf("%s, rank %d of %d", c.name, k, size), lo, got})
				}
			}
			return nil
		})
		err = errors.Join(err, tmp.Free())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, r := range out {
			sameCSR(t, r.name+" placed past 2^32", r.got, rowsOf(want, r.lo, r.lo+len(r.got.Offsets)-1))
		}
	}
	if got := dev.MemoryUsed(); got != used {
		t.Errorf("%d bytes left allocated", got-used)
	}
}

// arcsOnHost are sorted arcs downloaded: keys and weights (nil where
// absent).
type arcsOnHost struct {
	keys []uint64
	w32  []float32
	w64  []float64
}

// downloadArcs copies arcs to the host.
func downloadArcs(keys *gpu.Uint64s, w32 *gpu.Float32s, w64 *gpu.Float64s) (a arcsOnHost, err error) {
	if a.keys, err = keys.ToHost(); err != nil {
		return a, err
	}
	if w32 != nil {
		if a.w32, err = w32.ToHost(); err != nil {
			return a, err
		}
	}
	if w64 != nil {
		a.w64, err = w64.ToHost()
	}
	return a, err
}

// block is the arcs whose sources are lo … hi-1 (keys of scale bits a
// vertex).
func (a arcsOnHost) block(lo, hi, scale int) arcsOnHost {
	first := func(v int) int {
		return sort.Search(len(a.keys), func(i int) bool { return a.keys[i] >= uint64(v)<<scale })
	}
	i, j := first(lo), first(hi)
	b := arcsOnHost{keys: a.keys[i:j]}
	if a.w32 != nil {
		b.w32 = a.w32[i:j]
	}
	if a.w64 != nil {
		b.w64 = a.w64[i:j]
	}
	return b
}

// biasedRows uploads a's arcs (into r.tmp), numbers them, adds placeBias
// to every tile's start, compacts them into arrays addressed placeBias
// elements early, and returns the rows of the CSR (offsets less the
// bias), or an error if the first offset is not the bias.
func biasedRows(r *run, a arcsOnHost, lo, rows int) (*graph.CSR, error) {
	tmp := r.tmp
	keys, err := tmp.Uint64sFrom(a.keys)
	if err != nil {
		return nil, err
	}
	var w32 *gpu.Float32s
	var w64 *gpu.Float64s
	switch {
	case a.w32 != nil:
		w32, err = tmp.Float32sFrom(a.w32)
	case a.w64 != nil:
		w64, err = tmp.Float64sFrom(a.w64)
	}
	if err != nil {
		return nil, err
	}
	pl, err := r.number(keys)
	if err != nil {
		return nil, err
	}
	sums, err := pl.sums.ToHost()
	if err != nil {
		return nil, err
	}
	for i := range sums {
		sums[i] += placeBias
	}
	if err := pl.sums.Upload(sums); err != nil {
		return nil, err
	}
	kept := int(pl.kept)
	offsets, err := tmp.AllocInt64s(rows + 1)
	if err != nil {
		return nil, err
	}
	adj, err := tmp.AllocInt32s(kept)
	if err != nil {
		return nil, err
	}
	c := &graph.CSR{Offsets: make([]int64, rows+1), Adj: make([]int32, kept)}
	var wOut any = (*gpu.Float32s)(nil)
	var out32 *gpu.Float32s
	var out64 *gpu.Float64s
	switch {
	case w32 != nil:
		if out32, err = tmp.AllocFloat32s(kept); err != nil {
			return nil, err
		}
		wOut, c.Weights = out32.Ptr()-4*placeBias, make([]float32, kept)
	case w64 != nil:
		if out64, err = tmp.AllocFloat64s(kept); err != nil {
			return nil, err
		}
		wOut, c.Weights64 = out64.Ptr()-8*placeBias, make([]float64, kept)
	}
	if err := r.compact(keys, w32, w64, pl, adj.Ptr()-4*placeBias, wOut, offsets, lo, rows); err != nil {
		return nil, err
	}
	err = errors.Join(offsets.Download(c.Offsets), adj.Download(c.Adj))
	switch {
	case out32 != nil:
		err = errors.Join(err, out32.Download(c.Weights))
	case out64 != nil:
		err = errors.Join(err, out64.Download(c.Weights64))
	}
	if err != nil {
		return nil, err
	}
	if c.Offsets[0] != placeBias {
		return nil, fmt.Errorf("rows %d…: the first offset is %d, want %d: the places were not computed past 32 bits", lo, c.Offsets[0], int64(placeBias))
	}
	for i := range c.Offsets {
		c.Offsets[i] -= placeBias
	}
	return c, nil
}

// placesCases are the graphs of the 64-bit places check: R-MAT and
// SSCA#2, unweighted, float32 and float64, at scale (SSCA#2 one less).
func placesCases(t *testing.T, scale int) []placesCase {
	small := gen.SSCA2Params(gen.SSCA2Config{MaxCliqueSize: 4, ProbIntercliqueEdges: 0.2, MaxParallelEdges: 2, MaxIntWeight: 1000})
	return []placesCase{
		rmatPlaces(t, fmt.Sprintf("rmat_s%d_unweighted", scale), scale, 16, gen.Unweighted()),
		rmatPlaces(t, fmt.Sprintf("rmat_s%d_permuted", scale), scale, 16, gen.PermuteVertices(true)),
		rmatPlaces(t, fmt.Sprintf("rmat_s%d_int_f64", scale), scale, 5, gen.Integer(7), gen.Float64()),
		ssca2Places(t, fmt.Sprintf("ssca2_s%d", scale-1), scale-1),
		ssca2Places(t, fmt.Sprintf("ssca2_s%d_unweighted", scale-1), scale-1, gen.Unweighted()),
		ssca2Places(t, fmt.Sprintf("ssca2_s%d_small_cliques_uniform_f64", scale-1), scale-1, small, gen.Uniform(), gen.Float64()),
	}
}
