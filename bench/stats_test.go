package bench

import (
	"math"
	"testing"
	"time"

	"github.com/graphnb/graphnb/graph"
)

// runsOf makes runs with the given times (ms), arcs/s and Graph500 TEPS.
func runsOf(ms []float64, arcs, g500 []float64) []Run {
	runs := make([]Run, len(ms))
	for i := range ms {
		runs[i] = Run{Root: int32(i), Time: time.Duration(ms[i] * 1e6), Iterations: i + 1,
			TEPS: graph.TEPS{ArcsPerSecond: arcs[i], Graph500: g500[i]}, Validated: i%2 == 0}
	}
	return runs
}

func TestComputeStats(t *testing.T) {
	cases := []struct {
		name string
		runs []Run
		want Stats
	}{
		{"no runs", nil, Stats{}},
		{
			// One run: the spreads are zero, the means the value itself.
			"one run",
			runsOf([]float64{2}, []float64{8}, []float64{4}),
			Stats{NumRuns: 1, NumValidated: 1, MeanTime: 2 * time.Millisecond, MinTime: 2 * time.Millisecond,
				MaxTime: 2 * time.Millisecond, MeanIterations: 1,
				MeanArcsPerSecond: 8, MinArcsPerSecond: 8, MaxArcsPerSecond: 8,
				HarmonicMeanTEPS: 4, MinTEPS: 4, MaxTEPS: 4,
				HarmonicMeanArcsPerSecond: 8, MeanTEPS: 4},
		},
		{
			// arcs/s 1, 2, 4: mean 7/3; deviations -4/3, -1/3, 5/3 give
			// Σ² = 42/9, so sd = √(42/9/2) = √(7/3).
			// TEPS 1, 2, 4: y = 1, 1/2, 1/4, m = 7/12, H = 12/7;
			// deviations 5/12, -1/12, -4/12 give Σ² = 42/144, so
			// s = √(21/144) = √21/12 and the harmonic sd is
			// s/(m²·√2) = (√21/12)·(144/49)/√2 = 12√21/(49√2).
			// The other averages: arcs/s harmonic 12/7; TEPS mean 7/3,
			// sd √(7/3).
			"three runs",
			runsOf([]float64{1, 2, 6}, []float64{1, 2, 4}, []float64{1, 2, 4}),
			Stats{NumRuns: 3, NumValidated: 2, MeanTime: 3 * time.Millisecond, MinTime: time.Millisecond,
				MaxTime: 6 * time.Millisecond, MeanIterations: 2,
				MeanArcsPerSecond: 7.0 / 3, MinArcsPerSecond: 1, MaxArcsPerSecond: 4, StdDevArcsPerSecond: math.Sqrt(7.0 / 3),
				HarmonicMeanTEPS: 12.0 / 7, MinTEPS: 1, MaxTEPS: 4, HarmonicStdDevTEPS: 12 * math.Sqrt(21) / (49 * math.Sqrt2),
				HarmonicMeanArcsPerSecond: 12.0 / 7, MeanTEPS: 7.0 / 3, StdDevTEPS: math.Sqrt(7.0 / 3)},
		},
		{
			// A zero rate (nothing traversed) is left out of its
			// convention; times still count every run.
			"zero rate left out",
			runsOf([]float64{1, 3}, []float64{0, 6}, []float64{5, 0}),
			Stats{NumRuns: 2, NumValidated: 1, MeanTime: 2 * time.Millisecond, MinTime: time.Millisecond,
				MaxTime: 3 * time.Millisecond, MeanIterations: 1.5,
				MeanArcsPerSecond: 6, MinArcsPerSecond: 6, MaxArcsPerSecond: 6,
				HarmonicMeanTEPS: 5, MinTEPS: 5, MaxTEPS: 5,
				HarmonicMeanArcsPerSecond: 6, MeanTEPS: 5},
		},
		{
			"time only",
			runsOf([]float64{4, 4}, []float64{0, 0}, []float64{0, 0}),
			Stats{NumRuns: 2, NumValidated: 1, MeanTime: 4 * time.Millisecond, MinTime: 4 * time.Millisecond,
				MaxTime: 4 * time.Millisecond, MeanIterations: 1.5},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ComputeStats(c.runs)
			near := func(what string, g, w float64) {
				if math.Abs(g-w) > 1e-12*math.Max(1, math.Abs(w)) {
					t.Errorf("%s = %.15g, want %.15g", what, g, w)
				}
			}
			if got.NumRuns != c.want.NumRuns || got.NumValidated != c.want.NumValidated {
				t.Errorf("runs %d/%d validated, want %d/%d", got.NumValidated, got.NumRuns, c.want.NumValidated, c.want.NumRuns)
			}
			if got.MeanTime != c.want.MeanTime || got.MinTime != c.want.MinTime || got.MaxTime != c.want.MaxTime {
				t.Errorf("times %v %v %v, want %v %v %v", got.MeanTime, got.MinTime, got.MaxTime, c.want.MeanTime, c.want.MinTime, c.want.MaxTime)
			}
			near("MeanIterations", got.MeanIterations, c.want.MeanIterations)
			near("MeanArcsPerSecond", got.MeanArcsPerSecond, c.want.MeanArcsPerSecond)
			near("MinArcsPerSecond", got.MinArcsPerSecond, c.want.MinArcsPerSecond)
			near("MaxArcsPerSecond", got.MaxArcsPerSecond, c.want.MaxArcsPerSecond)
			near("StdDevArcsPerSecond", got.StdDevArcsPerSecond, c.want.StdDevArcsPerSecond)
			near("HarmonicMeanTEPS", got.HarmonicMeanTEPS, c.want.HarmonicMeanTEPS)
			near("MinTEPS", got.MinTEPS, c.want.MinTEPS)
			near("MaxTEPS", got.MaxTEPS, c.want.MaxTEPS)
			near("HarmonicStdDevTEPS", got.HarmonicStdDevTEPS, c.want.HarmonicStdDevTEPS)
			near("HarmonicMeanArcsPerSecond", got.HarmonicMeanArcsPerSecond, c.want.HarmonicMeanArcsPerSecond)
			near("MeanTEPS", got.MeanTEPS, c.want.MeanTEPS)
			near("StdDevTEPS", got.StdDevTEPS, c.want.StdDevTEPS)
		})
	}
}

// The harmonic mean is what Graph500 reports: total edges over total
// time when every run traverses the same number of edges.
func TestHarmonicMeanIsTotalRate(t *testing.T) {
	const edges = 1e6
	times := []float64{0.5, 1, 2.5, 4}
	var runs []Run
	var total float64
	for _, s := range times {
		runs = append(runs, Run{Time: time.Duration(s * 1e9), TEPS: graph.Rate(edges, 2*edges, time.Duration(s*1e9))})
		total += s
	}
	st := ComputeStats(runs)
	if want := edges * float64(len(times)) / total; math.Abs(st.HarmonicMeanTEPS-want) > 1e-6*want {
		t.Fatalf("harmonic mean %g, want %g", st.HarmonicMeanTEPS, want)
	}
	if st.MeanArcsPerSecond <= 2*st.HarmonicMeanTEPS {
		t.Fatalf("arithmetic mean of arcs/s %g should exceed twice the harmonic TEPS %g (unequal times)", st.MeanArcsPerSecond, st.HarmonicMeanTEPS)
	}
}
