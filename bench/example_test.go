package bench_test

import (
	"fmt"
	"time"

	"github.com/graphnb/graphnb/bench"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// A sweep of two SSSP variants over R-MAT scales 6..8 from 4 roots each,
// every result validated; the table holds one row per variant and scale.
func ExampleSweep() {
	t, err := bench.Sweep{
		Algo:     "sssp",
		Family:   "rmat",
		Scales:   bench.Scales(6, 8),
		Variants: []bench.Variant{bench.SSSPDijkstra(), bench.SSSPDeltaStepping(0)},
		Roots:    4,
	}.Run(gpu.Host(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range t.Rows {
		fmt.Printf("%-15s 2^%d: %d runs, %d validated\n", r.Variant, r.Scale, r.NumRuns, r.NumValidated)
	}
	// Output:
	// CPU Dijkstra    2^6: 4 runs, 4 validated
	// CPU Δ-stepping  2^6: 4 runs, 4 validated
	// CPU Dijkstra    2^7: 4 runs, 4 validated
	// CPU Δ-stepping  2^7: 4 runs, 4 validated
	// CPU Dijkstra    2^8: 4 runs, 4 validated
	// CPU Δ-stepping  2^8: 4 runs, 4 validated
}

// Each convention is averaged as it is defined: arcs/s arithmetically,
// Graph500 TEPS harmonically.
func ExampleComputeStats() {
	var runs []bench.Run
	for _, ms := range []int{1, 2, 4} {
		d := time.Duration(ms) * time.Millisecond
		runs = append(runs, bench.Run{Time: d, TEPS: graph.Rate(1000, 2000, d)})
	}
	s := bench.ComputeStats(runs)
	fmt.Printf("arcs/s: mean %.0f, min %.0f, max %.0f\n", s.MeanArcsPerSecond, s.MinArcsPerSecond, s.MaxArcsPerSecond)
	fmt.Printf("Graph500 TEPS: harmonic mean %.0f (3000 edges in 7 ms)\n", s.HarmonicMeanTEPS)
	// Output:
	// arcs/s: mean 1166667, min 500000, max 2000000
	// Graph500 TEPS: harmonic mean 428571 (3000 edges in 7 ms)
}

func ExampleParseScales() {
	s, _ := bench.ParseScales("14-24:2")
	fmt.Println(s)
	// Output: [14 16 18 20 22 24]
}

// Variants by name, as the command line and JSON specs give them.
func ExampleLookup() {
	v, err := bench.Lookup("bfs", "cpu/do")
	fmt.Println(v.Label, v.Algo, err)
	_, err = bench.Lookup("bfs", "cpu/dfs")
	fmt.Println(err != nil)
	// Output:
	// CPU direction-optimizing bfs <nil>
	// true
}
