// Package bfs is breadth-first search on graphnb's CSR graphs: the CPU
// implementations, the GPU variants of the BFS study (docs/studies.md §2) and a
// GPU direction-optimizing BFS, and the checker every BFS result (CPU or
// GPU) must pass.
//
// Two CPU entry points:
//
//   - DirectionOptimizing is Beamer's direction-optimizing BFS (Beamer,
//     Asanović, Patterson, SC 2012), run on all cores: top-down steps with a
//     frontier queue while the frontier is small, bottom-up steps with a
//     frontier bitmap while it is large. It is the CPU curve of the BFS
//     study (docs/studies.md §2) and the fallback when there is no GPU.
//   - TopDown is the textbook sequential queue BFS, the reference.
//
// Check validates a result by the Graph500 rules (tree rooted at the
// source, tree edges one level apart, graph edges at most one level apart,
// the tree spans the source's component, tree edges exist in the graph) and
// the bookkeeping a Result carries; GPU variants are validated with it
// before their times are counted (README, "Measuring").
//
// # On the GPU
//
// Prepare readies a graph for one GPU variant (Run is the one-shot form);
// Prepared.Run searches from a source. Options pick the method and the
// study's switches (one struct for every BFS of the package: its doc says
// which fields the CPU and the GPU read), SeedVariants and ModernVariants
// list the figure's curves:
//
//   - EdgeScan, the BFS study's kernel (docs/studies.md §2): a COO list with each
//     undirected edge once, unsigned char levels (255 = unvisited), one
//     launch per level over all edges, stopped when the study's modif flag
//     shows no change; TextureCache ("restrict") reads levels through the
//     read-only path, Permute ("cache") orders the edges by segment
//     (graph.PermuteCOO). Searches deeper than 253 levels go on with int
//     levels and say so in Result.Note.
//   - DynamicParallelism, the study's variant: levels with few frontier
//     vertices are expanded by child grids launched from the device, one
//     per frontier vertex, the others by the edge scan.
//   - DirectionOptimizingGPU, the modern baseline: Beamer's switch between
//     a top-down step over a frontier queue and a bottom-up step over a
//     frontier bitmap, on the CSR.
//
// Every GPU result is exact (the levels of a BFS). With Options.Parents
// the direction-optimizing search records each vertex's parent as it
// claims it; the edge-scan methods, which find only levels, give each
// reached vertex its lowest-numbered neighbour one level up, computed on
// the device after the search. Times come from GPU events around the
// search loop and exclude the preparation (Prepared.PrepTime, spent once;
// the one-shot Run puts it in its result's PrepTime). On the host device
// the same calls run DirectionOptimizing, so notebooks run without a GPU.
//
// # Results on the device
//
// A sweep keeps its results where they were computed:
//
//   - PrepareResident prepares from a gpu.Graph already on the device (a
//     device generator's, or an upload): the direction-optimizing method
//     reads its CSR where it is, with no host round trip; EdgeScan and
//     DynamicParallelism build their COO view and permutation on the
//     device (package gpu/transform).
//   - Prepared.RunOnDevice returns a DeviceResult: the bookkeeping of a
//     Result (Algorithm, Source, FrontierSizes, Directions, Iterations,
//     Reached, ComponentEdges, Time, TEPS, Launches, …) in its fields, the
//     levels and parents in device buffers of its own. The int levels,
//     the parents, the frontier sizes, Reached and ComponentEdges are all
//     made on the device: a run copies back a few words per level, no
//     O(N) array, and does no O(N) host work.
//   - DeviceResult.Result copies the levels and parents back, once, into
//     an ordinary Result (what rendering, a CPU Check or user code read);
//     DeviceResult.Close frees the buffers, handing them to the next run
//     of the same Prepared (a dropped DeviceResult is freed when collected).
//   - Prepared.CheckDevice validates a DeviceResult on the device by the
//     rules of Check, with the device check's messages; Prepared.Check
//     does the same for a Result (copying its levels and parents there).
//     The check is one pass over the vertices, one over the arcs and one
//     over the vertices again (pointer jumping only when rule 2 fails, to
//     tell a cycle), independent of the search kernels.
//
// For example:
//
//	p, err := bfs.PrepareResident(dg, bfs.Options{Method: bfs.DirectionOptimizingGPU, Parents: true})
//	for _, src := range roots {
//		r, err := p.RunOnDevice(src) // levels and parents stay on the device
//		err = p.CheckDevice(r)       // validated there, nothing copied
//		use(r.Time, r.TEPS, r.FrontierSizes)
//		r.Close()                    // its buffers serve the next run
//	}
//
// Prepared.Run is RunOnDevice, Result and Close. On the host device all
// of these work, with the CPU search and the CPU Check.
//
// A Result reports the traversal time and its rate in both TEPS
// conventions (graph.TEPS). Levels are counted in arcs from the source;
// unreached vertices have level and parent -1. Every level polls
// cancel.Check, so an interrupted notebook cell stops between levels.
package bfs
