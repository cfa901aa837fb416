package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/graphnb/graphnb/gpu"
	"github.com/graphnb/graphnb/trace"
)

// RooflineChart draws the launches of traced GPU runs against the
// device's measured ceilings (gpu.Device.Ceilings): one point per launch
// that has a byte model (trace.Launch.Bytes), x the bytes it moves, y
// its achieved bandwidth, both on log scales (an entry that stands for
// several launches, trace.Launch.Count, is one point: x the bytes of one
// of its launches, Bytes ÷ Count, y the entry's Bytes ÷ Time); horizontal lines at the
// streaming (device-to-device copy) and 8-byte random-gather ceilings in
// and beyond the L2 cache, and a diagonal where a launch of x bytes takes
// the launch latency. A launch whose bytes are mostly gathers sits at or
// below the gather roof of its table's size; one whose data the L2 cache
// holds can rise above the streaming roof, which is DRAM's. No launch
// sits above the latency diagonal. Build it with Roofline.
type RooflineChart struct {
	Title, XLabel, YLabel string
	// Width and Height are in inches (0: 6 and 4), the legend's column
	// beside the plot not counted.
	Width, Height float64
	// SVGOutput makes the chart render inline as SVG instead of PNG.
	SVGOutput bool
	// Ceilings are the roofs; Traces the runs drawn (read when the chart
	// renders).
	Ceilings gpu.Ceilings
	Traces   []*trace.Trace
	err      error
}

// Roofline charts the launches of the traces' steps against c (set-up
// launches, of step −1, are left out). A series per
// kernel when there is one trace; per trace (its Algorithm) when each
// trace has one kernel; per trace and kernel otherwise. The chart's Err
// says why it cannot be drawn: ceilings not measured (the host device has
// none), or no launch with both a byte model and a time.
func Roofline(c gpu.Ceilings, traces ...*trace.Trace) *RooflineChart {
	r := &RooflineChart{Title: "achieved bandwidth against the device's ceilings",
		XLabel: "bytes moved by the launch", YLabel: "GB/s", Ceilings: c, Traces: traces}
	if c.Device != "" {
		r.Title = c.Device
	}
	_, r.err = r.points()
	return r
}

// Err reports why the chart cannot be drawn, or nil.
func (r *RooflineChart) Err() error { return r.err }

// rooflineSeries is one series' launches: bytes and bytes per second.
type rooflineSeries struct {
	label string
	xy    plotter.XYs
	// launches is what the points stand for (trace.Launch.Launched
	// summed): more than the points where an entry counts several.
	launches int
}

// points groups the launches into series, in order of first appearance.
func (r *RooflineChart) points() ([]rooflineSeries, error) {
	c := r.Ceilings
	if c.CopyBandwidth <= 0 {
		return nil, fmt.Errorf("plots: Roofline: the ceilings hold no measured bandwidth (the host device has none): pass a GPU's, dev.Ceilings()")
	}
	if len(r.Traces) == 0 {
		return nil, fmt.Errorf("plots: Roofline: no trace: pass the Trace of one or more GPU runs made with tracing on")
	}
	oneKernel := true
	for _, t := range r.Traces {
		if t == nil {
			return nil, fmt.Errorf("plots: Roofline: a nil *trace.Trace; pass the Trace of a result run with tracing on")
		}
		var names []string
		for _, l := range t.Launches {
			if l.Step >= 0 && l.Bytes > 0 && !slices.Contains(names, l.Name) {
				names = append(names, l.Name)
			}
		}
		oneKernel = oneKernel && len(names) <= 1
	}
	var out []rooflineSeries
	index := map[string]int{}
	for _, t := range r.Traces {
		for _, l := range t.Launches {
			bw := l.Bandwidth()
			if bw <= 0 || l.Step < 0 {
				continue
			}
			label := l.Name
			switch {
			case len(r.Traces) > 1 && oneKernel:
				label = t.Algorithm
			case len(r.Traces) > 1:
				label = t.Algorithm + " · " + l.Name
			}
			i, ok := index[label]
			if !ok {
				i = len(out)
				index[label] = i
				out = append(out, rooflineSeries{label: label})
			}
			out[i].xy = append(out[i].xy, plotter.XY{X: float64(l.Bytes) / float64(l.Launched()), Y: bw / 1e9})
			out[i].launches += l.Launched()
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("plots: Roofline: no launch has both a byte model and a time; trace a GPU run of a kernel whose package models its bytes (sssp, densebf, …)")
	}
	return out, nil
}

// roof is one ceiling line.
type roof struct {
	label string
	gbps  float64
	style draw.LineStyle
}

// roofs are the chart's horizontal ceilings, the measured ones only.
func (r *RooflineChart) roofs() []roof {
	c := r.Ceilings
	solid := func(g uint8) draw.LineStyle {
		return draw.LineStyle{Color: color.Gray{Y: g}, Width: vg.Points(1.4)}
	}
	dashed := func(g uint8) draw.LineStyle {
		s := solid(g)
		s.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		return s
	}
	var out []roof
	for _, x := range []roof{
		{fmt.Sprintf("DRAM streaming (copy) %.0f GB/s", c.CopyBandwidth/1e9), c.CopyBandwidth / 1e9, solid(0x20)},
		{fmt.Sprintf("8-byte gather in L2 %.0f GB/s", c.Gather8InL2/1e9), c.Gather8InL2 / 1e9, dashed(0x40)},
		{fmt.Sprintf("8-byte gather beyond L2 %.0f GB/s", c.Gather8Beyond/1e9), c.Gather8Beyond / 1e9, dashed(0x90)},
	} {
		if x.gbps > 0 {
			out = append(out, x)
		}
	}
	return out
}

// build lays the chart out with gonum/plot.
func (r *RooflineChart) build() (*plot.Plot, error) {
	if r.err != nil {
		return nil, r.err
	}
	series, err := r.points()
	if err != nil {
		return nil, err
	}
	p := newPlot(r.Title, r.XLabel, r.YLabel)
	p.Add(plotter.NewGrid())
	xMin, xMax, yMin, yMax := math.Inf(1), 0.0, math.Inf(1), 0.0
	for _, s := range series {
		for _, pt := range s.xy {
			xMin, xMax = math.Min(xMin, pt.X), math.Max(xMax, pt.X)
			yMin, yMax = math.Min(yMin, pt.Y), math.Max(yMax, pt.Y)
		}
	}
	roofs := r.roofs()
	for _, f := range roofs {
		yMax = math.Max(yMax, f.gbps)
		yMin = math.Min(yMin, f.gbps)
	}
	xMin, xMax = xMin/4, xMax*4
	yMin, yMax = yMin/3, yMax*3
	for _, f := range roofs {
		h := &hLine{y: f.gbps, style: f.style}
		p.Add(h)
		p.Legend.Add(f.label, h)
	}
	if lat := r.Ceilings.LaunchLatency; lat > 0 {
		// bytes ÷ latency: a launch of x bytes that took the latency alone.
		gbps := func(x float64) float64 { return x / lat.Seconds() / 1e9 }
		lo := math.Max(xMin, yMin*1e9*lat.Seconds())
		hi := math.Min(xMax, yMax*1e9*lat.Seconds())
		if hi > lo {
			line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: gbps(lo)}, {X: hi, Y: gbps(hi)}})
			if err != nil {
				return nil, fmt.Errorf("plots: latency roof: %w", err)
			}
			line.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2.5)}}
			p.Add(line)
			p.Legend.Add(fmt.Sprintf("launch latency %v", lat.Round(100*time.Nanosecond)), line)
		}
	}
	labels := make([]string, len(series))
	for i, s := range series {
		labels[i] = s.label
	}
	style := chartStyles(labels)
	for i, s := range series {
		sc, err := plotter.NewScatter(s.xy)
		if err != nil {
			return nil, fmt.Errorf("plots: Roofline: %s: %w", s.label, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: styleColor(style[i]), Shape: styleGlyph(style[i]), Radius: vg.Points(2.5)}
		p.Add(sc)
		p.Legend.Add(s.label, sc)
	}
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = bytesTicks{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xMin, xMax, yMin, yMax
	p.Legend.Top, p.Legend.Left = false, true
	p.Legend.TextStyle.Font = goFont(9)
	p.Legend.Padding = vg.Points(1)
	return p, nil
}

// bytesTicks label powers of ten of bytes as 1 kB, 10 MB, ….
type bytesTicks struct{}

func (bytesTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	units := []string{"B", "kB", "MB", "GB", "TB"}
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		v := math.Pow(10, e)
		if v < lo || v > hi {
			continue
		}
		u := int(e) / 3
		if u < 0 || u >= len(units) {
			ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprintf("%g B", v)})
			continue
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprintf("%g %s", math.Pow(10, e-float64(3*u)), units[u])})
	}
	return ticks
}

// render draws the chart in a format gonum/plot knows.
func (r *RooflineChart) render(format string) ([]byte, error) {
	return renderBuilt(r.build, r.Width, r.Height, format)
}

// PNG returns the chart as PNG bytes, or nil when it cannot be drawn (see
// Err).
func (r *RooflineChart) PNG() []byte { return output(r.render, "png", &r.err) }

// SVGText returns the chart as an SVG document, or "" when it cannot be
// drawn.
func (r *RooflineChart) SVGText() string { return string(output(r.render, "svg", &r.err)) }

// MIMEBundle renders the chart inline: image/png (or image/svg+xml with
// SVGOutput) and a text/plain summary; a chart that cannot be drawn shows
// the reason as text.
func (r *RooflineChart) MIMEBundle() map[string]any {
	return bundle(r.String(), r.SVGOutput, r.render, &r.err)
}

// String describes the chart: per series its launches (and its points,
// where an entry stands for several launches) and median achieved
// bandwidth of its points, and the roofs.
func (r *RooflineChart) String() string {
	series, err := r.points()
	if err != nil {
		return fmt.Sprintf("roofline %q: %v", r.Title, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "roofline %q:", r.Title)
	for _, s := range series {
		bw := make([]float64, len(s.xy))
		for i, pt := range s.xy {
			bw[i] = pt.Y
		}
		slices.Sort(bw)
		if s.launches != len(bw) {
			fmt.Fprintf(&b, " %s %d launches in %d points, median %.0f GB/s;", s.label, s.launches, len(bw), bw[len(bw)/2])
		} else {
			fmt.Fprintf(&b, " %s %d launches, median %.0f GB/s;", s.label, len(bw), bw[len(bw)/2])
		}
	}
	for _, f := range r.roofs() {
		fmt.Fprintf(&b, " roof %s;", f.label)
	}
	return strings.TrimSuffix(b.String(), ";")
}
