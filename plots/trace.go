package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/graphnb/graphnb/trace"
)

// The charts of one run's trace (package trace): what every step did
// (Timeline) and how much of the graph the runs read (WorkEfficiency).

// renderBuilt draws the plot build makes (the trace charts' builds) at
// width × height inches (0: Chart's defaults), its axis labels fitted,
// in a format gonum/plot knows.
func renderBuilt(build func() (*plot.Plot, error), width, height float64, format string) ([]byte, error) {
	p, err := build()
	if err != nil {
		return nil, err
	}
	w, h := (&Chart{Width: width, Height: height}).size()
	fitAxisLabels(p, h)
	return drawPlot(p, w, h, format)
}

// defaultFrontierLabel is Timeline's FrontierLabel.
const defaultFrontierLabel = "frontier (vertices)"

// TimelineChart draws a run's steps: one bar per step, its time in
// milliseconds against the left axis, coloured by the step's kind; the
// frontier at each step's start, in vertices, as a line against an axis
// of its own on the right; and a dashed line between two steps of
// different kinds (a BFS direction switch; SwitchLabel). Build it with Timeline, then
// show it as a cell's last expression or Save it.
type TimelineChart struct {
	Title, XLabel, YLabel string
	// FrontierLabel names the right axis (and, when set to something
	// else than its default, the line's legend entry): what a step's
	// Frontier counts, "trees" for MST's rounds, say.
	FrontierLabel string
	// SwitchLabel names the dashed lines between steps of different
	// kinds in the legend ("direction switch", Timeline's default, for
	// BFS); "" leaves the lines out (near-far SSSP changes kind every
	// few steps).
	SwitchLabel string
	// Width and Height are in inches (0: 6 and 4), the legend's column
	// beside the plot not counted.
	Width, Height float64
	// SVGOutput makes the chart render inline as SVG instead of PNG.
	SVGOutput bool
	// Trace is the run drawn; it is read when the chart renders.
	Trace *trace.Trace
	err   error
}

// Timeline charts a run's trace step by step: x the step index 0..n−1,
// bars the step times in ms coloured by Step.Kind (the legend lists the
// kinds), the part of each in collectives (Step.Comm, a run over a group
// of GPUs) shaded darker at its bottom, the Step.Frontier values in vertices as a line read on the
// right axis (left out when every frontier is 0), and a dashed line
// between two steps of different kinds. The title is the trace's
// Algorithm. A nil trace, one without steps, or a step with a negative
// time or frontier gives a chart whose Err says so and which shows that
// in place of the image.
func Timeline(t *trace.Trace) *TimelineChart {
	c := &TimelineChart{XLabel: "step", YLabel: "time (ms)", FrontierLabel: defaultFrontierLabel, SwitchLabel: "direction switch", Trace: t}
	if t != nil {
		c.Title = t.Algorithm
	}
	c.err = checkTimeline(t)
	return c
}

// checkTimeline says why t cannot be drawn as a timeline.
func checkTimeline(t *trace.Trace) error {
	if t == nil {
		return fmt.Errorf("plots: Timeline(nil): the *trace.Trace is nil; pass the Trace of a result run with tracing on (bfs.Options.Trace, …)")
	}
	if len(t.Steps) == 0 {
		return fmt.Errorf("plots: Timeline: the trace of %q has no steps to chart; pass the Trace of a run that took at least one step", t.Algorithm)
	}
	for i, s := range t.Steps {
		if s.Time < 0 || s.Frontier < 0 {
			return fmt.Errorf("plots: Timeline: step %d of %q has a negative time (%v) or frontier (%d); the trace is malformed (see trace.Trace.Check)", i, t.Algorithm, s.Time, s.Frontier)
		}
	}
	return nil
}

// Err reports why the chart cannot be drawn, or nil.
func (c *TimelineChart) Err() error { return c.err }

// commLabel is the legend's name of the steps' time in collectives
// (trace.Step.Comm, runs over a group of GPUs), drawn as a shade over the
// bottom of each step's bar.
const commLabel = "of it in collectives"

// commShade darkens a bar's colour where it overlays it.
var commShade = color.NRGBA{A: 0x78}

// commBars shades the bottom Comm of each step's bar (in ms).
type commBars struct{ ms []float64 }

// stepComm returns the shading of the steps' Comm, nil when no step spent
// time in collectives.
func stepComm(steps []trace.Step) *commBars {
	c := &commBars{ms: make([]float64, len(steps))}
	some := false
	for i, s := range steps {
		c.ms[i] = float64(min(s.Comm, s.Time)) / 1e6
		some = some || s.Comm > 0
	}
	if !some {
		return nil
	}
	return c
}

// Plot implements plot.Plotter.
func (b *commBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for i, v := range b.ms {
		if v <= 0 {
			continue
		}
		x0, x1 := float64(i)-groupWidth/2, float64(i)+groupWidth/2
		pts := []vg.Point{{X: trX(x0), Y: trY(0)}, {X: trX(x0), Y: trY(v)}, {X: trX(x1), Y: trY(v)}, {X: trX(x1), Y: trY(0)}}
		c.FillPolygon(commShade, c.ClipPolygonY(pts))
	}
}

// kindLabel is the legend's name for a step kind.
func kindLabel(kind string) string {
	if kind == "" {
		return "(no kind)"
	}
	return kind
}

// build lays the timeline out with gonum/plot.
func (c *TimelineChart) build() (*plot.Plot, error) {
	if c.err != nil {
		return nil, c.err
	}
	if err := checkTimeline(c.Trace); err != nil {
		return nil, err
	}
	steps := c.Trace.Steps
	n := len(steps)
	p := newPlot(c.Title, c.XLabel, c.YLabel)
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil // steps are categories
	p.Add(grid)

	// One bar plotter per kind, in the order the kinds first occur, each
	// with a value at its own steps only.
	var kinds []string
	index := map[string]int{}
	var bars []*groupedBars
	tMax, fMax := 0.0, 0.0
	for i, s := range steps {
		k := kindLabel(s.Kind)
		j, ok := index[k]
		if !ok {
			j = len(kinds)
			index[k] = j
			kinds = append(kinds, k)
			bars = append(bars, &groupedBars{series: []BarSeries{{Label: k, Values: nanSlice(n)}}, groups: n})
		}
		ms := float64(s.Time) / 1e6
		bars[j].series[0].Values[i] = ms
		tMax = math.Max(tMax, ms)
		fMax = math.Max(fMax, float64(s.Frontier))
	}
	style := chartStyles(kinds)
	for j, b := range bars {
		b.style = []int{style[j]}
		p.Add(b)
		p.Legend.Add(kinds[j], swatch{styleColor(style[j])})
	}
	if comm := stepComm(steps); comm != nil {
		p.Add(comm)
		p.Legend.Add(commLabel, swatch{commShade})
	}
	if tMax <= 0 {
		tMax = 1 // every step took no measurable time
	}
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	p.Y.Min, p.Y.Max = 0, tMax*1.05

	var switches []float64
	for i := 1; i < n; i++ {
		if steps[i].Kind != steps[i-1].Kind {
			switches = append(switches, float64(i)-0.5)
		}
	}
	if len(switches) > 0 && c.SwitchLabel != "" {
		m := &vLines{x: switches, style: draw.LineStyle{Color: color.Gray{Y: 0x50}, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}}
		p.Add(m)
		p.Legend.Add(c.SwitchLabel, m)
	}

	if fMax > 0 {
		top := fMax * 1.05 // the right axis' value at the top of the plot
		k := p.Y.Max / top
		pts := make(plotter.XYs, n)
		for i, s := range steps {
			pts[i] = plotter.XY{X: float64(i), Y: float64(s.Frontier) * k}
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("plots: frontier line: %w", err)
		}
		black := Palette[6]
		line.Color, line.Width = black, vg.Points(1.5)
		points.Color, points.Shape, points.Radius = black, draw.CircleGlyph{}, vg.Points(3)
		p.Add(line, points)
		legend := "frontier (right axis)"
		if c.FrontierLabel != defaultFrontierLabel { // "trees" for MST's rounds, say
			legend = c.FrontierLabel + " (right axis)"
		}
		p.Legend.Add(legend, line, points)
		p.Add(newRightAxis(p, c.FrontierLabel, top, integerTicks{}.Ticks(0, top)))
	}
	// The plotters' data ranges widened the axes: set them again.
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	p.Y.Min, p.Y.Max = 0, tMax*1.05
	p.X.Tick.Marker = stepTicks{}
	p.Y.Tick.Marker = plainTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font = goFont(10)
	p.Legend.Padding = vg.Points(2)
	return p, nil
}

// newPlot is a plot with the package's fonts, title and axis labels.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	registerFonts()
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Title.TextStyle.Font = goFont(14)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = goFont(11)
		a.Tick.Label.Font = goFont(10)
	}
	p.Title.Padding = vg.Points(6)
	return p
}

// stepTicks marks step indices: every one labelled up to 15 steps, else
// every 2nd, 5th, 10th, … (the others as minor ticks up to 100 steps).
type stepTicks struct{}

func (stepTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := math.Ceil(lo), math.Floor(hi)
	if last < first {
		return nil
	}
	n := last - first + 1
	every := 1.0
	for k := 0; n/every > 15; k++ {
		every = []float64{2, 5, 10}[k%3] * math.Pow(10, float64(k/3))
	}
	var ticks []plot.Tick
	for v := first; v <= last; v++ {
		switch {
		case math.Mod(v, every) == 0:
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.Itoa(int(v))})
		case n <= 100:
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// plainTicks are gonum's default ticks labelled in the shortest form
// (5000, 2500, 0 rather than 5000.00, 2500.00, 0.00).
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			v, _ := strconv.ParseFloat(strconv.FormatFloat(t.Value, 'g', 10, 64), 64) // no float noise
			ticks[i].Label = strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return ticks
}

// vLines draws vertical lines across the plot at data x values; it is
// its own legend thumbnail.
type vLines struct {
	x     []float64
	style draw.LineStyle
}

func (v *vLines) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, x := range v.x {
		c.StrokeLine2(v.style, trX(x), c.Min.Y, trX(x), c.Max.Y)
	}
}

func (v *vLines) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(v.style, c.Min.X, y, c.Max.X, y)
}

// hLine draws a horizontal line across the plot at data y; it is its own
// legend thumbnail.
type hLine struct {
	y     float64
	style draw.LineStyle
}

func (h *hLine) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	c.StrokeLine2(h.style, c.Min.X, trY(h.y), c.Max.X, trY(h.y))
}

func (h *hLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}

// rightAxis is a second y axis, drawn right of the data area: 0 at the
// plot's Y.Min (which must be 0), top at its Y.Max. gonum/plot has one y
// axis; this plotter draws the other in the room its glyph box asks
// padX to leave, in the style of the left one.
type rightAxis struct {
	label string
	top   float64
	ticks []plot.Tick
	tick  text.Style // tick labels, aligned left
	title text.Style // the axis label
	axis  plot.Axis  // the left axis, for line styles, lengths and paddings
}

func newRightAxis(p *plot.Plot, label string, top float64, ticks []plot.Tick) *rightAxis {
	a := &rightAxis{label: label, top: top, ticks: ticks, tick: p.Y.Tick.Label, title: p.Y.Label.TextStyle, axis: p.Y}
	a.tick.XAlign = draw.XLeft
	a.title.Rotation += math.Pi / 2
	return a
}

// labelWidth is the widest tick label's.
func (a *rightAxis) labelWidth() vg.Length {
	w := vg.Length(0)
	for _, t := range a.ticks {
		if t.Label != "" {
			w = max(w, a.tick.Width(t.Label))
		}
	}
	return w
}

// width is the room the axis takes right of the data area.
func (a *rightAxis) width() vg.Length {
	w := a.axis.Padding + a.axis.Tick.Length + a.tick.Width(" ") + a.labelWidth()
	if a.label != "" {
		w += a.axis.Label.Padding + a.axis.Label.TextStyle.Height(a.label) + a.axis.Label.TextStyle.FontExtents().Descent
	}
	return w
}

func (a *rightAxis) norm(v float64) float64 { return v / a.top }

func (a *rightAxis) Plot(c draw.Canvas, p *plot.Plot) {
	x := c.Max.X + a.axis.Padding
	c.StrokeLine2(a.axis.LineStyle, x, c.Min.Y, x, c.Max.Y)
	descent := a.tick.FontExtents().Descent
	for _, t := range a.ticks {
		y := c.Y(a.norm(t.Value))
		if !c.ContainsY(y) {
			continue
		}
		l := a.axis.Tick.Length
		if t.IsMinor() {
			l /= 2
		}
		c.StrokeLine2(a.axis.Tick.LineStyle, x, y, x+l, y)
		if t.Label != "" {
			c.FillText(a.tick, vg.Point{X: x + a.axis.Tick.Length + a.tick.Width(" "), Y: y + descent}, t.Label)
		}
	}
	if a.label != "" {
		// Rotated a quarter turn like the left label, its bottom towards
		// the data: the anchor is its far edge.
		lx := x + a.axis.Tick.Length + a.tick.Width(" ") + a.labelWidth() + a.axis.Label.Padding
		lx += a.axis.Label.TextStyle.Height(a.label)
		c.FillText(a.title, vg.Point{X: lx, Y: c.Center().Y}, a.label)
	}
}

// GlyphBoxes implements plot.GlyphBoxer: a box as wide as the axis at the
// right edge (padX shrinks the data area to leave that room), and one as
// high as each tick label at its height (padY keeps them inside).
func (a *rightAxis) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	boxes := []plot.GlyphBox{{X: 1, Y: 0, Rectangle: vg.Rectangle{Max: vg.Point{X: a.width()}}}}
	h := a.tick.Height("0")
	for _, t := range a.ticks {
		if v := a.norm(t.Value); t.Label != "" && v >= 0 && v <= 1 {
			boxes = append(boxes, plot.GlyphBox{X: 1, Y: v, Rectangle: vg.Rectangle{Min: vg.Point{Y: -h / 2}, Max: vg.Point{Y: h / 2}}})
		}
	}
	return boxes
}

// render draws the chart in a format gonum/plot knows.
func (c *TimelineChart) render(format string) ([]byte, error) {
	return renderBuilt(c.build, c.Width, c.Height, format)
}

// PNG returns the chart as PNG bytes, or nil when it cannot be drawn (see
// Err).
func (c *TimelineChart) PNG() []byte { return output(c.render, "png", &c.err) }

// SVGText returns the chart as an SVG document, or "" when it cannot be
// drawn.
func (c *TimelineChart) SVGText() string { return string(output(c.render, "svg", &c.err)) }

// MIMEBundle renders the chart inline: image/png (or image/svg+xml with
// SVGOutput) and a text/plain summary; a chart that cannot be drawn shows
// the reason as text.
func (c *TimelineChart) MIMEBundle() map[string]any {
	return bundle(c.String(), c.SVGOutput, c.render, &c.err)
}

// String describes the chart in one line: its title, steps and kinds.
func (c *TimelineChart) String() string {
	if c.Trace == nil {
		return fmt.Sprintf("timeline %q: no trace", c.Title)
	}
	var kinds []string
	for _, s := range c.Trace.Steps {
		if k := kindLabel(s.Kind); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	return fmt.Sprintf("timeline %q: %d steps (%s)", c.Title, len(c.Trace.Steps), strings.Join(kinds, ", "))
}

// Save writes the chart to path; the extension picks the format (.png,
// .svg, .pdf, …).
func (c *TimelineChart) Save(path string) error { return save(path, c.render) }

// WorkEfficiencyChart compares runs by the arcs they read: one bar per
// run, its Trace.WorkEfficiency (arcs inspected ÷ the graph's stored
// arcs, a pure number), with the value above it and a dashed line at 1
// (every arc read once). Build it with WorkEfficiency.
type WorkEfficiencyChart struct {
	Title, XLabel, YLabel string
	// Labels name the bars, left to right; Values are their heights.
	Labels []string
	Values []float64
	// Width and Height are in inches (0: 6 and 4), the legend's column
	// beside the plot not counted.
	Width, Height float64
	// SVGOutput makes the chart render inline as SVG instead of PNG.
	SVGOutput bool
	err       error
}

// WorkEfficiency charts the work efficiency of several runs, one bar per
// trace labelled labels[i]: arcs inspected ÷ the graph's arcs (1 = every
// arc read once; a bottom-up BFS reads fewer). Each bar takes the colour
// of its label's curve in the notebook's other charts (see Style). No
// traces, a label count that differs from the trace count, a nil trace
// or one whose Arcs is not positive gives a chart whose Err says which.
func WorkEfficiency(labels []string, traces []*trace.Trace) *WorkEfficiencyChart {
	c := &WorkEfficiencyChart{Title: "work efficiency", YLabel: "arcs inspected ÷ arcs", Labels: labels}
	switch {
	case len(traces) == 0:
		c.err = fmt.Errorf("plots: WorkEfficiency: no traces to chart; pass one trace per run, with a label each")
		return c
	case len(labels) != len(traces):
		c.err = fmt.Errorf("plots: WorkEfficiency: %d labels for %d traces; pass one label per trace", len(labels), len(traces))
		return c
	}
	for i, t := range traces {
		switch {
		case t == nil:
			c.err = fmt.Errorf("plots: WorkEfficiency: trace %d (%q) is nil; pass the Trace of a result run with tracing on (bfs.Options.Trace, …)", i, labels[i])
			return c
		case t.Arcs <= 0:
			c.err = fmt.Errorf("plots: WorkEfficiency: trace %d (%q) has Arcs = %d, the divisor of work efficiency; set it to the graph's stored arcs (Graph.NumArcs)", i, labels[i], t.Arcs)
			return c
		}
		c.Values = append(c.Values, t.WorkEfficiency())
	}
	return c
}

// Err reports why the chart cannot be drawn, or nil.
func (c *WorkEfficiencyChart) Err() error { return c.err }

// build lays the chart out with gonum/plot.
func (c *WorkEfficiencyChart) build() (*plot.Plot, error) {
	if c.err != nil {
		return nil, c.err
	}
	n := len(c.Labels)
	if n == 0 || len(c.Values) != n {
		return nil, fmt.Errorf("plots: work efficiency chart %q has %d labels and %d values; want one value per label, at least one", c.Title, n, len(c.Values))
	}
	p := newPlot(c.Title, c.XLabel, c.YLabel)
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	p.Add(grid)
	style := chartStyles(c.Labels)
	top := 1.0 // the reference line is always in view
	values := &barValues{}
	for i, v := range c.Values {
		vals := nanSlice(n)
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals[i] = v
			top = math.Max(top, v)
			values.x, values.y = append(values.x, float64(i)), append(values.y, v)
		}
		p.Add(&groupedBars{series: []BarSeries{{Label: c.Labels[i], Values: vals}}, groups: n, style: []int{style[i]}})
	}
	ref := &hLine{y: 1, style: draw.LineStyle{Color: color.Gray{Y: 0x30}, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}}
	p.Add(ref)
	p.Legend.Add("every arc once (1)", ref)
	values.style = p.Y.Tick.Label
	values.style.XAlign, values.style.YAlign = draw.XCenter, draw.YBottom
	p.Add(values)
	p.NominalX(c.Labels...)
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	p.Y.Min, p.Y.Max = 0, top*1.12 // room for the values above the bars
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font = goFont(10)
	p.Legend.Padding = vg.Points(2)
	return p, nil
}

// barValues writes each bar's value above it.
type barValues struct {
	x, y  []float64
	style text.Style
}

func (b *barValues) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, x := range b.x {
		c.FillText(b.style, vg.Point{X: trX(x), Y: trY(b.y[i]) + vg.Points(2)}, strconv.FormatFloat(b.y[i], 'g', 3, 64))
	}
}

// render draws the chart in a format gonum/plot knows.
func (c *WorkEfficiencyChart) render(format string) ([]byte, error) {
	return renderBuilt(c.build, c.Width, c.Height, format)
}

// PNG returns the chart as PNG bytes, or nil when it cannot be drawn (see
// Err).
func (c *WorkEfficiencyChart) PNG() []byte { return output(c.render, "png", &c.err) }

// SVGText returns the chart as an SVG document, or "" when it cannot be
// drawn.
func (c *WorkEfficiencyChart) SVGText() string { return string(output(c.render, "svg", &c.err)) }

// MIMEBundle renders the chart inline: image/png (or image/svg+xml with
// SVGOutput) and a text/plain summary; a chart that cannot be drawn shows
// the reason as text.
func (c *WorkEfficiencyChart) MIMEBundle() map[string]any {
	return bundle(c.String(), c.SVGOutput, c.render, &c.err)
}

// String describes the chart in one line: each run's label and value.
func (c *WorkEfficiencyChart) String() string {
	parts := make([]string, len(c.Values))
	for i, v := range c.Values {
		label := "?"
		if i < len(c.Labels) {
			label = c.Labels[i]
		}
		parts[i] = fmt.Sprintf("%s %.3g", label, v)
	}
	return fmt.Sprintf("work efficiency chart %q: %s", c.Title, strings.Join(parts, ", "))
}

// Save writes the chart to path; the extension picks the format (.png,
// .svg, .pdf, …).
func (c *WorkEfficiencyChart) Save(path string) error { return save(path, c.render) }
