// Package sssp is single-source shortest paths on graphnb's CSR graphs:
// the CPU implementations and the checker every SSSP result (CPU or GPU)
// must pass.
//
// Three CPU entry points:
//
//   - Dijkstra: sequential, with a typed binary heap (lazy deletion); the
//     reference, and the "optimized Dijkstra" CPU baseline of seeds.md §1.
//   - DeltaStepping: Meyer and Sanders' Δ-stepping on all cores: buckets of
//     width Δ, light arcs (w ≤ Δ) relaxed until a bucket empties, heavy
//     arcs once when it settles; concurrent relaxations are atomic minima
//     on the float64 bits. The fast CPU curve.
//   - BellmanFord: the edge-parallel Bellman-Ford of the SSSP study
//     (seeds.md §1): on an undirected graph, sweeps over the COO view (each
//     pair once) relaxing both directions of every edge until a sweep
//     changes nothing; on a directed graph, sweeps over the arcs. It is the
//     CPU twin of the study's GPU kernel and accepts negative weights on
//     directed graphs (with negative-cycle detection).
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
// Check validates a result: the distances are a fixed point of every arc,
// every parent arc is tight, the parents form a tree rooted at the source,
// and the bookkeeping matches (design.md, "Measuring": every GPU result is
// checked before it is counted). Every iteration, bucket or sweep polls
// cancel.Check, so an interrupted notebook cell stops promptly.
package sssp
