package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/graphnb/graphnb/bench"
)

// BarChart is a grouped bar chart: one group per category on the x axis
// (a graph size, a data set), one bar per series inside each group, with
// optional min–max whiskers — e.g. the MST study's GPU+CPU, GPU and CPU
// bars per scale. Build it with NewBars and Add/AddRange (or Bars from a
// bench table), then show it as a cell's last expression or Save it. It
// follows the rules of Chart: the Okabe–Ito palette, the Go fonts, the
// legend in a band of its own above the bars.
type BarChart struct {
	Title, XLabel, YLabel string
	// Groups label the categories, left to right.
	Groups []string
	// Width and Height are in inches (0: 6 and 4).
	Width, Height float64
	// SVGOutput makes the chart render inline as SVG instead of PNG.
	SVGOutput bool
	Series    []BarSeries
	err       error
}

// BarSeries is one bar per group. Values[i] is the bar of Groups[i] (NaN:
// no bar); Lo and Hi, when set, draw a whisker from Lo[i] to Hi[i].
type BarSeries struct {
	Label string
	// Key names the series across charts ("" means Label): see Style.
	Key        string
	Values     []float64
	Lo, Hi     []float64
	whiskerSet bool
}

// NewBars returns an empty bar chart with a title, axis labels and the
// group names.
func NewBars(title, xLabel, yLabel string, groups ...string) *BarChart {
	return &BarChart{Title: title, XLabel: xLabel, YLabel: yLabel, Groups: groups}
}

// Add adds a series, one value per group, and returns the chart. A length
// mismatch is reported when the chart renders (see Err).
func (b *BarChart) Add(label string, values []float64) *BarChart {
	return b.AddRange(label, values, nil, nil)
}

// AddRange adds a series with min–max whiskers and returns the chart.
func (b *BarChart) AddRange(label string, values, lo, hi []float64) *BarChart {
	switch {
	case len(values) != len(b.Groups):
		b.err = fmt.Errorf("plots: bar series %q has %d values for %d groups", label, len(values), len(b.Groups))
	case (lo != nil || hi != nil) && (len(lo) != len(values) || len(hi) != len(values)):
		b.err = fmt.Errorf("plots: bar series %q has %d values but %d lows and %d highs", label, len(values), len(lo), len(hi))
	}
	b.Series = append(b.Series, BarSeries{Label: label, Values: values, Lo: lo, Hi: hi, whiskerSet: lo != nil})
	return b
}

// Err reports the first problem found while building the chart.
func (b *BarChart) Err() error { return b.err }

// Bars charts a bench table as grouped bars: one group per graph (by
// vertex count), one bar per variant, the mean arcs/s with min–max
// whiskers (mean time in seconds for a table measured by time only).
func Bars(t *bench.Table) *BarChart {
	if t == nil {
		b := NewBars("", "graph", "")
		b.err = errNilTable("Bars", "*bench.Table")
		return b
	}
	type group struct {
		key      string
		label    string
		vertices int
	}
	var groups []group
	for _, r := range t.Rows {
		if !slices.ContainsFunc(groups, func(g group) bool { return g.key == r.Graph }) {
			label := r.Graph
			if r.Scale > 0 {
				label = "2" + superscript(r.Scale)
			}
			groups = append(groups, group{r.Graph, label, r.Vertices})
		}
	}
	slices.SortStableFunc(groups, func(a, b group) int { return a.vertices - b.vertices })
	names := make([]string, len(groups))
	index := map[string]int{}
	for i, g := range groups {
		names[i], index[g.key] = g.label, i
	}
	timeOnly, top := true, 0.0
	for _, r := range t.Rows {
		if r.MeanArcsPerSecond > 0 {
			timeOnly = false
		}
		top = math.Max(top, r.MaxArcsPerSecond)
	}
	scale, prefix := siScale(top)
	ylabel := strings.TrimSpace(prefix + " arcs/s (mean, min–max)")
	if timeOnly {
		scale, ylabel = 1, "time (s, mean, min–max)"
	}
	c := NewBars(t.Meta.Name, "vertices", ylabel, names...)
	if len(t.Rows) == 0 {
		c.err = fmt.Errorf("plots: %q has no rows to chart", t.Meta.Name)
		return c
	}
	for _, v := range t.Variants() {
		vals, lo, hi := nanSlice(len(groups)), nanSlice(len(groups)), nanSlice(len(groups))
		for _, r := range t.Rows {
			if r.Variant != v || r.NumRuns == 0 {
				continue
			}
			i := index[r.Graph]
			if timeOnly {
				vals[i], lo[i], hi[i] = r.MeanTime.Seconds(), r.MinTime.Seconds(), r.MaxTime.Seconds()
			} else {
				vals[i], lo[i], hi[i] = r.MeanArcsPerSecond/scale, r.MinArcsPerSecond/scale, r.MaxArcsPerSecond/scale
			}
		}
		c.AddRange(t.Label(v), vals, lo, hi)
		c.Series[len(c.Series)-1].Key = v
	}
	return c
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// groupWidth is the share of a category's width its bars take.
const groupWidth = 0.8

// groupedBars is the plotter: every bar in data units, so the whiskers
// sit exactly on their bars whatever the canvas size.
type groupedBars struct {
	series []BarSeries
	groups int
	style  []int // chartStyles of the series
}

func (g *groupedBars) barX(s, i int) (x0, x1 float64) {
	w := groupWidth / float64(len(g.series))
	x0 = float64(i) - groupWidth/2 + float64(s)*w
	return x0, x0 + w
}

// Plot implements plot.Plotter.
func (g *groupedBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	outline := draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: vg.Points(0.5)}
	whisker := draw.LineStyle{Color: color.Gray{Y: 0x20}, Width: vg.Points(1)}
	for s, ser := range g.series {
		col := styleColor(g.style[s])
		for i, v := range ser.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			x0, x1 := g.barX(s, i)
			pts := []vg.Point{{X: trX(x0), Y: trY(0)}, {X: trX(x0), Y: trY(v)}, {X: trX(x1), Y: trY(v)}, {X: trX(x1), Y: trY(0)}}
			c.FillPolygon(col, c.ClipPolygonY(pts))
			c.StrokeLines(outline, c.ClipLinesY(append(pts, pts[0]))...)
			if !ser.whiskerSet || math.IsNaN(ser.Lo[i]) || math.IsNaN(ser.Hi[i]) {
				continue
			}
			xm, capW := trX((x0+x1)/2), (trX(x1)-trX(x0))*0.25
			lo, hi := trY(ser.Lo[i]), trY(ser.Hi[i])
			c.StrokeLines(whisker, c.ClipLinesY(
				[]vg.Point{{X: xm, Y: lo}, {X: xm, Y: hi}},
				[]vg.Point{{X: xm - capW, Y: lo}, {X: xm + capW, Y: lo}},
				[]vg.Point{{X: xm - capW, Y: hi}, {X: xm + capW, Y: hi}})...)
		}
	}
}

// DataRange implements plot.DataRanger: the categories span −0.5 to
// n−0.5, the values start at 0.
func (g *groupedBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	for _, s := range g.series {
		for i, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
			if s.whiskerSet && !math.IsNaN(s.Hi[i]) {
				ymin, ymax = math.Min(ymin, s.Lo[i]), math.Max(ymax, s.Hi[i])
			}
		}
	}
	return -0.5, float64(g.groups) - 0.5, ymin, ymax
}

// swatch is a legend entry's filled square.
type swatch struct{ color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{c.Min, {X: c.Min.X, Y: c.Max.Y}, c.Max, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(s.Color, pts)
}

// build lays the bar chart out with gonum/plot.
func (b *BarChart) build() (*plot.Plot, error) {
	if b.err != nil {
		return nil, b.err
	}
	if len(b.Groups) == 0 {
		return nil, fmt.Errorf("plots: bar chart %q has no groups", b.Title)
	}
	registerFonts()
	p := plot.New()
	p.Title.Text = b.Title
	p.X.Label.Text = b.XLabel
	p.Y.Label.Text = b.YLabel
	p.Title.TextStyle.Font = goFont(14)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = goFont(11)
		a.Tick.Label.Font = goFont(10)
	}
	p.Title.Padding = vg.Points(6)
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil // categories need no vertical lines
	p.Add(grid)
	keys := make([]string, len(b.Series))
	for i, s := range b.Series {
		keys[i] = cmp.Or(s.Key, s.Label)
	}
	style := chartStyles(keys)
	bars := &groupedBars{series: b.Series, groups: len(b.Groups), style: style}
	p.Add(bars)
	p.NominalX(b.Groups...)
	for i, s := range b.Series {
		p.Legend.Add(s.Label, swatch{styleColor(style[i])})
	}
	_, _, yMin, yMax := bars.DataRange()
	if yMax > yMin && len(b.Series) > 0 {
		fitYAxis(p, false, yMin, yMax)
	}
	p.X.Min, p.X.Max = -0.5, float64(len(b.Groups))-0.5
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font = goFont(10)
	p.Legend.Padding = vg.Points(2)
	return p, nil
}

func (b *BarChart) size() (vg.Length, vg.Length) {
	return (&Chart{Width: b.Width, Height: b.Height}).size()
}

// render draws the chart in a format gonum/plot knows.
func (b *BarChart) render(format string) ([]byte, error) {
	p, err := b.build()
	if err != nil {
		return nil, err
	}
	w, h := b.size()
	fitAxisLabels(p, h)
	return drawPlot(p, w, h, format)
}

// PNG returns the chart as PNG bytes, or nil when it cannot be drawn (see
// Err).
func (b *BarChart) PNG() []byte { return output(b.render, "png", &b.err) }

// SVGText returns the chart as an SVG document, or "" when it cannot be
// drawn.
func (b *BarChart) SVGText() string { return string(output(b.render, "svg", &b.err)) }

// MIMEBundle renders the chart inline: image/png (or image/svg+xml with
// SVGOutput) and a text/plain summary; a chart that cannot be drawn shows
// the reason as text.
func (b *BarChart) MIMEBundle() map[string]any {
	return bundle(b.String(), b.SVGOutput, b.render, &b.err)
}

// String describes the chart in one line.
func (b *BarChart) String() string {
	labels := make([]string, len(b.Series))
	for i, s := range b.Series {
		labels[i] = s.Label
	}
	return fmt.Sprintf("bar chart %q: %s over %s", b.Title, strings.Join(labels, ", "), strings.Join(b.Groups, ", "))
}

// Save writes the chart to path; the extension picks the format (.png,
// .svg, .pdf, …).
func (b *BarChart) Save(path string) error { return save(path, b.render) }
