package densebf

import (
	"fmt"
	"strings"
)

// Method selects the GPU kernel of Prepare and RunGPU: the study's three
// (docs/studies.md §5).
type Method int

const (
	// Naive is BF_Naive: one thread per vertex v loops over every j,
	// reading column v of the matrix as given (row-major: neighbouring
	// threads read neighbouring entries). Only N threads run, too few to
	// fill a GPU below a few thousand vertices.
	Naive Method = iota
	// Reduce is BF_Reduce: a group of M threads per vertex (GroupSize)
	// reads column v of the matrix as given, thread t taking j = t, t+M,
	// …, then reduces the group's M (minimum, argmin) pairs with a tree
	// in shared memory. The column is read with stride N: uncoalesced.
	// A block holds the groups of G neighbouring vertices (G = 8 at the
	// default M from N = 2048), so that its loads of a row share 32-byte
	// sectors.
	Reduce
	// ReduceCoarse is BF_Reduce_Coarse: Reduce over the transposed
	// matrix (transposed on the host during Prepare), so a group reads
	// row v, M consecutive entries at a time: coalesced loads. Unless
	// ScalarLoads is set and when N is a multiple of 4, each thread loads
	// 16 bytes (4 entries) at a time. The group's M partial minima are
	// reduced by warp shuffles, then, for M > 32, across its warps in
	// shared memory. Even iterations take the vertices in the opposite
	// order, starting with the rows the iteration before read last, which
	// the L2 cache still holds (the same results: every vertex is settled
	// once per iteration from the same distances; on an H100 at N = 8192
	// an iteration takes 90.2 µs, 94.5 µs with every iteration forwards).
	ReduceCoarse
)

// String names the method as the study's curve: "BF_Naive", "BF_Reduce"
// or "BF_Reduce_Coarse".
func (m Method) String() string {
	switch m {
	case Naive:
		return LabelNaive
	case Reduce:
		return LabelReduce
	case ReduceCoarse:
		return LabelReduceCoarse
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// The study's curve labels (docs/studies.md §5, the figure to reproduce).
const (
	LabelNaive        = "BF_Naive"
	LabelReduce       = "BF_Reduce"
	LabelReduceCoarse = "BF_Reduce_Coarse"
)

// Limits of GroupSize (M): a multiple of the warp size, at most a block.
const (
	// GroupMultiple is the warp size: M must be a multiple of it.
	GroupMultiple = 32
	// MaxGroupSize is the most threads of a CUDA block.
	MaxGroupSize = 1024
	// DefaultMaxGroupSize caps the default M (see Options.GroupSize).
	DefaultMaxGroupSize = 256
)

// Options are the switches of the GPU dense Bellman-Ford (Prepare,
// RunGPU). The zero value is BF_Naive, reading the change flag after every
// iteration, as the study.
type Options struct {
	// Method is the kernel: Naive, Reduce or ReduceCoarse.
	Method Method
	// GroupSize is M, the threads per vertex of Reduce and ReduceCoarse:
	// a multiple of 32 in [32, 1024]. A block holds the groups of
	// G = max(1, B/M) vertices, B = 128 threads but 512 for Reduce from
	// N = 2048 vertices. 0 picks the default, chosen from N
	// (BenchmarkGPUShape: traced iteration times on float32 random
	// matrices, an H100):
	//
	//   - Reduce: 32 below N = 2048 (G = 4), 64 from there (G = 8). What
	//     matters is G, the columns a block reads together: at N = 16384
	//     M = 32, G = 4 (the default before) took 2593 µs an iteration,
	//     0.79× BF_Naive (2051 µs); M = 64, G = 8 takes 1121 µs (1.83×),
	//     M = 32, G = 8 1436 µs; at N = 8192 290 µs (310 at M = 32,
	//     G = 4). Blocks of 512 or 1024 threads with G ≥ 4 (M = 64..256)
	//     are within 1% of each other at N = 16384 and 2% at 8192; M = 32
	//     needs G = 32 (1134 µs). At N = 1024, M = 32, G = 4 takes
	//     14.5 µs, the best shape (M = 64, G = 4) 13.6 µs.
	//   - ReduceCoarse: one load per thread and vertex (N, or N/4 with
	//     16-byte loads, rounded up to a multiple of 32), at most
	//     DefaultMaxGroupSize = 256: M = 256 at N = 8192 and 16384 is the
	//     fastest of M = 32..256 in blocks of 128..1024 threads (90.2 and
	//     355.8 µs an iteration, 89% and 90% of an H100's 3.35 TB/s; the
	//     rest within 13%), and grids of one or two waves of resident
	//     blocks, each group settling several vertices, were no faster.
	//
	// Naive ignores it.
	GroupSize int
	// ScalarLoads makes ReduceCoarse load 4 bytes per access even when N
	// is a multiple of 4 (the study's kernel); by default it loads 16
	// bytes (4 entries) per access then. Other methods ignore it.
	ScalarLoads bool
	// FlagInterval is the number of iterations launched between two reads
	// of the change flag: 1 reads it after every iteration, as the study's
	// host loop; 0 means DefaultFlagInterval. A read costs the GPU the
	// host's round trip (about 9 µs an iteration on an H100 at n = 8192,
	// where an iteration takes 90 µs), so reading less often saves that,
	// at the price of up to FlagInterval-1 launches after the last
	// iteration, which find at their start that the iteration before
	// changed nothing and skip their vertices (idle: a launch and a read
	// of a word a block, a few microseconds each; densebf.cu's idle says
	// why skipping is exact). Idle launches do not count in
	// Result.Iterations; their time does count.
	FlagInterval int
	// Trace asks for Result.Trace: one step of Kind "iteration" per
	// iteration (Result.Iterations of them, the last one, which lowered
	// nothing, included), with Inspected the matrix entries it read (N²:
	// every method reads each entry once per iteration), Updated the
	// distances it lowered, Frontier 0 (every iteration reads the whole
	// matrix) and Time its time: on a GPU its launch's, by the GPU's
	// own clock (gpu.LaunchLog: each kernel stamps its start, and the
	// last launch before a read of the change flag its end too; a launch
	// that the next one follows at once — the initialisation, and with a
	// FlagInterval above 1 the iterations before the last of an interval
	// — runs to the next one's start, the launch gap included); on the
	// host device the wall time of the CPU iteration.
	// BytesPerIteration ÷ Step.Time is an iteration's achieved
	// bandwidth; each iteration's launch carries it as its Bytes (no
	// gather), for plots.Roofline.
	//
	// A traced run launches a second build of the kernels (densebf.cu,
	// "the two builds"; compiled on a process's first traced run), which
	// counts the distances it lowers (one atomic per warp that lowered
	// one) and logs its launches' spans; an untraced run launches a build
	// with no trace code at all, so a trace costs nothing when off. No
	// CUDA event is recorded between launches: the events of the former
	// timing (gpu.LaunchTimer, two a launch) cost traced runs 0.4–3.9% at
	// n = 8192 (H100); BenchmarkGPUTrace measures the cost: BF_Naive and
	// BF_Reduce under 1% at n = 1024 and 8192, BF_Reduce_Coarse 0.4–1.1%
	// at 8192 and 0.1–10% at 1024 (a run of ten 3 µs launches and the
	// host's flag reads; densebf.cu says what a traced launch costs).
	// Trace may change between runs of one Prepared. Label ignores Trace.
	Trace bool
}

// Validate returns an error for an unknown method, a GroupSize that is
// not 0 or a multiple of 32 in [32, 1024], or a negative FlagInterval.
func (o Options) Validate() error {
	switch {
	case o.Method != Naive && o.Method != Reduce && o.Method != ReduceCoarse:
		return fmt.Errorf("densebf: unknown method %v (use densebf.Naive, densebf.Reduce or densebf.ReduceCoarse)", o.Method)
	case o.GroupSize != 0 && (o.GroupSize < GroupMultiple || o.GroupSize > MaxGroupSize || o.GroupSize%GroupMultiple != 0):
		return fmt.Errorf("densebf: group size M = %d must be a multiple of %d between %d and %d (or 0 for the default)",
			o.GroupSize, GroupMultiple, GroupMultiple, MaxGroupSize)
	case o.FlagInterval < 0:
		return fmt.Errorf("densebf: flag interval %d must be positive (1: read the flag after every iteration; 0: the default, %d)", o.FlagInterval, DefaultFlagInterval)
	}
	return nil
}

// Label names the variant the options select: the study's curve label
// (Method.String), then ", M=…" for an explicit group size of Reduce or
// ReduceCoarse, ", scalar loads" for ReduceCoarse with ScalarLoads, and
// ", flag every K" for a FlagInterval K other than the default (", flag
// every iteration" for 1, the study's host loop).
func (o Options) Label() string {
	s := o.Method.String()
	if o.GroupSize > 0 && o.Method != Naive {
		s += fmt.Sprintf(", M=%d", o.GroupSize)
	}
	if o.ScalarLoads && o.Method == ReduceCoarse {
		s += ", scalar loads"
	}
	switch k := o.flagInterval(); {
	case k == DefaultFlagInterval:
	case k == 1:
		s += ", flag every iteration"
	default:
		s += fmt.Sprintf(", flag every %d", k)
	}
	return s
}

// DefaultFlagInterval is the iterations launched between two reads of the
// change flag when Options.FlagInterval is 0. On an H100 (float32, G(n,
// 0.1), BF_Reduce_Coarse) a run at n = 8192 spends about 9 µs of each
// 90 µs iteration waiting for the host after a flag read; 8 iterations a
// read leave one wait in 8 and at most 7 idle launches (a few µs each)
// after the last iteration.
const DefaultFlagInterval = 8

// flagInterval is FlagInterval with 0 read as DefaultFlagInterval.
func (o Options) flagInterval() int {
	if o.FlagInterval == 0 {
		return DefaultFlagInterval
	}
	return o.FlagInterval
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
// as "_", commas and "=" dropped ("bf_reduce_coarse", "bf_reduce_m64").
func (v Variant) Slug() string {
	s := strings.NewReplacer(",", "", "=", "").Replace(v.Label)
	return strings.ToLower(strings.Join(strings.Fields(s), "_"))
}

// SeedVariants returns the study's three GPU curves (docs/studies.md §5), in the
// figure's order: "BF_Naive", "BF_Reduce" and "BF_Reduce_Coarse", each
// with its default options (default M; 16-byte loads for ReduceCoarse
// where N allows; the flag read after every iteration).
func SeedVariants() []Variant {
	return []Variant{
		{LabelNaive, Options{Method: Naive}},
		{LabelReduce, Options{Method: Reduce}},
		{LabelReduceCoarse, Options{Method: ReduceCoarse}},
	}
}
