package sssp

import (
	"fmt"
	"strings"
)

// Method selects the GPU algorithm of Prepare and Run.
type Method int

const (
	// EdgeSweep is the SSSP study's edge-parallel Bellman-Ford (docs/studies.md
	// §1): every iteration sweeps all edges of the COO view, one thread
	// per edge. The switches TextureCache, Permute and SegmentSize apply
	// to it. It needs an undirected graph.
	EdgeSweep Method = iota
	// Frontier is a work-efficient Bellman-Ford beyond the study: each
	// round only the vertices whose distance dropped in the round before
	// relax their out-arcs, over the CSR, with atomic minima on the
	// distances. It is NearFar with Δ = +Inf (the same kernels, every
	// vertex near). It scans about three times the arcs of an R-MAT graph,
	// against about 30 full sweeps for EdgeSweep. It takes directed
	// graphs too. TextureCache, Permute, SegmentSize, Delta and
	// DeltaFactor do not apply to it.
	Frontier
	// NearFar is near-far Δ-stepping (Davidson et al. 2014, with Meyer
	// and Sanders' light and heavy arcs), beyond the study: vertices below
	// a threshold T are relaxed round after round until none is left,
	// over their light arcs (weight below Δ) only; then the heavy arcs of
	// the vertices settled are relaxed once; vertices at T or beyond wait
	// in a far pile until T moves up by Δ. Simulated on R-MAT graphs, it
	// scans 1.1 to 1.5 times the arcs (Dijkstra scans each reached arc
	// once).
	// Delta or DeltaFactor set Δ. It takes directed graphs too.
	// TextureCache, Permute and SegmentSize do not apply to it.
	NearFar
)

// String names the method: "edge sweep", "frontier" or "near-far".
func (m Method) String() string {
	switch m {
	case EdgeSweep:
		return "edge sweep"
	case Frontier:
		return "frontier"
	case NearFar:
		return "near-far"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Options are the switches of the GPU single-source shortest paths
// (Prepare, Run). The zero value is the study's plain kernel: edge sweep,
// texture cache and permutation off, float64 distances, no parents.
type Options struct {
	// TextureCache is the study's "restrict" switch: the kernel reads
	// dist through a const __restrict__ pointer with __ldg (the read-only
	// or texture path) and writes it through a second pointer to the same
	// memory.
	TextureCache bool
	// Permute is the study's "cache" switch: the COO edges are grouped by
	// the segment of their end vertex and ordered by the segment of their
	// start vertex (graph.PermuteCOO), during preparation.
	Permute bool
	// SegmentSize is P, the vertices per dist segment of the permutation;
	// 0 picks it from the device's L2 cache (graph.SegmentSizeFor with 8
	// or 4 bytes per distance; 1.5 MiB, the study's GTX Titan, when the
	// driver does not report the L2 size).
	SegmentSize int
	// Float32 keeps distances in float32 instead of float64 (the study's
	// double). Results are then within about 1e-6 relative of the float64
	// ones and pass CheckTolerance(g, r, 1e-5), not Check.
	Float32 bool
	// Parents computes the parent tree after convergence, on the host,
	// from the downloaded distances (Result.TreeTime). Without it
	// Result.Parents is nil and the result cannot be checked.
	Parents bool
	// Method is the algorithm: EdgeSweep (the study's), Frontier or
	// NearFar.
	Method Method
	// Delta is NearFar's bucket width Δ, in weight units; 0 picks
	// DeltaFactor · (mean arc weight) / (mean out-degree). A smaller Δ
	// scans fewer arcs in more steps. It must be finite and not negative.
	Delta float64
	// DeltaFactor is the factor of NearFar's default Δ (when Delta is 0);
	// 0 means DefaultGPUDeltaFactor. It must be finite and not negative.
	DeltaFactor float64
	// Trace asks for Result.Trace.
	//
	// EdgeSweep: one step ("sweep") per sweep, its time and the
	// distances it lowered. On a GPU a traced run launches logged copies
	// of the study's kernels (the same code between the launch log's
	// stamps, gpu.LaunchLog; the untraced run's kernels are untouched): a
	// sweep's time is its kernel's span by the GPU's global timer (from
	// its first block's start to the end of the last of its last 4096
	// blocks, which end last: blocks start in order and do equal work;
	// edgeStampBlocks says what that could miss), the init launch's runs
	// to the first sweep's start, and the host records no event (the log
	// is read once, after the run). The kernel counts the distances it
	// lowers, one atomic per block that lowered one, into running counts
	// read with the change flag in the one download a sweep makes anyway.
	// Cost on an H100: −1.7–2.2% of a run (means and medians, R-MAT
	// scales 20 and 22, BenchmarkGPUTraceStudy; the sweep counts' variation
	// between runs sways it by ±1.5 points), 1–2% of a sweep's time at
	// scale 20.
	//
	// NearFar and Frontier on a GPU: one step per step that did work —
	// "light" (a round over the near queue's light arcs: Frontier its
	// vertices, FrontierArcs their light arcs), "settle" (the heavy arcs
	// of the vertices the phase expanded: Frontier those vertices,
	// FrontierArcs their heavy arcs) or "split" (Frontier the far pile
	// split) — with the arcs relaxed (Inspected), the distances lowered
	// (Updated), and in Why the threshold T and the far pile's length.
	// The steps log themselves on the device (the grid's last warp, idle
	// in small steps, writes the step's sizes, the running counts and the
	// GPU's global timer at its start;
	// the blocks of a batch's last step raise its end to the timer), read
	// with the control words after each batch: no events, no extra
	// launch, no atomic of its own. A step's time runs from its start to
	// the next step's (the launch gap between them included, as with
	// events), a batch's last step's to its end, so the host's read after
	// a batch is in no step. The launches carry the same times.
	//
	// Every GPU launch of a trace carries its byte model
	// (trace.Launch.Bytes and Gather, lower bounds of what it must move):
	// an edge sweep streams each edge's endpoints, weight and start's
	// distance and gathers its end's distance; a near-far step streams its queue entries and
	// the targets and weights of the arcs it relaxed, and gathers each
	// entry's offsets, light end, stamp and distance and each target's
	// distance; a split streams the far pile and gathers its distances.
	// plots.Roofline draws them against the device's ceilings.
	//
	// On the host device every method runs the CPU's edge-parallel
	// Bellman-Ford, and the trace is its sweeps'.
	Trace bool
}

// The study's curve labels (docs/studies.md §1, the figure to reproduce).
const (
	LabelBoth     = "cache && restrict on"
	LabelCacheOff = "cache off"
	LabelRestrict = "restrict off"
	LabelNone     = "cache && restrict off"
	LabelFrontier = "frontier (work-efficient)"
	LabelNearFar  = "near-far (Δ-stepping)"
)

// Label names the variant the options select: one of the study's four
// curve labels for EdgeSweep ("cache && restrict on", "cache off" =
// permutation off, "restrict off" = texture cache off, "cache && restrict
// off"), with ", P=…" when a segment size is set for the permutation;
// "frontier (work-efficient)" for Frontier; "near-far (Δ-stepping)" for
// NearFar, with ", Δ=…" when Delta is set, else ", Δ factor=…" when
// DeltaFactor is; then ", float32" for float32 distances.
func (o Options) Label() string {
	var s string
	switch o.Method {
	case Frontier:
		s = LabelFrontier
	case NearFar:
		s = LabelNearFar
		switch {
		case o.Delta != 0:
			s += fmt.Sprintf(", Δ=%g", o.Delta)
		case o.DeltaFactor != 0:
			s += fmt.Sprintf(", Δ factor=%g", o.DeltaFactor)
		}
	default:
		switch {
		case o.Permute && o.TextureCache:
			s = LabelBoth
		case o.TextureCache:
			s = LabelCacheOff
		case o.Permute:
			s = LabelRestrict
		default:
			s = LabelNone
		}
		if o.Permute && o.SegmentSize > 0 {
			s += fmt.Sprintf(", P=%d", o.SegmentSize)
		}
	}
	if o.Float32 {
		s += ", float32"
	}
	return s
}

// Variant is one curve of a figure: a label and the options that run it.
// It is plain data: bench reads its switches (Float32, Method) without
// preparing anything.
type Variant struct {
	// Label names the curve (Options.Label of the options, or a name of
	// one's own).
	Label string
	// Options select it.
	Options Options
}

// String returns the label.
func (v Variant) String() string { return v.Label }

// Slug returns the label as a benchmark or file name, in ASCII: lower
// case, "&&" as "and", "Δ" as "delta", spaces as "_", parentheses, commas
// and "=" dropped ("cache_and_restrict_on", "frontier_work-efficient",
// "near-far_delta-stepping").
func (v Variant) Slug() string {
	s := strings.ReplaceAll(v.Label, "&&", "and")
	s = strings.NewReplacer("(", "", ")", "", ",", "", "=", "", "Δ", "delta").Replace(s)
	return strings.ToLower(strings.Join(strings.Fields(s), "_"))
}

// SeedVariants returns the SSSP study's four GPU curves (docs/studies.md §1), in
// the figure's order: "cache && restrict on" (Permute and TextureCache),
// "cache off" (TextureCache only), "restrict off" (Permute only), "cache
// && restrict off" (neither). All use the EdgeSweep method and float64
// distances, as the study. The CPU, the figure's fifth curve, is
// Dijkstra (or the host device's stand-in).
func SeedVariants() []Variant {
	return []Variant{
		{LabelBoth, Options{Permute: true, TextureCache: true}},
		{LabelCacheOff, Options{TextureCache: true}},
		{LabelRestrict, Options{Permute: true}},
		{LabelNone, Options{}},
	}
}

// ModernVariants returns the variants beyond the study that the notebooks
// set beside its curves: "near-far (Δ-stepping)" (Method NearFar, the
// default Δ), the fast one, then "frontier (work-efficient)" (Method
// Frontier), to show what the light and heavy arcs and the far pile buy.
func ModernVariants() []Variant {
	return []Variant{
		{LabelNearFar, Options{Method: NearFar}},
		{LabelFrontier, Options{Method: Frontier}},
	}
}
