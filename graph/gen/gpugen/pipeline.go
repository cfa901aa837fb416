package gpugen

import (
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/gpu/transform"
	"github.com/graphnb/graphnb/graph/gen"
	"github.com/graphnb/graphnb/internal/card"
)

//go:embed gen.cu
var kernelSource string

var kernels = gpu.ModuleCache{Name: "gpugen_gen.cu", Source: kernelSource}

// Constants shared with gen.cu (a test compares them).
const (
	blockSize   = 256  // GG_BLOCK
	segEdges    = 1024 // GG_SEG
	scanItems   = 8    // GG_SCAN_ITEMS
	maxTables   = 8    // GG_MAX_TABLES
	wNone       = 0    // GG_W_NONE
	wUniform    = 1    // GG_W_UNIFORM
	wInt        = 2    // GG_W_INT
	scanTile    = blockSize * scanItems
	tableWords  = 256
	stateWords  = 4
	kStates     = "gg_states"
	kKeepScan   = "gg_keep_scan"
	kEdgesF32   = "gg_edges_f32"
	kEdgesF64   = "gg_edges_f64"
	kCompactF32 = "gg_compact_f32"
	kCompactF64 = "gg_compact_f64"
	kSSCA2Count = "gg_ssca2_count"
	kSSCA2Emit  = "gg_ssca2_emit"
	kWeightsF32 = "gg_weights_f32"
	kWeightsF64 = "gg_weights_f64"
	kBounds     = "gg_owner_bounds"
)

var kernelNames = []string{kStates, kEdgesF32, kEdgesF64, kSSCA2Count, kSSCA2Emit, kWeightsF32, kWeightsF64,
	kKeepScan, kCompactF32, kCompactF64, kBounds}

// phaseLog, when set (by benchmarks), receives the duration of each
// phase of a generation on a GPU, in order: "states" (the streams'
// states, and SSCA#2's edge counts), "edges_alloc" (R-MAT: the buffers of
// the arcs and weights allocated), "edges" (the arcs and weights drawn),
// "sort_alloc" (the sort's scratch allocated), "sort", "csr"; the device
// is synchronised between phases to measure them.
var phaseLog func(phase string, d time.Duration)

// weightBytesOf is the size of one weight of the buffer that is not nil
// (0 for none).
func weightBytesOf(w32 *gpu.Float32s, w64 *gpu.Float64s) int64 {
	switch {
	case w32 != nil:
		return 4
	case w64 != nil:
		return 8
	}
	return 0
}

// weightBytes is the size of one weight of the given kind.
func weightBytes(kind gen.WeightKind, float64W bool) int64 {
	switch {
	case kind == gen.NoWeights:
		return 0
	case float64W:
		return 8
	}
	return 4
}

// pipelineBytes is the device memory the sort and the CSR build need at
// their peak for arcs arcs over n vertices with weights of wb bytes: the
// sort (keys and weights, 8 + wb bytes an arc, and transform's scratch,
// about 9.5 + wb) or the compaction (keys and weights once, a 4-byte
// place in its tile per arc, the tiles' 64-bit counts and their scan's
// carries, and the CSR: 4 + wb bytes per arc kept, every arc at most,
// and 8 per row), whichever is larger, plus a MiB for the small buffers.
// Unweighted that is about 17.5 bytes an arc; with float32 weights 25.5.
func pipelineBytes(arcs int64, n int, wb int64) int64 {
	sorting := arcs*(8+wb) + transform.SortScratchBytes(arcs, int(wb))
	compacting := arcs*(8+wb) + (arcs+1)*4 + (arcs/scanTile+1)*8*2 + arcs*(4+wb) + int64(n+1)*8
	return max(sorting, compacting) + 1<<20
}

// ErrTooBig is wrapped by the errors of a generation refused before it
// began because the device generator cannot hold the graph: more memory
// at its peak than the device (or a rank's device) has free. The host
// generator may still make it (spec.MakeOnDevice then declines, and a
// sweep generates on the host).
var ErrTooBig = errors.New("the graph does not fit the device generator")

// checkFree returns an error unless need bytes are free on dev; host names
// the host generator to suggest.
func checkFree(dev *gpu.Device, what string, need int64, host string) error {
	info, err := dev.Info()
	if err != nil {
		return fmt.Errorf("gpugen: %s: %w", what, err)
	}
	if need > info.FreeMemory {
		return fmt.Errorf("gpugen: %s needs about %s of device memory at its peak, %s is free on %v: close device-resident graphs and prepared algorithms you no longer need, lower the scale, or generate on the host with %s (%w)",
			what, card.Bytes(need), card.Bytes(info.FreeMemory), dev, host, ErrTooBig)
	}
	return nil
}

// generate runs the kernels of gen.cu on dev: draw writes the arcs (keys
// and weights, in buffers of r.tmp), then they are sorted and built into
// a CSR of n vertices whose keys have 2·scale bits.
func generate(dev *gpu.Device, scale, n int, draw func(r *run) (*gpu.Uint64s, *gpu.Float32s, *gpu.Float64s, error)) (*gpu.Graph, error) {
	fn, err := kernels.Functions(dev, kernelNames)
	if err != nil {
		return nil, err
	}
	tmp := gpu.NewAllocations(dev)
	defer tmp.Free()
	var g *gpu.Graph
	err = dev.Exec(func(t *gpu.Thread) error {
		r := &run{t: t, fn: fn, tmp: tmp, scale: scale, n: n}
		var err error
		g, err = r.all(draw)
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
	last time.Time
	// scale is the number of bits of a vertex id in a key; n the vertices.
	scale, n int
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
func (r *run) all(draw func(r *run) (*gpu.Uint64s, *gpu.Float32s, *gpu.Float64s, error)) (*gpu.Graph, error) {
	if err := r.phase(""); err != nil {
		return nil, err
	}
	keys, w32, w64, err := draw(r)
	if err != nil {
		return nil, err
	}
	if err := r.phase("edges"); err != nil {
		return nil, err
	}
	if err := r.sort(keys, w32, w64); err != nil {
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

// sort orders the arcs by key (source, then target), stably, with
// transform's LSD radix sort over the 2·scale bits of the keys, the
// weights travelling with them; its scratch is allocated first (phase
// "sort_alloc") and freed before it returns.
func (r *run) sort(keys *gpu.Uint64s, w32 *gpu.Float32s, w64 *gpu.Float64s) error {
	s := transform.NewSorter(r.t.Device())
	bits := max(1, 2*r.scale)
	err := s.Reserve(int64(keys.Len()), int(weightBytesOf(w32, w64)))
	if err == nil {
		err = r.phase("sort_alloc")
	}
	switch {
	case err != nil:
	case w32 != nil:
		err = s.SortFloat32s(keys, w32, bits)
	case w64 != nil:
		err = s.SortFloat64s(keys, w64, bits)
	default:
		err = s.SortKeys(keys, bits)
	}
	return errors.Join(err, s.Free())
}

// launchBlocks launches a kernel on blocks blocks of blockSize threads.
func (r *run) launchBlocks(name string, blocks int64, args ...any) error {
	return r.t.Launch(r.fn[name], gpu.D1(int(blocks)), gpu.D1(blockSize), 0, args...)
}

// csr numbers the arcs to keep (in tiles, then the tiles' counts) and
// writes the CSR of the whole graph.
func (r *run) csr(keys *gpu.Uint64s, w32 *gpu.Float32s, w64 *gpu.Float64s) (*gpu.Graph, error) {
	a, err := r.csrArrays(keys, w32, w64, 0, r.n)
	if err != nil {
		return nil, err
	}
	g, err := r.t.Device().NewGraph(r.n, false, a.offsets, a.adj, a.w32, a.w64)
	if err != nil {
		return nil, errors.Join(err, a.free())
	}
	return g, nil
}

// csrArrays are the arrays of a CSR, allocated on the device (not in
// r.tmp): they outlive the generation.
type csrArrays struct {
	offsets *gpu.Int64s
	adj     *gpu.Int32s
	w32     *gpu.Float32s
	w64     *gpu.Float64s
}

// free releases the arrays.
func (a csrArrays) free() error {
	return errors.Join(a.offsets.Free(), a.adj.Free(), a.w32.Free(), a.w64.Free())
}

// csrArrays builds the CSR of rows vertices from lo on (every source of
// the sorted keys is among them; targets stay global): it numbers the
// arcs to keep and writes the arrays at their places.
func (r *run) csrArrays(keys *gpu.Uint64s, w32 *gpu.Float32s, w64 *gpu.Float64s, lo, rows int) (csrArrays, error) {
	d := r.t.Device()
	var a csrArrays
	pl, err := r.number(keys)
	if err != nil {
		return a, err
	}
	fail := func(err error) (csrArrays, error) {
		return csrArrays{}, errors.Join(err, a.free())
	}
	kept := int(pl.kept)
	if a.offsets, err = d.AllocInt64s(rows + 1); err != nil {
		return fail(err)
	}
	if a.adj, err = d.AllocInt32s(kept); err != nil {
		return fail(err)
	}
	var wOut any = (*gpu.Float32s)(nil) // unweighted: none
	switch {
	case w32 != nil:
		if a.w32, err = d.AllocFloat32s(kept); err != nil {
			return fail(err)
		}
		wOut = a.w32
	case w64 != nil:
		if a.w64, err = d.AllocFloat64s(kept); err != nil {
			return fail(err)
		}
		wOut = a.w64
	}
	if err := r.compact(keys, w32, w64, pl, a.adj, wOut, a.offsets, lo, rows); err != nil {
		return fail(err)
	}
	return a, nil
}

// places number the arcs to keep among sorted keys (in r.tmp): pos[i] is
// the place of arc i among the kept arcs of its tile of scanTile arcs
// (32 bits), sums[t] the kept arcs of the tiles before tile t (64 bits),
// so that arc i goes to pos[i] + sums[i/scanTile]; kept is their number.
type places struct {
	pos  *gpu.Uint32s
	sums *gpu.Int64s
	kept int64
}

// number numbers the arcs to keep of the sorted keys: gg_keep_scan in
// tiles, then transform's 64-bit scan of the tiles' counts.
func (r *run) number(keys *gpu.Uint64s) (pl places, err error) {
	n := int64(keys.Len())
	if pl.pos, err = r.tmp.AllocUint32s(int(n + 1)); err != nil {
		return pl, err
	}
	tiles := (n + 1 + scanTile - 1) / scanTile
	if pl.sums, err = r.tmp.AllocInt64s(int(tiles)); err != nil {
		return pl, err
	}
	if err := r.launchBlocks(kKeepScan, tiles, keys, n, r.scale, pl.pos, pl.sums); err != nil {
		return pl, err
	}
	pl.kept, err = transform.ExclusiveScan(pl.sums, tiles, false)
	return pl, err
}

// compact writes the kept arcs of the sorted keys at their places pl:
// their targets to adj, the least weight of each run to wOut (none when
// w32 and w64 are nil), and offsets[0…rows] of the rows from vertex lo.
// adj and wOut are buffers or device addresses (a test's).
func (r *run) compact(keys *gpu.Uint64s, w32 *gpu.Float32s, w64 *gpu.Float64s, pl places, adj, wOut any, offsets *gpu.Int64s, lo, rows int) error {
	n := int64(keys.Len())
	threads := max(n, 1) // with no arcs, one thread writes the offsets
	if w64 != nil {
		return r.launch(kCompactF64, threads, keys, w64, n, r.scale, pl.pos, pl.sums, adj, wOut, offsets, int64(lo), int64(rows))
	}
	return r.launch(kCompactF32, threads, keys, w32, n, r.scale, pl.pos, pl.sums, adj, wOut, offsets, int64(lo), int64(rows))
}
