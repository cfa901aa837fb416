package plots

import (
	"fmt"
	"strings"
	"testing"

	"github.com/graphnb/graphnb/bench"
)

// seriesStyles returns the colour and marker each curve of c is drawn
// with (build draws series i with chartStyles of the keys, element i).
func seriesStyles(t *testing.T, c *Chart) []string {
	t.Helper()
	if _, err := c.build(); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(c.Series))
	for i, s := range c.Series {
		keys[i] = s.keyOf()
	}
	var out []string
	for _, k := range chartStyles(keys) {
		r, g, b, _ := styleColor(k).RGBA()
		out = append(out, fmt.Sprintf("%02x%02x%02x/%T", r>>8, g>>8, b>>8, styleGlyph(k)))
	}
	return out
}

func TestManyCurvesNeverShareColourAndMarker(t *testing.T) {
	resetStyles()
	for _, n := range []int{9, 16, 40} {
		c := New("many", "x", "y")
		for i := range n {
			c.Line(fmt.Sprintf("curve %d of %d", i, n), []float64{1, 2}, []float64{1, float64(i)})
		}
		seen := map[string]int{}
		for i, s := range seriesStyles(t, c) {
			if j, ok := seen[s]; ok {
				t.Fatalf("%d curves: curves %d and %d share colour and marker %s", n, j, i, s)
			}
			seen[s] = i
		}
	}
}

func TestVariantKeepsItsStyleAcrossCharts(t *testing.T) {
	resetStyles()
	a := New("a", "x", "y").Line("GPU", []float64{1}, []float64{1}).Line("CPU", []float64{1}, []float64{2})
	b := New("b", "x", "y").Line("other", []float64{1}, []float64{1}).Line("CPU", []float64{1}, []float64{2}).Line("GPU", []float64{1}, []float64{3})
	sa, sb := seriesStyles(t, a), seriesStyles(t, b)
	if sa[0] != sb[2] || sa[1] != sb[1] || sb[0] == sb[1] || sb[0] == sb[2] {
		t.Fatalf("styles of GPU, CPU in chart a: %v; of other, CPU, GPU in chart b: %v", sa, sb)
	}
	// A table's curve keeps its variant's style when its label says what
	// ran instead.
	tab := &bench.Table{Meta: bench.Meta{Name: "t"}, Rows: []bench.Row{
		{Variant: "GPU", Vertices: 64, Ran: "cpu direction-optimizing", Stats: bench.Stats{NumRuns: 1, MeanArcsPerSecond: 5, MinArcsPerSecond: 5, MaxArcsPerSecond: 5}}}}
	c := TEPS(tab)
	if got := seriesStyles(t, c); got[0] != sa[0] || c.Series[0].Label != "GPU [ran: cpu direction-optimizing]" {
		t.Fatalf("table curve %q drawn %v, want GPU's %s", c.Series[0].Label, got, sa[0])
	}
	st := &bench.SpeedupTable{Meta: tab.Meta, Baseline: "CPU", Labels: map[string]string{"GPU": "GPU [ran: cpu x]"},
		Rows: []bench.SpeedupRow{{Variant: "GPU", Vertices: 64, Mean: 2, Min: 1, Max: 3}}}
	sc := Speedup(st)
	if got := seriesStyles(t, sc); got[0] != sa[0] || sc.Series[0].Label != "GPU [ran: cpu x]" {
		t.Fatalf("speedup curve %q drawn %v, want GPU's %s", sc.Series[0].Label, got, sa[0])
	}
}

func TestLongYLabelIsWrappedNotCut(t *testing.T) {
	long := strings.Repeat("a long y axis label ", 8)
	c := New("t", "x", long).Line("s", []float64{1, 2}, []float64{1, 2})
	p, err := c.build()
	if err != nil {
		t.Fatal(err)
	}
	_, h := c.size()
	fitAxisLabels(p, h)
	lines := strings.Split(p.Y.Label.Text, "\n")
	if len(lines) < 2 {
		t.Fatalf("a label %v long on a %v high chart was not wrapped", p.Y.Label.TextStyle.Width(long), h)
	}
	for _, l := range lines {
		if w := p.Y.Label.TextStyle.Width(l); w > h {
			t.Fatalf("line %q is %v long, more than the chart's %v", l, w, h)
		}
	}
	if strings.Join(strings.Fields(strings.Join(lines, " ")), " ") != strings.TrimSpace(long) {
		t.Fatalf("wrapping lost words: %q", p.Y.Label.Text)
	}
	if short := wrapLabel("time (s)", p.Y.Label.TextStyle, h); short != "time (s)" {
		t.Fatalf("a short label was changed to %q", short)
	}
}

func TestIntegerQuantitiesGetIntegerTicks(t *testing.T) {
	for _, ys := range [][]float64{{1, 2, 3}, {2, 3}, {0, 40, 700}} {
		c := New("levels", "x", "levels").Line("s", []float64{1, 2, 3}[:len(ys)], ys)
		p, err := c.build()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := p.Y.Tick.Marker.(integerTicks); !ok {
			t.Fatalf("%v: y ticks are %T, want integerTicks", ys, p.Y.Tick.Marker)
		}
		labelled := 0
		for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
			if tk.Value != float64(int64(tk.Value)) || strings.Contains(tk.Label, ".") {
				t.Fatalf("%v: tick %v %q is not a whole number", ys, tk.Value, tk.Label)
			}
			if tk.Label != "" {
				labelled++
			}
		}
		if labelled < 2 {
			t.Fatalf("%v: %d labelled ticks", ys, labelled)
		}
	}
	c := New("rates", "x", "y").Line("s", []float64{1, 2}, []float64{0.5, 2.5})
	if p, _ := c.build(); p != nil {
		if _, ok := p.Y.Tick.Marker.(integerTicks); ok {
			t.Fatal("fractional values got integer ticks")
		}
	}
}
