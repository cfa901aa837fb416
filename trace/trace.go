// Package trace records what one run of a graph algorithm did, step by
// step: a BFS level, an SSSP iteration or bucket, a Borůvka round, an
// APSP phase. Algorithms fill a Trace when their options ask for one
// (bfs.Options.Trace, …) and leave it nil otherwise; package plots draws
// them (plots.Timeline, plots.WorkEfficiency).
//
// The package has no dependencies beyond the standard library, so that
// the algorithm packages, gpu and plots can all use it.
package trace

import (
	"fmt"
	"strings"
	"time"
)

// Trace is one run's record.
type Trace struct {
	// Algorithm names the implementation, as the run's Result does.
	Algorithm string `json:"algorithm"`
	// Arcs is the input graph's stored arcs, the divisor of work
	// efficiency (Inspected ÷ Arcs).
	Arcs int64 `json:"arcs"`
	// Steps are the run's steps in order.
	Steps []Step `json:"steps"`
	// Launches are the run's kernel launches in order (empty on the CPU).
	Launches []Launch `json:"launches,omitempty"`
	// Time is the run's own time (the Result's Time).
	Time time.Duration `json:"time_ns"`
}

// Step is one step of a run.
type Step struct {
	// Kind says how the step worked: "top-down", "bottom-up", … (the
	// algorithm's doc comment lists its kinds).
	Kind string `json:"kind"`
	// Frontier is the vertices active at the step's start (a BFS level's
	// vertices), FrontierArcs their arcs.
	Frontier     int64 `json:"frontier"`
	FrontierArcs int64 `json:"frontier_arcs"`
	// Inspected is the arcs the step read.
	Inspected int64 `json:"inspected"`
	// Updated is what the step changed: vertices it reached (BFS),
	// relaxations that lowered a distance (SSSP), edges added (MST).
	Updated int64 `json:"updated"`
	// Time is the step's time: on the CPU its wall time, on a GPU the sum
	// of its launches' event times.
	Time time.Duration `json:"time_ns"`
	// HostTime is the time the host spent on the step's work beside the
	// device (the hybrid MST's share of the find-minimum step), not part
	// of Time; 0 when the host had no share.
	HostTime time.Duration `json:"host_ns,omitempty"`
	// Copy is the time of the step's host↔device copies (out-of-core
	// APSP's block transfers) on the copy engines, beside its kernels;
	// Exposed is the part of the step's Time in which the device waited
	// for copies, no kernel running: Copy − Exposed was hidden behind
	// the kernels. Both 0 when the step copied nothing; Exposed is at
	// most Copy and at most Time.
	Copy    time.Duration `json:"copy_ns,omitempty"`
	Exposed time.Duration `json:"exposed_ns,omitempty"`
	// Comm is the part of the step's Time a run over a group of GPUs
	// spent in collectives between them (waiting for the other ranks
	// included); 0 on one device. At most Time.
	Comm time.Duration `json:"comm_ns,omitempty"`
	// Why explains the step's Kind when the algorithm chose it, with the
	// values of the test (the direction switch's α and β terms).
	Why string `json:"why,omitempty"`
}

// Launch is one kernel launch of a traced GPU run.
type Launch struct {
	// Name is the kernel's.
	Name string `json:"name"`
	// Grid and Block are the launch's dimensions.
	Grid  [3]int `json:"grid"`
	Block [3]int `json:"block"`
	// Step is the index of the step it belongs to in Trace.Steps, -1
	// for set-up before the first step.
	Step int `json:"step"`
	// Time is the launch's time between CUDA events recorded around it
	// (or, where the algorithm's Trace doc says so, from the GPU's clock).
	Time time.Duration `json:"time_ns"`
	// Open is true for a launch timed by the GPU's clock from its start
	// to the next logged launch's start (gpu.LaunchLog.LaunchOpen: the
	// kernel stamps no end), so that its Time includes the gap before
	// that launch: the launch latency, and any host work, copy or memset
	// the caller put between them (which an open launch must not have).
	// False for a launch that timed its own end.
	Open bool `json:"open,omitempty"`
	// Bytes is what the launch must move by construction, from its
	// access pattern: the useful bytes of its reads and writes, not the
	// whole sectors they touch (each kernel's model is in its package's
	// Trace doc); 0 when the kernel has no model. Gather is the part of
	// Bytes read by random lookups (an element at a time, at addresses
	// the data decides), which the device's gather ceilings bound rather
	// than its streaming bandwidth.
	Bytes  int64 `json:"bytes,omitempty"`
	Gather int64 `json:"gather_bytes,omitempty"`
	// Count is the back-to-back launches of this kernel and grid the
	// entry stands for (0 or 1: one). A traced run may log one entry
	// for a run of identical launches (APSP's plain kernel: one entry a
	// k-block, the launches after its first unlogged), its Time and
	// Bytes then theirs together (Bandwidth stays Bytes ÷ Time);
	// Launched reads it.
	Count int `json:"count,omitempty"`
}

// Launched is the launches the entry stands for: Count, or 1 when Count
// is 0.
func (l Launch) Launched() int { return max(l.Count, 1) }

// Bandwidth is the launch's achieved bandwidth, Bytes ÷ Time in bytes per
// second; 0 without a model or a time.
func (l Launch) Bandwidth() float64 {
	if l.Bytes <= 0 || l.Time <= 0 {
		return 0
	}
	return float64(l.Bytes) / l.Time.Seconds()
}

// LaunchCount is the run's kernel launches: its Launches' Launched
// summed (an entry may stand for several launches; see Launch.Count).
func (t *Trace) LaunchCount() int {
	var n int
	for _, l := range t.Launches {
		n += l.Launched()
	}
	return n
}

// FromLaunches assembles a GPU run's trace: each step's Time becomes the
// sum of its launches' times (launches of step -1, the set-up, count in
// no step).
func FromLaunches(algorithm string, arcs int64, runTime time.Duration, steps []Step, launches []Launch) *Trace {
	for _, l := range launches {
		if l.Step >= 0 && l.Step < len(steps) {
			steps[l.Step].Time += l.Time
		}
	}
	return &Trace{Algorithm: algorithm, Arcs: arcs, Steps: steps, Launches: launches, Time: runTime}
}

// Untimed returns a copy of t whose steps take no time (Time and
// HostTime, Copy, Exposed, Comm 0) and that has no launches, the run's Time kept: what two
// runs share when only their work is compared, or what a test checks of
// a run whose times are not real (the fake CUDA driver's events all
// measure 2.5 ms apart).
func (t *Trace) Untimed() *Trace {
	u := *t
	u.Steps = make([]Step, len(t.Steps))
	for i, s := range t.Steps {
		s.Time, s.HostTime, s.Copy, s.Exposed, s.Comm = 0, 0, 0, 0, 0
		u.Steps[i] = s
	}
	u.Launches = nil
	return &u
}

// Inspected sums the arcs every step read.
func (t *Trace) Inspected() int64 {
	var s int64
	for _, st := range t.Steps {
		s += st.Inspected
	}
	return s
}

// StepTime sums the steps' times.
func (t *Trace) StepTime() time.Duration {
	var s time.Duration
	for _, st := range t.Steps {
		s += st.Time
	}
	return s
}

// WorkEfficiency is Inspected ÷ Arcs: 1 when the run read every arc
// once, less when it skipped arcs (a bottom-up step stops at the first
// parent), more when it read some twice. NaN without arcs.
func (t *Trace) WorkEfficiency() float64 {
	return float64(t.Inspected()) / float64(t.Arcs)
}

// Check reports a trace that contradicts itself: a step with negative
// counts or time, a launch outside the steps, steps or launches that
// take longer than the run, a step whose time is not its launches' sum.
// Tests call it on every trace; a nil trace is an error.
func (t *Trace) Check() error {
	if t == nil {
		return fmt.Errorf("trace: no trace")
	}
	for i, s := range t.Steps {
		if s.Frontier < 0 || s.FrontierArcs < 0 || s.Inspected < 0 || s.Updated < 0 || s.Time < 0 || s.HostTime < 0 || s.Kind == "" ||
			s.Copy < 0 || s.Exposed < 0 || s.Exposed > s.Copy || s.Exposed > s.Time+time.Microsecond ||
			s.Comm < 0 || s.Comm > s.Time+time.Microsecond {
			return fmt.Errorf("trace: step %d is malformed: %+v", i, s)
		}
	}
	var launchTime time.Duration
	perStep := make([]time.Duration, len(t.Steps))
	for i, l := range t.Launches {
		if l.Step < -1 || l.Step >= len(t.Steps) || l.Time < 0 || l.Name == "" || l.Bytes < 0 || l.Gather < 0 || l.Gather > l.Bytes || l.Count < 0 {
			return fmt.Errorf("trace: launch %d is malformed: %+v", i, l)
		}
		if i > 0 && l.Step < t.Launches[i-1].Step {
			return fmt.Errorf("trace: launch %d (%s) belongs to step %d, after a launch of step %d", i, l.Name, l.Step, t.Launches[i-1].Step)
		}
		launchTime += l.Time
		if l.Step >= 0 {
			perStep[l.Step] += l.Time
		}
	}
	// Event and clock times are rounded differently: allow 1 µs a step.
	slack := time.Duration(len(t.Steps)+len(t.Launches)+1) * time.Microsecond
	if st := t.StepTime(); st > t.Time+slack {
		return fmt.Errorf("trace: the steps take %v, more than the run's %v", st, t.Time)
	}
	if launchTime > t.Time+slack {
		return fmt.Errorf("trace: the launches take %v, more than the run's %v", launchTime, t.Time)
	}
	if len(t.Launches) > 0 {
		for i, s := range t.Steps {
			if d := s.Time - perStep[i]; d > time.Microsecond || d < -time.Microsecond {
				return fmt.Errorf("trace: step %d takes %v but its launches %v", i, s.Time, perStep[i])
			}
		}
	}
	return nil
}

// String renders the trace as a table: one line per step.
func (t *Trace) String() string {
	if t == nil {
		return "no trace"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d steps, %v, %d of %d arcs inspected (%.2f)", t.Algorithm, len(t.Steps), t.Time, t.Inspected(), t.Arcs, t.WorkEfficiency())
	if n := t.LaunchCount(); n != len(t.Launches) {
		fmt.Fprintf(&b, ", %d launches in %d entries", n, len(t.Launches))
	} else if n > 0 {
		fmt.Fprintf(&b, ", %d launches", n)
	}
	b.WriteString("\nstep  kind        frontier  frontier arcs   inspected     updated        time  why\n")
	for i, s := range t.Steps {
		fmt.Fprintf(&b, "%4d  %-10s %9d %14d %11d %11d %11v  %s\n", i, s.Kind, s.Frontier, s.FrontierArcs, s.Inspected, s.Updated, s.Time.Round(time.Microsecond), s.Why)
	}
	return b.String()
}
