package mst

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/graphnb/graphnb/internal/card"
)

// DefaultCPUShare is the host's share of the find-minimum step in hybrid
// mode when Options.CPUShare is 0: the study's GPU:CPU split of 5:1
// (docs/studies.md §3), so 1/6 of the arcs.
const DefaultCPUShare = 1.0 / 6

// Options are the switches of the GPU Borůvka (Prepare, Run), the MST
// study's input transformations and its hybrid and beyond-memory modes
// (docs/studies.md §3). The zero value is the plain GPU algorithm: float weights
// compared as they are, vertices in the input's order, 4-byte neighbour
// ids, everything on the GPU within its free memory.
//
// Whatever the switches, the result is the same forest: every variant
// orders edges by (weight, smaller end, larger end) in the input's ids,
// like Kruskal and the CPU Borůvka.
type Options struct {
	// WeightRanks replaces each weight by its rank among the distinct
	// weights, a uint32 (graph.WeightRanks): the study's "weights →
	// integers". Borůvka only compares weights; ranks take 4 bytes per
	// arc where float64 weights take 8.
	WeightRanks bool
	// Renumber relabels the vertices by reverse Cuthill-McKee
	// (graph.RCMOrder, graph.Renumber) so that connected vertices get
	// close numbers: the study's renumbering, which helps SSCA#2 much more
	// than R-MAT. Results still use the input's ids.
	Renumber bool
	// Compress stores neighbour ids in the study's compressed form
	// (graph.Compress: a 4-byte base per vertex, 1.25 bytes per arc), used
	// there for SSCA#2. It applies only when every neighbour list spans
	// fewer than graph.CompressSpan (1024) ids, as SSCA#2's do after
	// renumbering; otherwise the ids stay 4-byte and Prepared.Compressed
	// reports false (R-MAT's hubs span far more).
	Compress bool
	// Hybrid splits the find-minimum step between the GPU and the host
	// (goroutines on all cores), as the study did with OpenMP: the host
	// takes the last vertices, about CPUShare of the arcs, while the GPU
	// kernels run on the rest; each round the tree labels the host reads
	// (of its vertices and their neighbours: a small part after
	// renumbering SSCA#2, nearly all for R-MAT) are copied to the host,
	// overlapping the GPU's kernels, and the host's candidates back.
	Hybrid bool
	// CPUShare is the host's share of the arcs in hybrid mode, in [0, 1];
	// 0 means DefaultCPUShare (1/6). Without Hybrid it is ignored.
	CPUShare float64
	// MemoryCap bounds the device memory the prepared graph may take, in
	// bytes; 0 means the device's free memory (less 256 MiB of headroom).
	// When the arrays do not fit, the vertices whose neighbour lists do
	// not fit under the cap are left on the host, which computes their
	// find-minimum step as in hybrid mode (the study used Unified Memory
	// and the CPU for the part beyond the GPU's memory). The per-vertex
	// arrays (about 50 bytes a vertex) must fit.
	MemoryCap int64
	// Trace asks for Result.Trace: one step per Borůvka round (see
	// Result.Trace), the arcs the find-minimum step read and the
	// candidates it found counted by its kernels (one atomic add a block
	// into one of 16 slots a count; the counts come back with the
	// counter words the host reads after every round anyway). The host
	// device's stand-in, the CPU Borůvka, traces its rounds too.
	//
	// A traced run launches a build of the kernels of its own
	// (boruvka.cu compiled with MST_TRACED, on a Prepared's first traced
	// run: a second or so of NVRTC, cached on disk), and an untraced run
	// the build without any trace code: compiled into every kernel, the
	// launch log below made untraced SSCA#2 at scale 20 21% slower (1.45
	// ms against 1.20 ms, H100). Both builds give the same forest.
	//
	// Every kernel of the traced build logs its start by the GPU's clock
	// (gpu.LaunchLog: block 0 stamps it), read by the host after the
	// run: no events between launches (one CUDA event a launch, chained,
	// cost a traced R-MAT scale-20 run 5–7%: the events' host time, which
	// the small late rounds' kernels feel). A launch that the round's
	// next kernel follows on the same stream is open (LaunchOpen): its
	// time runs to that kernel's start, the launch gap included. The
	// last kernel of a round (before the host's read of the counters),
	// init, and the launches of a round with a host share also stamp
	// their end (every block raises it), and their time is their span:
	// a round's time (the sum of its launches') leaves out the host's
	// round trip after the round, and the host's share of the
	// find-minimum step is the step's HostTime. End stamps on every
	// launch cost a traced scale-20 run about a point more (H100).
	//
	// Every launch carries its byte model (trace.Launch.Bytes and
	// Gather, lower bounds of what it must move by construction, for the
	// device's part only: the host's share of a hybrid or capped run is
	// no launch): the find-minimum kernels stream each device vertex's
	// label, offsets and low index and gather, per arc read, its
	// neighbour's label (and its id in the one-thread-per-vertex probe;
	// the warp scan streams the ids), and per candidate its weight key
	// and edge index; the hook streams every candidate key and gathers
	// each candidate's tree best; pointer jumping, cycle removal and
	// renumbering stream the trees' parents; the relabelling streams the
	// labels and gathers their parents' new ids. The full model per
	// kernel, with the terms left out, is launchBytes's doc in
	// tracebytes.go. plots.Roofline draws the launches against the
	// device's ceilings.
	Trace bool
}

// check returns an error for a share outside [0, 1] or a negative cap.
func (o Options) check() error {
	if math.IsNaN(o.CPUShare) || o.CPUShare < 0 || o.CPUShare > 1 {
		return fmt.Errorf("mst: CPU share %v must lie in [0, 1] (0: the study's 1/6)", o.CPUShare)
	}
	if o.MemoryCap < 0 {
		return fmt.Errorf("mst: memory cap %d bytes must not be negative (0: the device's free memory)", o.MemoryCap)
	}
	return nil
}

// share is the host's share of the arcs: 0 without Hybrid.
func (o Options) share() float64 {
	switch {
	case !o.Hybrid:
		return 0
	case o.CPUShare == 0:
		return DefaultCPUShare
	}
	return o.CPUShare
}

// The study's curve labels (docs/studies.md §3, the figure to reproduce).
const (
	// LabelHybrid is the study's "GPU+CPU": every transformation and the
	// hybrid find-minimum step.
	LabelHybrid = "GPU+CPU"
	// LabelGPU is the study's "GPU": every transformation, GPU alone.
	LabelGPU = "GPU"
)

// Label names the variant: "GPU+CPU" with Hybrid, else "GPU"; then the
// transformations that are off, e.g. "GPU (ranks, compress off)"; then a
// CPU share other than the study's (", CPU share 0.25") and a memory cap
// (", cap 64 MiB"). The study's two curves are "GPU+CPU" and "GPU".
func (o Options) Label() string {
	s := LabelGPU
	if o.Hybrid {
		s = LabelHybrid
	}
	var off []string
	if !o.WeightRanks {
		off = append(off, "ranks")
	}
	if !o.Renumber {
		off = append(off, "renumber")
	}
	if !o.Compress {
		off = append(off, "compress")
	}
	if len(off) > 0 {
		s += " (" + strings.Join(off, ", ") + " off)"
	}
	if o.Hybrid && o.CPUShare != 0 && o.CPUShare != DefaultCPUShare {
		s += ", CPU share " + strconv.FormatFloat(o.CPUShare, 'g', 4, 64)
	}
	if o.MemoryCap > 0 {
		s += ", cap " + card.Bytes(o.MemoryCap)
	}
	return s
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

// Slug returns the label as a benchmark or file name: lower case, "+" as
// "_", spaces and punctuation as "_" ("gpu_cpu", "gpu").
func (v Variant) Slug() string {
	f := strings.FieldsFunc(strings.ToLower(v.Label), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.')
	})
	return strings.Join(f, "_")
}

// SeedVariants returns the MST study's two GPU curves (docs/studies.md §3), in
// the figure's order: "GPU+CPU" (every transformation and the hybrid
// find-minimum step at the study's 5:1 split) and "GPU" (every
// transformation, GPU alone). The figure's third curve, "CPU", is the
// package's Boruvka.
func SeedVariants() []Variant {
	return []Variant{
		{LabelHybrid, Options{WeightRanks: true, Renumber: true, Compress: true, Hybrid: true}},
		{LabelGPU, Options{WeightRanks: true, Renumber: true, Compress: true}},
	}
}
