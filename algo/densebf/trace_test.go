package densebf

import (
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/graph"
)

// refLowered counts, independently of Run, the distances each iteration
// lowers: the Jacobi iterations of the package doc written directly on
// the row-major matrix, in its own arithmetic, until an iteration lowers
// nothing. O(N³) per iteration count: small matrices only.
func refLowered(d *graph.Dense, src int32) []int64 {
	if d.F32 != nil {
		return jacobi(d.F32, d.N, src, float32(math.Inf(1)), func(s, w float32) float32 { return s + w })
	}
	return jacobi(d.I32, d.N, src, graph.InfI32, func(s, w int32) int32 {
		if s >= graph.InfI32 || w >= graph.InfI32 {
			return graph.InfI32
		}
		return s + w
	})
}

func jacobi[T float32 | int32](m []T, n int, src int32, inf T, term func(s, w T) T) []int64 {
	sig := make([]T, n)
	for v := range sig {
		sig[v] = inf
	}
	sig[src] = 0
	var out []int64
	for it := 1; it <= n; it++ {
		next := slices.Clone(sig)
		var low int64
		for v := range n {
			best := inf
			for j := range n {
				if s := term(sig[j], m[j*n+v]); s < best {
					best = s
				}
			}
			if best < sig[v] {
				next[v] = best
				low++
			}
		}
		out = append(out, low)
		sig = next
		if low == 0 {
			break
		}
	}
	return out
}

// checkTrace requires r's trace to agree with its result: it passes
// trace.Check; it has r's Algorithm and Time, N² arcs and one step of
// kind "iteration" per iteration, each reading the N² entries, with no
// frontier, lowering the distances of lowered (the last step nothing).
func checkTrace(t *testing.T, what string, d *graph.Dense, r *Result, lowered []int64) {
	t.Helper()
	tr := r.Trace
	if err := tr.Check(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	nn := int64(d.N) * int64(d.N)
	if len(tr.Steps) != r.Iterations || tr.Algorithm != r.Algorithm || tr.Time != r.Time || tr.Arcs != nn {
		t.Fatalf("%s: %d steps for %d iterations, %q for %q, time %v for %v, %d arcs for %d entries",
			what, len(tr.Steps), r.Iterations, tr.Algorithm, r.Algorithm, tr.Time, r.Time, tr.Arcs, nn)
	}
	for i, s := range tr.Steps {
		last := i == len(tr.Steps)-1
		if s.Kind != "iteration" || s.Inspected != nn || s.Frontier != 0 || s.FrontierArcs != 0 || (s.Updated == 0) != last || s.Why != "" {
			t.Fatalf("%s: step %d of %d: %+v (%d entries)", what, i, len(tr.Steps), s, nn)
		}
		if i < len(lowered) && s.Updated != lowered[i] {
			t.Fatalf("%s: step %d lowered %d distances, want %d (all: %v)", what, i, s.Updated, lowered[i], lowered)
		}
	}
	if len(lowered) != len(tr.Steps) {
		t.Fatalf("%s: %d steps, want %d (lowering %v)", what, len(tr.Steps), len(lowered), lowered)
	}
	if e := tr.WorkEfficiency(); e != float64(r.Iterations) {
		t.Fatalf("%s: work efficiency %v, want the %d passes over the matrix", what, e, r.Iterations)
	}
}

// untimed returns r with a copy of its trace whose steps take no time
// and that has no launches: the fake driver's events all measure 2.5 ms
// apart (the run's Time), while its launch log reads the emulator's
// clock, so its times cannot add up; the rest must.
func untimed(r *Result) *Result {
	rr := *r
	rr.Trace = r.Trace.Untimed()
	return &rr
}

// checkLaunches requires a GPU trace's launches to be the initialisation
// (step -1) and then one launch of the iteration kernel per step, in
// order, with the prepared geometry, each step's time its launch's and
// its bytes BytesPerIteration's.
func checkLaunches(t *testing.T, what string, p *Prepared, r *Result) {
	t.Helper()
	ls := r.Trace.Launches
	if len(ls) != r.Iterations+1 || ls[0].Step != -1 || ls[0].Name != initKernel(p.f32) || ls[0].Block[0] != initBlock {
		t.Fatalf("%s: %d launches for %d iterations, the first %+v", what, len(ls), r.Iterations, ls[0])
	}
	for i, l := range ls[1:] {
		if l.Step != i || l.Name != stepKernel(p.opts.Method, p.shape.vec, p.f32) || l.Grid != [3]int{p.shape.grid, 1, 1} || l.Block != [3]int{p.shape.block, 1, 1} {
			t.Fatalf("%s: launch %d: %+v (grid %d, block %d)", what, i+1, l, p.shape.grid, p.shape.block)
		}
		if l.Time != r.Trace.Steps[i].Time {
			t.Fatalf("%s: step %d takes %v, its launch %v", what, i, r.Trace.Steps[i].Time, l.Time)
		}
		if want := BytesPerIteration(p.n, p.opts); l.Bytes != want || l.Gather != 0 {
			t.Fatalf("%s: launch %d moves %d bytes (%d gathered), want the model's %d", what, i+1, l.Bytes, l.Gather, want)
		}
	}
}

// checkTraceOn traces every variant on every case from its first source
// on dev, twice per preparation (the second run reuses the launch
// log's ring), and requires each trace to agree with its result
// (checkTrace: on the fake driver without its times) and to lower what
// the CPU's traced iterations lower, which for small matrices is
// refLowered's count; on a GPU the launches must be one per step. The
// result must equal the CPU's. Untraced runs, and the CPU's Run, have no
// trace; a traced preparation holds the 4·(N+1) bytes of the counts
// more.
func checkTraceOn(t *testing.T, dev *gpu.Device, cases []gpuCase, variants []Variant) {
	fake := strings.Contains(dev.Name(), "Fake")
	for _, c := range cases {
		src := c.srcs[0]
		cpu, err := run(c.d, src, true)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		lowered := make([]int64, len(cpu.Trace.Steps))
		for i, s := range cpu.Trace.Steps {
			lowered[i] = s.Updated
		}
		if c.d.N <= 100 {
			if ref := refLowered(c.d, src); !slices.Equal(ref, lowered) {
				t.Fatalf("%s from %d: the CPU's iterations lower %v, the reference %v", c.name, src, lowered, ref)
			}
		}
		checkTrace(t, c.name+"/cpu", c.d, cpu, lowered)
		if plain, err := Run(c.d, src); err != nil || plain.Trace != nil {
			t.Fatalf("%s: the CPU's Run: trace %v, %v", c.name, plain.Trace, err)
		}
		for _, v := range variants {
			what := c.name + "/" + v.Slug()
			o := v.Options
			o.Trace = true
			p, err := Prepare(dev, c.d, o)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			for range 2 {
				r, err := p.Run(src)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if err := sameResult(r, cpu); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if dev.IsHost() != strings.Contains(r.Trace.Algorithm, "host device") {
					t.Fatalf("%s: the trace's Algorithm %q", what, r.Trace.Algorithm)
				}
				if !dev.IsHost() {
					checkLaunches(t, what, p, r)
				} else if len(r.Trace.Launches) != 0 {
					t.Fatalf("%s: the host traced %d launches", what, len(r.Trace.Launches))
				}
				if fake {
					r = untimed(r)
				}
				checkTrace(t, what, c.d, r, lowered)
			}
			q, err := Prepare(dev, c.d, v.Options)
			if err != nil {
				t.Fatal(err)
			}
			if r, err := q.Run(src); err != nil || r.Trace != nil {
				t.Fatalf("%s untraced: trace %v, %v", what, r.Trace, err)
			}
			if more := p.Bytes() - q.Bytes(); dev.IsHost() && more != 0 || !dev.IsHost() && more != 4*int64(c.d.N+1) {
				t.Fatalf("%s: the traced preparation holds %d bytes more than the untraced", what, more)
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if err := q.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// traceCases are the cases checkTraceOn runs on the host and the
// emulator: a variety of small matrices (ties, negative weights, entries
// above InfI32, unreachable parts, a long path).
func traceCases(t *testing.T) []gpuCase {
	var out []gpuCase
	for _, c := range gpuCases(t, true) {
		switch c.name {
		case "single_vertex_i32", "random_n33_f32", "random_n64_i32_ties", "negative_n40_i32", "negative_n44_f32",
			"two_blocks_n30_i32", "odd_entries_n45_i32", "path_24_f32":
			out = append(out, c)
		}
	}
	if len(out) != 8 {
		t.Fatalf("%d trace cases, want 8: gpuCases renamed some", len(out))
	}
	return out
}

// The host device's stand-in traces the CPU iterations it runs.
func TestTraceHost(t *testing.T) {
	checkTraceOn(t, gpu.Host(), traceCases(t), testVariants(false))
}

// checkTraceNegativeCycle: a traced run that finds a negative cycle
// returns the CPU's error and no result (so no trace), and the next
// traced run of the same preparation has the launches of its own only.
func checkTraceNegativeCycle(t *testing.T, dev *gpu.Device, cases []gpuCase) {
	found := 0
	for _, c := range cases {
		for _, v := range SeedVariants() {
			o := v.Options
			o.Trace = true
			p, err := Prepare(dev, c.d, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range c.srcs {
				_, want := Run(c.d, src)
				r, err := p.Run(src)
				if want == nil {
					if err != nil {
						t.Fatalf("%s, %s from %d: %v", c.name, v.Label, src, err)
					}
					if !dev.IsHost() && len(r.Trace.Launches) != r.Iterations+1 {
						t.Fatalf("%s, %s from %d: %d launches traced for %d iterations", c.name, v.Label, src, len(r.Trace.Launches), r.Iterations)
					}
					continue
				}
				found++
				if r != nil || err == nil || err.Error() != want.Error() {
					t.Fatalf("%s, %s from %d: %v, %v; want %v", c.name, v.Label, src, r, err, want)
				}
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if found == 0 {
		t.Fatal("no case had a reachable negative cycle: the test checks nothing")
	}
}

func TestTraceHostNegativeCycle(t *testing.T) {
	checkTraceNegativeCycle(t, gpu.Host(), plantedCycles(t, 6, 12))
}

func TestBytesPerIteration(t *testing.T) {
	for _, c := range []struct {
		n    int
		want int64
	}{{-1, 0}, {0, 0}, {1, 12}, {7, 4*49 + 8*7}, {8192, 4*8192*8192 + 8*8192}, {1 << 20, 4<<40 + 8<<20}} {
		for _, v := range testVariants(true) {
			if got := BytesPerIteration(c.n, v.Options); got != c.want {
				t.Errorf("BytesPerIteration(%d, %s) = %d, want %d", c.n, v.Label, got, c.want)
			}
		}
	}
}

// TestGPUTrace traces every variant on the GPU tests' cases (full
// trace.Check: the steps' times are their launches'), and logs the
// per-iteration times and achieved bandwidth
// (BytesPerIteration ÷ step time) of the study's three kernels at N =
// 8192.
func TestGPUTrace(t *testing.T) {
	dev := gpuDevice(t)
	var cases []gpuCase
	for _, c := range gpuCases(t, false) {
		switch c.name {
		case "random_n100_i32", "random_n257_f32", "random_n1024_i32_ties", "negative_n300_i32", "two_blocks_n301_i32",
			"odd_entries_n45_i32", "rmat_s10_f32", "path_300_f32":
			cases = append(cases, c)
		}
	}
	checkTraceOn(t, dev, cases, testVariants(true))
	checkTraceNegativeCycle(t, dev, plantedCycles(t, 10, 200))
	info, err := dev.Info()
	if err != nil {
		t.Fatal(err)
	}
	const n = 8192
	d := mustRandom(t, n, 0.1, 100, n, false)
	cpu, err := run(d, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range SeedVariants() {
		o := v.Options
		o.Trace = true
		p, err := Prepare(dev, d, o)
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Run(1)
		if err == nil {
			r, err = p.Run(1) // warm
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Check(r); err != nil {
			t.Fatal(err)
		}
		checkTrace(t, v.Label, d, r, stepsLowered(cpu))
		checkLaunches(t, v.Label, p, r)
		times := make([]time.Duration, len(r.Trace.Steps))
		for i, s := range r.Trace.Steps {
			times[i] = s.Time
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		bytes := float64(BytesPerIteration(n, p.Options()))
		med := times[len(times)/2]
		bw := bytes / med.Seconds()
		t.Logf("%s on %s, n = %d float32: %d iterations, run %v, steps %v; per iteration min %v median %v max %v; "+
			"%.1f MB per iteration: median %.0f GB/s = %.1f%% of the peak %.0f GB/s",
			p.algorithm(), dev.Name(), n, r.Iterations, r.Time.Round(time.Microsecond), r.Trace.StepTime().Round(time.Microsecond),
			times[0].Round(time.Microsecond), med.Round(time.Microsecond), times[len(times)-1].Round(time.Microsecond),
			bytes/1e6, bw/1e9, 100*bw/info.PeakBandwidth, info.PeakBandwidth/1e9)
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// stepsLowered returns the Updated counts of r's trace.
func stepsLowered(r *Result) []int64 {
	out := make([]int64, len(r.Trace.Steps))
	for i, s := range r.Trace.Steps {
		out[i] = s.Updated
	}
	return out
}
