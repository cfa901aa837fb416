package bfs

import (
	"fmt"
	"strconv"
)

// Options configure every BFS of the package, on the CPU and on a GPU.
// The zero value is the study's plain GPU edge scan ("cache && restrict
// off", no parents) and Beamer's published parameters for the
// direction-optimizing searches.
//
// Which fields apply where:
//
//   - DirectionOptimizing (CPU) reads Alpha, Beta and TopDownOnly, and
//     always returns parents; it ignores the others.
//   - Prepare and Run (GPU) read Method and Parents; TextureCache, Permute
//     and SegmentSize for EdgeScan and DynamicParallelism; DPThreshold for
//     DynamicParallelism; Alpha, Beta and TopDownOnly for
//     DirectionOptimizingGPU. On the host device they run
//     DirectionOptimizing with these options.
//
// Prepare and DirectionOptimizing reject values that make no sense
// (negative sizes, thresholds or parameters, an unknown method).
type Options struct {
	// Method picks the GPU algorithm: EdgeScan (the study's, the
	// default), DynamicParallelism or DirectionOptimizingGPU.
	Method Method
	// TextureCache is the study's "restrict" switch: the edge scan reads
	// levels (and the edge list) through const __restrict__ pointers with
	// __ldg, the read-only path, and writes through a second pointer to
	// the same memory (levels_NR). EdgeScan and DynamicParallelism only.
	TextureCache bool
	// Permute is the study's "cache" switch: the COO edges are put in the
	// segment order of graph.PermuteCOO during preparation. EdgeScan and
	// DynamicParallelism only.
	Permute bool
	// SegmentSize is the permutation's segment size P in vertices; 0
	// picks graph.SegmentSizeFor(the device's L2 bytes, 1).
	SegmentSize int
	// DPThreshold (DynamicParallelism): a level whose frontier holds fewer
	// vertices than this is expanded by child grids, a larger one by the
	// edge scan. 0 means DefaultDPThreshold.
	DPThreshold int
	// Parents asks a GPU search for a BFS tree, on the device: the
	// direction-optimizing search records each vertex's parent as it
	// claims it (in the timed search, one store per vertex); EdgeScan and
	// DynamicParallelism, which find only levels, give each reached vertex
	// its lowest-numbered neighbour one level up after the search (not
	// timed). Without it Result.Parents is nil on a GPU and CheckDevice
	// refuses the result. The CPU searches always return parents.
	Parents bool
	// Alpha (direction-optimizing searches): a top-down search turns
	// bottom-up once the arcs leaving the frontier exceed 1/Alpha of the
	// arcs leaving still-unvisited vertices (m_f > m_u/α) while the
	// frontier grows: a larger Alpha switches earlier. 0 means
	// DefaultAlpha (15) on the CPU and DefaultGPUAlpha (30) for
	// DirectionOptimizingGPU.
	Alpha int
	// Beta (direction-optimizing searches): a bottom-up search turns
	// top-down again once the frontier is shrinking and holds fewer than
	// N/Beta vertices (n_f < n/β): a larger Beta stays bottom-up longer.
	// 0 means DefaultBeta (18).
	Beta int
	// TopDownOnly (direction-optimizing searches) disables the bottom-up
	// steps: a parallel top-down BFS, the baseline that shows what the
	// direction switch buys.
	TopDownOnly bool
	// Trace asks for Result.Trace: one step per level with its
	// direction, frontier, arcs inspected, vertices reached and time, and
	// on a GPU every launch of a level with its time. The CPU searches
	// and every one-device GPU method trace; a search over a group of GPUs
	// traces with GroupOptions.Trace. Off, a search records nothing; on,
	// the CPU search reads the clock once per level.
	//
	// DirectionOptimizingGPU's step kernels log themselves
	// (gpu.LaunchLog: block 0 writes the GPU's global timer at the
	// start, every block raises the end to its own with an atomic maximum
	// it does not wait for), read by the host after the run: no events,
	// no copy per level. A launch's time is that span, so a level's time
	// (the sum) leaves out the launch latencies between them. The device
	// decides each level's direction (a traced run reads the levels'
	// records after each batch of levels, as an untraced one does), and
	// every level launches each step kernel: the trace keeps those that
	// worked — do_td and do_td_big on a top-down level, do_bu on a
	// bottom-up one, do_convert on a level that switched, named for its
	// conversion — and leaves out those that passed through (a few
	// microseconds each), the set-up kernels (do_init, do_plan) and the
	// levels launched after the last.
	//
	// Traced EdgeScan and DynamicParallelism runs launch a second build
	// of the study's kernels (bfs.cu's and dp.cu's BFS_STUDY_TRACED),
	// whose kernels log themselves the same way; untraced runs launch
	// the study's kernels as they are, with no trace code. Every launch
	// is logged, the set-up's (bfs_init_u8) included: one that its
	// level's count follows at once (dynamic parallelism's parent, whose
	// grid completes only after its child grids; a scan before the count)
	// logs its start only, its time running to the count's start, the
	// gap between them included; the others log their span. A level's
	// Kind is ScanStepKind or ChildGridsStepKind (or both, "child grids +
	// edge scan", when the scan finished the level), its frontier's
	// vertices and arcs are counted after the search from the levels, and
	// it inspected every edge's two arcs (a scan) or its frontier's arcs
	// (child grids).
	//
	// Every GPU launch of a trace carries its byte model
	// (trace.Launch.Bytes and Gather: the useful bytes its access pattern
	// must move, from the level's counts; bytes.go has each kernel's): a
	// bottom-up step streams the visited bitmap, the unvisited vertices'
	// offsets and the arcs it read, and gathers a frontier-bitmap word per
	// arc; a top-down step gathers each frontier vertex's offsets and each
	// arc's visited word; an edge scan streams every edge's endpoints and
	// gathers their levels. plots.Roofline draws them against the
	// device's ceilings.
	Trace bool
}

// Default heuristic parameters (Beamer, Asanović, Patterson, SC 2012).
const (
	DefaultAlpha = 15
	DefaultBeta  = 18
)

// DefaultGPUAlpha is DirectionOptimizingGPU's α when Options.Alpha is 0,
// twice the CPU's: the GPU search turns bottom-up earlier, which every
// graph measured favours. On an H100 (BenchmarkGPUSwitch,
// 64 roots, three runs each, Graph500 TEPS): R-MAT scale 22 permuted
// 145.6 against 141.0 GTEPS at α = 15, unpermuted 155.7 against 154.1;
// scale 24 permuted 218.4 against 209.9, unpermuted 258.9 against 256.6.
const DefaultGPUAlpha = 30

// DefaultDPThreshold is the frontier size (vertices) below which
// DynamicParallelism expands a level by child grids: with one child grid
// per frontier vertex it stays under the cap of 1536 grids per step that
// keeps device-side launches within the device runtime's default limit of
// 2048 pending launches.
const DefaultDPThreshold = 1024

// gpuSwitchParams is switchParams for DirectionOptimizingGPU: α
// DefaultGPUAlpha for 0.
func (o Options) gpuSwitchParams() (alpha, beta int64, err error) {
	if o.Alpha == 0 {
		o.Alpha = DefaultGPUAlpha
	}
	return o.switchParams()
}

// switchParams returns the direction-optimizing parameters α and β in
// effect (the defaults for 0), or an error for a negative one.
func (o Options) switchParams() (alpha, beta int64, err error) {
	if o.Alpha < 0 || o.Beta < 0 {
		return 0, 0, fmt.Errorf("bfs: Alpha %d and Beta %d must be positive (0 picks %d and %d)",
			o.Alpha, o.Beta, DefaultAlpha, DefaultBeta)
	}
	alpha, beta = int64(o.Alpha), int64(o.Beta)
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	if beta == 0 {
		beta = DefaultBeta
	}
	return alpha, beta, nil
}

// check returns an error for options no GPU method can run with.
func (o Options) check() error {
	switch {
	case o.Method < EdgeScan || o.Method > DirectionOptimizingGPU:
		return fmt.Errorf("bfs: unknown GPU method %d (use bfs.EdgeScan, bfs.DynamicParallelism or bfs.DirectionOptimizingGPU)", int(o.Method))
	case o.SegmentSize < 0:
		return fmt.Errorf("bfs: segment size %d is negative (0 picks one from the L2 size)", o.SegmentSize)
	case o.DPThreshold < 0:
		return fmt.Errorf("bfs: DP threshold %d is negative (0 picks %d vertices)", o.DPThreshold, DefaultDPThreshold)
	}
	_, _, err := o.switchParams()
	return err
}

// scanLabel names the edge-scan switches as the study's figure does.
func scanLabel(o Options) string {
	switch {
	case o.TextureCache && o.Permute:
		return "cache && restrict on"
	case o.TextureCache:
		return "cache off"
	case o.Permute:
		return "restrict off"
	}
	return "cache && restrict off"
}

// Label names the GPU variant the options select: the study's curve
// labels for EdgeScan ("cache && restrict on", "cache off", "restrict
// off", "cache && restrict off"), "dynamic parallelism" with both
// switches on (qualified by the switches otherwise), and
// "direction-optimizing (GPU)", followed by ", α=…", ", β=…" for
// parameters other than the defaults and ", top-down only".
func (o Options) Label() string {
	switch o.Method {
	case DynamicParallelism:
		if o.TextureCache && o.Permute {
			return "dynamic parallelism"
		}
		return "dynamic parallelism, " + scanLabel(o)
	case DirectionOptimizingGPU:
		s := "direction-optimizing (GPU)"
		if o.Alpha != 0 {
			s += ", α=" + strconv.Itoa(o.Alpha)
		}
		if o.Beta != 0 {
			s += ", β=" + strconv.Itoa(o.Beta)
		}
		if o.TopDownOnly {
			s += ", top-down only"
		}
		return s
	}
	return scanLabel(o)
}

// Variant is one curve of a figure: a label and the options that run it.
// It is plain data: bench reads its switches without preparing anything.
type Variant struct {
	// Label is the curve's name, as the figure writes it (Options.Label
	// of the options, or a name of one's own).
	Label string
	// Options configure Prepare or Run for it.
	Options Options
}

// String returns the label.
func (v Variant) String() string { return v.Label }

// SeedVariants returns the GPU curves of the BFS study's figure (docs/studies.md
// §2), in its order:
//
//   - "dynamic parallelism": child grids on small levels, the edge scan
//     with both switches on elsewhere;
//   - "cache && restrict on": the edge scan with the edge permutation and
//     the read-only path;
//   - "cache off": read-only path, no permutation;
//   - "restrict off": permutation, plain loads;
//   - "cache && restrict off": the plain edge scan.
//
// The figure's sixth curve, the CPU, is DirectionOptimizing.
func SeedVariants() []Variant {
	return []Variant{
		{"dynamic parallelism", Options{Method: DynamicParallelism, TextureCache: true, Permute: true}},
		{"cache && restrict on", Options{Method: EdgeScan, TextureCache: true, Permute: true}},
		{"cache off", Options{Method: EdgeScan, TextureCache: true}},
		{"restrict off", Options{Method: EdgeScan, Permute: true}},
		{"cache && restrict off", Options{Method: EdgeScan}},
	}
}

// ModernVariants returns the baselines the notebooks compare the study
// with: "direction-optimizing (GPU)", Beamer's direction-optimizing BFS
// (α = 15, β = 18) with a frontier queue and a frontier bitmap.
func ModernVariants() []Variant {
	return []Variant{
		{"direction-optimizing (GPU)", Options{Method: DirectionOptimizingGPU}},
	}
}
