package plots

import (
	"fmt"
	"image/color"
	"math"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/graphnb/graphnb/trace"
)

// OverlapChart draws how a run's copies overlapped its kernels, step by
// step (out-of-core APSP's rounds: apsp.Options.Trace): for each step two
// bars side by side, in milliseconds,
//
//   - the step: its time split into compute (Time − Exposed: the
//     kernels ran, or nothing waited on a copy) and the exposed copies
//     (Exposed: the device only copied) on top;
//   - the copy engine: its time on the step's transfers (Copy) split into
//     the copies hidden behind kernels (Copy − Exposed) and the exposed
//     ones on top, in the exposed colour again.
//
// The exposed part is the same time in both bars: what the copies added
// to the step. Build it with Overlap, then show it as a cell's last
// expression or Save it.
type OverlapChart struct {
	Title, XLabel, YLabel string
	// Width and Height are in inches (0: 6 and 4), the legend's column
	// beside the plot not counted.
	Width, Height float64
	// SVGOutput makes the chart render inline as SVG instead of PNG.
	SVGOutput bool
	// Trace is the run drawn; it is read when the chart renders.
	Trace *trace.Trace
	err   error
}

// The legend's names of the three parts.
const (
	overlapCompute = "compute"
	overlapExposed = "copies exposed"
	overlapHidden  = "copies hidden behind kernels"
)

// Overlap charts the copies of a run's steps against its kernels (see
// OverlapChart): x the step index, y milliseconds. The title is the
// trace's Algorithm (wrapped at spaces to the plot's width), the x label
// "round". A trace whose steps copied
// nothing (in core, on the CPU) shows the compute bars alone. A nil
// trace, one without steps, or a step with a negative time or copy, or
// whose Exposed exceeds its Copy or its Time (see trace.Step) gives a
// chart whose Err says so and which shows that in place of the image.
func Overlap(t *trace.Trace) *OverlapChart {
	c := &OverlapChart{XLabel: "round", YLabel: "time (ms)", Trace: t}
	if t != nil {
		c.Title = t.Algorithm
	}
	c.err = checkOverlap(t)
	return c
}

// checkOverlap says why t cannot be drawn as an overlap chart.
func checkOverlap(t *trace.Trace) error {
	if t == nil {
		return fmt.Errorf("plots: Overlap(nil): the *trace.Trace is nil; pass the Trace of a result run with tracing on (apsp.Options.Trace)")
	}
	if len(t.Steps) == 0 {
		return fmt.Errorf("plots: Overlap: the trace of %q has no steps to chart; pass the Trace of a run that took at least one step", t.Algorithm)
	}
	for i, s := range t.Steps {
		if s.Time < 0 || s.Copy < 0 || s.Exposed < 0 || s.Exposed > s.Copy || s.Exposed > s.Time+time.Microsecond {
			return fmt.Errorf("plots: Overlap: step %d of %q has time %v, copies %v and %v exposed: want none negative and Exposed at most Copy and Time (see trace.Trace.Check)",
				i, t.Algorithm, s.Time, s.Copy, s.Exposed)
		}
	}
	return nil
}

// Err reports why the chart cannot be drawn, or nil.
func (c *OverlapChart) Err() error { return c.err }

// Totals sums the steps: their time, their copies and the exposed part
// of the copies (hidden = copies − exposed).
func (c *OverlapChart) Totals() (steps, copies, exposed time.Duration) {
	if c.Trace == nil {
		return 0, 0, 0
	}
	for _, s := range c.Trace.Steps {
		steps += s.Time
		copies += s.Copy
		exposed += s.Exposed
	}
	return steps, copies, exposed
}

// overlapBars is the plotter: per step, the step's bar left of the
// step's x and the copy engine's right of it, in data units.
type overlapBars struct {
	compute, exposed, hidden []float64 // ms per step
	colors                   [3]color.Color
}

// barWidth is each of a step's two bars' share of its width.
const overlapBarWidth = 0.38

func (o *overlapBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	outline := draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: vg.Points(0.5)}
	rect := func(x0, x1, y0, y1 float64, col color.Color) {
		if y1 <= y0 {
			return
		}
		pts := []vg.Point{{X: trX(x0), Y: trY(y0)}, {X: trX(x0), Y: trY(y1)}, {X: trX(x1), Y: trY(y1)}, {X: trX(x1), Y: trY(y0)}}
		c.FillPolygon(col, c.ClipPolygonY(pts))
		c.StrokeLines(outline, c.ClipLinesY(append(pts, pts[0]))...)
	}
	for i := range o.compute {
		x := float64(i)
		// the step: compute, then the exposed copies.
		rect(x-overlapBarWidth-0.01, x-0.01, 0, o.compute[i], o.colors[0])
		rect(x-overlapBarWidth-0.01, x-0.01, o.compute[i], o.compute[i]+o.exposed[i], o.colors[1])
		// the copy engine: hidden, then exposed.
		rect(x+0.01, x+overlapBarWidth+0.01, 0, o.hidden[i], o.colors[2])
		rect(x+0.01, x+overlapBarWidth+0.01, o.hidden[i], o.hidden[i]+o.exposed[i], o.colors[1])
	}
}

func (o *overlapBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	for i := range o.compute {
		ymax = math.Max(ymax, math.Max(o.compute[i], o.hidden[i])+o.exposed[i])
	}
	return -0.5, float64(len(o.compute)) - 0.5, 0, ymax
}

// build lays the chart out with gonum/plot.
func (c *OverlapChart) build() (*plot.Plot, error) {
	if c.err != nil {
		return nil, c.err
	}
	if err := checkOverlap(c.Trace); err != nil {
		return nil, err
	}
	steps := c.Trace.Steps
	n := len(steps)
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	bars := &overlapBars{}
	copied := false
	for _, s := range steps {
		exposed := min(s.Exposed, s.Time)
		bars.compute = append(bars.compute, ms(s.Time-exposed))
		bars.exposed = append(bars.exposed, ms(exposed))
		bars.hidden = append(bars.hidden, ms(s.Copy-s.Exposed))
		copied = copied || s.Copy > 0
	}
	p := newPlot(c.Title, c.XLabel, c.YLabel)
	// A run's Algorithm is long ("gpu out-of-core blocked Floyd-Warshall
	// (tile 32, 44×44 blocks of 288, up to 6 per copy)"): wrapped to the
	// plot's width rather than cut at the canvas edge.
	w, _ := (&Chart{Width: c.Width, Height: c.Height}).size()
	p.Title.Text = wrapLabel(c.Title, p.Title.TextStyle, w*0.8)
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil // steps are categories
	p.Add(grid)
	style := chartStyles([]string{overlapCompute, overlapExposed, overlapHidden})
	for i := range bars.colors {
		bars.colors[i] = styleColor(style[i])
	}
	p.Add(bars)
	if copied {
		p.Legend.Add(overlapCompute+" (left bars)", swatch{bars.colors[0]})
		p.Legend.Add(overlapExposed, swatch{bars.colors[1]})
		p.Legend.Add(overlapHidden+" (right bars)", swatch{bars.colors[2]})
	} else {
		p.Legend.Add(overlapCompute, swatch{bars.colors[0]})
	}
	_, _, _, top := bars.DataRange()
	if top <= 0 {
		top = 1 // every step took no measurable time
	}
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	p.Y.Min, p.Y.Max = 0, top*1.05
	p.X.Tick.Marker = stepTicks{}
	p.Y.Tick.Marker = plainTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font = goFont(10)
	p.Legend.Padding = vg.Points(2)
	return p, nil
}

// render draws the chart in a format gonum/plot knows.
func (c *OverlapChart) render(format string) ([]byte, error) {
	return renderBuilt(c.build, c.Width, c.Height, format)
}

// PNG returns the chart as PNG bytes, or nil when it cannot be drawn (see
// Err).
func (c *OverlapChart) PNG() []byte { return output(c.render, "png", &c.err) }

// SVGText returns the chart as an SVG document, or "" when it cannot be
// drawn.
func (c *OverlapChart) SVGText() string { return string(output(c.render, "svg", &c.err)) }

// MIMEBundle renders the chart inline: image/png (or image/svg+xml with
// SVGOutput) and a text/plain summary; a chart that cannot be drawn shows
// the reason as text.
func (c *OverlapChart) MIMEBundle() map[string]any {
	return bundle(c.String(), c.SVGOutput, c.render, &c.err)
}

// String describes the chart in one line: its title, steps, and the
// copies' total, exposed and hidden share.
func (c *OverlapChart) String() string {
	if c.Trace == nil {
		return fmt.Sprintf("overlap %q: no trace", c.Title)
	}
	steps, copies, exposed := c.Totals()
	r := func(d time.Duration) time.Duration { return d.Round(time.Microsecond) }
	s := fmt.Sprintf("overlap %q: %d steps, %v", c.Title, len(c.Trace.Steps), r(steps))
	if copies > 0 {
		s += fmt.Sprintf("; copies %v, %v exposed, %.0f%% hidden", r(copies), r(exposed), 100*(1-exposed.Seconds()/copies.Seconds()))
	} else {
		s += "; no copies"
	}
	return s
}

// Save writes the chart to path; the extension picks the format (.png,
// .svg, .pdf, …).
func (c *OverlapChart) Save(path string) error { return save(path, c.render) }
