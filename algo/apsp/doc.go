// Package apsp computes all-pairs shortest paths on a dense matrix
// (graph.Dense) by Floyd-Warshall on the CPU and on the GPU (docs/studies.md §4:
// the plain, blocked and out-of-core GPU Floyd-Warshall of the fruit-fly
// neuron study), and checks APSP results with Check.
//
// Two CPU entry points:
//
//   - FloydWarshall is the plain algorithm: for k = 0..n-1,
//     D[i][j] = min(D[i][j], D[i][k] + D[k][j]), rows in parallel.
//   - Blocked is the tiled algorithm of Venkataraman, Sahni and
//     Mukhopadhyaya (2003), the one Katz and Kider (2008) put on the GPU:
//     for each diagonal tile, phase 1 updates the tile itself, phase 2 the
//     tiles of its row and column, phase 3 all the others, tiles of a
//     phase in parallel. A matrix whose size is not a multiple of the tile
//     has ragged last tiles.
//
// On a GPU (Prepare, Run, RunGraph with a *gpu.Device; fw.cu compiled by
// NVRTC) the study's methods are switches of Options (SeedVariants gives
// the figure's curves):
//
//   - PlainGPU, "plain GPU": one kernel launch per k over the n×n matrix;
//   - BlockedGPU, "blocked GPU": the three phases per diagonal tile, tiles
//     of 16, 32 or 64 (Tile) in shared memory, a 4×4 register tile per
//     thread for the products of phases 2 and 3; the matrix is padded to
//     a multiple of the tile with isolated vertices;
//   - OutOfCoreGPU, "out-of-core blocked GPU": for matrices larger than
//     the device memory (or MemoryCap), the matrix stays in pinned host
//     memory in K×K blocks and every round streams the blocks through the
//     device, copies overlapped with the products on two streams.
//
// GPU results hold int32 distances equal to the CPU's, predecessors (or
// none, with DistancesOnly), the GPU time without copies (Time) and what
// the copies add (CopyTime). On a sparse matrix whose weights are
// positive, the blocked methods in core compute the distances alone (one
// instruction per update instead of three) and rebuild the predecessors
// on the device from the distances and a CSR of the arcs by column: for
// each entry, a tight in-arc (rebuild.go; Options.PredecessorsInProduct
// keeps them in the products). On the host device the same calls run the
// CPU algorithms, so notebooks run without a GPU.
//
// Both keep a predecessor matrix, so Result.Path rebuilds a shortest path;
// ties between equally short paths go to the one with fewer edges, which
// keeps predecessors free of cycles even with zero-weight cycles.
// Entries are float32 (+Inf: no edge) or int32 (graph.InfI32: no edge; a
// sum ≥ InfI32 counts as InfI32), computed in that arithmetic. Negative
// weights are allowed; a negative cycle is an error (NegativeCycleError)
// naming a vertex on it. Inputs are never modified.
//
// # Traces
//
// With Options.Trace a run records Result.Trace (package trace): a step
// per diagonal tile or block ("round") of the blocked methods, per 32
// k's ("k-block") of the plain ones, each with the relaxations it
// performs by construction. On the host device the steps take their
// wall time; in core on a GPU every launch is timed by the GPU's own
// clock (gpu.LaunchLog: the kernels of a traced build of fw.cu stamp
// their starts, start to start; untraced runs launch a build with no
// trace code) — fw_init, then fw_plain per k or fw_phase1/2/3 per round;
// out of core each round's span, the copy engine's time on its
// block transfers (Step.Copy) and the part of the round in which the
// device only copied (Step.Exposed) come from events on the run's two
// streams, so Copy − Exposed is what the double buffering hid.
// plots.Overlap charts them. Options.Trace defines each figure.
//
// # Validation on the device
//
// Prepared.Check validates a result on the GPU by a method other than
// Floyd-Warshall (check.cu), on sampled rows: the rows of k sources,
// always 0 and N−1 and the others drawn from a seed, are recomputed on
// the device by a frontier Bellman-Ford in float64 and compared entry by
// entry with Check's tolerance (exact for int32); each sampled row's
// predecessors must be tight edges leading back to its source. The
// diagonal (Dist[i][i] = 0, Parents[i][i] = i) is checked in full. The
// matrix is uploaded by the first check and kept; a failure names the
// rule and the lowest offending entry. On the host device, and out of
// core, Check is the CPU's Check. bench validates GPU runs with it on
// DeviceCheckSamples rows.
package apsp
