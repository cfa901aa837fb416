package plots_test

import (
	"fmt"
	"log"
	"math"
	"testing"
	"time"

	"github.com/graphnb/graphnb/bench"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/plots"
	"gonum.org/v1/plot/cmpimg"
)

// The examples double as golden tests, as gonum/plot's do: each saves its
// chart to testdata/example_NAME.png (git-ignored), and TestExamples
// compares that file with testdata/example_NAME_golden.png. After a
// deliberate change, go test ./plots -run TestExamples -regen makes the
// new images the golden ones.

// sweep is what bench.Sweep.Run returns for a small SSSP sweep: two
// variants at scales 10 to 14, three roots each. The times are made up,
// so that the charts are the same on every machine.
func sweep() *bench.Table {
	t := &bench.Table{Meta: bench.Meta{Name: "SSSP on R-MAT", Algo: "sssp", Family: "rmat", Roots: 3}}
	for scale := 10; scale <= 14; scale++ {
		arcs := int64(32) << scale
		for _, v := range []struct {
			label string
			rate  float64 // arcs/s at large scales
		}{{"GPU", 4e9}, {"CPU", 2e7}} {
			row := bench.Row{Variant: v.label, Scale: scale, Graph: fmt.Sprintf("rmat:%d", scale), Vertices: 1 << scale, Arcs: arcs}
			rate := v.rate * (1 - math.Exp(-float64(scale-8)/2))
			for root, spread := range []float64{0.9, 1, 1.1} {
				d := time.Duration(float64(arcs) / (rate * spread) * 1e9)
				row.Runs = append(row.Runs, bench.Run{Root: int32(root), Time: d, Validated: true,
					TEPS: graph.Rate(arcs/2, arcs, d), ComponentEdges: arcs / 2})
			}
			row.Stats = bench.ComputeStats(row.Runs)
			t.Rows = append(t.Rows, row)
		}
	}
	t.Meta.Variants = t.Variants()
	return t
}

// A sweep's rates against the vertex count, the studies' figure.
func ExampleTEPS() {
	c := plots.TEPS(sweep())
	if err := c.Save("testdata/example_teps.png"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(c)
	fmt.Println(c.YLabel, "| log y:", c.LogY)
	// Output:
	// chart "SSSP on R-MAT": GPU, CPU
	// G arcs/s (mean, min–max) | log y: true
}

// The speedup of every variant over a baseline, graph by graph.
func ExampleSpeedup() {
	c := plots.Speedup(sweep().Speedup("CPU"))
	if err := c.Save("testdata/example_speedup.png"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(c)
	// Output:
	// chart "SSSP on R-MAT": GPU
}

// A chart drawn from numbers of one's own: a line and a line with min–max
// bars, on a 2^k axis.
func ExampleNew() {
	n := []float64{1 << 10, 1 << 12, 1 << 14}
	c := plots.New("BFS", "vertices", "G arcs/s")
	c.Log2X = true
	c.Range("GPU", n, []float64{1, 3, 5}, []float64{0.8, 2.7, 4.6}, []float64{1.1, 3.2, 5.5})
	c.Line("CPU", n, []float64{0.2, 0.3, 0.3})
	if err := c.Save("testdata/example_new.png"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(c)
	// Output:
	// chart "BFS": GPU, CPU
}

// Grouped bars, as the MST notebook compares GPU+CPU, GPU and CPU; NaN
// leaves a gap.
func ExampleNewBars() {
	b := plots.NewBars("MST on SSCA#2", "scale", "MTEPS", "2¹⁶", "2¹⁸").
		AddRange("GPU+CPU", []float64{900, 2400}, []float64{850, 2300}, []float64{950, 2500}).
		Add("GPU", []float64{800, math.NaN()})
	if err := b.Save("testdata/example_bars.png"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(b)
	// Output:
	// bar chart "MST on SSCA#2": GPU+CPU, GPU over 2¹⁶, 2¹⁸
}

// TestExamples runs the examples and compares the images they save with
// the golden ones; a mismatch leaves the new image beside its golden file.
func TestExamples(t *testing.T) {
	fresh := func(example func()) func() { // styles as in a fresh notebook
		return func() { plots.ResetStyles(); example() }
	}
	cmpimg.CheckPlot(fresh(ExampleTEPS), t, "example_teps.png")
	cmpimg.CheckPlot(fresh(ExampleSpeedup), t, "example_speedup.png")
	cmpimg.CheckPlot(fresh(ExampleNew), t, "example_new.png")
	cmpimg.CheckPlot(fresh(ExampleNewBars), t, "example_bars.png")
}
