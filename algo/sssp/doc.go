// Package sssp is single-source shortest paths on graphnb's CSR graphs:
// the CPU implementations and the checker every SSSP result (CPU or GPU)
// must pass.
//
// Three CPU entry points:
//
//   - Dijkstra: sequential, with a typed binary heap (lazy deletion); the
//     reference, and the "optimized Dijkstra" CPU baseline of docs/studies.md §1.
//   - DeltaStepping: Meyer and Sanders' Δ-stepping on all cores: buckets of
//     width Δ, light arcs (w ≤ Δ) relaxed until a bucket empties, heavy
//     arcs once when it settles; concurrent relaxations are atomic minima
//     on the float64 bits. The fast CPU curve.
//   - BellmanFord: the edge-parallel Bellman-Ford of the SSSP study
//     (docs/studies.md §1): on an undirected graph, sweeps over the COO view (each
//     pair once) relaxing both directions of every edge until a sweep
//     changes nothing; on a directed graph, sweeps over the arcs. It is the
//     CPU twin of the study's GPU kernel and accepts negative weights on
//     directed graphs (with negative-cycle detection).
//
// DijkstraTraced and DeltaSteppingTraced are the first two with a
// Result.Trace (package trace): Dijkstra's settled vertices in at most
// 256 equal chunks; Δ-stepping's light rounds and settle steps, bucket
// by bucket, in the GPU near-far's vocabulary. BellmanFord's trace comes
// through the host device (Options.Trace).
//
// Distances are float64 sums of the graph's weights converted to float64
// (float32 weights are widened before each addition; an unweighted graph
// has unit weights), +Inf for unreached vertices. All three algorithms
// reach the same fixed point of dist[v] = min(dist[v], dist[u]+w(u,v)) with
// the same float64 additions, so their Dist slices are identical, bit for
// bit, whatever the core count or scheduling.
//
// Parents are computed after the distances converge, from tight arcs only
// (dist[u]+w(u,v) == dist[v], exactly): the arc that produced a final
// distance is always tight. On an undirected graph each vertex takes the
// first tight arc from a strictly closer vertex, in parallel, and the few
// vertices reached only over zero-weight (or rounded-away) arcs adopt
// equal-distance parents in rounds; on a directed graph, or when such
// vertices are many, a breadth-first search over tight arcs from the
// source builds the tree. Either way no parent cycle can form, even
// though R-MAT float32 weights in [0,1) contain exact zeros at large
// scales. Result.TreeTime reports this step, outside Result.Time.
//
// On a GPU (Prepare, Run; gpu.go, sssp.cu), three methods, with the host
// device running the CPU's BellmanFord in their place so notebooks run
// unchanged without a GPU:
//
//   - EdgeSweep, the study's edge-parallel Bellman-Ford (docs/studies.md §1): the
//     COO view with each undirected edge once, one thread per edge
//     relaxing both directions, one launch per iteration, a "modif" word
//     read back after each. Its switches are the study's: TextureCache
//     ("restrict": dist read through a const __restrict__ pointer with
//     __ldg, written through a second pointer to the same memory) and
//     Permute ("cache": the segment permutation of the edges,
//     graph.PermuteCOO, segment size SegmentSize or from the L2 size).
//     SeedVariants lists the figure's four curves. Its dist writes are
//     plain stores, as the study's: threads may race on one entry, and a
//     non-minimal value written in a race is corrected in a later launch;
//     only the iteration count varies (the argument is in sssp.cu).
//   - NearFar, beyond the study (ModernVariants): near-far Δ-stepping
//     after Davidson et al. (IPDPS 2014) over the CSR. Vertices below a
//     threshold T are relaxed round after round over their light arcs
//     (weight below Δ, laid out first in each vertex's list during
//     Prepare) until none is left; the heavy arcs of the vertices the
//     phase expanded are then relaxed once; vertices at T or beyond wait
//     in a far pile, which is split when T moves on by Δ (from the least
//     far distance, so empty stretches are skipped). Relaxations are
//     atomic minima on the distance bits, queues are deduplicated by
//     per-vertex stamps, each step deals its queue's arcs out evenly to
//     the warps (a hub's arcs over many warps, small vertices sharing
//     one), and the host launches the steps in batches, reading the
//     control words once per batch. Δ is Delta, or DeltaFactor (default
//     DefaultGPUDeltaFactor) times the mean weight over the mean degree.
//     Simulated on R-MAT graphs, it scans 1.1 to 1.5 times the arcs.
//   - Frontier, NearFar with Δ = +Inf: only vertices whose distance
//     dropped in the last round relax their out-arcs. It scans about
//     three times the arcs of an R-MAT graph where the edge sweep makes
//     about 30 full sweeps.
//
// Distances are float64 by default (the study's double; equal to the
// CPU's bit for bit) or float32 (Float32). Parents, on request, are built
// on the device after the timed part. Results carry the kernel time
// (CUDA events), the preparation time and both TEPS conventions.
//
// Results that stay on the device (resident.go, resident.cu):
//
//   - Prepared.RunOnDevice(src) runs as Run does but returns a
//     *DeviceResult: its exported fields are Result's scalars (Algorithm,
//     Source, Iterations, Delta, Reached, ComponentEdges, Time, PrepTime,
//     TreeTime, TEPS, ArcsScanned, Phases); the distances (float64, float32
//     ones widened there) and parents stay in device memory. Everything
//     after the search runs on the device: the parents (for each vertex
//     the least u of the tight arcs u→v from a strictly closer u; vertices
//     reached only over zero or rounded-away weights adopted in rounds),
//     the widening, Reached and ComponentEdges; only control words are
//     read back. The tree depends only on the graph and the distances.
//   - DeviceResult.Result() copies Dist and Parents to the host once (the
//     Result is kept); DeviceResult.Close() frees the device memory
//     (idempotent; the Prepared keeps one closed result's buffers for its
//     next run).
//   - Prepared.CheckDevice(r) is Check on a DeviceResult where it is: the
//     same rules, tolerances and messages, nothing uploaded. It needs the
//     Parents option.
//   - Prepared.Run is RunOnDevice, Result and Close.
//   - PrepareResident(g *gpu.Graph, o) prepares a graph already on the
//     device, without a host round trip, for the frontier and near-far
//     methods: the weight scan runs on the device in the host's chunks and
//     order (the same Δ, bit for bit), and near-far's light-first split is
//     a kernel producing the host's arrays. The edge sweep still builds its
//     COO view (and permutation) on the host from g.Host().
//
// On the host device all of these work: RunOnDevice keeps the CPU's
// Result, CheckDevice is Check, PrepareResident is Prepare of g.Host().
//
// Over a group of GPUs (multi.go, multi.cu): RunGroup(pg, source, o) runs
// Δ-stepping on a gpu.PartGraph, each rank holding the float64 distances
// of its block of vertices and the arcs leaving them. Per round a rank
// relaxes the arcs of its active vertices below the threshold, lowering
// its own targets in place and sending the best candidate for each remote
// target to its owner ((vertex, distance) pairs: the counts in an
// AllReduceInt64, the pairs in an AllToAllV, applied with atomic minima);
// a phase ends when no rank has an active vertex below the threshold.
// The distances equal the other methods' bit for bit; the parent tree
// (RunOnDevice's, from the distances gathered on every rank) and the
// certificate (GroupResult.Check: CheckDevice's rules, each rank on its
// block and arcs, the failures counted over the group) are made on the
// devices; GroupResult.Dist and Parents gather them to the host on
// request. A group of the host device runs DeltaStepping. GroupResult
// reports the communication share of the time, the relaxations and the
// bytes exchanged.
//
// Check validates a result: the distances are a fixed point of every arc,
// every parent arc is tight, the parents form a tree rooted at the source,
// and the bookkeeping matches (README, "Measuring": every GPU result is
// checked before it is counted). Every iteration, bucket or sweep polls
// cancel.Check, so an interrupted notebook cell stops promptly.
package sssp
