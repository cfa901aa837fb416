package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/graphnb/graphnb/algo/apsp"
	"github.com/graphnb/graphnb/algo/bfs"
	"github.com/graphnb/graphnb/algo/densebf"
	"github.com/graphnb/graphnb/algo/mst"
	"github.com/graphnb/graphnb/algo/sssp"
	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/trace"
)

// runFlags are the algorithm knobs of "graphnb run".
type runFlags struct {
	delta   float64
	tile    int
	integer bool
	// trace asks each run for its trace (-trace), printed under its line;
	// only the algorithms marked traced take it.
	trace bool
}

// outcome is one run of an algorithm, reduced to what the report prints.
type outcome struct {
	time    time.Duration
	teps    graph.TEPS
	summary string
	check   func() error
	// rate, when set, replaces TEPS for methods that do not traverse
	// edges (dense matrices): e.g. "1.2 G updates/s".
	rate string
	// trace is the run's trace (-trace), nil otherwise.
	trace *trace.Trace
}

// algorithm is one entry of the table "graphnb run" dispatches on.
type algorithm struct {
	name, label string
	// rooted algorithms run once per root; the others once.
	rooted bool
	// traced algorithms return their run's trace when f.trace is set.
	traced bool
	run    func(g *graph.CSR, src int32, f runFlags) (outcome, error)
}

var algorithms = []algorithm{
	{"bfs", "CPU direction-optimizing BFS", true, true, func(g *graph.CSR, src int32, f runFlags) (outcome, error) {
		r, err := bfs.DirectionOptimizing(g, src, bfs.Options{Trace: f.trace})
		if err != nil {
			return outcome{}, err
		}
		return outcome{time: r.Time, teps: r.TEPS, summary: fmt.Sprintf("reached %d, %d levels", r.Reached, len(r.FrontierSizes)),
			check: func() error { return bfs.Check(g, r) }, trace: r.Trace}, nil
	}},
	{"bfs-topdown", "CPU sequential top-down BFS", true, false, func(g *graph.CSR, src int32, _ runFlags) (outcome, error) {
		r, err := bfs.TopDown(g, src)
		if err != nil {
			return outcome{}, err
		}
		return outcome{time: r.Time, teps: r.TEPS, summary: fmt.Sprintf("reached %d, %d levels", r.Reached, len(r.FrontierSizes)),
			check: func() error { return bfs.Check(g, r) }}, nil
	}},
	{"sssp", "CPU parallel delta-stepping SSSP", true, true, func(g *graph.CSR, src int32, f runFlags) (outcome, error) {
		if f.trace {
			return ssspOutcome(g)(sssp.DeltaSteppingTraced(g, src, f.delta))
		}
		return ssspOutcome(g)(sssp.DeltaStepping(g, src, f.delta))
	}},
	{"dijkstra", "CPU Dijkstra SSSP (binary heap)", true, true, func(g *graph.CSR, src int32, f runFlags) (outcome, error) {
		if f.trace {
			return ssspOutcome(g)(sssp.DijkstraTraced(g, src))
		}
		return ssspOutcome(g)(sssp.Dijkstra(g, src))
	}},
	{"bellman-ford", "CPU edge-parallel Bellman-Ford SSSP (the SSSP study's method)", true, false, func(g *graph.CSR, src int32, _ runFlags) (outcome, error) {
		return ssspOutcome(g)(sssp.BellmanFord(g, src))
	}},
	{"mst", "CPU parallel Borůvka MST", false, true, func(g *graph.CSR, _ int32, f runFlags) (outcome, error) {
		if f.trace { // the host device runs the same Borůvka, traced
			return mstOutcome(g)(mst.Run(gpu.Host(), g, mst.Options{Trace: true}))
		}
		return mstOutcome(g)(mst.Boruvka(g))
	}},
	{"kruskal", "CPU Kruskal MST", false, false, func(g *graph.CSR, _ int32, _ runFlags) (outcome, error) {
		return mstOutcome(g)(mst.Kruskal(g))
	}},
	{"apsp", "CPU blocked Floyd-Warshall APSP", false, false, func(g *graph.CSR, _ int32, f runFlags) (outcome, error) {
		return apspOutcome(g, f, true, func(d *graph.Dense) (*apsp.Result, error) { return apsp.Blocked(d, f.tile) })
	}},
	{"fw", "CPU plain Floyd-Warshall APSP", false, false, func(g *graph.CSR, _ int32, f runFlags) (outcome, error) {
		return apspOutcome(g, f, false, apsp.FloydWarshall)
	}},
	{"densebf", "CPU Bellman-Ford on the adjacency matrix (the fifth study's method)", true, false, func(g *graph.CSR, src int32, f runFlags) (outcome, error) {
		d, err := g.Dense(f.integer)
		if err != nil {
			return outcome{}, err
		}
		r, err := densebf.Run(d, src)
		if err != nil {
			return outcome{}, err
		}
		reached := 0
		for _, x := range r.Dist {
			if !math.IsInf(x, 1) {
				reached++
			}
		}
		// each iteration reads all n² matrix entries
		entries := float64(d.N) * float64(d.N) * float64(r.Iterations)
		return outcome{time: r.Time, summary: fmt.Sprintf("reached %d, %d iterations", reached, r.Iterations),
			check: func() error { return densebf.Check(d, src, r) },
			rate:  graph.SI(entries/r.Time.Seconds()) + " matrix entries/s"}, nil
	}},
}

var algoList = func() string {
	names := make([]string, len(algorithms))
	for i, a := range algorithms {
		names[i] = a.name
	}
	return strings.Join(names, " | ")
}()

func ssspOutcome(g *graph.CSR) func(*sssp.Result, error) (outcome, error) {
	return func(r *sssp.Result, err error) (outcome, error) {
		if err != nil {
			return outcome{}, err
		}
		return outcome{time: r.Time, teps: r.TEPS, summary: fmt.Sprintf("reached %d, %d iterations", r.Reached, r.Iterations),
			check: func() error { return sssp.Check(g, r) }, trace: r.Trace}, nil
	}
}

func mstOutcome(g *graph.CSR) func(*mst.Result, error) (outcome, error) {
	return func(r *mst.Result, err error) (outcome, error) {
		if err != nil {
			return outcome{}, err
		}
		summary := fmt.Sprintf("%d forest edges in %d trees, weight %.6g", len(r.Edges), r.Trees, r.Weight)
		if r.Iterations > 0 {
			summary += fmt.Sprintf(", %d rounds", r.Iterations)
		}
		return outcome{time: r.Time, teps: r.TEPS, summary: summary,
			check: func() error { return mst.Check(g, r) }, trace: r.Trace}, nil
	}
}

// apspOutcome runs solve (blocked: apsp.Blocked, else FloydWarshall) on
// g's matrix; a run whose matrix and working copies do not fit in the
// memory available is refused before the matrix is made.
func apspOutcome(g *graph.CSR, f runFlags, blocked bool, solve func(*graph.Dense) (*apsp.Result, error)) (outcome, error) {
	if err := apsp.CheckCPUMemory(g.NumVertices(), blocked, true); err != nil {
		return outcome{}, err
	}
	d, err := g.Dense(f.integer)
	if err != nil {
		return outcome{}, err
	}
	r, err := solve(d)
	if err != nil {
		return outcome{}, err
	}
	// Floyd-Warshall makes n³ min-plus updates.
	n3 := float64(d.N) * float64(d.N) * float64(d.N)
	return outcome{time: r.Time, summary: fmt.Sprintf("%d×%d distances", d.N, d.N),
		check: func() error { return apsp.Check(d, r, 16, 1) },
		rate:  graph.SI(n3/r.Time.Seconds()) + " updates/s"}, nil
}

// validate refuses values of run's flags that make no sense, before any
// graph is made: a negative -source (when given), a -delta that is
// negative or not finite, a negative -tile.
func (f runFlags) validate(fs *flag.FlagSet, source int) error {
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	switch {
	case given["source"] && source < 0:
		return usagef("run: -source %d is not a vertex; vertices are numbered from 0 (leave -source out for random roots)", source)
	case f.delta < 0 || math.IsNaN(f.delta) || math.IsInf(f.delta, 0):
		return usagef("run: -delta %v must be a positive bucket width, or 0 to choose it from the weights", f.delta)
	case f.tile < 0:
		return usagef("run: -tile %d must be a positive tile size, or 0 for the default", f.tile)
	}
	return nil
}

// tracedList names the algorithms that take -trace, in the table's order.
func tracedList() string {
	var names []string
	for _, a := range algorithms {
		if a.traced {
			names = append(names, a.name)
		}
	}
	return strings.Join(names, ", ")
}

// indent puts prefix before every line of text, without a newline at the
// end.
func indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n"+prefix)
}

func findAlgorithm(name string) (algorithm, bool) {
	for _, a := range algorithms {
		if a.name == strings.ToLower(name) {
			return a, true
		}
	}
	return algorithm{}, false
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "run ALGO GRAPH [flags]\n\nALGO: "+algoList+"\n\n"+groupHelp)
	var gf graphFlags
	gf.register(fs)
	var group groupFlags
	group.register(fs, "run")
	var f runFlags
	roots := fs.Int("roots", 4, "number of random roots (rooted algorithms)")
	source := fs.Int("source", -1, "run from this one vertex instead of random roots")
	noCheck := fs.Bool("no-check", false, "skip validating each result with the independent checker")
	fs.Float64Var(&f.delta, "delta", 0, "bucket width of delta-stepping (0: chosen from the weights)")
	fs.IntVar(&f.tile, "tile", 0, "tile size of blocked Floyd-Warshall (0: default)")
	fs.BoolVar(&f.integer, "int", false, "apsp, fw, densebf: use int32 distances (whole-number weights)")
	fs.BoolVar(&f.trace, "trace", false, "print each run's trace under its line: a step per level, round or bucket ("+tracedList()+"; over a group: "+groupList()+")")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos, "ALGO", "GRAPH"); err != nil {
		return err
	}
	algo, ok := findAlgorithm(pos[0])
	if !ok {
		fs.Usage()
		return usagef("run: unknown algorithm %q; choose one of %s", pos[0], algoList)
	}
	if *roots < 1 {
		return usagef("run: -roots must be at least 1, not %d", *roots)
	}
	if err := f.validate(fs, *source); err != nil {
		return err
	}
	if f.trace && !algo.traced && group.none() {
		return usagef("run: -trace: %s keeps no trace; traced runs: %s (over a group: %s)", algo.name, tracedList(), groupList())
	}
	grp, closeGroup, done, err := group.start("", args, stdout, stderr)
	if done || err != nil {
		return err
	}
	defer closeGroup()
	start := time.Now()
	var runRoot func(src int32) (outcome, error)
	var n int                             // the graph's vertices
	var pickRoots func() ([]int32, error) // the -roots random roots
	if grp == nil {
		g, sp, err := gf.load(pos[1])
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "graph  %s: %v (made in %.2f s)\n", sp, g, time.Since(start).Seconds())
		fmt.Fprintf(stdout, "algo   %s: %s\n", algo.name, algo.label)
		n = g.NumVertices()
		runRoot = func(src int32) (outcome, error) { return algo.run(g, src, f) }
		pickRoots = func() ([]int32, error) { return g.Roots(*roots, gf.seed), nil }
	} else {
		// Over a group the graph is made split, on the GPUs themselves
		// where its generator has a device form (R-MAT, SSCA#2), so that
		// no host holds the whole of it.
		prepare, label, err := groupAlgorithm(algo.name)
		if err != nil {
			return err
		}
		sp, err := gf.parse(pos[1])
		if err != nil {
			return err
		}
		pg, err := sp.MakeParts(grp, gf.options())
		if err != nil {
			return err
		}
		defer pg.Close()
		fmt.Fprintf(stdout, "graph  %s: %v (made in %.2f s)\n", sp, pg, time.Since(start).Seconds())
		fmt.Fprintf(stdout, "algo   %s: %s\n", algo.name, label)
		fmt.Fprintf(stdout, "group  %s\n", grp)
		run, closeRun, err := prepare(pg, f.trace)
		if err != nil {
			return fmt.Errorf("run: %w", err)
		}
		defer closeRun()
		n = pg.N
		runRoot = func(src int32) (outcome, error) { return run(src, !*noCheck) }
		pickRoots = func() ([]int32, error) { return pg.Roots(*roots, gf.seed) } // a collective: every rank draws
	}

	srcs := []int32{0}
	if algo.rooted {
		switch {
		case *source >= 0:
			if *source >= n {
				return usagef("run: -source %d is not a vertex; the graph has %d (0..%d)", *source, n, n-1)
			}
			srcs = []int32{int32(*source)}
		default:
			var err error
			if srcs, err = pickRoots(); err != nil {
				return fmt.Errorf("run: drawing roots: %w", err)
			}
			if len(srcs) == 0 {
				return fmt.Errorf("run: the graph has no vertex with an edge to start from")
			}
		}
	}
	var rates []graph.TEPS
	for _, src := range srcs {
		o, err := runRoot(src)
		if err != nil {
			return err
		}
		verdict := "not checked"
		if !*noCheck {
			if err := o.check(); err != nil {
				return fmt.Errorf("%s from %d gave a wrong result: %w", algo.name, src, err)
			}
			verdict = "valid"
		}
		where := ""
		if algo.rooted {
			where = fmt.Sprintf("root %-9d ", src)
		}
		rate := o.rate
		if rate == "" {
			rate = o.teps.String()
			rates = append(rates, o.teps)
		}
		fmt.Fprintf(stdout, "  %s%9.3f ms  %s  (%s; %s)\n", where, float64(o.time.Microseconds())/1e3, rate, o.summary, verdict)
		if o.trace != nil {
			fmt.Fprintln(stdout, indent(o.trace.String(), "    "))
		}
	}
	if len(rates) > 1 {
		fmt.Fprintln(stdout, summarize(rates))
	}
	return nil
}

// summarize reports the Graph500 harmonic mean and the arcs/s arithmetic
// mean with its range, each convention averaged the way it is defined.
func summarize(rates []graph.TEPS) string {
	var inv, sum float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range rates {
		inv += 1 / r.Graph500
		sum += r.ArcsPerSecond
		lo, hi = min(lo, r.ArcsPerSecond), max(hi, r.ArcsPerSecond)
	}
	n := float64(len(rates))
	return fmt.Sprintf("  %d runs: Graph500 %sTEPS (harmonic mean); %s arcs/s mean, min %s, max %s",
		len(rates), graph.SI(n/inv), graph.SI(sum/n), graph.SI(lo), graph.SI(hi))
}
