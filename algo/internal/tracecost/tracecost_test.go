package tracecost

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/trace"
)

// TestMeasure runs Measure on a fake algorithm whose traced runs take 3%
// longer: the reported means and cost must say so, each root must run
// both ways every round, in alternating order.
func TestMeasure(t *testing.T) {
	var order []bool
	calls := map[[2]int]int{}
	res := testing.Benchmark(func(b *testing.B) {
		order, calls = nil, map[[2]int]int{}
		Measure(b, 3, "run", func(i int, traced bool) (time.Duration, error) {
			order = append(order, traced)
			k := 0
			if traced {
				k = 1
			}
			calls[[2]int{i, k}]++
			if traced {
				return 103 * time.Millisecond, nil
			}
			return 100 * time.Millisecond, nil
		})
	})
	if got := res.Extra["ms-off/run"]; math.Abs(got-100) > 1e-9 {
		t.Errorf("ms-off/run %v, want 100", got)
	}
	if got := res.Extra["ms-on/run"]; math.Abs(got-103) > 1e-9 {
		t.Errorf("ms-on/run %v, want 103", got)
	}
	if got := res.Extra["cost-%"]; math.Abs(got-3) > 1e-9 {
		t.Errorf("cost-%% %v, want 3", got)
	}
	if got := res.Extra["cost-median-%"]; math.Abs(got-3) > 1e-9 {
		t.Errorf("cost-median-%% %v, want 3", got)
	}
	for i := range 3 {
		if calls[[2]int{i, 0}] != res.N || calls[[2]int{i, 1}] != res.N {
			t.Errorf("root %d ran %d untraced and %d traced in %d rounds", i, calls[[2]int{i, 0}], calls[[2]int{i, 1}], res.N)
		}
	}
	if len(order) < 4 || order[0] == order[2] || order[0] == order[1] {
		t.Errorf("the order does not alternate: %v", order[:min(len(order), 6)])
	}
}

// TestMeasureMedian: every tenth traced run stalls ten times over; the
// mean's cost shows it, the median's is the typical pair's.
func TestMeasureMedian(t *testing.T) {
	res := testing.Benchmark(func(b *testing.B) {
		traced := 0
		Measure(b, 5, "run", func(i int, on bool) (time.Duration, error) {
			if !on {
				return 100 * time.Millisecond, nil
			}
			traced++
			if traced%10 == 0 {
				return time.Second, nil
			}
			return 101 * time.Millisecond, nil
		})
	})
	if got := res.Extra["cost-median-%"]; math.Abs(got-1) > 1e-9 {
		t.Errorf("cost-median-%% %v, want 1", got)
	}
	if got := res.Extra["cost-%"]; got < 10 {
		t.Errorf("cost-%% %v: the stall is not in the mean", got)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{nil, 1}, {[]float64{3}, 3}, {[]float64{4, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

// TestMeasureError stops at the first error.
func TestMeasureError(t *testing.T) {
	var failed bool
	var ran int
	res := testing.Benchmark(func(b *testing.B) {
		defer func() { failed = b.Failed() }()
		Measure(b, 2, "run", func(i int, traced bool) (time.Duration, error) {
			ran++
			return 0, errors.New("boom")
		})
	})
	if !failed || ran != 1 || len(res.Extra) != 0 {
		t.Errorf("failed %v after %d runs, metrics %v", failed, ran, res.Extra)
	}
}

// TestChecked: a run whose trace follows traced passes its time on; a
// trace untraced, or none traced, is an error; a run's error passes.
func TestChecked(t *testing.T) {
	tr := &trace.Trace{Algorithm: "x"}
	run := Checked(t, true, func(i int, traced bool) (time.Duration, *trace.Trace, error) {
		switch {
		case i == 2:
			return 0, nil, errors.New("boom")
		case (i == 1) == traced: // root 1 gets it backwards
			return time.Millisecond, nil, nil
		}
		if traced {
			return 2 * time.Millisecond, tr, nil
		}
		return time.Millisecond, nil, nil
	})
	if d, err := run(0, false); d != time.Millisecond || err != nil {
		t.Errorf("root 0 untraced: %v, %v", d, err)
	}
	if d, err := run(0, true); d != 2*time.Millisecond || err != nil {
		t.Errorf("root 0 traced: %v, %v", d, err)
	}
	if _, err := run(1, true); err == nil || !strings.Contains(err.Error(), "traced true but trace") {
		t.Errorf("root 1 traced without a trace: %v", err)
	}
	if _, err := run(2, false); err == nil || err.Error() != "boom" {
		t.Errorf("root 2: %v", err)
	}
}

// TestForms: the A/A control is there with GRAPHNB_BENCH_AA=1 only, and
// runs untraced what Measure asks traced.
func TestForms(t *testing.T) {
	t.Setenv(AAEnv, "")
	if got := Forms(); len(got) != 1 || got[0] != "" {
		t.Errorf("Forms() = %q without %s, want [\"\"]", got, AAEnv)
	}
	t.Setenv(AAEnv, "1")
	got := Forms()
	if len(got) != 2 || got[0] != "" || got[1] != aaForm {
		t.Fatalf("Forms() = %q with %s=1, want [\"\" %q]", got, AAEnv, aaForm)
	}
	run := func(i int, traced bool) (time.Duration, error) {
		if traced {
			return 2 * time.Millisecond, nil
		}
		return time.Millisecond, nil
	}
	for _, c := range []struct {
		form string
		want time.Duration
	}{{"", 2 * time.Millisecond}, {aaForm, time.Millisecond}} {
		if d, err := As(c.form, run)(0, true); d != c.want || err != nil {
			t.Errorf("As(%q) traced: %v, %v; want %v", c.form, d, err, c.want)
		}
	}
}

// TestMeasureForm: the traced runs' steps are counted, and the A/A form
// runs nothing traced (so reports no steps).
func TestMeasureForm(t *testing.T) {
	tr := &trace.Trace{Steps: make([]trace.Step, 3)}
	run := func(i int, traced bool) (time.Duration, *trace.Trace, error) {
		if traced {
			return 2 * time.Millisecond, tr, nil
		}
		return time.Millisecond, nil, nil
	}
	for _, c := range []struct {
		form      string
		cost      float64
		withSteps bool
	}{{"", 100, true}, {aaForm, 0, false}} {
		res := testing.Benchmark(func(b *testing.B) { MeasureForm(b, c.form, 2, "run", "rounds", run) })
		steps, ok := res.Extra["rounds"]
		if got := res.Extra["cost-median-%"]; math.Abs(got-c.cost) > 1e-9 || ok != c.withSteps || ok && steps != 3 {
			t.Errorf("form %q: cost-median-%% %v, rounds %v (%v); want %v, 3 (%v)", c.form, got, steps, ok, c.cost, c.withSteps)
		}
	}
}

// TestWall: the walls a fake run reports land in the half Measure asks
// for, their means and cost reported under the documented names; the
// runs' own times are Measure's, apart.
func TestWall(t *testing.T) {
	var wall Wall
	res := testing.Benchmark(func(b *testing.B) {
		wall = Wall{}
		Measure(b, 3, "run", wall.Track(func(i int, traced bool) (time.Duration, error) {
			if traced {
				wall.Add(12 * time.Millisecond)
				return 10 * time.Millisecond, nil
			}
			wall.Add(8 * time.Millisecond)
			return 9 * time.Millisecond, nil
		}))
		wall.Report(b)
	})
	for name, want := range map[string]float64{"wall_ms": 8, "wall_ms_traced": 12, "wall-cost-%": 50, "wall-cost-median-%": 50, "ms-off/run": 9, "ms-on/run": 10} {
		if got, ok := res.Extra[name]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s %v (reported %v), want %v", name, got, ok, want)
		}
	}
	if wall.n[0] != 3*res.N || wall.n[1] != 3*res.N {
		t.Errorf("%d untraced and %d traced walls in %d rounds of 3 roots", wall.n[0], wall.n[1], res.N)
	}
}

// TestWallMedian: one stalled traced run moves the mean cost, not the
// median over the pairs.
func TestWallMedian(t *testing.T) {
	res := testing.Benchmark(func(b *testing.B) {
		var wall Wall
		Measure(b, 5, "run", wall.Track(func(i int, traced bool) (time.Duration, error) {
			d := 10 * time.Millisecond
			if traced && i == 4 {
				d = 60 * time.Millisecond // a stall
			} else if traced {
				d = 11 * time.Millisecond
			}
			wall.Add(d)
			return d, nil
		}))
		wall.Report(b)
	})
	mean := 100 * (float64(4*11+60)/5/10 - 1)
	for name, want := range map[string]float64{"wall-cost-%": mean, "wall-cost-median-%": 10} {
		if got, ok := res.Extra[name]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s %v (reported %v), want %v", name, got, ok, want)
		}
	}
}

// TestWallAA: under the A/A control both halves run untraced, and both
// wall figures are the untraced runs', their cost zero.
func TestWallAA(t *testing.T) {
	res := testing.Benchmark(func(b *testing.B) {
		var wall Wall
		Measure(b, 2, "run", wall.Track(As(aaForm, func(i int, traced bool) (time.Duration, error) {
			d := 5 * time.Millisecond
			if traced {
				d = 7 * time.Millisecond
			}
			wall.Add(d)
			return d, nil
		})))
		wall.Report(b)
	})
	for name, want := range map[string]float64{"wall_ms": 5, "wall_ms_traced": 5, "wall-cost-%": 0, "wall-cost-median-%": 0} {
		if got, ok := res.Extra[name]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s %v (reported %v), want %v", name, got, ok, want)
		}
	}
}

// TestWallReport reports nothing until both halves have a run, and no
// cost over an untraced mean of zero.
func TestWallReport(t *testing.T) {
	for _, c := range []struct {
		name  string
		wall  Wall
		names []string
	}{
		{"empty", Wall{}, nil},
		{"untraced only", Wall{sum: [2]time.Duration{time.Millisecond, 0}, n: [2]int{1, 0}}, nil},
		{"zero untraced", Wall{sum: [2]time.Duration{0, time.Millisecond}, n: [2]int{1, 1}}, []string{"wall_ms", "wall_ms_traced"}},
	} {
		res := testing.Benchmark(func(b *testing.B) { c.wall.Report(b) })
		if len(res.Extra) != len(c.names) {
			t.Errorf("%s: metrics %v, want %q", c.name, res.Extra, c.names)
		}
		for _, m := range c.names {
			if _, ok := res.Extra[m]; !ok {
				t.Errorf("%s: no %s in %v", c.name, m, res.Extra)
			}
		}
	}
}

// TestWallAddOutside: Add outside a tracked run panics, naming Track.
func TestWallAddOutside(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "Wall.Track") {
			t.Errorf("Add outside Track: recovered %v, want a panic naming Wall.Track", r)
		}
	}()
	var w Wall
	_, _ = w.Track(func(int, bool) (time.Duration, error) { return 0, nil })(0, true)
	w.Add(time.Millisecond)
}

// recorder is a testing.TB that records Errorf and Fatal; Fatal panics
// (recovered by the test) as t.Fatal would end the test.
type recorder struct {
	testing.TB
	errs []string
}

type fatal struct{}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatal(args ...any) {
	r.errs = append(r.errs, fmt.Sprint(args...))
	panic(fatal{})
}

// TestCheckBench: a benchmark that reports its metrics passes; a missing
// metric is named; a failed benchmark fails the test.
func TestCheckBench(t *testing.T) {
	report := func(b *testing.B) {
		var w Wall
		Measure(b, 1, "run", w.Track(func(int, bool) (time.Duration, error) {
			w.Add(time.Millisecond)
			return time.Millisecond, nil
		}))
		w.Report(b)
	}
	for _, c := range []struct {
		name    string
		bench   func(*testing.B)
		metrics []string
		want    string // in the one error; "" for none
	}{
		{"all there", report, append([]string{"ms-off/run", "cost-%"}, WallMetrics...), ""},
		{"missing", report, []string{"wall_ms", "iters"}, "reports no iters"},
		{"failed", func(b *testing.B) { b.Fatal("boom") }, nil, "the benchmark failed"},
	} {
		r := &recorder{TB: t}
		func() {
			defer func() {
				if p := recover(); p != nil && p != (fatal{}) {
					panic(p)
				}
			}()
			CheckBench(r, c.bench, c.metrics...)
		}()
		if c.want == "" && len(r.errs) != 0 || c.want != "" && (len(r.errs) != 1 || !strings.Contains(r.errs[0], c.want)) {
			t.Errorf("%s: errors %q, want one with %q", c.name, r.errs, c.want)
		}
	}
}
