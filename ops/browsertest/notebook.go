package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// The cells of the test notebook, in order. The chart check looks at the
// output of cell chartCellIndex, the widget check at the widgets of cell
// interactCellIndex.
const (
	chartCellIndex    = 0
	interactCellIndex = 1
)

// chartCell draws a chart with graphnb's plots package: the cell a user
// would write.
const chartCell = `xs := []float64{1 << 10, 1 << 12, 1 << 14}
c := plots.New("browser test", "vertices", "GTEPS")
c.Log2X = true
c.Line("bfs", xs, []float64{1, 3, 2})`

// interactCell (a format string: the R-MAT scale, then the roots per
// point) makes an R-MAT graph on the CPU, kept for every change, and an
// Interact over a root slider and a "direction-optimizing" checkbox: each
// change measures one sweep point as package bench does — the chosen
// variant from the slider's root and the next ones, every run validated
// by bfs.Check (outside the timed region), the mean of the stored arcs
// per second — records the values in seen, prints the point (which lands
// in the Interact's Output) and returns a chart of the points so far,
// titled with the root and variant so that every change draws a
// different image.
const interactCell = `import "github.com/graphnb/graphnb/widgets"
g, err := gen.RMAT(%d, 16, gen.Seed(1))
if err != nil {
	panic(err)
}
const perPoint = %d
roots := g.Roots(64+perPoint, 1)
var seen []string
var points, rates []float64
root := widgets.NewIntSlider("root", 0, len(roots)-perPoint, 1, 0)
diropt := widgets.NewCheckbox("direction-optimizing", true)
ui, err := widgets.Interact(func(i int, do bool) (*plots.Chart, error) {
	var algorithm string
	var sum float64
	for _, src := range roots[i : i+perPoint] {
		var r *bfs.Result
		var err error
		if do {
			r, err = bfs.DirectionOptimizing(g, src, bfs.Options{})
		} else {
			r, err = bfs.TopDown(g, src)
		}
		if err == nil {
			err = bfs.Check(g, r)
		}
		if err != nil {
			return nil, err
		}
		algorithm = r.Algorithm
		sum += r.TEPS.ArcsPerSecond
	}
	seen = append(seen, fmt.Sprintf("%%d/%%v", i, do))
	mean := sum / perPoint / 1e6
	fmt.Printf("validated: %%s from %%d roots: %%.0f M arcs/s\n", algorithm, perPoint, mean)
	points = append(points, float64(len(points)+1))
	rates = append(rates, mean)
	title := fmt.Sprintf("BFS point from root %%d (%%s), validated", roots[i], algorithm)
	return plots.New(title, "point", "M arcs/s").Line("bfs", points, rates), nil
}, root, diropt)
if err != nil {
	panic(err)
}
ui`

// seenCell prints the kernel's process id, the graph's size and the values the Interact's
// function was called with; the test adds it after moving the controls.
const seenCell = `import "os"
fmt.Println("pid", os.Getpid())
fmt.Println("graph", g.NumVertices(), g.NumArcs())
fmt.Println("seen", strings.Join(seen, " "))`

// manyWidgetsCell (a format string: the count) shows that many sliders,
// for the idle CPU measurement.
const manyWidgetsCell = `many := make([]widgets.Widget, %d)
for i := range many {
	many[i] = widgets.NewIntSlider(fmt.Sprint("w", i), 0, 100, 1, i%%101)
}
widgets.NewVBox(many...)`

// writeNotebook writes an nbformat 4 notebook of the chart cell and the
// Interact cell at the given R-MAT scale and roots per point.
func writeNotebook(path string, scale, roots int) error {
	var cells []any
	for i, src := range []string{chartCell, fmt.Sprintf(interactCell, scale, roots)} {
		cells = append(cells, map[string]any{
			"cell_type": "code", "id": fmt.Sprint("cell", i), "metadata": map[string]any{}, "execution_count": nil,
			"outputs": []any{}, "source": strings.SplitAfter(src, "\n"),
		})
	}
	nb := map[string]any{
		"nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{
			"kernelspec":    map[string]any{"name": "graphnb", "display_name": "Go (graphnb)", "language": "go"},
			"language_info": map[string]any{"name": "go"},
		},
		"cells": cells,
	}
	b, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
