package plots

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graphnb/graphnb/bench"
	"github.com/graphnb/graphnb/graph"
	"gonum.org/v1/plot/cmpimg"
)

var update = flag.Bool("update", false, "rewrite plots/testdata/*_golden.png from the current charts")

// golden compares a chart's PNG with testdata/NAME_golden.png with
// gonum's plot/cmpimg (same size, same colour at every pixel); go test
// -update rewrites the file. On a mismatch the new image is written beside
// it as testdata/NAME_got.png (git-ignored) for inspection.
func golden(t *testing.T, name string, img []byte) {
	t.Helper()
	if img == nil {
		t.Fatalf("%s: the chart did not render", name)
	}
	if *update {
		if err := os.WriteFile(filepath.Join("testdata", name+"_golden.png"), img, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := checkGolden("testdata", name, img); err != nil {
		t.Error(err)
	}
}

// checkGolden compares img with dir/NAME_golden.png. On a mismatch it
// writes img to dir/NAME_got.png and says so; on a match it removes a
// NAME_got.png left by an earlier failure.
func checkGolden(dir, name string, img []byte) error {
	path := filepath.Join(dir, name+"_golden.png")
	got := filepath.Join(dir, name+"_got.png")
	want, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%v (go test -update creates it)", err)
	}
	same, err := cmpimg.Equal("png", img, want)
	if err != nil {
		return fmt.Errorf("comparing with %s: %v", path, err)
	}
	if same {
		if err := os.Remove(got); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.WriteFile(got, img, 0o644); err != nil {
		return fmt.Errorf("%s differs from %s, and writing the new image failed: %v", name, path, err)
	}
	return fmt.Errorf("%s differs from %s; the new image is %s (go test -update accepts it)", name, path, got)
}

// TestCheckGoldenWritesGotBeside checks the promise golden makes: a
// mismatch leaves NAME_got.png beside the golden file, and a later match
// removes it.
func TestCheckGoldenWritesGotBeside(t *testing.T) {
	dir := t.TempDir()
	a, b := sample().PNG(), fixtureChart().PNG()
	if err := os.WriteFile(filepath.Join(dir, "x_golden.png"), a, 0o644); err != nil {
		t.Fatal(err)
	}
	err := checkGolden(dir, "x", b)
	got := filepath.Join(dir, "x_got.png")
	if err == nil || !strings.Contains(err.Error(), got) {
		t.Fatalf("mismatch: error %v, want one naming %s", err, got)
	}
	if data, err := os.ReadFile(got); err != nil || !bytes.Equal(data, b) {
		t.Fatalf("%s: %v; want the new image beside the golden one", got, err)
	}
	if err := checkGolden(dir, "x", a); err != nil {
		t.Fatalf("match: %v", err)
	}
	if _, err := os.Stat(got); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s still there after a match: %v", got, err)
	}
}

// fixtureChart is the TEPS chart of the fixture.
func fixtureChart() *Chart { return TEPS(fixture()) }

// fixture is a hand-made sweep: three SSSP variants over scales 14..18,
// four roots each, with fixed times so the charts are reproducible. The
// GPU curves rise and flatten like the study's; the CPU stays low.
func fixture() *bench.Table {
	t := &bench.Table{Meta: bench.Meta{Name: "SSSP on R-MAT (test fixture)", Algo: "sssp", Family: "rmat", Roots: 4}}
	variants := []struct {
		label string
		peak  float64 // arcs/s at large scales
	}{{"cache && restrict on", 3.9e9}, {"cache && restrict off", 3.4e9}, {"CPU Dijkstra", 0.08e9}}
	for scale := 14; scale <= 18; scale++ {
		n := 1 << scale
		arcs := int64(32 * n)
		for vi, v := range variants {
			rate := v.peak * (1 - math.Exp(-float64(scale-12)/2))
			r := bench.Row{Variant: v.label, Scale: scale, Graph: fmt.Sprintf("rmat:%d:16", scale), Vertices: n, Arcs: arcs}
			for k := 0; k < 4; k++ {
				// spread of ±15% for the GPU (racy iteration counts), ±3% for the CPU
				spread := []float64{0.85, 1, 1.05, 1.15}[k]
				if vi == 2 {
					spread = 1 + (spread-1)/5
				}
				d := time.Duration(float64(arcs) / (rate * spread) * 1e9)
				r.Runs = append(r.Runs, bench.Run{Root: int32(k), Time: d, Iterations: 30,
					TEPS: graph.Rate(arcs/2-int64(k)*1000, arcs, d), ComponentEdges: arcs/2 - int64(k)*1000, Validated: true})
			}
			r.Stats = bench.ComputeStats(r.Runs)
			t.Rows = append(t.Rows, r)
		}
	}
	t.Meta.Variants = t.Variants()
	return t
}

// apspFixture is a time-only table: plain and blocked Floyd-Warshall over
// n = 256..4096 (n³ updates at a fixed rate each).
func apspFixture() *bench.Table {
	t := &bench.Table{Meta: bench.Meta{Name: "APSP (test fixture)", Algo: "apsp"}}
	for _, v := range []struct {
		label string
		rate  float64 // updates per second
	}{{"plain", 2e9}, {"blocked", 1.2e10}} {
		for n := 256; n <= 4096; n *= 2 {
			r := bench.Row{Variant: v.label, Graph: fmt.Sprintf("er:%d:0.01", n), Vertices: n}
			for k := 0; k < 3; k++ {
				d := time.Duration(math.Pow(float64(n), 3) / v.rate * (1 + 0.05*float64(k)) * 1e9)
				r.Runs = append(r.Runs, bench.Run{Root: -1, Rep: k, Time: d})
			}
			r.Stats = bench.ComputeStats(r.Runs)
			t.Rows = append(t.Rows, r)
		}
	}
	return t
}

func TestTEPSChart(t *testing.T) {
	resetStyles() // golden images: styles as in a fresh notebook
	c := TEPS(fixture())
	if c.Err() != nil || len(c.Series) != 3 || !c.Log2X || c.YLabel != "G arcs/s (mean, min–max)" {
		t.Fatalf("chart %+v, err %v", c, c.Err())
	}
	s := c.Series[0]
	if s.Label != "cache && restrict on" || len(s.X) != 5 || s.X[0] != 1<<14 {
		t.Fatalf("first series %+v", s)
	}
	for k := range s.X {
		if !(s.Lo[k] < s.Y[k] && s.Y[k] < s.Hi[k]) || s.Y[k] > 4 || s.Y[k] < 1 {
			t.Fatalf("point %d: %g [%g, %g] G arcs/s", k, s.Y[k], s.Lo[k], s.Hi[k])
		}
	}
	golden(t, "teps", c.PNG())
}

func TestTEPSGraph500Chart(t *testing.T) {
	resetStyles() // golden images: styles as in a fresh notebook
	tab := fixture()
	c := TEPSGraph500(tab)
	if c.Err() != nil || len(c.Series) != 3 || !strings.Contains(c.YLabel, "Graph500") {
		t.Fatalf("chart %+v, err %v", c, c.Err())
	}
	// the harmonic mean, in G TEPS
	if got, want := c.Series[2].Y[0], tab.Rows[2].HarmonicMeanTEPS/1e9; got != want {
		t.Fatalf("CPU at 2^14: %g, want %g", got, want)
	}
	golden(t, "teps_graph500", c.PNG())
}

func TestSpeedupChart(t *testing.T) {
	resetStyles() // golden images: styles as in a fresh notebook
	st := fixture().Speedup("CPU Dijkstra")
	c := Speedup(st)
	if c.Err() != nil || len(c.Series) != 2 || !strings.Contains(c.YLabel, "speedup over CPU Dijkstra") {
		t.Fatalf("chart %+v, err %v", c, c.Err())
	}
	for _, s := range c.Series {
		for k := range s.X {
			if !(s.Lo[k] <= s.Y[k] && s.Y[k] <= s.Hi[k]) || s.Y[k] < 30 {
				t.Fatalf("%s point %d: %g [%g, %g]", s.Label, k, s.Y[k], s.Lo[k], s.Hi[k])
			}
		}
	}
	golden(t, "speedup", c.PNG())

	bad := Speedup(fixture().Speedup("GPU"))
	if bad.PNG() != nil || bad.Err() == nil || !strings.Contains(bad.Err().Error(), `no variant "GPU"`) {
		t.Fatalf("unknown baseline: err %v", bad.Err())
	}
}

func TestTimeVsN(t *testing.T) {
	resetStyles() // golden images: styles as in a fresh notebook
	c := TimeVsN(apspFixture())
	if c.Err() != nil || len(c.Series) != 2 || !c.LogY || !c.Log2X || len(c.Series[0].X) != 5 {
		t.Fatalf("chart %+v, err %v", c, c.Err())
	}
	if s := c.Series[0]; s.Y[4]/s.Y[0] < 4000 {
		t.Fatalf("n³ growth lost: %v", s.Y)
	}
	golden(t, "time_vs_n", c.PNG())

	if rc := TEPS(apspFixture()); rc.PNG() != nil || rc.Err() == nil || !strings.Contains(rc.Err().Error(), "TimeVsN") {
		t.Fatalf("TEPS of a time-only table: %v", rc.Err())
	}
}

func TestBarsFromTable(t *testing.T) {
	resetStyles() // golden images: styles as in a fresh notebook
	b := Bars(fixture())
	if b.Err() != nil || len(b.Groups) != 5 || b.Groups[0] != "2¹⁴" || len(b.Series) != 3 || b.YLabel != "G arcs/s (mean, min–max)" {
		t.Fatalf("bars %+v, err %v", b, b.Err())
	}
	golden(t, "bars", b.PNG())

	tb := Bars(apspFixture())
	if tb.Err() != nil || tb.YLabel != "time (s, mean, min–max)" || tb.Groups[0] != "er:256:0.01" {
		t.Fatalf("time-only bars %+v, err %v", tb, tb.Err())
	}
}

// Hand-made bars, as the MST notebook draws hybrid vs GPU vs CPU; a
// missing value leaves a gap.
func TestNewBars(t *testing.T) {
	resetStyles() // golden images: styles as in a fresh notebook
	b := NewBars("MST on SSCA#2", "scale", "MTEPS", "2¹⁶", "2¹⁸", "2²⁰").
		AddRange("GPU+CPU", []float64{900, 2400, 3000}, []float64{850, 2300, 2900}, []float64{950, 2500, 3100}).
		Add("GPU", []float64{800, 2100, math.NaN()}).
		Add("CPU", []float64{120, 150, 160})
	golden(t, "bars_hand", b.PNG())

	img, err := png.Decode(bytes.NewReader(b.PNG()))
	if err != nil || img.Bounds().Dx() < 400 {
		t.Fatalf("PNG: %v", err)
	}
	if svg := b.SVGText(); !strings.Contains(svg, "GPU+CPU") || !strings.Contains(svg, "<svg") {
		t.Fatal("SVG lacks the legend")
	}
	if m := b.MIMEBundle(); m["image/png"] == nil || !strings.Contains(m["text/plain"].(string), "GPU+CPU, GPU, CPU") {
		t.Fatalf("bundle %v", m["text/plain"])
	}
	b.SVGOutput = true
	if m := b.MIMEBundle(); m["image/svg+xml"] == nil || m["image/png"] != nil {
		t.Fatal("SVGOutput ignored")
	}
	dir := t.TempDir()
	for _, name := range []string{"b.png", "b.svg", "b.pdf"} {
		if err := b.Save(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Save(filepath.Join(dir, "noext")); err == nil {
		t.Fatal("Save without an extension succeeded")
	}
}

func TestBarErrors(t *testing.T) {
	cases := []struct {
		name string
		b    *BarChart
		want string
	}{
		{"short series", NewBars("t", "x", "y", "a", "b").Add("s", []float64{1}), `"s" has 1 values for 2 groups`},
		{"missing highs", NewBars("t", "x", "y", "a").AddRange("s", []float64{1}, []float64{1}, nil), "1 lows and 0 highs"},
		{"no groups", NewBars("t", "x", "y"), "no groups"},
		{"empty table", Bars(&bench.Table{Meta: bench.Meta{Name: "e"}}), "no rows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.b.PNG() != nil || c.b.Err() == nil || !strings.Contains(c.b.Err().Error(), c.want) {
				t.Fatalf("err %v, want %q", c.b.Err(), c.want)
			}
			if m := c.b.MIMEBundle(); !strings.Contains(m["text/plain"].(string), c.want) {
				t.Fatalf("bundle %v", m)
			}
		})
	}
}

// Bars are read from zero, and the y range holds the highest whisker.
func TestBarsYRange(t *testing.T) {
	b := NewBars("t", "x", "y", "a", "b").AddRange("s", []float64{1, 2}, []float64{0.5, 1.5}, []float64{1.5, 3})
	p, err := b.build()
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 || p.Y.Max < 3 {
		t.Fatalf("y from %g to %g; want 0 to at least 3", p.Y.Min, p.Y.Max)
	}
}

func TestSIScale(t *testing.T) {
	for _, c := range []struct {
		top   float64
		scale float64
		pre   string
	}{{5e9, 1e9, "G"}, {2e6, 1e6, "M"}, {999, 1, ""}, {1e3, 1e3, "k"}} {
		if s, p := siScale(c.top); s != c.scale || p != c.pre {
			t.Errorf("siScale(%g) = %g %q", c.top, s, p)
		}
	}
	c := TEPS(&bench.Table{Meta: bench.Meta{Name: "m"}, Rows: []bench.Row{{Variant: "v", Vertices: 64,
		Stats: bench.Stats{NumRuns: 1, MeanArcsPerSecond: 5e6, MinArcsPerSecond: 4e6, MaxArcsPerSecond: 6e6}}}})
	if c.YLabel != "M arcs/s (mean, min–max)" || c.Series[0].Y[0] != 5 {
		t.Fatalf("M scale: %q %v", c.YLabel, c.Series[0].Y)
	}
}
