package bench

import (
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// Variant is one curve of a figure: an algorithm implementation with its
// switches, under a label the charts show ("CPU Dijkstra", "cache &&
// restrict on").
type Variant struct {
	// Label names the variant in tables and legends; it must be unique
	// within a sweep.
	Label string
	// Algo is the algorithm the variant computes: "bfs", "sssp", "mst",
	// "apsp" (see Rooted). A sweep's variants all share it.
	Algo string
	// Prepare readies the variant for graph g on dev (conversion,
	// permutation, upload) and returns the Runner that runs it. It is
	// called once per graph of a sweep; the sweep Closes the Runner
	// before preparing the next variant, so one variant at a time holds
	// device memory.
	Prepare func(dev *gpu.Device, g *graph.CSR) (Runner, error)
	// PrepareResident, when set, readies the variant for a graph already
	// on the GPU (made there by a device generator: spec.MakeOnDevice);
	// its Runner leaves results on the device and validates them there.
	// A sweep on a GPU then makes its generated graphs on the device and
	// copies one to the host only for a variant without PrepareResident
	// (counted in Row.CopyTime). Nil: the variant always gets a host CSR.
	PrepareResident func(g *gpu.Graph) (Runner, error)
	// PrepareGroup, when set, readies the variant for a graph split over
	// a group of GPUs (Sweep.Group); a group sweep takes only such
	// variants. Its Runner's Run and Check are collectives: every process
	// of the group runs the same sweep.
	PrepareGroup func(g *gpu.PartGraph) (Runner, error)
}

// Runner runs a prepared variant on one graph.
type Runner interface {
	// Run runs the algorithm once from root (-1 for unrooted algorithms)
	// and reports the measurement. Run.Time must exclude preparation and
	// validation.
	Run(root int32) (Run, error)
	// PrepTime is the time Prepare spent (conversion, upload).
	PrepTime() time.Duration
	// Bytes is the device memory the prepared variant holds, in bytes
	// (0 on the host).
	Bytes() int64
	// Close releases what Prepare allocated.
	Close() error
}

// Checker is implemented by Runners that can validate their latest run:
// Check validates the result of the most recent Run against the graph
// with the algorithm package's checker (bfs.Check, sssp.Check, …). A
// sweep that validates (the default) requires it and calls it after every
// run, outside the timed region.
//
// The adapters SSSPRunner, BFSRunner, MSTRunner and APSPRunner implement
// it; they are also how a notebook cell measures its own code (a kernel
// launched from a Go function): compiled code sees a Runner type declared
// in a cell only through its Runner methods, so such a type cannot be
// validated and needs NoValidate.
type Checker interface {
	Check() error
}

// BatchChecker is implemented by Checkers that validate several runs
// faster together than one by one (the CPU BFS checker reads the graph
// once for eight results: bfs.CheckMany). A sweep that validates holds up
// to BatchSize results with Keep instead of calling Check after each
// run, and validates them with CheckKept when that many are held, when
// the variant's runs are over, or before it stops on an error; a run
// counts as validated only once CheckKept has accepted it.
type BatchChecker interface {
	Checker
	// BatchSize is how many results CheckKept validates at once; below
	// 2, the sweep calls Check after every run instead.
	BatchSize() int
	// Keep holds the result of the most recent Run for CheckKept.
	Keep()
	// CheckKept validates the held results in the order they were kept
	// (errs[i] is what Check would have said of the i-th), then releases
	// them.
	CheckKept() (errs []error)
}

// CheckerNamer is implemented by Checkers that say which checker Check
// runs: "device" when the result is validated on the GPU that holds it
// (bfs.Prepared.Check, sssp.Prepared.Check), "cpu" for the algorithm
// package's CPU checker. A Checker without it counts as "cpu". The sweep
// records the name in Row.Checker.
type CheckerNamer interface {
	CheckerName() string
}

// Run is one measured run of a variant.
type Run struct {
	// Root is the source vertex, -1 for unrooted algorithms.
	Root int32 `json:"root"`
	// Rep numbers the repetitions of one root (or of an unrooted run)
	// from 0.
	Rep int `json:"rep"`
	// Time is the run's own time, preparation and validation excluded.
	Time time.Duration `json:"time_ns"`
	// PrepTime is per-run preparation the algorithm reported apart from
	// Time (a weight scan, a COO view); zero when none.
	PrepTime time.Duration `json:"prep_ns"`
	// Iterations counts the algorithm's rounds as its Result defines
	// them (BFS levels, Bellman-Ford sweeps, Borůvka rounds).
	Iterations int `json:"iterations"`
	// TEPS is graph.Rate(ComponentEdges, stored arcs of the input graph,
	// Time): both conventions. Zero for algorithms measured by time only
	// (APSP).
	TEPS graph.TEPS `json:"teps"`
	// Validated reports that the result passed the package's checker.
	Validated bool `json:"validated"`
	// ComponentEdges is the Graph500 numerator: input edges of the
	// traversed component (every edge for MST).
	ComponentEdges int64 `json:"component_edges"`
	// Comm is, for a run over a group of GPUs, the part of Time the
	// slowest rank spent in collectives (waiting for the others
	// included); zero on one device.
	Comm time.Duration `json:"comm_ns,omitempty"`
}

// Rooted reports whether algo runs from a root: true for "bfs", "sssp",
// "densebf" and any algorithm graphnb does not know, false for "mst" and
// "apsp", which run once per repetition.
func Rooted(algo string) bool {
	switch algo {
	case "mst", "apsp":
		return false
	}
	return true
}
