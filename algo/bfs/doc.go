// Package bfs is breadth-first search on graphnb's CSR graphs: the CPU
// implementations and the checker every BFS result (CPU or GPU) must pass.
//
// Two CPU entry points:
//
//   - DirectionOptimizing is Beamer's direction-optimizing BFS (Beamer,
//     Asanović, Patterson, SC 2012), run on all cores: top-down steps with a
//     frontier queue while the frontier is small, bottom-up steps with a
//     frontier bitmap while it is large. It is the CPU curve of the BFS
//     study (seeds.md §2) and the fallback when there is no GPU.
//   - TopDown is the textbook sequential queue BFS, the reference.
//
// Check validates a result by the Graph500 rules (tree rooted at the
// source, tree edges one level apart, graph edges at most one level apart,
// the tree spans the source's component, tree edges exist in the graph) and
// the bookkeeping a Result carries; GPU variants are validated with it
// before their times are counted (design.md, "Measuring").
//
// A Result reports the traversal time and its rate in both TEPS
// conventions (graph.TEPS). Levels are counted in arcs from the source;
// unreached vertices have level and parent -1. Every level polls
// cancel.Check, so an interrupted notebook cell stops between levels.
package bfs
