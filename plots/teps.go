package plots

import (
	"fmt"
	"math"
	"slices"

	"github.com/graphnb/graphnb/bench"
)

// The charts of bench results: one series per variant, x the vertex
// count on a log2 axis (the studies' "scale"), min–max error bars — the
// figures of docs/studies.md.

// TEPS charts a sweep the studies' way: mean arcs/s (stored arcs / time)
// against the vertex count, one line per variant with min–max bars over
// the roots. The y unit is G arcs/s, or M/k arcs/s when every value is
// below 10⁹/10⁶. The y axis is logarithmic when the means span more than
// two decades (a CPU curve beside GPU ones), linear otherwise. A table without rates (APSP) gives a chart whose Err
// says so; use TimeVsN. So does a nil table, here and in every chart of
// a table (TEPSGraph500, Speedup, TimeVsN, Bars): the chart shows the
// error in place of the image.
func TEPS(t *bench.Table) *Chart {
	return rateChart(t, "arcs/s", "mean, min–max", func(r bench.Row) (float64, float64, float64) {
		return r.MeanArcsPerSecond, r.MinArcsPerSecond, r.MaxArcsPerSecond
	})
}

// TEPSGraph500 charts a sweep in the Graph500 convention: the harmonic
// mean of the TEPS (edges of the traversed component / time) against the
// vertex count, with min–max bars. Units as in TEPS.
func TEPSGraph500(t *bench.Table) *Chart {
	return rateChart(t, "TEPS", "Graph500: harmonic mean, min–max", func(r bench.Row) (float64, float64, float64) {
		return r.HarmonicMeanTEPS, r.MinTEPS, r.MaxTEPS
	})
}

// errNilTable is the error of a chart asked to draw a nil table.
func errNilTable(fn, arg string) error {
	return fmt.Errorf("plots: %s(nil): the %s is nil; pass the table a sweep returned (bench.Sweep.Run, bench.LoadFile)", fn, arg)
}

// rateChart draws one rate convention of t.
func rateChart(t *bench.Table, unit, how string, get func(bench.Row) (mean, lo, hi float64)) *Chart {
	if t == nil {
		c := New("", "vertices", unit)
		c.err = errNilTable(map[string]string{"arcs/s": "TEPS", "TEPS": "TEPSGraph500"}[unit], "*bench.Table")
		return c
	}
	top, bottom := 0.0, math.Inf(1)
	for _, r := range t.Rows {
		m, _, hi := get(r)
		top = math.Max(top, hi)
		if m > 0 {
			bottom = math.Min(bottom, m)
		}
	}
	scale, prefix := siScale(top)
	c := New(t.Meta.Name, "vertices", fmt.Sprintf("%s %s (%s)", prefix, unit, how))
	if prefix == "" {
		c.YLabel = fmt.Sprintf("%s (%s)", unit, how)
	}
	c.Log2X = true
	c.LogY = top > 100*bottom
	if top <= 0 {
		c.err = fmt.Errorf("plots: %q has no %s to chart (a table measured by time only? use TimeVsN)", t.Meta.Name, unit)
		return c
	}
	for _, v := range t.Variants() {
		var x, y, lo, hi []float64
		for _, r := range sortedRows(t, v) {
			m, l, h := get(r)
			if m <= 0 {
				continue
			}
			x = append(x, float64(r.Vertices))
			y, lo, hi = append(y, m/scale), append(lo, l/scale), append(hi, h/scale)
		}
		c.Range(t.Label(v), x, y, lo, hi)
		c.Series[len(c.Series)-1].Key = v
	}
	return c
}

// Speedup charts each variant's speedup over the baseline against the
// vertex count: the mean (ratio of the mean rates) with the spread of the
// per-root ratios as bars (bench.SpeedupRow says how both are computed).
// A speedup table without rows (an unknown baseline) gives a chart whose
// Err says why.
func Speedup(s *bench.SpeedupTable) *Chart {
	if s == nil {
		c := New("", "vertices", "speedup")
		c.err = errNilTable("Speedup", "*bench.SpeedupTable (from Table.Speedup)")
		return c
	}
	c := New(s.Meta.Name, "vertices", fmt.Sprintf("speedup over %s (×, mean, min–max)", s.Label(s.Baseline)))
	c.Log2X = true
	if s.Err != nil {
		c.err = s.Err
		return c
	}
	if len(s.Rows) == 0 {
		c.err = fmt.Errorf("plots: no variant shares a graph with the baseline %q", s.Baseline)
		return c
	}
	var order []string
	for _, r := range s.Rows {
		if !slices.Contains(order, r.Variant) {
			order = append(order, r.Variant)
		}
	}
	for _, v := range order {
		var x, y, lo, hi []float64
		var rows []bench.SpeedupRow
		for _, r := range s.Rows {
			if r.Variant == v {
				rows = append(rows, r)
			}
		}
		slices.SortStableFunc(rows, func(a, b bench.SpeedupRow) int { return a.Vertices - b.Vertices })
		for _, r := range rows {
			x, y, lo, hi = append(x, float64(r.Vertices)), append(y, r.Mean), append(lo, r.Min), append(hi, r.Max)
		}
		c.Range(s.Label(v), x, y, lo, hi)
		c.Series[len(c.Series)-1].Key = v
	}
	return c
}

// TimeVsN charts mean run time in seconds against the vertex count on
// log-log axes, with min–max bars: how APSP (docs/studies.md §4) and dense
// Bellman-Ford (§5) are compared.
func TimeVsN(t *bench.Table) *Chart {
	if t == nil {
		c := New("", "vertices n", "time (s)")
		c.err = errNilTable("TimeVsN", "*bench.Table")
		return c
	}
	c := New(t.Meta.Name, "vertices n", "time (s, mean, min–max)")
	c.Log2X, c.LogY = true, true
	if len(t.Rows) == 0 {
		c.err = fmt.Errorf("plots: %q has no rows to chart", t.Meta.Name)
		return c
	}
	for _, v := range t.Variants() {
		var x, y, lo, hi []float64
		for _, r := range sortedRows(t, v) {
			if r.NumRuns == 0 {
				continue
			}
			x = append(x, float64(r.Vertices))
			y = append(y, r.MeanTime.Seconds())
			lo, hi = append(lo, r.MinTime.Seconds()), append(hi, r.MaxTime.Seconds())
		}
		c.Range(t.Label(v), x, y, lo, hi)
		c.Series[len(c.Series)-1].Key = v
	}
	return c
}

// sortedRows returns the rows of variant v by vertex count.
func sortedRows(t *bench.Table, v string) []bench.Row {
	var rows []bench.Row
	for _, r := range t.Rows {
		if r.Variant == v {
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, func(a, b bench.Row) int { return a.Vertices - b.Vertices })
	return rows
}

// siScale picks the SI prefix that keeps the largest value top readable:
// G from 10⁹ on, M from 10⁶, k from 10³.
func siScale(top float64) (float64, string) {
	switch {
	case top >= 1e9:
		return 1e9, "G"
	case top >= 1e6:
		return 1e6, "M"
	case top >= 1e3:
		return 1e3, "k"
	}
	return 1, ""
}
