// Package densebf is single-source shortest paths by Bellman-Ford on a
// dense adjacency matrix (graph.Dense), in the pull formulation of the
// performance-portable Bellman-Ford study (docs/studies.md §5), on the CPU, with
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
//
// # On the GPU
//
// Prepare readies a matrix on a device (gpu.Default()) with the options of
// one of the study's kernels, and Prepared.Run computes from a source;
// RunGPU does both once. SeedVariants lists the study's three curves:
//
//   - BF_Naive (Method Naive): one thread per vertex scans its column;
//   - BF_Reduce (Reduce): a group of M threads per vertex (GroupSize, a
//     multiple of 32, by default chosen from N) scans the column, then
//     reduces the (min, argmin) pairs with a tree in shared memory;
//   - BF_Reduce_Coarse (ReduceCoarse): the same over the transposed
//     matrix, so a group reads a row: coalesced loads (16-byte vectors
//     unless ScalarLoads), the pairs reduced by warp shuffles first.
//
// The kernels make the CPU's additions and break ties the same way, so a
// GPU result equals Run's exactly (Dist, Parents, Iterations) and passes
// Check, for int32 and float32 matrices. Results report the kernel time
// (Time) and, as the study, the host↔device copies (CopyTime: Time +
// CopyTime is the time with copies). Without a GPU (the host device) Prepare and Run fall
// back to the CPU's Run, so notebooks run unchanged.
//
// # Traces
//
// With Options.Trace a run records Result.Trace (package trace): one step
// of Kind "iteration" per iteration, with the matrix entries it read (N²),
// the distances it lowered and its time — on a GPU its launch's span by
// the GPU's own clock (gpu.LaunchLog: the kernels stamp it themselves, so
// the host records no event between launches); on the host device the
// CPU iterations' wall time. BytesPerIteration gives the bytes an
// iteration moves by construction, so BytesPerIteration ÷ Step.Time is
// its achieved bandwidth. The CPU's Run never traces.
//
// The GPU kernels come in two builds of one source: traced runs launch
// the one that counts the lowered distances and logs each launch's span,
// untraced runs one without any trace code, so that a trace costs
// nothing when it is off (trace code compiled into every kernel, even
// skipped, slows untraced runs: MST's kernels ran 21% slower so). The
// two take the same arguments, so one launch path serves both;
// Options.Trace may change from run to run of one Prepared.
//
// # Validation on the device
//
// Prepared.Check validates a result on the GPU that holds the matrix by
// the shortest-path certificate, a different method from the iterations
// (check.cu), tested in full — every vertex and every one of the N²
// entries, no sampling: Dist[src] = 0 and Parents[src] = src; every
// distance is +Inf with parent -1 or a value of the matrix's type with a
// reached parent; following Parents reaches src; each parent's edge is
// tight (Dist[v] = Dist[p] + w(p, v) exactly, in the matrix's arithmetic);
// and no entry can still shorten a distance (Dist[v] ≤ Dist[u] + w(u, v)).
// Because x ↦ fl(x + w) is monotone, these prove every distance equals
// the least float32 (or integer) path sum, exactly the values Run
// computes. One pass over the matrix, one per check; a failure names the
// rule and the lowest offending vertex or entry. On the host device
// Check is the CPU's Check; bench validates GPU runs with Prepared.Check.
package densebf
