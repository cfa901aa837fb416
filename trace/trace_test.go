package trace

import (
	"math"
	"strings"
	"testing"
	"time"
)

func sample() *Trace {
	return &Trace{Algorithm: "bfs", Arcs: 100, Time: 10 * time.Millisecond,
		Steps: []Step{
			{Kind: "top-down", Frontier: 1, FrontierArcs: 4, Inspected: 4, Updated: 4, Time: 2 * time.Millisecond},
			{Kind: "bottom-up", Frontier: 4, FrontierArcs: 60, Inspected: 30, Updated: 10, Time: 5 * time.Millisecond, Why: "m_f > m_u/α"},
		},
		Launches: []Launch{
			{Name: "init", Step: -1, Time: time.Millisecond},
			{Name: "td", Step: 0, Time: 2 * time.Millisecond},
			{Name: "bu", Step: 1, Time: 3 * time.Millisecond},
			{Name: "bu2", Step: 1, Time: 2 * time.Millisecond},
		}}
}

// A consistent trace passes Check and sums its steps; each kind of
// contradiction fails it with words that say which.
func TestCheck(t *testing.T) {
	tr := sample()
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	if tr.Inspected() != 34 || tr.StepTime() != 7*time.Millisecond || tr.WorkEfficiency() != 0.34 {
		t.Fatalf("inspected %d, step time %v, efficiency %g", tr.Inspected(), tr.StepTime(), tr.WorkEfficiency())
	}
	if s := tr.String(); !strings.Contains(s, "bottom-up") || !strings.Contains(s, "m_f > m_u/α") || !strings.Contains(s, "4 launches") {
		t.Fatalf("String:\n%s", s)
	}
	cases := []struct {
		name  string
		spoil func(*Trace)
		want  string
	}{
		{"negative count", func(t *Trace) { t.Steps[1].Inspected = -1 }, "step 1 is malformed"},
		{"no kind", func(t *Trace) { t.Steps[0].Kind = "" }, "step 0 is malformed"},
		{"communication longer than the step", func(t *Trace) { t.Steps[1].Comm = t.Steps[1].Time + time.Millisecond }, "step 1 is malformed"},
		{"launch outside the steps", func(t *Trace) { t.Launches[3].Step = 2 }, "launch 3 is malformed"},
		{"launches out of order", func(t *Trace) {
			t.Launches[2].Step, t.Launches[1].Step = 1, 1
			t.Launches[1].Step = 1
			t.Launches[2].Step = 0
		}, "after a launch of step 1"},
		{"steps longer than the run", func(t *Trace) { t.Time = 6 * time.Millisecond; t.Launches = nil }, "more than the run's"},
		{"launches longer than the run", func(t *Trace) { t.Launches[0].Time = 5 * time.Millisecond }, "the launches take"},
		{"step not its launches", func(t *Trace) { t.Steps[1].Time = 4 * time.Millisecond }, "step 1 takes 4ms but its launches 5ms"},
		{"negative launch count", func(t *Trace) { t.Launches[2].Count = -1 }, "launch 2 is malformed"},
	}
	for _, c := range cases {
		tr := sample()
		c.spoil(tr)
		if err := tr.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	var none *Trace
	if none.Check() == nil || none.String() != "no trace" {
		t.Fatal("a nil trace")
	}
	if e := (&Trace{}).WorkEfficiency(); !math.IsNaN(e) {
		t.Fatalf("efficiency without arcs: %g", e)
	}
}

// An entry with a Count stands for that many launches: LaunchCount and
// String count them, Bandwidth stays the entry's Bytes ÷ Time, and a
// Count of 0 or 1 is one launch.
func TestLaunchCount(t *testing.T) {
	tr := sample()
	if tr.LaunchCount() != 4 || tr.Launches[1].Launched() != 1 {
		t.Fatalf("uncounted: %d launches, entry 1 stands for %d", tr.LaunchCount(), tr.Launches[1].Launched())
	}
	tr.Launches[1].Count = 1
	tr.Launches[2].Count, tr.Launches[2].Bytes = 31, 3e6
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	if n := tr.LaunchCount(); n != 34 || tr.Launches[1].Launched() != 1 || tr.Launches[2].Launched() != 31 {
		t.Fatalf("counted: %d launches, entries 1 and 2 stand for %d and %d", n, tr.Launches[1].Launched(), tr.Launches[2].Launched())
	}
	if bw := tr.Launches[2].Bandwidth(); bw != 1e9 {
		t.Fatalf("an entry of 31 launches moving 3 MB in 3 ms: %g B/s, want 1e9", bw)
	}
	if s := tr.String(); !strings.Contains(s, "34 launches in 4 entries") {
		t.Fatalf("String:\n%s", s)
	}
}

// FromLaunches gives each step its launches' time; set-up launches count
// in no step.
func TestFromLaunches(t *testing.T) {
	steps := []Step{{Kind: "a"}, {Kind: "b"}}
	launches := []Launch{{Name: "init", Step: -1, Time: time.Millisecond}, {Name: "x", Step: 0, Time: 2 * time.Millisecond},
		{Name: "y", Step: 1, Time: 3 * time.Millisecond}, {Name: "z", Step: 1, Time: time.Millisecond}}
	tr := FromLaunches("gpu", 10, 9*time.Millisecond, steps, launches)
	if tr.Steps[0].Time != 2*time.Millisecond || tr.Steps[1].Time != 4*time.Millisecond || tr.Check() != nil || tr.Arcs != 10 {
		t.Fatalf("%+v: %v", tr.Steps, tr.Check())
	}
}

// Untimed keeps the work and the run's time, drops the rest of the
// times, and leaves the original alone.
func TestUntimed(t *testing.T) {
	tr := sample()
	tr.Steps[1].HostTime = time.Millisecond
	tr.Steps[1].Comm = time.Microsecond
	u := tr.Untimed()
	if u.Time != tr.Time || len(u.Launches) != 0 || u.StepTime() != 0 || u.Steps[1].HostTime != 0 || u.Steps[1].Comm != 0 || u.Inspected() != tr.Inspected() || u.Check() != nil {
		t.Fatalf("untimed %+v", u)
	}
	if tr.Steps[1].Time == 0 || tr.Steps[1].HostTime == 0 || len(tr.Launches) == 0 {
		t.Fatal("Untimed changed its trace")
	}
}
