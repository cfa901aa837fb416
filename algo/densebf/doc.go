// Package densebf is single-source shortest paths by Bellman-Ford on a
// dense adjacency matrix (graph.Dense), in the pull formulation of the
// performance-portable Bellman-Ford study (seeds.md §5), on the CPU, with
// the checker that GPU variants (BF_Naive, BF_Reduce, BF_Reduce_Coarse)
// are validated against.
//
// Iteration k computes, for every vertex v,
//
//	δ(v) = min_j σ_{k-1}(j) + edge[j→v],   ρ(v) = the j attaining it,
//	σ_k(v) = min(σ_{k-1}(v), δ(v)),         η(v) = ρ(v) when it improves,
//
// reading σ_{k-1} and writing σ_k (Jacobi style, as the study's kernels
// do), until an iteration changes nothing. Ties in the minimum go to the
// smallest j, so results are deterministic. Distances are computed in the
// matrix's own arithmetic — float32 sums for F32, int32 for I32 — so a GPU
// kernel doing the same sums matches bit for bit.
//
// RandomDense makes the study's test inputs: random directed matrices of
// 256..8192 vertices.
package densebf
