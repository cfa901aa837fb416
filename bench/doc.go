// Package bench is graphnb's TEPS harness: it runs a sweep of algorithm
// variants over graphs of growing size, many roots per graph, and turns
// the runs into a result table that renders in a notebook, prints in a
// console and saves as JSON or CSV.
//
// A Sweep names an algorithm, its Variants, a graph family (R-MAT,
// SSCA#2, a spec template or one file) and the scales or sizes to visit.
// For each graph every variant is prepared once (format conversion,
// upload: timed apart as preparation), then run from each root — Graph500
// draws 64 non-isolated roots, the studies report 32 (docs/studies.md) — and,
// unless told not to, every result is validated by the algorithm
// package's checker before it is counted (CPU BFS results eight at a time,
// BatchChecker). Unrooted algorithms (MST,
// APSP) run Repetitions times instead.
//
// Rates follow the README ("Measuring") and are always labelled:
//
//   - arcs/s: all stored arcs of the graph divided by the run time, the
//     studies' TEPS, averaged with an arithmetic mean; the figures show
//     the mean with min–max bars (docs/studies.md, "Common ground").
//   - Graph500 TEPS: undirected input edges of the traversed component
//     divided by the run time, averaged with a harmonic mean, with the
//     harmonic standard deviation of the Graph500 reference code.
//
// Times exclude preparation and validation. A Table keeps every run, so a
// result file can be reloaded (Load) and re-plotted (package plots) or
// compared (Table.Speedup) long after the machine that measured it is
// gone; its Meta records the device, the driver, the host, the graph
// parameters and the graphnb version.
//
// Variants come from constructors (BFSDirectionOptimizing, SSSPDijkstra,
// MSTBoruvka, …) or, by name, from a small registry ("cpu/do",
// "cpu/dijkstra", …) that `graphnb bench` and JSON sweep specs use.
// Register adds names; gpu_variants.go is where the GPU variants of the
// algo packages join it.
//
// Sweeps poll cancel.Check between runs, so an interrupted sweep returns
// the table measured so far together with an error wrapping
// cancel.ErrInterrupted.
package bench
