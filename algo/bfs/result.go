package bfs

import (
	"fmt"
	"strings"
	"time"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/trace"
)

// Direction is the way one BFS step expands its frontier.
type Direction uint8

const (
	// TopDownStep scans the arcs leaving each frontier vertex and claims
	// their unvisited heads (push).
	TopDownStep Direction = iota
	// BottomUpStep scans, for each unvisited vertex, its arcs until one
	// leads to the frontier (pull); it needs in-arcs, so graphnb uses it on
	// undirected graphs only.
	BottomUpStep
)

// String returns "top-down" or "bottom-up".
func (d Direction) String() string {
	switch d {
	case TopDownStep:
		return "top-down"
	case BottomUpStep:
		return "bottom-up"
	}
	return fmt.Sprintf("Direction(%d)", uint8(d))
}

// Result is the outcome of one BFS from one source. CPU and GPU variants
// fill the same fields; Check validates one against its graph.
type Result struct {
	// Algorithm names the implementation and variant, e.g.
	// "cpu direction-optimizing (α=15, β=18)".
	Algorithm string
	// Source is the root of the search.
	Source int32
	// Levels[v] is the number of arcs on a shortest path from Source to v,
	// or -1 when v is unreached. Levels[Source] is 0.
	Levels []int32
	// Parents[v] is v's predecessor in a BFS tree, Parents[Source] is
	// Source, and -1 marks unreached vertices. The tree is not unique:
	// parallel variants may return a different (equally valid) tree on each
	// run.
	Parents []int32
	// FrontierSizes[l] is the number of vertices at level l, so
	// len(FrontierSizes) is the number of levels (the depth plus one).
	FrontierSizes []int64
	// Directions[l] is how level l was expanded into level l+1, one entry
	// per level (the last expansion finds no new vertex). GPU variants that
	// have no such choice may leave it nil.
	Directions []Direction
	// Trace is the search's record when Options.Trace asked for one
	// (nil otherwise): a step per level, of kind "top-down" or
	// "bottom-up" (Directions), Frontier and FrontierArcs the level's
	// vertices and their arcs, Inspected the arcs the step read (a
	// top-down step all of the frontier's, a bottom-up step each
	// unvisited vertex's up to the first that leads to the frontier),
	// Updated the vertices it reached, Why the direction switch's test
	// at a switch.
	Trace *trace.Trace
	// Iterations is the number of expansion steps: levels processed, the
	// last one finding nothing, so it equals len(FrontierSizes) for the
	// CPU entry points and the GPU variants alike (GPU EdgeScan: launches
	// of the scan; DynamicParallelism: steps, each a child-grid step or a
	// scan; direction-optimizing: top-down or bottom-up steps).
	Iterations int
	// Reached is the number of vertices with a level, Source included.
	Reached int64
	// ComponentEdges is the Graph500 TEPS numerator: the input edges with
	// a reached endpoint (graph.CSR.ComponentEdges).
	ComponentEdges int64
	// Time is the traversal only, excluding PrepTime (initialising the
	// outputs included, validation excluded; on a GPU, measured with CUDA
	// events).
	Time time.Duration
	// PrepTime is the preparation excluded from Time (format conversion,
	// upload): zero for the CPU entry points, which prepare nothing. A GPU
	// Prepared.Run prepares nothing per run and reports 0; Prepare's
	// time, spent once, is Prepared.PrepTime, which the one-shot Run adds.
	PrepTime time.Duration
	// TEPS is graph.Rate(ComponentEdges, stored arcs, Time).
	TEPS graph.TEPS
	// Launches is the number of kernels the host launched in the timed
	// loop (GPU variants; 0 on the CPU).
	Launches int
	// EdgeScans is the number of full sweeps over the edge list (GPU
	// EdgeScan: every iteration; DynamicParallelism: the levels expanded
	// by the scan); 0 for the CPU and the frontier-based variants.
	EdgeScans int
	// ChildGrids is the number of child grids launched from the device
	// (GPU DynamicParallelism; 0 otherwise).
	ChildGrids int64
	// Note says what the run did beyond its Algorithm, when anything: a
	// fallback (levels too deep for unsigned char, the CPU standing in for
	// a missing GPU) or how the levels were expanded.
	Note string
}

// String summarises the result in one line: algorithm, source, reached
// vertices, levels, time and both TEPS conventions.
func (r *Result) String() string {
	if r == nil {
		return "bfs: <nil result>"
	}
	return fmt.Sprintf("%s from %d: reached %d of %d vertices in %d levels, %v, %s",
		r.Algorithm, r.Source, r.Reached, len(r.Levels), len(r.FrontierSizes),
		r.Time.Round(time.Microsecond), r.TEPS)
}

// LevelTable renders one line per level: its number, frontier size and
// the direction used to expand it — the shape that makes the direction
// switch visible in a notebook (Options.Trace records more: Trace).
func (r *Result) LevelTable() string {
	var b strings.Builder
	b.WriteString("level   frontier  expanded\n")
	for l, s := range r.FrontierSizes {
		dir := ""
		if l < len(r.Directions) {
			dir = r.Directions[l].String()
		}
		fmt.Fprintf(&b, "%5d %10d  %s\n", l, s, dir)
	}
	return b.String()
}

// finish fills the fields every CPU entry point derives from Levels.
func (r *Result) finish(g *graph.CSR) {
	levels := r.Levels
	r.finishEdges(g, g.ComponentEdges(func(v int32) bool { return levels[v] >= 0 }))
}

// finishDegrees is finish for a search that summed the degrees of the
// vertices it reached (the arcs leaving each frontier), which gives
// ComponentEdges without a pass over the vertices.
func (r *Result) finishDegrees(g *graph.CSR, degSum int64) {
	if !g.Directed {
		degSum /= 2
	}
	r.finishEdges(g, degSum)
}

// finishEdges is finish with ComponentEdges already known.
func (r *Result) finishEdges(g *graph.CSR, componentEdges int64) {
	r.Iterations = len(r.FrontierSizes)
	for _, s := range r.FrontierSizes {
		r.Reached += s
	}
	r.ComponentEdges = componentEdges
	r.TEPS = graph.Rate(r.ComponentEdges, g.NumArcs(), r.Time)
}

// checkInput returns an error for a nil or empty graph or a source out of
// range.
func checkInput(g *graph.CSR, src int32) error {
	if g == nil || len(g.Offsets) == 0 {
		return fmt.Errorf("bfs: no graph (nil or without offsets)")
	}
	return validSource(g.NumVertices(), src)
}

// validSource returns an error for a source outside [0, n) or an empty
// graph.
func validSource(n int, src int32) error {
	if n == 0 {
		return fmt.Errorf("bfs: the graph has no vertices, so no source")
	}
	if src < 0 || int(src) >= n {
		return fmt.Errorf("bfs: source %d is not a vertex of this %d-vertex graph (use 0..%d)", src, n, n-1)
	}
	return nil
}
