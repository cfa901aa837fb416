package densebf

// stepKind is the Kind of every step of a Result.Trace: one dense
// Bellman-Ford iteration, a pass over the whole matrix.
const stepKind = "iteration"

// elemBytes is the size of a matrix entry and of a distance: int32 or
// float32 (graph.Dense holds one of them).
const elemBytes = 4

// BytesPerIteration returns the bytes one iteration over an n-vertex
// matrix must move between the GPU and its memory by construction, with
// the options o: the numerator of an iteration's achieved bandwidth,
// BytesPerIteration(n, o) ÷ Result.Trace.Steps[i].Time (in bytes per
// second once the time is in seconds). The model counts what every
// iteration reads and writes once, whatever the data:
//
//   - the matrix, once: 4·n² bytes (its entries are int32 or float32);
//   - σ of the previous iteration, read once: 4·n bytes (every vertex's
//     scan reads all of it, but 4·n bytes, 64 KiB at n = 16384, stay in
//     the caches, so memory delivers them about once);
//   - σ of this iteration, written once: 4·n bytes (every vertex's
//     entry is written, lowered or not).
//
// So 4·n² + 8·n bytes. It leaves out what depends on the data or is too
// small to matter: the predecessors written for the vertices lowered (4
// bytes each, at most 4·n), the change flag (4 bytes per block that
// lowered something), the flag reads of the host and, in traced runs,
// the count of lowered distances (4 bytes per warp that lowered one).
//
// The sum is the same for every variant: each reads each matrix entry
// exactly once per iteration (Naive: a thread per column; Reduce and
// ReduceCoarse: the M threads of a group split the vertex's n entries,
// j = t, t+M, …, or 16-byte vectors of 4 entries each). What differs is
// how close the memory traffic comes to it:
//
//   - Naive (BF_Naive) reads column v with thread v: a warp's loads of
//     row j are 32 consecutive entries, so the traffic is close to the
//     model (with only n threads, too few below a few thousand vertices
//     to keep the memory busy).
//   - Reduce (BF_Reduce) reads column v with a group, stride n: a
//     32-byte sector holds the entries of 8 neighbouring columns, of
//     which a block uses G (Options.GroupSize: 4 below n = 2048, 8 from
//     there at the default M); with G < 8 the rest is read again, from
//     L2 when the neighbouring blocks come soon enough, else from
//     memory, so the memory may move up to 8/G times the matrix term.
//     Each load of a warp touches 32 rows: the achieved bandwidth (the
//     model's bytes per second) stays well below the peak (29% at n =
//     8192 and 16384 on an H100 with G = 8).
//   - ReduceCoarse (BF_Reduce_Coarse) reads row v of the transpose, M
//     consecutive entries (or 16-byte vectors) per group and load:
//     coalesced, the traffic close to the model, scalar or vector loads
//     alike. Its even iterations take the rows backwards, so each
//     iteration after the first starts with rows the one before read
//     last: those the L2 cache still holds come from it, not from memory
//     (at most the L2's size, 50 MB on an H100: a fifth of the matrix at
//     n = 8192, a twentieth at 16384), and the model's bytes per second
//     may exceed what memory delivered by that much.
//
// GroupSize, ScalarLoads and FlagInterval change none of the terms (the
// idle launches of a FlagInterval above 1 move almost nothing and are no
// step of the trace), nor does Trace. BytesPerIteration returns 0
// for n < 1.
func BytesPerIteration(n int, o Options) int64 {
	if n < 1 {
		return 0
	}
	nn := int64(n)
	return elemBytes * (nn*nn + 2*nn)
}
