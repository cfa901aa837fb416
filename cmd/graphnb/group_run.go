package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/graphnb/graphnb/algo/bfs"
	"github.com/graphnb/graphnb/algo/mst"
	"github.com/graphnb/graphnb/algo/sssp"
	"github.com/graphnb/graphnb/gpu"
)

// groupAlgorithms are what "graphnb run" runs over a group of GPUs: for
// each, a function that prepares the split graph (its runs traced when
// traced is set) and returns the run of one root. Every process of a
// -ranks group runs the same calls.
var groupAlgorithms = map[string]func(pg *gpu.PartGraph, traced bool) (run func(src int32, check bool) (outcome, error), close func() error, err error){
	"bfs": func(pg *gpu.PartGraph, traced bool) (func(int32, bool) (outcome, error), func() error, error) {
		p, err := bfs.PrepareGroup(pg, bfs.GroupOptions{Trace: traced})
		if err != nil {
			return nil, nil, err
		}
		return func(src int32, check bool) (outcome, error) {
			r, err := p.Run(src)
			if err != nil {
				return outcome{}, err
			}
			o := outcome{time: r.Time, teps: r.TEPS,
				summary: fmt.Sprintf("reached %d, %d levels, %.0f%% of the time in collectives", r.Reached, len(r.FrontierSizes), 100*r.CommShare()),
				check:   func() error { return nil }, trace: r.Trace}
			if check { // the device check, a collective: every rank runs it
				err := p.Check(r)
				o.check = func() error { return err }
			}
			return o, nil
		}, p.Close, nil
	},
	"sssp": func(pg *gpu.PartGraph, traced bool) (func(int32, bool) (outcome, error), func() error, error) {
		var last *sssp.GroupResult
		run := func(src int32, check bool) (outcome, error) {
			if err := last.Close(); err != nil {
				return outcome{}, err
			}
			r, err := sssp.RunGroup(pg, int(src), sssp.GroupOptions{Parents: check, Trace: traced})
			if err != nil {
				return outcome{}, err
			}
			last = r
			o := outcome{time: r.Time, teps: r.TEPS,
				summary: fmt.Sprintf("reached %d, %d rounds, %.0f%% of the time in collectives", r.Reached, r.Rounds, 100*r.CommShare()),
				check:   func() error { return nil }, trace: r.Trace}
			if check { // the device check, a collective: every rank runs it
				err := r.Check()
				o.check = func() error { return err }
			}
			return o, nil
		}
		return run, func() error { return last.Close() }, nil
	},
	"mst": func(pg *gpu.PartGraph, traced bool) (func(int32, bool) (outcome, error), func() error, error) {
		return func(_ int32, check bool) (outcome, error) {
			r, err := mst.RunGroup(pg, mst.GroupOptions{Trace: traced})
			if err != nil {
				return outcome{}, err
			}
			o := outcome{time: r.Time, teps: r.TEPS,
				summary: fmt.Sprintf("%d trees, %d edges of total weight %g, %d rounds, %.0f%% of the time in collectives", r.Trees, len(r.Edges), r.Weight, r.Rounds, 100*r.CommShare()),
				check:   func() error { return nil }, trace: r.Trace}
			if check { // the device check, a collective: every rank runs it
				err := r.Check()
				o.check = func() error { return err }
			}
			return o, nil
		}, func() error { return nil }, nil
	},
}

// groupLabels say what runs over a group for each of groupAlgorithms
// (the "algo" line of graphnb run).
var groupLabels = map[string]string{
	"bfs":  "GPU direction-optimizing BFS over the group (bfs.PrepareGroup)",
	"sssp": "GPU delta-stepping SSSP over the group (sssp.RunGroup)",
	"mst":  "GPU Borůvka MST over the group (mst.RunGroup)",
}

// groupList names groupAlgorithms, sorted ("bfs, mst, sssp").
func groupList() string {
	names := make([]string, 0, len(groupAlgorithms))
	for n := range groupAlgorithms {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// groupAlgorithm returns what prepares algo over a group and its label,
// or the refusal of an algorithm that does not run over a group.
func groupAlgorithm(algo string) (prepare func(pg *gpu.PartGraph, traced bool) (func(int32, bool) (outcome, error), func() error, error), label string, err error) {
	prep, ok := groupAlgorithms[algo]
	if !ok {
		return nil, "", usagef("run: %s does not run over a group of GPUs yet; over a group: %s", algo, groupList())
	}
	return prep, groupLabels[algo], nil
}
