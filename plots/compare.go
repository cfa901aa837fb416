package plots

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/graphnb/graphnb/trace"
)

// CompareChart draws the steps of several runs side by side: for each
// step index one bar per run, its time in milliseconds — e.g. the SSSP
// study's kernel with the edge permutation on and off, per-sweep time
// and number of sweeps at a glance. Build it with CompareTraces, then
// show it as a cell's last expression or Save it.
type CompareChart struct {
	Title, XLabel, YLabel string
	// Width and Height are in inches (0: 6 and 4), the legend's column
	// beside the plot not counted.
	Width, Height float64
	// SVGOutput makes the chart render inline as SVG instead of PNG.
	SVGOutput bool
	// Labels name the runs, one per trace; Traces are the runs drawn, read
	// when the chart renders.
	Labels []string
	Traces []*trace.Trace
	err    error
}

// CompareTraces draws the steps of several runs side by side: x the step
// index 0..n−1 (n the most steps of any run), in each step one bar per
// run in the order given, its height the step's time in ms; a run with
// fewer steps has no bar past its last. Each run takes the colour of its
// label in the notebook's other charts (see Style), and the legend gives
// its label, step count and total step time ("cache on: 9 steps, 12.3
// ms"). The title is "step times". No traces, a label count that differs
// from the trace count, two runs with the same label, a nil trace, one
// without steps or a step with a negative time gives a chart whose Err
// says which and which shows that in place of the image.
func CompareTraces(labels []string, traces []*trace.Trace) *CompareChart {
	c := &CompareChart{Title: "step times", XLabel: "step", YLabel: "time (ms)", Labels: labels, Traces: traces}
	c.err = checkCompare(labels, traces)
	return c
}

// checkCompare says why traces cannot be compared under labels.
func checkCompare(labels []string, traces []*trace.Trace) error {
	switch {
	case len(traces) == 0:
		return fmt.Errorf("plots: CompareTraces: no traces to compare; pass one trace per run, with a label each")
	case len(labels) != len(traces):
		return fmt.Errorf("plots: CompareTraces: %d labels for %d traces; pass one label per trace", len(labels), len(traces))
	}
	seen := map[string]int{}
	for i, l := range labels {
		if j, ok := seen[l]; ok {
			return fmt.Errorf("plots: CompareTraces: traces %d and %d are both labelled %q; give each run a label of its own", j, i, l)
		}
		seen[l] = i
	}
	for i, t := range traces {
		switch {
		case t == nil:
			return fmt.Errorf("plots: CompareTraces: trace %d (%q) is nil; pass the Trace of a result run with tracing on (bfs.Options.Trace, …)", i, labels[i])
		case len(t.Steps) == 0:
			return fmt.Errorf("plots: CompareTraces: trace %d (%q) has no steps to chart; pass the Trace of a run that took at least one step", i, labels[i])
		}
		for k, s := range t.Steps {
			if s.Time < 0 {
				return fmt.Errorf("plots: CompareTraces: step %d of trace %d (%q) has a negative time (%v); the trace is malformed (see trace.Trace.Check)", k, i, labels[i], s.Time)
			}
		}
	}
	return nil
}

// Err reports why the chart cannot be drawn, or nil.
func (c *CompareChart) Err() error { return c.err }

// runSummary is a run's legend entry: its label, step count and total
// step time in ms, to 3 significant digits.
func runSummary(label string, t *trace.Trace) string {
	if t == nil {
		return label + ": no trace"
	}
	unit := "steps"
	if len(t.Steps) == 1 {
		unit = "step"
	}
	ms, _ := strconv.ParseFloat(strconv.FormatFloat(float64(t.StepTime())/1e6, 'g', 3, 64), 64)
	return fmt.Sprintf("%s: %d %s, %s ms", label, len(t.Steps), unit, strconv.FormatFloat(ms, 'f', -1, 64))
}

// compareBars is the bars of the runs' steps: a series per run, with a
// value at each of its steps and NaN past its last; and the slowest
// step's time in ms.
func compareBars(labels []string, traces []*trace.Trace) (*groupedBars, float64) {
	n := 0
	for _, t := range traces {
		n = max(n, len(t.Steps))
	}
	bars := &groupedBars{groups: n, style: chartStyles(labels)}
	tMax := 0.0
	for i, t := range traces {
		vals := nanSlice(n)
		for k, s := range t.Steps {
			vals[k] = float64(s.Time) / 1e6
			tMax = math.Max(tMax, vals[k])
		}
		bars.series = append(bars.series, BarSeries{Label: labels[i], Values: vals})
	}
	return bars, tMax
}

// build lays the chart out with gonum/plot.
func (c *CompareChart) build() (*plot.Plot, error) {
	if c.err != nil {
		return nil, c.err
	}
	if err := checkCompare(c.Labels, c.Traces); err != nil {
		return nil, err
	}
	p := newPlot(c.Title, c.XLabel, c.YLabel)
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil // steps are categories
	p.Add(grid)
	bars, tMax := compareBars(c.Labels, c.Traces)
	p.Add(bars)
	for i, t := range c.Traces {
		p.Legend.Add(runSummary(c.Labels[i], t), swatch{styleColor(bars.style[i])})
	}
	if tMax <= 0 {
		tMax = 1 // every step took no measurable time
	}
	p.X.Min, p.X.Max = -0.5, float64(bars.groups)-0.5
	p.Y.Min, p.Y.Max = 0, tMax*1.05
	p.X.Tick.Marker = stepTicks{}
	p.Y.Tick.Marker = plainTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font = goFont(10)
	p.Legend.Padding = vg.Points(2)
	return p, nil
}

// render draws the chart in a format gonum/plot knows.
func (c *CompareChart) render(format string) ([]byte, error) {
	return renderBuilt(c.build, c.Width, c.Height, format)
}

// PNG returns the chart as PNG bytes, or nil when it cannot be drawn (see
// Err).
func (c *CompareChart) PNG() []byte { return output(c.render, "png", &c.err) }

// SVGText returns the chart as an SVG document, or "" when it cannot be
// drawn.
func (c *CompareChart) SVGText() string { return string(output(c.render, "svg", &c.err)) }

// MIMEBundle renders the chart inline: image/png (or image/svg+xml with
// SVGOutput) and a text/plain summary; a chart that cannot be drawn shows
// the reason as text.
func (c *CompareChart) MIMEBundle() map[string]any {
	return bundle(c.String(), c.SVGOutput, c.render, &c.err)
}

// String describes the chart in one line: its title and each run's
// label, step count and total step time, as the legend gives them.
func (c *CompareChart) String() string {
	parts := make([]string, len(c.Traces))
	for i, t := range c.Traces {
		label := "?"
		if i < len(c.Labels) {
			label = c.Labels[i]
		}
		parts[i] = runSummary(label, t)
	}
	if len(parts) == 0 {
		return fmt.Sprintf("step comparison %q: no traces", c.Title)
	}
	return fmt.Sprintf("step comparison %q: %s", c.Title, strings.Join(parts, "; "))
}

// Save writes the chart to path; the extension picks the format (.png,
// .svg, .pdf, …).
func (c *CompareChart) Save(path string) error { return save(path, c.render) }
