// Package tracecost measures what a trace costs a run (issue 17's bound:
// at most 2% when on). A benchmark gives Measure a function that runs
// the algorithm from one root, traced or not, and returns the run's own
// time (its Result.Time); Measure runs both forms root after root, in
// alternating order, so that the device's drift between two separate
// benchmarks (a few percent on a GPU over seconds) falls on both alike.
// Beside it, a Wall sums the wall time of each run (what a user waits
// for: a traced GPU run also reads its launch log back) by the same
// halves.
package tracecost

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/graphnb/graphnb/trace"
)

// Run runs the algorithm from root number i, traced or not, and returns
// the run's time.
type Run func(i int, traced bool) (time.Duration, error)

// Measure runs b.N rounds; each round runs every root i in [0, roots)
// untraced and traced, the order swapped from one root to the next. It
// reports the mean run time of each form in milliseconds,
// "ms-off/"+unit and "ms-on/"+unit (unit names a run: "bfs", "sssp"),
// and the trace's cost two ways: "cost-%", 100·(on ÷ off − 1) of the
// means, and "cost-median-%", the median over the pairs (one root, one
// round) of 100·(on ÷ off − 1). The mean counts every stall; the median
// is what a typical run pays, unmoved by the few runs a host hiccup
// stretches by tens of microseconds (on a GPU search of 0.3 ms they move
// the mean by ±3% between two identical forms, measured). It fails b on
// the first error.
func Measure(b *testing.B, roots int, unit string, run Run) {
	b.Helper()
	var off, on time.Duration
	var ratios []float64
	for n := 0; n < b.N; n++ {
		for i := range roots {
			var pair [2]time.Duration // untraced, traced
			for k := range 2 {
				traced := (i+n+k)%2 == 1
				d, err := run(i, traced)
				if err != nil {
					b.Fatal(err)
				}
				if traced {
					pair[1] = d
				} else {
					pair[0] = d
				}
			}
			off += pair[0]
			on += pair[1]
			if pair[0] > 0 {
				ratios = append(ratios, float64(pair[1])/float64(pair[0]))
			}
		}
	}
	runs := b.N * roots
	if runs == 0 || off <= 0 {
		return
	}
	b.ReportMetric(off.Seconds()/float64(runs)*1e3, "ms-off/"+unit)
	b.ReportMetric(on.Seconds()/float64(runs)*1e3, "ms-on/"+unit)
	b.ReportMetric(100*(float64(on)/float64(off)-1), "cost-%")
	b.ReportMetric(100*(median(ratios)-1), "cost-median-%")
}

// TracedRun runs the algorithm from root number i, traced or not, and
// returns the run's time and its trace (nil untraced).
type TracedRun func(i int, traced bool) (time.Duration, *trace.Trace, error)

// Checked makes a Run of run that fails when a run's trace does not
// follow traced (a trace untraced, none traced) and, with logFirst, logs
// the first traced run's trace on b (go test -v).
func Checked(b testing.TB, logFirst bool, run TracedRun) Run {
	logged := !logFirst
	return func(i int, traced bool) (time.Duration, error) {
		d, tr, err := run(i, traced)
		if err == nil && (tr != nil) != traced {
			err = fmt.Errorf("traced %v but trace %v", traced, tr)
		}
		if err != nil {
			return 0, err
		}
		if traced && !logged {
			b.Log(tr)
			logged = true
		}
		return d, nil
	}
}

// AAEnv is the environment variable that, set to 1, adds an A/A control
// to the benchmarks that measure with Forms.
const AAEnv = "GRAPHNB_BENCH_AA"

// aaForm is the suffix of an A/A control's case (see Forms).
const aaForm = "_aa"

// Forms returns the suffixes of a trace-cost benchmark's case names: ""
// (untraced against traced) and, with GRAPHNB_BENCH_AA=1, "_aa": an A/A
// control, untraced against untraced in the same alternation, whose
// cost figures are the machine's noise: the floor below which a trace's
// cost cannot be told on it.
func Forms() []string {
	if os.Getenv(AAEnv) == "1" {
		return []string{"", aaForm}
	}
	return []string{""}
}

// As returns run as the case form (one of Forms) measures it: for "_aa"
// every run untraced, whatever Measure asks; for "" run itself.
func As(form string, run Run) Run {
	if form != aaForm {
		return run
	}
	return func(i int, _ bool) (time.Duration, error) { return run(i, false) }
}

// MeasureForm is Measure for a case of form (one of Forms; see As), each
// run checked by Checked (its first trace logged with go test -v), the
// timer reset first. It also reports the traced runs' mean number of
// steps as the metric named steps ("rounds", "iters").
func MeasureForm(b *testing.B, form string, roots int, unit, steps string, run TracedRun) {
	b.Helper()
	var traced, total int
	b.ResetTimer()
	Measure(b, roots, unit, As(form, Checked(b, testing.Verbose(), func(i int, on bool) (time.Duration, *trace.Trace, error) {
		d, tr, err := run(i, on)
		if err == nil && tr != nil {
			traced++
			total += len(tr.Steps)
		}
		return d, tr, err
	})))
	b.StopTimer()
	if traced > 0 {
		b.ReportMetric(float64(total)/float64(traced), steps)
	}
}

// median returns the median of xs (sorting xs), the mean of the two
// middle values when len(xs) is even; 1 when xs is empty.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 1
	}
	slices.Sort(xs)
	m := len(xs) / 2
	if len(xs)%2 == 0 {
		return (xs[m-1] + xs[m]) / 2
	}
	return xs[m]
}

// Wall sums the wall time of runs, the time a user waits for one, by the
// half of Measure's pairs each run belongs to: untraced or traced. A
// run's wall is what the benchmark times around the algorithm's call
// alone (Prepared.Run: for a traced GPU run, the launches and the reading
// back of the launch log and counts), not the benchmark's validation.
// Its zero value is ready; use it as
//
//	var wall tracecost.Wall
//	tracecost.Measure(b, roots, unit, wall.Track(func(i int, traced bool) (time.Duration, error) {
//		t0 := time.Now()
//		r, err := p.Run(srcs[i])
//		wall.Add(time.Since(t0))
//		…
//	}))
//	wall.Report(b)
//
// Track, not the flag a run gets, names the half: under an A/A control
// (Track(As("_aa", run))) both halves run untraced, and the wall figures
// are the machine's noise, as Measure's are.
type Wall struct {
	sum    [2]time.Duration // the untraced half's walls, the traced half's
	n      [2]int           // their runs
	half   int              // the half of the run in progress (see Track)
	inside bool             // whether a tracked run is in progress
	// pair holds the walls of the pair in progress (Measure runs a
	// pair's two halves one after the other), has which are in; ratios
	// the traced ÷ untraced wall of each pair done.
	pair   [2]time.Duration
	has    [2]bool
	ratios []float64
}

// Track returns run for Measure, each call of which lets run report its
// wall with Add, counted in the half Measure asks for (traced or not),
// whatever run itself does with the flag (see As).
func (w *Wall) Track(run Run) Run {
	return func(i int, traced bool) (time.Duration, error) {
		w.half, w.inside = 0, true
		if traced {
			w.half = 1
		}
		defer func() { w.inside = false }()
		return run(i, traced)
	}
}

// Add adds d, the wall time of one run, to the half of the run in
// progress; a run calls it once. It panics outside a run of Track.
func (w *Wall) Add(d time.Duration) {
	if !w.inside {
		panic("tracecost: Wall.Add outside a run of Wall.Track")
	}
	w.sum[w.half] += d
	w.n[w.half]++
	w.pair[w.half], w.has[w.half] = d, true
	if w.has[0] && w.has[1] {
		if w.pair[0] > 0 {
			w.ratios = append(w.ratios, float64(w.pair[1])/float64(w.pair[0]))
		}
		w.has = [2]bool{}
	}
}

// Report reports each half's mean wall a run in milliseconds, "wall_ms"
// (untraced) and "wall_ms_traced", and the trace's cost to the wall two
// ways, as Measure's: "wall-cost-%", 100·(traced ÷ untraced − 1) of the
// two means, and "wall-cost-median-%", the median over Measure's pairs
// (one root, one round) of 100·(traced ÷ untraced − 1) — a garbage
// collection or a host stall lands on one run of a pair and moves the
// mean, not the median. It reports nothing until both halves have a run
// (a benchmark that failed or ran no round), and no cost where the
// untraced mean is zero.
func (w *Wall) Report(b *testing.B) {
	if w.n[0] == 0 || w.n[1] == 0 {
		return
	}
	var mean [2]float64 // seconds
	for k := range mean {
		mean[k] = w.sum[k].Seconds() / float64(w.n[k])
	}
	b.ReportMetric(mean[0]*1e3, "wall_ms")
	b.ReportMetric(mean[1]*1e3, "wall_ms_traced")
	if mean[0] > 0 {
		b.ReportMetric(100*(mean[1]/mean[0]-1), "wall-cost-%")
		b.ReportMetric(100*(median(slices.Clone(w.ratios))-1), "wall-cost-median-%")
	}
}

// WallMetrics are the names Wall.Report reports.
var WallMetrics = []string{"wall_ms", "wall_ms_traced", "wall-cost-%", "wall-cost-median-%"}

// CheckBench runs bench once as testing.Benchmark does (b.N grown to the
// benchmark time) and fails t when the benchmark failed or reported none
// of a name in metrics; it returns the result for further checks. Tests
// use it to run a GPU benchmark's body on the fake GPU.
func CheckBench(t testing.TB, bench func(*testing.B), metrics ...string) testing.BenchmarkResult {
	t.Helper()
	failed := false
	res := testing.Benchmark(func(b *testing.B) {
		defer func() { failed = failed || b.Failed() }()
		bench(b)
	})
	if failed {
		t.Fatal("the benchmark failed")
	}
	for _, m := range metrics {
		if _, ok := res.Extra[m]; !ok {
			t.Errorf("the benchmark reports no %s (%v)", m, res.Extra)
		}
	}
	return res
}
