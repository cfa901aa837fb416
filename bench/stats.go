package bench

import (
	"math"
	"time"
)

// Stats summarises the runs of one variant on one graph, each rate
// convention averaged the way it is defined (README, "Measuring").
type Stats struct {
	// NumRuns is the number of runs; NumValidated how many passed the
	// checker.
	NumRuns      int `json:"num_runs"`
	NumValidated int `json:"num_validated"`

	// MeanTime, MinTime and MaxTime are over the runs' times.
	MeanTime time.Duration `json:"mean_time_ns"`
	MinTime  time.Duration `json:"min_time_ns"`
	MaxTime  time.Duration `json:"max_time_ns"`
	// MeanIterations is the mean of the runs' iteration counts.
	MeanIterations float64 `json:"mean_iterations"`

	// Arcs per second (stored arcs / time, the studies' TEPS): the
	// arithmetic mean, the extremes and the sample standard deviation
	// (n−1 in the denominator; 0 for one run).
	MeanArcsPerSecond   float64 `json:"mean_arcs_per_s"`
	MinArcsPerSecond    float64 `json:"min_arcs_per_s"`
	MaxArcsPerSecond    float64 `json:"max_arcs_per_s"`
	StdDevArcsPerSecond float64 `json:"stddev_arcs_per_s"`

	// Graph500 TEPS (component edges / time): the harmonic mean, the
	// extremes and the harmonic standard deviation as the Graph500
	// reference code prints it (after Norris 1940): with y_i = 1/TEPS_i,
	// m the mean and s the sample standard deviation of the y_i,
	// s / (m² · √(n−1)) (0 for one run).
	HarmonicMeanTEPS   float64 `json:"hmean_teps"`
	MinTEPS            float64 `json:"min_teps"`
	MaxTEPS            float64 `json:"max_teps"`
	HarmonicStdDevTEPS float64 `json:"hstddev_teps"`

	// The other average of each convention, for comparisons across
	// conventions: the harmonic mean of the arcs/s, and the arithmetic
	// mean and sample standard deviation of the Graph500 TEPS.
	HarmonicMeanArcsPerSecond float64 `json:"hmean_arcs_per_s"`
	MeanTEPS                  float64 `json:"mean_teps"`
	StdDevTEPS                float64 `json:"stddev_teps"`
}

// ComputeStats summarises runs. Runs with a zero rate in a convention (no
// edge traversed, a zero time, or an algorithm measured by time only) are
// left out of that convention's statistics, so one bad sample cannot
// turn a harmonic mean into zero; with no positive rate the convention's
// fields are 0. Work is O(len(runs)).
func ComputeStats(runs []Run) Stats {
	s := Stats{NumRuns: len(runs)}
	if len(runs) == 0 {
		return s
	}
	var total time.Duration
	var iters float64
	s.MinTime, s.MaxTime = runs[0].Time, runs[0].Time
	arcs := make([]float64, 0, len(runs))
	g500 := make([]float64, 0, len(runs))
	for _, r := range runs {
		if r.Validated {
			s.NumValidated++
		}
		total += r.Time
		iters += float64(r.Iterations)
		s.MinTime, s.MaxTime = min(s.MinTime, r.Time), max(s.MaxTime, r.Time)
		if x := r.TEPS.ArcsPerSecond; x > 0 && !math.IsInf(x, 0) {
			arcs = append(arcs, x)
		}
		if x := r.TEPS.Graph500; x > 0 && !math.IsInf(x, 0) {
			g500 = append(g500, x)
		}
	}
	n := len(runs)
	s.MeanTime = total / time.Duration(n)
	s.MeanIterations = iters / float64(n)
	if len(arcs) > 0 {
		s.MeanArcsPerSecond, s.StdDevArcsPerSecond = meanStdDev(arcs)
		s.MinArcsPerSecond, s.MaxArcsPerSecond = extremes(arcs)
		s.HarmonicMeanArcsPerSecond, _ = harmonic(arcs)
	}
	if len(g500) > 0 {
		s.HarmonicMeanTEPS, s.HarmonicStdDevTEPS = harmonic(g500)
		s.MinTEPS, s.MaxTEPS = extremes(g500)
		s.MeanTEPS, s.StdDevTEPS = meanStdDev(g500)
	}
	return s
}

// harmonic returns the harmonic mean of positive rates and Graph500's
// harmonic standard deviation: with y_i = 1/x_i, m their mean and s their
// sample standard deviation, s / (m² · √(n−1)) (0 for one value).
func harmonic(x []float64) (mean, sd float64) {
	inv := make([]float64, len(x))
	for i, v := range x {
		inv[i] = 1 / v
	}
	m, s := meanStdDev(inv)
	if k := len(inv); k > 1 {
		sd = s / (m * m * math.Sqrt(float64(k-1)))
	}
	return 1 / m, sd
}

// meanStdDev returns the arithmetic mean and the sample standard
// deviation (0 for fewer than two values).
func meanStdDev(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}

func extremes(x []float64) (lo, hi float64) {
	lo, hi = x[0], x[0]
	for _, v := range x[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}
