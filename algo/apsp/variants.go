package apsp

import (
	"fmt"
	"strings"

	"github.com/graphnb/graphnb/internal/card"
)

// Method selects the GPU algorithm of Prepare and Run.
type Method int

const (
	// PlainGPU is the study's plain GPU Floyd-Warshall (docs/studies.md §4): one
	// kernel launch per k over the whole n×n matrix, one thread per
	// entry. The whole matrix must fit on the device.
	PlainGPU Method = iota
	// BlockedGPU is blocked Floyd-Warshall (Venkataraman, Sahni,
	// Mukhopadhyaya 2003; on the GPU Katz and Kider 2008) with square
	// tiles held in shared memory and registers: for each diagonal tile
	// a launch for the tile itself, one for the tiles of its row and
	// column, one for all others. The matrix is padded to a multiple of
	// the tile with isolated vertices. The whole matrix must fit on the
	// device.
	BlockedGPU
	// OutOfCoreGPU is blocked Floyd-Warshall for matrices larger than
	// the device memory (or MemoryCap): the matrix stays in pinned host
	// memory in K×K blocks, and each round streams one block row and
	// block column and then every other block through the device, copies
	// overlapped with computation on two streams with double buffering.
	// When the matrix fits under the cap it runs as BlockedGPU.
	OutOfCoreGPU
)

// String names the method: "plain", "blocked" or "out-of-core".
func (m Method) String() string {
	switch m {
	case PlainGPU:
		return "plain"
	case BlockedGPU:
		return "blocked"
	case OutOfCoreGPU:
		return "out-of-core"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// GPUTiles are the tile sizes the GPU kernels are built for: each block
// of 16×16 threads updates a tile, every thread a (tile/16)² register
// tile of it.
var GPUTiles = []int{16, 32, 64}

// DefaultGPUTile is the GPU tile size used when none is given: 32, the
// study's. It was the fastest measured on an H100 when the products
// moved C entry by entry (BenchmarkGPURandom, n = 8192: 3.71 T
// updates/s against 2.84 T with tile 64); since they move C in vectors
// (issue 18), tile 64 is as fast with predecessors (n = 8192: 0.137 s
// against 0.140 s; n = 16384: 1.10 s both) and faster distances only
// (0.060 s against 0.083 s; 0.44 s against 0.65 s): BenchmarkGPURandom
// and BenchmarkGPUProducts.
const DefaultGPUTile = 32

// DefaultDistancesTile is the tile of the blocked methods' products that
// keep no predecessors (DistancesOnly, or predecessors rebuilt from the
// distances) when Options.Tile is 0 and the matrix fits in core: 64, the
// faster one measured on an H100 (n = 16384: 0.44 s against 0.65 s with
// tile 32; n = 8192: 0.060 s against 0.083 s; BenchmarkGPUProducts).
const DefaultDistancesTile = 64

// Options are the switches of the GPU all-pairs shortest paths (Prepare,
// Run). The zero value is the study's plain kernel with predecessors.
type Options struct {
	// Method is the algorithm: PlainGPU (the default), BlockedGPU or
	// OutOfCoreGPU.
	Method Method
	// Tile is the tile side of the blocked methods, in entries: 16, 32 or
	// 64; 0 means DefaultGPUTile, or DefaultDistancesTile where the
	// products keep no predecessors in core (DistancesOnly, or
	// predecessors rebuilt from the distances). Ignored by PlainGPU.
	Tile int
	// MemoryCap is the device memory in bytes the run may use; 0 means
	// the free memory of the device when Prepare is called. The in-core
	// methods fail when the matrix needs more (the error says how much);
	// OutOfCoreGPU sizes its blocks to fit.
	MemoryCap int64
	// Float32 makes PrepareGraph and RunGraph build a float32 matrix even
	// when the graph's weights are whole numbers (which otherwise give an
	// int32 matrix). A graph.Dense keeps its own element type.
	Float32 bool
	// DistancesOnly drops the predecessor matrix: less memory and fewer
	// operations per update, but Result.Parents is nil, so no Path and no
	// Check.
	DistancesOnly bool
	// PredecessorsInProduct keeps the predecessors in the products of the
	// blocked methods (three instructions per update instead of one) even
	// where Run would otherwise compute the distances alone and rebuild
	// the predecessors from them on the device: an in-core run of a
	// sparse matrix (at most n²/64 finite entries off the diagonal for
	// int32, n²/128 for float32: rebuildMaxDensityI32, F32) whose
	// finite off-diagonal weights are all positive. The rebuild takes a
	// CSR of the matrix by column (about 4·(10·n + 2·m) bytes for m arcs)
	// and O(n·m) lookups; Result.Algorithm says which way ran
	// ("predecessors rebuilt from distances"). For comparisons and
	// tests; ignored with DistancesOnly and by PlainGPU, which never
	// rebuilds.
	PredecessorsInProduct bool
	// Trace asks for Result.Trace (package trace), a step per part of
	// the run, whose Kind says which:
	//
	//   - "k-block": traceKBlock (32) consecutive k-steps of the plain
	//     methods (PlainGPU; FloydWarshall on the host device), the GPU's
	//     default tile, so that plain and blocked traces of one matrix
	//     have as many steps;
	//   - "round": one diagonal tile of the blocked methods (BlockedGPU
	//     and OutOfCoreGPU in core; Blocked on the host device), or one
	//     diagonal K×K block out of core;
	//   - "rebuild": the last step of an in-core run that rebuilds the
	//     predecessors from the distances (see PredecessorsInProduct):
	//     its kernel (fw_rebuild_warp, fw_rebuild_rows or fw_rebuild),
	//     inspecting at most every in-arc of every column once per row,
	//     n·m for m arcs (int32 stops at the first tight arc, an
	//     unreachable entry inspects none).
	//
	// Trace.Arcs is the matrix's n² entries. A step's Inspected is the
	// relaxations D[i][j] = min(D[i][j], D[i][k] + D[k][j]) its k-steps
	// perform by construction: its k's times the entries swept (n², or
	// np² for the GPU's padded matrix), so WorkEfficiency is about n;
	// Updated and Frontier stay 0 (Floyd-Warshall has no frontier, and
	// the kernels do not count the entries they lower).
	//
	// Step.Time: on the host its wall time; in core on a GPU the sum of
	// its launches' times (Trace.Launches: fw_init as set-up (step -1),
	// then fw_plain per k-block, or fw_phase1, fw_phase2 and fw_phase3
	// per round, the names telling the phase), timed by the GPU's own
	// clock through a gpu.LaunchLog: the kernels stamp their starts
	// themselves, so the host records nothing between two launches. A
	// traced in-core run launches a build of fw.cu of its own (FW_TRACED,
	// compiled by Prepare with Trace or by a Prepared's first traced
	// run); an untraced run launches the build without any trace code,
	// so that a trace costs nothing when off. Every logged launch but
	// the run's last is open (gpu.LaunchLog.LaunchOpen): its time runs
	// from its start to the next logged launch's start, the gap between
	// them included (as with one CUDA event between two launches); the
	// last launch's time is its span, from its start to its last block's
	// end. So a step's time is the span of its launches, start to start.
	//
	// PlainGPU logs one entry per k-block, not one per k: the block's
	// first launch comes from the traced build and is logged (open), its
	// other k's from the untraced build, unlogged, so the entry's time
	// runs over all of them, and its trace.Launch.Count says how many it
	// stands for (its Bytes are theirs: the per-k model times Count);
	// the run's last launch (k = n−1) is logged closed as an entry of its
	// own (Count 1), in the last k-block's step. fw_plain's threads do
	// almost nothing (most return after one load), so every trace
	// instruction a launch's threads run shows: with every launch logged
	// a trace cost rome99 8% on an H100. The Counts of a plain run's
	// fw_plain entries sum to n (Trace.LaunchCount: n + 1 with fw_init).
	//
	// A run of more logged launches than the log's ring holds
	// (gpu.LaunchLogCap − 1: PlainGPU beyond about 16000 vertices, the
	// blocked methods beyond about 170 rounds) has the host wait for the
	// GPU once per ringful to read it.
	//
	// Each in-core launch's Bytes is what it must move between the GPU
	// and its memory by construction, in 4-byte entries of P planes
	// (distances, plus predecessors and hop counts when kept), for n
	// vertices padded to np, tiles of T×T and nb = np/T (Gather is 0:
	// every access is streamed, whole rows of tiles):
	//
	//   - fw_init: the n×n input read, the P planes of the np×np matrix
	//     written: 4·(n² + P·np²);
	//   - fw_plain (per k, times its entry's Count): every entry's
	//     distance read, and row k and column k once, 4·(n² + 2n), twice
	//     that with hop counts; the
	//     entries a step lowers are written (and their predecessors read)
	//     beside it, which the data decides and the model leaves out, as
	//     it leaves out that rows with D[i][k] = ∞ skip their reads;
	//   - fw_phase1: the diagonal tile's P planes read and written:
	//     2·P·4T²;
	//   - fw_phase2: the 2(nb−1) tiles of row and column b read and
	//     written, the diagonal tile read once: (4(nb−1) + 1)·P·4T²;
	//   - fw_phase3: the (nb−1)² other tiles read and written, and the
	//     operands once each: column b's tiles as A (distances, and hop
	//     counts with them: A planes) and row b's as B (all P planes):
	//     (2(nb−1)² ·P + (nb−1)·(A + P))·4T².
	//
	// A run that rebuilds the predecessors keeps P = 1 in the products and
	// adds, with G = 8 row segments and m arcs (set-up, step -1, after
	// fw_init): fw_csr_count, the distance plane read and the counts
	// written, 4·np² + 4G·np; fw_csr_scan, the counts read twice and the
	// offsets written, 8G·np + 8(np+1); fw_csr_fill, the plane, counts and
	// offsets read and the arcs (tail, weight) written, 4·np² + 4G·np +
	// 8(np+1) + 8m; and, as the "rebuild" step, fw_rebuild: the distances
	// read and the predecessors written, the offsets and arcs once (the
	// L2 cache holds them), and at most one lookup D[i][k] per row and
	// arc, 8·np² + 8(np+1) + 8m + 4·n·m, of which the 4·n·m lookups are
	// Gather; or fw_rebuild_warp or fw_rebuild_rows, whose lookups read
	// rows of distances staged in shared memory: 8·np² + 8(np+1) + 8m,
	// no Gather.
	//
	// The operands count once per launch because every block of a phase
	// reads its row and column tiles from a strip the L2 cache holds
	// (2·T·np entries per plane, 4 MiB at n = 16384, T = 32); the updated
	// tiles, read and written once per round, are what memory must
	// deliver, so Bytes ÷ Time of fw_phase3 is its bandwidth against the
	// device's (at T = 32 with predecessors a round moves 16·np² bytes:
	// the blocked method's traffic falls as 1/T). Out of core a round is
	// timed by events on the two streams the run already uses, and
	// Trace.Launches is empty:
	//
	//   - Time is the round's span: from an event on the copy stream
	//     before its first transfer (block row and column r) to one after
	//     its last (the last block's download), every kernel of the round
	//     having run in between;
	//   - Copy is the copy engine's time on the round's transfers, the sum
	//     of the intervals between events recorded around each batch of
	//     uploads or downloads on the copy stream (they run one after
	//     another; a batch queued right behind another starts at the
	//     event that ends it);
	//   - Exposed is the part of those transfer intervals during which no
	//     kernel interval of the round (events around each run of kernels
	//     on the kernel stream) was open: time in which the device only
	//     copied, its kernels waiting on the copies. Copy − Exposed was
	//     hidden behind kernels; Time − Exposed is the time the kernels
	//     ran, plus any gap in which neither stream worked.
	//
	// Out of core, Trace.Time is the streamed run's span (Result.Time, the
	// kernels, plus the streaming part of Result.CopyTime), which the
	// rounds fill. Untraced runs record no event beyond those of Result's
	// times; a traced in-core run none either (its kernels stamp the
	// launch log), a traced out-of-core run about two more per block it
	// streams, all on the copy stream, its kernels the untraced build's
	// (what that costs: BenchmarkGPUTrace). Trace may change between
	// runs of one Prepared. Label ignores Trace.
	Trace bool
}

// The study's curve labels (docs/studies.md §4, the figure to reproduce).
const (
	LabelPlain     = "plain GPU"
	LabelBlocked   = "blocked GPU"
	LabelOutOfCore = "out-of-core blocked GPU"
)

// Label names the variant the options select: the study's label of the
// method ("plain GPU", "blocked GPU", "out-of-core blocked GPU"), then
// ", tile T" when a blocked method has an explicit tile, ", cap B" when
// a memory cap is set, ", distances only", ", float32" and ", predecessors
// in product" for those switches.
func (o Options) Label() string {
	var s string
	switch o.Method {
	case BlockedGPU:
		s = LabelBlocked
	case OutOfCoreGPU:
		s = LabelOutOfCore
	default:
		s = LabelPlain
	}
	if o.Tile != 0 && o.Method != PlainGPU {
		s += fmt.Sprintf(", tile %d", o.Tile)
	}
	if o.MemoryCap != 0 {
		s += ", cap " + card.Bytes(o.MemoryCap)
	}
	if o.DistancesOnly {
		s += ", distances only"
	}
	if o.Float32 {
		s += ", float32"
	}
	if o.PredecessorsInProduct && !o.DistancesOnly {
		s += ", predecessors in product"
	}
	return s
}

// tile returns the tile the options select (DefaultGPUTile for 0).
func (o Options) tile() int {
	if o.Tile == 0 {
		return DefaultGPUTile
	}
	return o.Tile
}

// productTile returns the tile of an in-core product that keeps
// predecessors (pred) or not: DefaultDistancesTile for 0 without
// predecessors in a blocked method, else tile().
func (o Options) productTile(pred bool) int {
	if o.Tile == 0 && !pred && o.Method != PlainGPU {
		return DefaultDistancesTile
	}
	return o.tile()
}

// check returns an error for options no method can run with.
func (o Options) check() error {
	if o.Method < PlainGPU || o.Method > OutOfCoreGPU {
		return fmt.Errorf("apsp: unknown GPU method %v (use PlainGPU, BlockedGPU or OutOfCoreGPU)", o.Method)
	}
	if o.Tile != 0 {
		ok := false
		for _, t := range GPUTiles {
			ok = ok || t == o.Tile
		}
		if !ok {
			return fmt.Errorf("apsp: tile size %d: the GPU kernels are built for tiles of %v (or 0 for the default %d)", o.Tile, GPUTiles, DefaultGPUTile)
		}
	}
	if o.MemoryCap < 0 {
		return fmt.Errorf("apsp: memory cap %d bytes must be positive, or 0 for the device's free memory", o.MemoryCap)
	}
	return nil
}

// Variant is one curve of a figure: a label and the options that run it.
// It is plain data: bench reads its switches without preparing anything.
type Variant struct {
	// Label names the curve (Options.Label of the options, or a name of
	// one's own).
	Label string
	// Options select it.
	Options Options
}

// String returns the label.
func (v Variant) String() string { return v.Label }

// Slug returns the label as a benchmark or file name: lower case, spaces
// as "_", commas dropped ("plain_GPU" → "plain_gpu",
// "out-of-core_blocked_gpu").
func (v Variant) Slug() string {
	s := strings.NewReplacer(",", "", "(", "", ")", "").Replace(v.Label)
	return strings.ToLower(strings.Join(strings.Fields(s), "_"))
}

// SeedVariants returns the APSP study's GPU curves (docs/studies.md §4), in the
// figure's order: "plain GPU", "blocked GPU" and "out-of-core blocked
// GPU", with predecessors and the default tile. The sequential curve is
// the CPU's FloydWarshall (or Blocked).
func SeedVariants() []Variant {
	return []Variant{
		{LabelPlain, Options{Method: PlainGPU}},
		{LabelBlocked, Options{Method: BlockedGPU}},
		{LabelOutOfCore, Options{Method: OutOfCoreGPU}},
	}
}
