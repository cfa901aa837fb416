package bench

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/graphnb/graphnb/algo/bfs"
	"github.com/graphnb/graphnb/algo/mst"
	"github.com/graphnb/graphnb/algo/sssp"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// BFSGroup is the direction-optimizing BFS over a group of GPUs
// (bfs.PrepareGroup) as a variant of a group sweep (Sweep.Group): each run
// is validated on the devices by the group's Graph500 check, and reports
// the share of its time spent in collectives (Run.Comm).
func BFSGroup(o bfs.GroupOptions) Variant {
	label := "direction-optimizing over a group"
	if o.TopDownOnly {
		label = "top-down over a group"
	}
	return Variant{Label: label, Algo: "bfs",
		PrepareGroup: func(pg *gpu.PartGraph) (Runner, error) {
			t0 := time.Now()
			p, err := bfs.PrepareGroup(pg, o)
			if err != nil {
				return nil, err
			}
			checker := "device"
			if pg.Group.IsHost() {
				checker = "cpu"
			}
			return &groupRunner[*bfs.GroupResult]{
				common: common{size: inputSize{pg.Arcs / 2, pg.Arcs}, prep: time.Since(t0), close: p.Close, checker: checker},
				run:    p.Run, check: p.Check,
				scalars: func(r *bfs.GroupResult) (time.Duration, time.Duration, int, int64) {
					return r.Time, r.Comm, r.Iterations, r.ComponentEdges
				}}, nil
		}}
}

// SSSPGroup is Δ-stepping over a group of GPUs (sssp.RunGroup) as a
// variant of a group sweep: parents built and every run validated on the
// devices by the group's certificate check.
func SSSPGroup(o sssp.GroupOptions) Variant {
	o.Parents = true // the check needs them
	return Variant{Label: "delta-stepping over a group", Algo: "sssp",
		PrepareGroup: func(pg *gpu.PartGraph) (Runner, error) {
			checker := "device"
			if pg.Group.IsHost() {
				checker = "cpu"
			}
			return &groupRunner[*sssp.GroupResult]{
				common: common{size: inputSize{pg.Arcs / 2, pg.Arcs}, checker: checker, close: func() error { return nil }},
				run:    func(src int32) (*sssp.GroupResult, error) { return sssp.RunGroup(pg, int(src), o) },
				check:  (*sssp.GroupResult).Check,
				free:   (*sssp.GroupResult).Close,
				scalars: func(r *sssp.GroupResult) (time.Duration, time.Duration, int, int64) {
					return r.Time, r.CommTime, r.Rounds, r.ComponentEdges
				}}, nil
		}}
}

// MSTGroup is Borůvka over a group of GPUs (mst.RunGroup) as a variant of
// a group sweep: every forest validated on the devices by the group's
// check (forest, spanning, weight, cycle property). A run has no root
// (the sweep's roots are repetitions); its rate is graph.Rate(arcs/2,
// arcs, time), as the one-device MST variants report.
func MSTGroup(o mst.GroupOptions) Variant {
	return Variant{Label: "Borůvka over a group", Algo: "mst",
		PrepareGroup: func(pg *gpu.PartGraph) (Runner, error) {
			checker := "device"
			if pg.Group.IsHost() {
				checker = "cpu"
			}
			return &groupRunner[*mst.GroupResult]{
				common: common{size: inputSize{pg.Arcs / 2, pg.Arcs}, checker: checker, close: func() error { return nil }},
				run:    func(int32) (*mst.GroupResult, error) { return mst.RunGroup(pg, o) },
				check:  (*mst.GroupResult).Check,
				free:   (*mst.GroupResult).Close,
				scalars: func(r *mst.GroupResult) (time.Duration, time.Duration, int, int64) {
					return r.Time, r.CommTime, r.Rounds, r.Arcs / 2
				}}, nil
		}}
}

// groupRunner runs a variant prepared over a group; its results stay on
// the devices and are validated there.
type groupRunner[R any] struct {
	common
	run     func(src int32) (R, error)
	check   func(R) error
	free    func(R) error // frees a result before the next run (nil: nothing to free)
	scalars func(R) (t, comm time.Duration, iterations int, componentEdges int64)
	last    R
	has     bool
}

func (r *groupRunner[R]) release() error {
	if !r.has || r.free == nil {
		return nil
	}
	r.has = false
	return r.free(r.last)
}

func (r *groupRunner[R]) Run(root int32) (Run, error) {
	if err := r.release(); err != nil {
		return Run{}, err
	}
	res, err := r.run(root)
	if err != nil {
		r.has = false
		return Run{}, err
	}
	r.last, r.has = res, true
	t, comm, it, ce := r.scalars(res)
	return Run{Root: root, Time: t, Comm: comm, Iterations: it, TEPS: graph.Rate(ce, r.size.arcs, t), ComponentEdges: ce}, nil
}

func (r *groupRunner[R]) Check() error {
	if !r.has {
		return noResult
	}
	return r.check(r.last)
}

// Close frees the last result, then what Prepare allocated.
func (r *groupRunner[R]) Close() error {
	return errors.Join(r.release(), r.common.Close())
}

// GroupVariants builds every registered variant of algo that runs over a
// group of GPUs (Variant.PrepareGroup): a group sweep's default.
func GroupVariants(algo string) ([]Variant, error) {
	names := groupNames(algo)
	if len(names) == 0 {
		return nil, fmt.Errorf("bench: no %s variant runs over a group of GPUs yet; the group variants are %s", algo, strings.Join(allGroupNames(), ", "))
	}
	return LookupAll(algo, names...)
}

// allGroupNames lists every registered group variant as ALGO/NAME.
func allGroupNames() []string {
	var out []string
	for _, algo := range Algos() {
		for _, n := range groupNames(algo) {
			out = append(out, algo+" "+n)
		}
	}
	return out
}

// groupNames lists the registered group variants of algo.
func groupNames(algo string) []string {
	var names []string
	for _, e := range Entries(algo) {
		if v := e.New(); v.PrepareGroup != nil {
			names = append(names, e.Name)
		}
	}
	return names
}

// The group variants are registered as "group/" and their method:
// "group/direction-optimizing", "group/top-down" (bfs), "group/delta-stepping" (sssp),
// "group/boruvka" (mst).
func init() {
	Register(Entry{Name: "group/direction-optimizing", Algo: "bfs", Doc: "GPU BFS over a group of GPUs (graphnb bench -gpus N or -ranks N): direction-optimizing, 1D partition, validated on the devices",
		New: func() Variant { return BFSGroup(bfs.GroupOptions{}) }})
	Register(Entry{Name: "group/delta-stepping", Algo: "sssp", Doc: "GPU SSSP over a group of GPUs (graphnb bench -gpus N or -ranks N): Δ-stepping, 1D partition, (vertex, distance) pairs exchanged each round, validated on the devices",
		New: func() Variant { return SSSPGroup(sssp.GroupOptions{}) }})
	Register(Entry{Name: "group/boruvka", Algo: "mst", Doc: "GPU MST over a group of GPUs (graphnb bench -gpus N or -ranks N): Borůvka, 1D partition, component labels on every GPU, two minimum all-reduces a round, validated on the devices",
		New: func() Variant { return MSTGroup(mst.GroupOptions{}) }})
	Register(Entry{Name: "group/top-down", Algo: "bfs", Doc: "GPU BFS over a group of GPUs, top-down steps only (frontier pairs exchanged every level)",
		New: func() Variant { return BFSGroup(bfs.GroupOptions{TopDownOnly: true}) }})
}

// CommShare is the share of the row's run time spent in collectives
// (Run.Comm over Run.Time, summed over the runs): 0 on one device.
func (r Row) CommShare() float64 {
	var t, c time.Duration
	for _, x := range r.Runs {
		t += x.Time
		c += x.Comm
	}
	if t <= 0 {
		return 0
	}
	return float64(c) / float64(t)
}
