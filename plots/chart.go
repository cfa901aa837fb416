// Package plots draws the charts of graphnb's notebooks with gonum/plot:
// rates against graph scale for several variants, each chart rendering
// itself inline (PNG by default, SVG on request) and saving to a file.
//
// Charts follow the same rules everywhere: a colour-blind-safe palette
// (Okabe–Ito) with a distinct marker per series, readable fonts, a log2 x
// axis labelled 2^k where the x values are sizes, and a legend kept in a
// band of its own above the data so it never covers a point.
package plots

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgpdf"
)

// Palette is the Okabe–Ito palette (safe for the common colour-vision
// deficiencies), in the order series take their colours.
var Palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
	color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
	color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
	color.RGBA{0xF0, 0xE4, 0x42, 0xff}, // yellow
}

var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{},
}

// Series is one line of a chart. Lo and Hi, when set, draw an error bar
// from Lo[i] to Hi[i] at X[i] (the studies' min–max spread).
type Series struct {
	Label  string
	X, Y   []float64
	Lo, Hi []float64
	// Key names the curve across charts ("" means Label): see Style.
	Key string
}

// styles gives every curve key a style number, in the order keys are
// first drawn in this process (a notebook's kernel), so that a variant
// keeps its colour and marker in every chart of a notebook.
var styles = struct {
	sync.Mutex
	index map[string]int
}{index: map[string]int{}}

// Style returns the style number of a curve key: the colour
// Palette[k%8] and the k/8-th marker after the colour's own, so that the
// first 64 keys of a process never share both. Charts draw a key with
// its style unless another curve of the same chart already has it.
func Style(key string) int {
	styles.Lock()
	defer styles.Unlock()
	k, ok := styles.index[key]
	if !ok {
		k = len(styles.index)
		styles.index[key] = k
	}
	return k
}

// resetStyles forgets every key's style (tests).
func resetStyles() {
	styles.Lock()
	styles.index = map[string]int{}
	styles.Unlock()
}

// chartStyles returns the style of each key of one chart: the keys'
// styles, a clash within the chart moved to the next free style.
func chartStyles(keys []string) []int {
	out := make([]int, len(keys))
	used := map[int]bool{}
	for i, key := range keys {
		k := Style(key)
		for used[k%64] {
			k++
		}
		used[k%64] = true
		out[i] = k
	}
	return out
}

// styleColor and styleGlyph are the colour and marker of style k.
func styleColor(k int) color.Color { return Palette[k%len(Palette)] }
func styleGlyph(k int) draw.GlyphDrawer {
	return glyphs[(k%len(glyphs)+k/len(Palette))%len(glyphs)]
}

// keyOf is a series' key.
func (s Series) keyOf() string {
	if s.Key != "" {
		return s.Key
	}
	return s.Label
}

// Chart is a line chart. Build it with New and Line/Range, then show it
// as a cell's last expression or Save it. The zero sizes mean 6×4 inches.
type Chart struct {
	Title, XLabel, YLabel string
	// Log2X draws x on a log2 scale with ticks labelled 2^k: use it when x
	// holds sizes (vertices, n), not exponents.
	Log2X bool
	// LogY draws y on a log10 scale.
	LogY bool
	// Width and Height are in inches (0: 6 and 4).
	Width, Height float64
	// SVGOutput makes the chart render inline as SVG instead of PNG.
	SVGOutput bool
	Series    []Series
	err       error
}

// New returns an empty chart with a title and axis labels.
func New(title, xLabel, yLabel string) *Chart {
	return &Chart{Title: title, XLabel: xLabel, YLabel: yLabel}
}

// Line adds a series and returns the chart, so calls chain. A length
// mismatch is reported when the chart renders (see Err).
func (c *Chart) Line(label string, x, y []float64) *Chart {
	return c.Range(label, x, y, nil, nil)
}

// Range adds a series with min–max error bars and returns the chart.
func (c *Chart) Range(label string, x, y, lo, hi []float64) *Chart {
	switch {
	case len(x) != len(y):
		c.err = fmt.Errorf("plots: series %q has %d x values but %d y values", label, len(x), len(y))
	case (lo != nil || hi != nil) && (len(lo) != len(x) || len(hi) != len(x)):
		c.err = fmt.Errorf("plots: series %q has %d points but %d lows and %d highs", label, len(x), len(lo), len(hi))
	}
	c.Series = append(c.Series, Series{Label: label, X: x, Y: y, Lo: lo, Hi: hi})
	return c
}

// Err reports the first problem found while building the chart.
func (c *Chart) Err() error { return c.err }

// build lays the chart out with gonum/plot.
func (c *Chart) build() (*plot.Plot, error) {
	if c.err != nil {
		return nil, c.err
	}
	registerFonts()
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.Title.TextStyle.Font = goFont(14)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = goFont(11)
		a.Tick.Label.Font = goFont(10)
	}
	p.Add(plotter.NewGrid())
	p.Title.Padding = vg.Points(6)
	if c.Log2X {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = pow2Ticks{}
	}
	if c.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	yMin, yMax := math.Inf(1), math.Inf(-1)
	keys := make([]string, len(c.Series))
	for i, s := range c.Series {
		keys[i] = s.keyOf()
	}
	style := chartStyles(keys)
	whole := true // every value a whole number: integer ticks
	for i, s := range c.Series {
		pts := make(plotter.XYs, 0, len(s.X))
		for k := range s.X {
			if (c.Log2X && s.X[k] <= 0) || (c.LogY && s.Y[k] <= 0) || math.IsNaN(s.Y[k]) || math.IsInf(s.Y[k], 0) {
				continue // not drawable on this scale
			}
			pts = append(pts, plotter.XY{X: s.X[k], Y: s.Y[k]})
			yMin, yMax = math.Min(yMin, s.Y[k]), math.Max(yMax, s.Y[k])
			whole = whole && s.Y[k] == math.Trunc(s.Y[k])
			if s.Hi != nil {
				yMin, yMax = math.Min(yMin, s.Lo[k]), math.Max(yMax, s.Hi[k])
				whole = whole && s.Lo[k] == math.Trunc(s.Lo[k]) && s.Hi[k] == math.Trunc(s.Hi[k])
			}
		}
		col := styleColor(style[i])
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("plots: series %q: %w", s.Label, err)
		}
		line.Color = col
		line.Width = vg.Points(1.5)
		points.Color = col
		points.Shape = styleGlyph(style[i])
		points.Radius = vg.Points(3)
		p.Add(line, points)
		if s.Hi != nil {
			bars, err := errorBars(s, c)
			if err != nil {
				return nil, err
			}
			bars.Color = col
			p.Add(bars)
		}
		p.Legend.Add(s.Label, line, points)
	}
	if len(c.Series) > 0 && !math.IsInf(yMin, 0) {
		fitYAxis(p, c.LogY, yMin, yMax)
		if whole && !c.LogY {
			p.Y.Tick.Marker = integerTicks{}
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font = goFont(10)
	p.Legend.Padding = vg.Points(2)
	return p, nil
}

// fitYAxis sets the y range to the data with a small margin (from 0 on a
// linear axis, so bars and rates are read against zero).
func fitYAxis(p *plot.Plot, logY bool, yMin, yMax float64) {
	if logY {
		lo, hi := math.Log10(yMin), math.Log10(yMax)
		if hi == lo {
			lo, hi = lo-0.5, hi+0.5
		}
		pad := (hi - lo) * 0.05
		p.Y.Min, p.Y.Max = math.Pow(10, lo-pad), math.Pow(10, hi+pad)
		return
	}
	lo := math.Min(0, yMin)
	hi := yMax
	if hi == lo {
		hi = lo + 1
	}
	p.Y.Min, p.Y.Max = lo, hi+(hi-lo)*0.05
}

func errorBars(s Series, c *Chart) (*plotter.YErrorBars, error) {
	var pts plotter.XYs
	var errs plotter.YErrors
	for k := range s.X {
		if (c.Log2X && s.X[k] <= 0) || (c.LogY && (s.Lo[k] <= 0 || s.Y[k] <= 0)) {
			continue
		}
		pts = append(pts, plotter.XY{X: s.X[k], Y: s.Y[k]})
		errs = append(errs, struct{ Low, High float64 }{s.Y[k] - s.Lo[k], s.Hi[k] - s.Y[k]})
	}
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{pts, errs})
	if err != nil {
		return nil, fmt.Errorf("plots: error bars of %q: %w", s.Label, err)
	}
	return bars, nil
}

// integerTicks marks whole numbers only, for integer quantities (counts,
// levels, rounds): gonum's default ticks where they are whole, every
// integer when the range is too short for those.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value == math.Trunc(t.Value) {
			if t.Label != "" {
				t.Label = strconv.FormatFloat(t.Value, 'f', 0, 64)
			}
			out = append(out, t)
		}
	}
	labelled := 0
	for _, t := range out {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled >= 2 || hi-lo > 20 {
		return out
	}
	out = out[:0]
	for v := math.Ceil(lo); v <= hi; v++ {
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return out
}

// wrapLabel breaks an axis label into lines at spaces so that no line is
// longer than room when drawn in style: a y label longer than the plot is
// high would otherwise be cut at the canvas edge.
func wrapLabel(label string, style text.Style, room vg.Length) string {
	if style.Width(label) <= room {
		return label
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(label) {
		switch {
		case line == "":
			line = w
		case style.Width(line+" "+w) <= room:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return strings.Join(append(lines, line), "\n")
}

// pow2Ticks marks powers of two, labelled 2^k with superscript digits.
type pow2Ticks struct{}

func (pow2Ticks) Ticks(lowest, highest float64) []plot.Tick {
	lo, hi := int(math.Floor(math.Log2(lowest))), int(math.Ceil(math.Log2(highest)))
	step := max(1, (hi-lo+11)/12) // at most about a dozen labels
	var ticks []plot.Tick
	for k := lo; k <= hi; k++ {
		t := plot.Tick{Value: math.Ldexp(1, k)}
		if (k-lo)%step == 0 {
			t.Label = "2" + superscript(k)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func superscript(k int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	var b strings.Builder
	for _, r := range fmt.Sprint(k) {
		if r == '-' {
			b.WriteString("⁻")
			continue
		}
		b.WriteString(string([]rune(digits)[r-'0']))
	}
	return b.String()
}

// The charts use the Go fonts, which have every superscript digit (the
// default Liberation fonts lack ⁰ and ⁹).
var registerFonts = sync.OnceFunc(func() {
	face, err := opentype.Parse(goregular.TTF)
	if err != nil {
		panic("plots: parsing the embedded Go font: " + err.Error())
	}
	font.DefaultCache.Add(font.Collection{{Font: font.Font{Typeface: "Go"}, Face: face}})
})

// goFont returns the regular Go font at size points. (One weight only:
// the PDF backend cannot select a bold face it registered by name.)
func goFont(size float64) font.Font {
	return font.Font{Typeface: "Go", Size: vg.Points(size)}
}

func (c *Chart) size() (vg.Length, vg.Length) {
	w, h := c.Width, c.Height
	if w <= 0 {
		w = 6
	}
	if h <= 0 {
		h = 4
	}
	return vg.Length(w) * vg.Inch, vg.Length(h) * vg.Inch
}

// render draws the chart in a format gonum/plot knows ("png", "svg",
// "pdf", …).
func (c *Chart) render(format string) ([]byte, error) {
	p, err := c.build()
	if err != nil {
		return nil, err
	}
	w, h := c.size()
	fitAxisLabels(p, h)
	return drawPlot(p, w, h, format)
}

// fitAxisLabels wraps the y label to the plot's height (less the title
// and the x axis) so that it is never cut.
func fitAxisLabels(p *plot.Plot, h vg.Length) {
	room := h - p.Title.TextStyle.Height(p.Title.Text) - p.Title.Padding - 3*p.X.Label.TextStyle.Font.Size - 2*p.X.Tick.Label.Font.Size
	p.Y.Label.Text = wrapLabel(p.Y.Label.Text, p.Y.Label.TextStyle, room)
}

// legendGap separates the plot from the legend column beside it.
const legendGap = 8 * vg.Millimeter / 3

// drawPlot draws p with its legend in a column of its own right of the
// plot area (so the legend never covers data, however many series), on
// a canvas w wide plus that column, h high.
func drawPlot(p *plot.Plot, w, h vg.Length, format string) ([]byte, error) {
	legend := p.Legend
	p.Legend = plot.NewLegend() // drawn apart, below
	column := vg.Length(0)
	if r := legend.Rectangle(draw.Canvas{}); r.Max.X-r.Min.X > 0 {
		column = r.Max.X - r.Min.X + 2*legendGap
	}
	var canvas vg.CanvasWriterTo
	if format == "pdf" { // embed the Go fonts: they are not among PDF's standard fonts
		pdf := vgpdf.New(w+column, h)
		pdf.EmbedFonts(true)
		canvas = pdf
	} else {
		var err error
		if canvas, err = draw.NewFormattedCanvas(w+column, h, format); err != nil {
			return nil, fmt.Errorf("plots: %w", err)
		}
	}
	dc := draw.New(canvas)
	p.Draw(draw.Crop(dc, 0, -column, 0, 0))
	if column > 0 {
		legend.Top, legend.Left = true, true
		// Level with the top of the plot area, below the title.
		legend.YOffs = -(p.Title.TextStyle.Height(p.Title.Text) + p.Title.Padding + legendGap)
		legend.Draw(draw.Crop(dc, w+legendGap, 0, 0, 0))
	}
	var buf bytes.Buffer
	if _, err := canvas.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	return buf.Bytes(), nil
}

// PNG returns the chart as PNG bytes, or nil when it cannot be drawn (see
// Err).
func (c *Chart) PNG() []byte { return output(c.render, "png", &c.err) }

// SVGText returns the chart as an SVG document, or "" when it cannot be
// drawn.
func (c *Chart) SVGText() string { return string(output(c.render, "svg", &c.err)) }

// MIMEBundle renders the chart inline: image/png (or image/svg+xml with
// SVGOutput) and a text/plain summary. A chart that cannot be drawn shows
// the reason as text.
func (c *Chart) MIMEBundle() map[string]any {
	return bundle(c.String(), c.SVGOutput, c.render, &c.err)
}

// String describes the chart in one line.
func (c *Chart) String() string {
	labels := make([]string, len(c.Series))
	for i, s := range c.Series {
		labels[i] = s.Label
	}
	return fmt.Sprintf("chart %q: %s", c.Title, strings.Join(labels, ", "))
}

// Save writes the chart to path; the extension picks the format (.png,
// .svg, .pdf, .eps, .jpg, .tif).
func (c *Chart) Save(path string) error { return save(path, c.render) }

// The outputs every chart type shares, over its render function.

// output renders in format, recording a failure in *errp (nil then).
func output(render func(format string) ([]byte, error), format string, errp *error) []byte {
	b, err := render(format)
	if err != nil {
		*errp = err
		return nil
	}
	return b
}

// bundle is a chart's inline MIME bundle: image/png, or image/svg+xml
// when svg is set, with text as text/plain; the reason as text when the
// chart cannot be drawn.
//
// An SVG chart also comes as text/html: an <img> whose source is the SVG
// as a base64 data: URL. Front ends that prefer HTML show it, and it
// survives the HTML sanitizer of nbconvert, which strips an inline
// image/svg+xml output down to an empty <svg>.
func bundle(text string, svg bool, render func(format string) ([]byte, error), errp *error) map[string]any {
	if svg {
		if b := output(render, "svg", errp); b != nil {
			return map[string]any{"image/svg+xml": string(b), "text/html": svgImg(b, text), "text/plain": text}
		}
	} else if b := output(render, "png", errp); b != nil {
		return map[string]any{"image/png": base64.StdEncoding.EncodeToString(b), "text/plain": text}
	}
	return map[string]any{"text/plain": text + ": " + (*errp).Error()}
}

// svgImg is an <img> element that embeds an SVG document as a data: URL,
// with alt as its text alternative.
func svgImg(svg []byte, alt string) string {
	return `<img src="data:image/svg+xml;base64,` + base64.StdEncoding.EncodeToString(svg) + `" alt="` + html.EscapeString(alt) + `">`
}

// save writes a chart to path in the format its extension names.
func save(path string, render func(format string) ([]byte, error)) error {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if ext == "" {
		return fmt.Errorf("plots: %q has no extension to choose a format by (use .png, .svg or .pdf)", path)
	}
	b, err := render(ext)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
