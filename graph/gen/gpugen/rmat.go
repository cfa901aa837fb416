package gpugen

import (
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/card"
)

//go:embed rmat.cu
var kernelSource string

var kernels = gpu.ModuleCache{Name: "gpugen_rmat.cu", Source: kernelSource}

// Constants shared with rmat.cu (a test compares them).
const (
	blockSize   = 256  // GG_BLOCK
	segEdges    = 1024 // GG_SEG
	sortItems   = 16   // GG_SORT_ITEMS
	scanItems   = 8    // GG_SCAN_ITEMS
	maxTables   = 8    // GG_MAX_TABLES
	wNone       = 0    // GG_W_NONE
	wUniform    = 1    // GG_W_UNIFORM
	wInt        = 2    // GG_W_INT
	sortTile    = blockSize * sortItems
	scanTile    = blockSize * scanItems
	digitBits   = 8
	maxArcs     = 1<<32 - 2 // positions are 32-bit
	tableWords  = 256
	stateWords  = 4
	kStates     = "gg_states"
	kHist       = "gg_hist"
	kScanTiles  = "gg_scan_tiles"
	kScanAdd    = "gg_scan_add"
	kTake       = "gg_take"
	kMark       = "gg_mark"
	kEdgesF32   = "gg_edges_f32"
	kEdgesF64   = "gg_edges_f64"
	kScatterF32 = "gg_scatter_f32"
	kScatterF64 = "gg_scatter_f64"
	kCompactF32 = "gg_compact_f32"
	kCompactF64 = "gg_compact_f64"
)

var kernelNames = []string{kStates, kEdgesF32, kEdgesF64, kHist, kScatterF32, kScatterF64, kScanTiles, kScanAdd,
	kTake, kMark, kCompactF32, kCompactF64}

// phaseLog, when set (by tests and benchmarks), receives the duration of
// each phase of RMAT on a GPU; the device is synchronised between phases
// to measure them.
var phaseLog func(phase string, d time.Duration)

// RMAT generates gen.RMAT(scale, edgeFactor, opts...) on dev, straight
// into a device-resident graph: the same CSR edge for edge and bit for bit
// (Offsets, Adj, Weights or Weights64) as the host generator's, for every
// option (probabilities, noise, vertex permutation, weight kinds, seed).
// The host copy is made only when the graph's Host asks for it. Arguments
// and options are checked as gen.RMAT checks them, with the same errors.
//
// On a GPU it draws the edges from the same random streams as the host
// (gen.PlanRMAT), sorts both arcs of every edge by (source, target) with
// an LSD radix sort, keeps the first arc of each run that is no self-loop
// with the least weight of the run, and writes the CSR; about 2·scale/8
// passes over 2·edgeFactor·2^scale arcs. It needs about (24 + 2w)
// bytes per arc at its peak (w = 4 for float32 weights, 8 for float64, 0
// unweighted), checked against the device's free memory before anything
// is generated: a graph that does not fit is an error that gives both
// figures. An interrupt (package cancel) stops it between launches with an
// error matching cancel.ErrInterrupted; what it allocated is freed.
//
// On the host device it is gen.RMAT followed by dev.Upload (the host
// copy then exists already), so callers need no branch.
func RMAT(dev *gpu.Device, scale, edgeFactor int, opts ...gen.Option) (*gpu.Graph, error) {
	if dev == nil {
		return nil, errors.New("gpugen: RMAT: nil device; pass gpu.Default() or gpu.Host()")
	}
	p, err := gen.PlanRMAT(scale, edgeFactor, opts...)
	if err != nil {
		return nil, err
	}
	if dev.IsHost() {
		g, err := gen.RMAT(scale, edgeFactor, opts...)
		if err != nil {
			return nil, err
		}
		return dev.Upload(g)
	}
	if len(p.Tables)/tableWords > maxTables {
		return nil, fmt.Errorf("gpugen: R-MAT scale %d needs %d alias tables, the kernel holds %d", scale, len(p.Tables)/tableWords, maxTables)
	}
	arcs := 2 * int64(p.Edges)
	what := fmt.Sprintf("R-MAT scale %d, edge factor %d", scale, edgeFactor)
	if arcs > maxArcs {
		return nil, fmt.Errorf("gpugen: %s has %d arcs before deduplication; the device generator numbers them in 32 bits (at most %d): use gen.RMAT and upload the graph", what, arcs, int64(maxArcs))
	}
	need := rmatBytes(p)
	info, err := dev.Info()
	if err != nil {
		return nil, fmt.Errorf("gpugen: %s: %w", what, err)
	}
	if need > info.FreeMemory {
		return nil, fmt.Errorf("gpugen: %s needs about %s of device memory at its peak, %s is free on %v: close device-resident graphs and prepared algorithms you no longer need, lower the scale or the edge factor, or generate on the host with gen.RMAT",
			what, card.Bytes(need), card.Bytes(info.FreeMemory), dev)
	}
	g, err := generate(dev, p)
	if err != nil {
		return nil, fmt.Errorf("gpugen: %s: %w", what, err)
	}
	return g, nil
}

// weightBytes is the size of one weight of the plan's graph.
func weightBytes(p *gen.RMATPlan) int64 {
	switch {
	case p.Weights == gen.NoWeights:
		return 0
	case p.Float64:
		return 8
	}
	return 4
}

// rmatBytes is the device memory RMAT needs at its peak for plan p: the
// sort (keys and weights twice, the digit counts) or the compaction (keys
// and weights once, the positions, the CSR), whichever is larger, plus
// the segments' stream states.
func rmatBytes(p *gen.RMATPlan) int64 {
	arcs, wb := 2*int64(p.Edges), weightBytes(p)
	sortBlocks := (arcs + sortTile - 1) / sortTile
	sorting := arcs*(16+2*wb) + 256*sortBlocks*4*2
	compacting := arcs*(8+wb) + (arcs+1)*4*2 + arcs*(4+wb) + int64(p.N+1)*8
	segs := int64(p.Chunks) * int64(p.ChunkEdges/segEdges)
	return max(sorting, compacting) + 2*segs*stateWords*8 + 1<<20
}

// generate runs rmat.cu's pipeline on dev for plan p.
func generate(dev *gpu.Device, p *gen.RMATPlan) (*gpu.Graph, error) {
	mod, err := kernels.For(dev)
	if err != nil {
		return nil, err
	}
	fn := map[string]*gpu.Function{}
	for _, name := range kernelNames {
		if fn[name], err = mod.Function(name); err != nil {
			return nil, err
		}
	}
	tmp := gpu.NewAllocations(dev)
	defer tmp.Free()
	var g *gpu.Graph
	err = dev.Exec(func(t *gpu.Thread) error {
		r := &run{t: t, fn: fn, tmp: tmp, p: p}
		var err error
		g, err = r.all()
		return err
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// run is one generation on the device thread.
type run struct {
	t    *gpu.Thread
	fn   map[string]*gpu.Function
	tmp  *gpu.Allocations
	p    *gen.RMATPlan
	last time.Time
}

// phase reports the time since the previous phase to phaseLog.
func (r *run) phase(name string) error {
	if phaseLog == nil {
		return nil
	}
	if err := r.t.Synchronize(); err != nil {
		return err
	}
	now := time.Now()
	if !r.last.IsZero() {
		phaseLog(name, now.Sub(r.last))
	}
	r.last = now
	return nil
}

func (r *run) launch(name string, threads int64, args ...any) error {
	return r.t.Launch(r.fn[name], gpu.Blocks(int(threads), blockSize), gpu.D1(blockSize), 0, args...)
}

// all generates the edges, sorts the arcs and builds the CSR.
func (r *run) all() (*gpu.Graph, error) {
	if err := r.phase(""); err != nil {
		return nil, err
	}
	keys, w32, w64, err := r.edges()
	if err != nil {
		return nil, err
	}
	if err := r.phase("edges"); err != nil {
		return nil, err
	}
	if keys, w32, w64, err = r.sort(keys, w32, w64); err != nil {
		return nil, err
	}
	if err := r.phase("sort"); err != nil {
		return nil, err
	}
	g, err := r.csr(keys, w32, w64)
	if err != nil {
		return nil, err
	}
	if err := r.phase("csr"); err != nil {
		g.Close()
		return nil, err
	}
	return g, nil
}

// edges draws the edges and their weights into 2·Edges arcs (keys, and
// the weights of the plan's kind).
func (r *run) edges() (keys *gpu.Uint64s, w32 *gpu.Float32s, w64 *gpu.Float64s, err error) {
	p, tmp := r.p, r.tmp
	segs := p.ChunkEdges / segEdges
	segsTotal := int64(p.Chunks) * int64(segs)
	arcs := 2 * p.Edges
	estart, err := tmp.Uint64sFrom(p.EdgeStates)
	if err != nil {
		return nil, nil, nil, err
	}
	estates, err := tmp.AllocUint64s(int(segsTotal) * stateWords)
	if err != nil {
		return nil, nil, nil, err
	}
	draws := p.EdgeDraws
	if err := r.launch(kStates, int64(p.Chunks), estart, int64(p.Chunks), segs, segEdges, draws, estates); err != nil {
		return nil, nil, nil, err
	}
	var wstates *gpu.Uint64s
	kind := wUniform
	switch {
	case p.Weights == gen.NoWeights:
		kind = wNone
	case p.Weights == gen.IntWeights:
		kind = wInt
	}
	if kind != wNone {
		wstart, err := tmp.Uint64sFrom(p.WeightStates)
		if err != nil {
			return nil, nil, nil, err
		}
		if wstates, err = tmp.AllocUint64s(int(segsTotal) * stateWords); err != nil {
			return nil, nil, nil, err
		}
		if err := r.launch(kStates, int64(p.Chunks), wstart, int64(p.Chunks), segs, segEdges, 1, wstates); err != nil {
			return nil, nil, nil, err
		}
	}
	tables, err := tmp.Uint64sFrom(p.Tables)
	if err != nil {
		return nil, nil, nil, err
	}
	if keys, err = tmp.AllocUint64s(arcs); err != nil {
		return nil, nil, nil, err
	}
	var wbuf any
	name := kEdgesF32
	switch {
	case kind == wNone:
		wbuf = (*gpu.Float32s)(nil)
	case p.Float64:
		if w64, err = tmp.AllocFloat64s(arcs); err != nil {
			return nil, nil, nil, err
		}
		wbuf, name = w64, kEdgesF64
	default:
		if w32, err = tmp.AllocFloat32s(arcs); err != nil {
			return nil, nil, nil, err
		}
		wbuf = w32
	}
	perm := 0
	if p.Permute {
		perm = 1
	}
	k := p.PermuteKeys
	err = r.launch(name, segsTotal, estates, wstates, segsTotal, segs, int64(p.ChunkEdges), int64(p.Edges), p.Scale,
		tables, len(p.Tables)/tableWords, p.LastLevels, perm, int(p.PermuteHalf), k[0], k[1], k[2], k[3],
		kind, uint64(p.MaxWeight), keys, wbuf)
	if err != nil {
		return nil, nil, nil, err
	}
	return keys, w32, w64, nil
}

// sort orders the arcs by key (source, then target), stably, 8 bits a
// pass over the 2·scale bits of the keys; it returns the sorted buffers
// and frees the others.
func (r *run) sort(keys *gpu.Uint64s, w32 *gpu.Float32s, w64 *gpu.Float64s) (*gpu.Uint64s, *gpu.Float32s, *gpu.Float64s, error) {
	p, tmp := r.p, r.tmp
	n := keys.Len()
	nblocks := int64((n + sortTile - 1) / sortTile)
	counts, err := tmp.AllocUint32s(int(256 * nblocks))
	if err != nil {
		return nil, nil, nil, err
	}
	keys2, err := tmp.AllocUint64s(n)
	if err != nil {
		return nil, nil, nil, err
	}
	var w32b *gpu.Float32s
	var w64b *gpu.Float64s
	switch {
	case w32 != nil:
		if w32b, err = tmp.AllocFloat32s(n); err != nil {
			return nil, nil, nil, err
		}
	case w64 != nil:
		if w64b, err = tmp.AllocFloat64s(n); err != nil {
			return nil, nil, nil, err
		}
	}
	for shift := 0; shift < 2*p.Scale; shift += digitBits {
		if err := r.launchBlocks(kHist, nblocks, keys, int64(n), shift, counts, nblocks); err != nil {
			return nil, nil, nil, err
		}
		if err := r.scan(counts, int64(counts.Len())); err != nil {
			return nil, nil, nil, err
		}
		if w64 != nil {
			err = r.launchBlocks(kScatterF64, nblocks, keys, w64, int64(n), shift, counts, nblocks, keys2, w64b)
			w64, w64b = w64b, w64
		} else {
			err = r.launchBlocks(kScatterF32, nblocks, keys, w32, int64(n), shift, counts, nblocks, keys2, w32b)
			w32, w32b = w32b, w32
		}
		if err != nil {
			return nil, nil, nil, err
		}
		keys, keys2 = keys2, keys
	}
	for _, free := range []func() error{counts.Free, keys2.Free, w32b.Free, w64b.Free} {
		if err := free(); err != nil {
			return nil, nil, nil, err
		}
	}
	return keys, w32, w64, nil
}

// launchBlocks launches a kernel on blocks blocks of blockSize threads.
func (r *run) launchBlocks(name string, blocks int64, args ...any) error {
	return r.t.Launch(r.fn[name], gpu.D1(int(blocks)), gpu.D1(blockSize), 0, args...)
}

// scan replaces a[0:n] by its exclusive prefix sum (32-bit, wrapping),
// by tiles, scanning the tiles' totals recursively.
func (r *run) scan(a *gpu.Uint32s, n int64) error {
	tiles := (n + scanTile - 1) / scanTile
	if tiles <= 1 {
		return r.launchBlocks(kScanTiles, 1, a, n, (*gpu.Uint32s)(nil))
	}
	sums, err := r.tmp.AllocUint32s(int(tiles))
	if err != nil {
		return err
	}
	defer sums.Free()
	if err := r.launchBlocks(kScanTiles, tiles, a, n, sums); err != nil {
		return err
	}
	if err := r.scan(sums, tiles); err != nil {
		return err
	}
	return r.launch(kScanAdd, n, a, n, sums)
}

// csr marks the arcs to keep, numbers them and writes the CSR.
func (r *run) csr(keys *gpu.Uint64s, w32 *gpu.Float32s, w64 *gpu.Float64s) (*gpu.Graph, error) {
	p, tmp, d := r.p, r.tmp, r.t.Device()
	n := int64(keys.Len())
	pos, err := tmp.AllocUint32s(int(n + 1))
	if err != nil {
		return nil, err
	}
	if err := r.launch(kMark, n+1, keys, n, p.Scale, pos); err != nil {
		return nil, err
	}
	if err := r.scan(pos, n+1); err != nil {
		return nil, err
	}
	one, err := tmp.AllocUint32s(1)
	if err != nil {
		return nil, err
	}
	if err := r.launch(kTake, 1, pos, n, one); err != nil {
		return nil, err
	}
	total, err := one.ToHost()
	if err != nil {
		return nil, err
	}
	kept := int(total[0])
	var offsets *gpu.Int64s
	var adj *gpu.Int32s
	var o32 *gpu.Float32s
	var o64 *gpu.Float64s
	fail := func(err error) (*gpu.Graph, error) {
		return nil, errors.Join(err, offsets.Free(), adj.Free(), o32.Free(), o64.Free())
	}
	if offsets, err = d.AllocInt64s(p.N + 1); err != nil {
		return fail(err)
	}
	if adj, err = d.AllocInt32s(kept); err != nil {
		return fail(err)
	}
	switch {
	case w32 != nil:
		if o32, err = d.AllocFloat32s(kept); err != nil {
			return fail(err)
		}
		err = r.launch(kCompactF32, n, keys, w32, n, p.Scale, pos, adj, o32, offsets, int64(p.N))
	case w64 != nil:
		if o64, err = d.AllocFloat64s(kept); err != nil {
			return fail(err)
		}
		err = r.launch(kCompactF64, n, keys, w64, n, p.Scale, pos, adj, o64, offsets, int64(p.N))
	default:
		err = r.launch(kCompactF32, n, keys, w32, n, p.Scale, pos, adj, o32, offsets, int64(p.N))
	}
	if err != nil {
		return fail(err)
	}
	g, err := d.NewGraph(p.N, false, offsets, adj, o32, o64)
	if err != nil {
		return fail(err)
	}
	return g, nil
}
