// GPU kernels of package densebf: the dense Bellman-Ford of docs/studies.md §5,
// compiled at run time by NVRTC for the device's own architecture. No
// #include: every type is declared here and only NVRTC's built-ins are
// used (int4, float4, __ldg, __syncthreads, __syncthreads_or,
// __ballot_sync, __shfl_down_sync, __popc, atomicAdd, __int_as_float;
// the traced build adds gpu/launchlog.cuh's). Every kernel is extern "C"
// so gpu.go finds it by name; a CI test checks that each name gpu.go
// launches is declared below.
//
// The matrix holds one entry per pair of vertices, n×n, as int (int32,
// no edge = INF_I32 or more) or float (no edge = +Inf; never NaN or -Inf,
// the host validates). σ (sig) and the predecessors η (pred) hold one entry
// per vertex. Iteration `iter` reads σ_{iter-1} from sig and writes σ_iter
// to out, a different buffer (Jacobi style, as the CPU's Run), for every
// vertex v:
//
//	δ(v) = min_j term(σ(j), edge[j→v]),  ρ(v) = the smallest j attaining it
//	σ'(v) = δ(v) and η(v) = ρ(v) when δ(v) < σ(v), else σ'(v) = σ(v)
//
// where term is one addition in the matrix's type (int sums skip an
// unreached j or a missing edge, as the CPU does). Ties go to the smallest
// j, so every method computes exactly the CPU's σ and η, bit for bit: the
// same additions, and a minimum does not round. A non-negative diagonal
// entry never matters (its term is ≥ σ(v), which the strict comparison
// with σ(v) ignores), so the kernels need not skip it.
//
// A block that changed some vertex writes iter to *flag; the host reads
// the flag after one or more iterations and stops after an iteration that
// left it below its number. An iteration launched before the host read
// the flag of the one before it (densebf Options.FlagInterval above 1)
// takes check = 1 and is idle when that iteration changed nothing: its
// blocks skip their vertices, writing nothing (idle, below).
//
// The trace arguments, last in every kernel: lowered (the iteration
// kernels only), then ent and nxt, the launch's entries in the launch
// log (gpu.LaunchLog). In a traced run (densebf Options.Trace, the traced
// build below) lowered[iter] counts the vertices whose distance
// iteration iter lowered (an array of n + 1 ints, zeroed by the init
// kernel, which takes lowered too: no memset of the host's before the
// run), one atomicAdd per warp that lowered one, and every kernel stamps
// its span in the log. Untraced runs launch the untraced build, which
// ignores the three (the host passes NULL).
//
// Layouts. Naive and Reduce read the matrix as given, row-major with
// entry (j, v) at j*n + v: the in-edges of v are column v. Coarse reads
// the transpose (entry (j, v) at v*n + j, transposed on the host during
// preparation), so the in-edges of v are row v.
//
// Methods (the study's kernels):
//   - naive: one thread per vertex loops over all j. Neighbouring threads
//     read neighbouring entries of a row, but there are only n threads.
//   - reduce: a group of M threads per vertex (M a multiple of 32; G
//     groups per block, blockDim.x = G*M). Thread t of a group takes
//     j = t, t+M, t+2M, … down column v (strided: uncoalesced), then the
//     group reduces its M (min, argmin) pairs with a tree in shared memory.
//   - coarse: as reduce over row v of the transpose: a group's loads are
//     consecutive (coalesced). The _vec kernels load 16 bytes (4 entries
//     and the 4 matching σ) per access; the host uses them when n is a
//     multiple of 4, so each row starts 16-byte aligned. The group's M
//     pairs are reduced by warp shuffles (a tree of 5 steps in registers),
//     then, for M > 32, the M/32 warps' pairs in shared memory.
//
// Rounds. Block b of reduce and coarse takes the G vertices b*G .. b*G+G-1,
// then (b + gridDim.x)*G .., and so on while they start below n: with
// gridDim.x*G ≥ n one round (a group per vertex), with fewer blocks each
// group settles a vertex per round (the host sizes the grid to the blocks
// the GPU holds at once, so that no block waits for a second wave). The
// loop's bound is the same for every thread of a block, so the barriers
// inside are reached by all of them.
//
// Dynamic shared memory of reduce and coarse: blockDim.x values followed
// by blockDim.x int indices (8 bytes per thread; coarse uses 2 values and
// 2 indices per warp of them).

typedef long long i64;

#define INF_I32 1073741823 // graph.InfI32 = MaxInt32/2

// ---- the two builds ----
//
// gpu.go compiles this file twice. The untraced build (no DENSEBF_TRACED,
// no gpu/launchlog.cuh before it) is what every untraced run launches:
// no trace code at all — its kernels take the trace arguments unnamed,
// its Lowered is empty and its count_* do nothing — so a reference to the
// launch log (llog_*) or to the counts outside #ifdef DENSEBF_TRACED
// fails to compile there (TestUntracedBuild checks the preprocessed
// text). The traced build (-DDENSEBF_TRACED=1, launchlog.cuh prepended:
// gpu.PrependLaunchLog), compiled when a traced preparation or run first
// needs it, counts the lowered distances and stamps every launch's span in the
// log: DENSEBF_LOG_BEGIN first, run by every thread (no kernel here
// returns early); the end by the init kernels' DENSEBF_LOG_END, and by
// the iteration kernels' report (report, report_count), right after the
// block's last barrier, from the entry held in shared memory (log_hold,
// log_reported say why). Both builds declare the same
// kernels with the same parameters (DENSEBF_TRACE_PARAMS last, the init
// kernels' DENSEBF_LOG_PARAMS), so one Go launch path serves both.
//
// Why two builds: the trace's code compiled into every kernel (the NULL
// tests of lowered and of the log entries, the ballot) would make
// untraced runs pay for it; MST's kernels ran 21% slower untraced with
// the launch log compiled in (H100), and issue 17 asks that a trace cost
// nothing when off.
#ifdef DENSEBF_TRACED
#define DENSEBF_LOG_PARAMS unsigned long long *ent, unsigned long long *nxt
#define DENSEBF_TRACE_PARAMS int *lowered, DENSEBF_LOG_PARAMS
#define DENSEBF_LOG_BEGIN(ent, nxt) log_hold(ent, nxt)
#define DENSEBF_LOG_END(ent) llog_end(ent)
#define DENSEBF_LOWERED(lowered) (lowered)

// held_entry is the block's launch-log entry, kept in shared memory by
// log_hold for log_reported.
__shared__ unsigned long long *held_entry;

// log_hold begins a logged launch and keeps its entry in shared memory
// for the block's end stamp (log_reported): block 0's thread 0 calls
// llog_begin, and every block's thread 0 keeps the entry. Why not
// llog_begin and llog_end from every thread, as other packages do: both
// test the thread's and block's three indices, the compiler keeps the
// indices read at the start (and the entry) in registers until the end,
// and BF_Naive's loop, short of registers then, keeps fewer loads in
// flight — its traced launches took 1.62 ms against 0.99 untraced at
// n = 8192 (H100; an nvcc harness and the NVRTC build alike: 64% in
// BenchmarkGPUTrace), 1.0 with either stamp left out, 0.99 so.
// Only thread 0 of a block tests here, its indices being 1D, and the
// end reads the entry back from shared memory. Every thread must call
// it.
//
// __noinline__: a call of its own keeps the kernel's register count
// the untraced build's. Inlined, BF_Reduce_Coarse's vector kernel took
// 38 registers a thread against 32 untraced (NVRTC 13, sm_90: 6 blocks
// of 256 threads an SM instead of 8, 2.4–3.8% of a traced run at
// n = 8192); called, 32 (TestGPUTraceFlip checks every iteration
// kernel). Called by thread 0 alone (the test of threadIdx.x moved out
// of the call) it took 38 again.
__device__ __noinline__ void log_hold(unsigned long long *ent, unsigned long long *nxt) {
	if (threadIdx.x == 0) {
		if (blockIdx.x == 0) {
			llog_begin(ent, nxt);
		}
		held_entry = ent;
	}
}

// log_reported stamps the block's end in the held entry (unless the
// launch is open): the iteration kernels call it from report and
// report_count, right after their block-wide barrier, which follows
// the block's last write of σ and η, so no barrier of its own
// (llog_end_synced).
__device__ __forceinline__ void log_reported() {
	if (threadIdx.x == 0) {
		llog_end_synced(held_entry);
	}
}

// Lowered is the per-iteration count of lowered distances (never NULL:
// the host makes it for every traced run).
typedef int *Lowered;

// count_warp adds the vertices the warp's threads lowered (changed, one
// vertex each) to lowered[iter]: one atomicAdd by lane 0 when some did.
// Every lane of the warp must call it.
__device__ __forceinline__ void count_warp(Lowered lowered, int iter, bool changed) {
	const unsigned b = __ballot_sync(0xffffffffu, changed ? 1 : 0);
	if ((threadIdx.x & 31) == 0 && b) {
		atomicAdd(lowered + iter, __popc(b));
	}
}

// count_add adds count to lowered[iter] when it is positive.
__device__ __forceinline__ void count_add(Lowered lowered, int iter, int count) {
	if (count > 0) {
		atomicAdd(lowered + iter, count);
	}
}

// zero_counts zeroes lowered[0..n], the run's counts, from the init
// kernel (n threads or more: thread v zeroes entry v + 1, thread 0
// entry 0 too), which runs before the iterations that count, on their
// stream.
__device__ __forceinline__ void zero_counts(Lowered lowered, int n) {
	const int v = blockIdx.x * blockDim.x + threadIdx.x;
	if (v < n) {
		lowered[v + 1] = 0;
	}
	if (v == 0) {
		lowered[0] = 0;
	}
}
#else
#define DENSEBF_LOG_PARAMS unsigned long long *, unsigned long long *
#define DENSEBF_TRACE_PARAMS int *, DENSEBF_LOG_PARAMS
#define DENSEBF_LOG_BEGIN(ent, nxt)
#define DENSEBF_LOG_END(ent)
#define DENSEBF_LOWERED(lowered) (Lowered())

// log_reported does nothing in the untraced build.
__device__ __forceinline__ void log_reported() {}

// Lowered is empty in the untraced build: nothing is counted.
struct Lowered {};

__device__ __forceinline__ void count_warp(Lowered, int, bool) {}

__device__ __forceinline__ void count_add(Lowered, int, int) {}

__device__ __forceinline__ void zero_counts(Lowered, int) {}
#endif

// ---- launch bounds ----
//
// Every iteration kernel is declared __launch_bounds__(1024, 1): blocks of
// at most 1024 threads (the largest the host launches), 64 registers a
// thread at most, in both builds alike. Without bounds NVRTC 13 gave the
// untraced kernels 32 registers and the traced float vector kernel of
// BF_Reduce_Coarse 34–38 (6 blocks of 256 threads an SM instead of 8:
// 2.9–3.3% of a traced run at n = 8192, H100), however the trace's
// code was arranged; capping the traced build alone at 32 (minimum 2
// blocks of 1024) cost it 9%. With the bounds the untraced vector kernels
// take 56 registers (4 blocks of 256 an SM), as fast at n = 8192 and 3%
// faster at 16384 (H100, BenchmarkGPU), and a traced kernel keeps the
// untraced one's blocks an SM (TestGPUTraceFlip).

// ---- the element types ----

// Num<T> gives +∞ and the relaxation term of an element type.
template <typename T> struct Num;

template <> struct Num<int> {
	static __device__ __forceinline__ int inf() { return INF_I32; }
	// term is s + w, or INF_I32 when j is unreached (s ≥ INF_I32) or has
	// no edge to v (w ≥ INF_I32): INF_I32 plus a negative weight would look
	// finite, and entries above INF_I32 would overflow.
	static __device__ __forceinline__ int term(int s, int w) {
		return (s >= INF_I32 || w >= INF_I32) ? INF_I32 : s + w;
	}
};

template <> struct Num<float> {
	static __device__ __forceinline__ float inf() { return __int_as_float(0x7f800000); }
	// term is the float sum: +Inf when either is +Inf (no -Inf, no NaN).
	// One addition, no multiplication, so no contraction changes it.
	static __device__ __forceinline__ float term(float s, float w) { return s + w; }
};

// Vec4<T> is the 16-byte vector type of T.
template <typename T> struct Vec4;
template <> struct Vec4<int> {
	typedef int4 type;
};
template <> struct Vec4<float> {
	typedef float4 type;
};

// ---- pieces shared by the methods ----

// PARITY_STRIDE is the distance in ints between the two parity words
// (128 bytes: a cache line each).
#define PARITY_STRIDE 32

// parity_word is the index in the parity buffer (2·PARITY_STRIDE ints) of
// the word that iterations of iter's parity write: a block that changed a
// vertex in iteration iter writes iter there, beside *flag (report).
__device__ __forceinline__ int parity_word(int iter) { return (iter & 1) * PARITY_STRIDE; }

// idle reports whether iteration iter can skip its work: the host
// launched it with check set (before reading the flag of iteration
// iter-1) and iteration iter-1 changed nothing, so the parity word of
// iter-1 does not read iter-1 (it holds an earlier iteration of that
// parity, or init's 0). Then no later iteration changes anything
// either, and iter's output would equal its input: iteration iter-1
// changed nothing, so its output, which iter reads, equals its input,
// which is the other buffer, the one iter would write; η changes only
// with σ. So an idle iteration writes nothing and both buffers hold the
// result, whichever the host reads. Its blocks skip their vertices (the
// methods' loops start past n) and end as any block does (report,
// report_count: no change to report, the trace's end stamp): no
// kernel returns early, so the traced build has no second way out to
// stamp.
//
// The word read is the other parity's: no block of this launch writes
// it (they write iter's), so every block of a launch reads the same
// value, and the line is only read during the launch (an SM's L1 may
// serve it to later blocks). Reading *flag itself (volatile), which the
// launch's blocks write, cost 9 µs a launch of 1024 blocks and 67 µs of
// 8192, in proportion to the blocks (H100, BF_Reduce_Coarse): the reads
// queued on that line of the L2 with the blocks' writes.
//
// An idle launch costs a launch and one read a block (a few microseconds
// of a grid, against an iteration's 90 µs at n = 8192), and a launch with
// check 0 (after a flag read, or FlagInterval 1) the test of a kernel
// argument: so the host can launch several iterations between two reads
// of the flag without paying a full iteration for each one after the
// last.
__device__ __forceinline__ bool idle(const int *parity, int iter, int check) {
	return check != 0 && parity[parity_word(iter - 1)] != iter - 1;
}

// consider folds candidate (s, j) into (best, arg). Candidates come in
// increasing j, so the strict comparison keeps the smallest j of a tie.
template <typename T>
__device__ __forceinline__ void consider(T s, int j, T &best, int &arg) {
	if (s < best) {
		best = s;
		arg = j;
	}
}

// settle writes σ_iter(v) and, when it improved, η(v); it reports the
// improvement.
template <typename T>
__device__ __forceinline__ bool settle(const T *__restrict__ sig, T *__restrict__ out, int *__restrict__ pred,
                                      int v, T best, int arg) {
	const T old = sig[v];
	if (best < old) {
		out[v] = best;
		pred[v] = arg;
		return true;
	}
	out[v] = old;
	return false;
}

// report writes iter to *flag and to its parity word (idle) when some
// thread of the block changed a vertex and, in the traced build, stamps
// the block's end in the launch log (log_reported) and adds the warp's
// changed vertices to iteration iter's count. Every thread of the block must call it (blocks are
// whole warps).
__device__ __forceinline__ void report(bool changed, int iter, int *flag, int *parity, Lowered lowered) {
	if (__syncthreads_or(changed ? 1 : 0) && threadIdx.x == 0) {
		*flag = iter;
		parity[parity_word(iter)] = iter;
	}
	log_reported();
	count_warp(lowered, iter, changed);
}

// report_count is report for the group methods: count is the vertices
// this thread settled lower (only a group's thread 0 settles, so at most
// one thread per warp has a count). It writes iter to *flag and its
// parity word when some thread of the block lowered a vertex and, in the
// traced build, stamps the block's end (log_reported) and adds the counts
// to iteration iter's count, one atomicAdd per warp that lowered one. Every thread of the
// block must call it.
__device__ __forceinline__ void report_count(int count, int iter, int *flag, int *parity, Lowered lowered) {
	if (__syncthreads_or(count > 0 ? 1 : 0) && threadIdx.x == 0) {
		*flag = iter;
		parity[parity_word(iter)] = iter;
	}
	log_reported();
	count_add(lowered, iter, count);
}

// better reports whether the candidate (b, jb) beats (a, ja): a smaller
// value, or the same value at a smaller j. The order is total on the
// candidates of a vertex (each j once), so any reduction tree finds the
// CPU's (minimum, smallest j attaining it).
template <typename T> __device__ __forceinline__ bool better(T b, int jb, T a, int ja) {
	return b < a || (b == a && jb < ja);
}

// dyn_shared returns the block's dynamic shared memory.
#ifndef DENSEBF_EMULATED
__device__ __forceinline__ unsigned char *dyn_shared() {
	extern __shared__ int4 dyn_shared_mem[];
	return reinterpret_cast<unsigned char *>(dyn_shared_mem);
}
#endif

// group_min reduces the (value, index) pairs of one group, slots
// base..base+M-1 of vs and js, into slot base: a tree in shared memory of
// ceil(log2 M) steps. At each step the first len-half slots take the
// smaller of themselves and the slot half above (the smaller index on a
// tie), so slots written ([0, len-half)) and slots only read ([half, len))
// never overlap within a step. Every thread of the block must call it with
// the same M (the barriers are block-wide).
template <typename T>
__device__ __forceinline__ void group_min(T *vs, int *js, int base, int t, int M) {
	for (int len = M; len > 1;) {
		const int half = (len + 1) >> 1;
		if (t + half < len) {
			const T a = vs[base + t];
			const T b = vs[base + t + half];
			const int jb = js[base + t + half];
			if (b < a || (b == a && jb < js[base + t])) {
				vs[base + t] = b;
				js[base + t] = jb;
			}
		}
		len = half;
		__syncthreads();
	}
}

// finish_group reduces each group's candidates with group_min and lets
// thread 0 of the group settle its vertex v; it reports whether that
// thread lowered v. Every thread of the block must call it.
template <typename T>
__device__ __forceinline__ bool finish_group(const T *__restrict__ sig, T *__restrict__ out, int *__restrict__ pred,
                                            int n, int M, int g, int t, int v, T best, int arg) {
	T *vs = reinterpret_cast<T *>(dyn_shared());
	int *js = reinterpret_cast<int *>(vs + blockDim.x);
	vs[threadIdx.x] = best;
	js[threadIdx.x] = arg;
	__syncthreads();
	group_min<T>(vs, js, g * M, t, M);
	if (t == 0 && v < n) {
		return settle<T>(sig, out, pred, v, vs[g * M], js[g * M]);
	}
	return false;
}

// warp_min reduces the (value, index) pairs of the 32 lanes of a warp into
// lane 0 by shuffles, 5 steps of a tree. Every lane of the warp must call
// it.
template <typename T> __device__ __forceinline__ void warp_min(T &best, int &arg) {
	for (int d = 16; d > 0; d >>= 1) {
		const T b = __shfl_down_sync(0xffffffffu, best, d);
		const int jb = __shfl_down_sync(0xffffffffu, arg, d);
		if (better<T>(b, jb, best, arg)) {
			best = b;
			arg = jb;
		}
	}
}

// group_min_shfl reduces the (value, index) pairs of a group of M threads
// into its thread 0 (t == 0): warp_min in each warp, then, for M > 32,
// thread 0 folds the first lanes of the group's M/32 warps from shared
// memory, in order. round (the caller's round number) picks one of two
// halves of the slots, so that the next round's writes never meet this
// round's reads; one barrier per round. Every thread of the block must
// call it with the same M and round.
template <typename T>
__device__ __forceinline__ void group_min_shfl(T &best, int &arg, int t, int M, int round) {
	warp_min<T>(best, arg);
	if (M == 32) { // the same for every thread
		return;
	}
	const int warps = blockDim.x >> 5;
	const int half = (round & 1) * warps;
	T *vs = reinterpret_cast<T *>(dyn_shared());
	int *js = reinterpret_cast<int *>(vs + 2 * warps);
	const int w = threadIdx.x >> 5;
	if ((threadIdx.x & 31) == 0) {
		vs[half + w] = best;
		js[half + w] = arg;
	}
	__syncthreads();
	if (t == 0) { // w is the group's first warp
		for (int k = 1; k < (M >> 5); k++) {
			const T b = vs[half + w + k];
			const int jb = js[half + w + k];
			if (better<T>(b, jb, best, arg)) {
				best = b;
				arg = jb;
			}
		}
	}
}

// scan folds the candidates j = t, t+M, t+2M, … < n into (best, arg),
// reading edge[j→v] at p[j*stride] (p points at v's first entry: a column
// of the row-major matrix with stride n, a row of the transpose with
// stride 1). Four candidates are loaded before the first is used, so each
// thread keeps several loads in flight; they are folded in increasing j.
template <typename T>
__device__ __forceinline__ void scan(const T *__restrict__ p, i64 stride, const T *__restrict__ sig, int n, int t,
                                    int M, T &best, int &arg) {
	int j = t;
	for (; j + 3 * M < n; j += 4 * M) {
		const T w0 = __ldg(p + (i64)j * stride);
		const T w1 = __ldg(p + (i64)(j + M) * stride);
		const T w2 = __ldg(p + (i64)(j + 2 * M) * stride);
		const T w3 = __ldg(p + (i64)(j + 3 * M) * stride);
		const T s0 = __ldg(sig + j);
		const T s1 = __ldg(sig + j + M);
		const T s2 = __ldg(sig + j + 2 * M);
		const T s3 = __ldg(sig + j + 3 * M);
		consider<T>(Num<T>::term(s0, w0), j, best, arg);
		consider<T>(Num<T>::term(s1, w1), j + M, best, arg);
		consider<T>(Num<T>::term(s2, w2), j + 2 * M, best, arg);
		consider<T>(Num<T>::term(s3, w3), j + 3 * M, best, arg);
	}
	for (; j < n; j += M) {
		consider<T>(Num<T>::term(__ldg(sig + j), __ldg(p + (i64)j * stride)), j, best, arg);
	}
}

// consider4 folds entries j..j+3 of one 16-byte vector of weights w and
// of σ, s.
template <typename T, typename V>
__device__ __forceinline__ void consider4(const V &s, const V &w, int j, T &best, int &arg) {
	consider<T>(Num<T>::term(s.x, w.x), j, best, arg);
	consider<T>(Num<T>::term(s.y, w.y), j + 1, best, arg);
	consider<T>(Num<T>::term(s.z, w.z), j + 2, best, arg);
	consider<T>(Num<T>::term(s.w, w.w), j + 3, best, arg);
}

// scan_vec is scan over a row of the transpose, 16 bytes at a time: thread
// t takes the vectors k = t, t+M, … < n/4 (entries 4k..4k+3), four vectors
// of the row and of σ loaded before the first is used. n % 4 == 0.
template <typename T>
__device__ __forceinline__ void scan_vec(const T *__restrict__ row, const T *__restrict__ sig, int n, int t, int M,
                                        T &best, int &arg) {
	typedef typename Vec4<T>::type V;
	const V *row4 = reinterpret_cast<const V *>(row);
	const V *sig4 = reinterpret_cast<const V *>(sig);
	const int q = n >> 2;
	int k = t;
	for (; k + 3 * M < q; k += 4 * M) {
		const V w0 = __ldg(row4 + k);
		const V w1 = __ldg(row4 + k + M);
		const V w2 = __ldg(row4 + k + 2 * M);
		const V w3 = __ldg(row4 + k + 3 * M);
		const V s0 = __ldg(sig4 + k);
		const V s1 = __ldg(sig4 + k + M);
		const V s2 = __ldg(sig4 + k + 2 * M);
		const V s3 = __ldg(sig4 + k + 3 * M);
		consider4<T, V>(s0, w0, k << 2, best, arg);
		consider4<T, V>(s1, w1, (k + M) << 2, best, arg);
		consider4<T, V>(s2, w2, (k + 2 * M) << 2, best, arg);
		consider4<T, V>(s3, w3, (k + 3 * M) << 2, best, arg);
	}
	for (; k < q; k += M) {
		consider4<T, V>(__ldg(sig4 + k), __ldg(row4 + k), k << 2, best, arg);
	}
}

// ---- kernels ----

// init: σ = +∞ but σ(src) = 0, η = -1 but η(src) = src, flag = 0 and
// both parity words 0 (no iteration 0 follows: idle reads 0 as "changed
// nothing").
template <typename T>
__device__ __forceinline__ void init(T *sig, int *pred, int n, int src, int *flag, int *parity) {
	const int v = blockIdx.x * blockDim.x + threadIdx.x;
	if (v < n) {
		sig[v] = (v == src) ? (T)0 : Num<T>::inf();
		pred[v] = (v == src) ? src : -1;
	}
	if (v == 0) {
		*flag = 0;
		parity[parity_word(0)] = 0;
		parity[parity_word(1)] = 0;
	}
}

// The init kernels take the trace arguments too: they lower nothing,
// but zero the counts the iterations will make (zero_counts).
extern "C" __global__ void densebf_init_i32(int *sig, int *pred, int n, int src, int *flag, int *parity, DENSEBF_TRACE_PARAMS) {
	DENSEBF_LOG_BEGIN(ent, nxt);
	init<int>(sig, pred, n, src, flag, parity);
	zero_counts(DENSEBF_LOWERED(lowered), n);
	DENSEBF_LOG_END(ent);
}

extern "C" __global__ void densebf_init_f32(float *sig, int *pred, int n, int src, int *flag, int *parity, DENSEBF_TRACE_PARAMS) {
	DENSEBF_LOG_BEGIN(ent, nxt);
	init<float>(sig, pred, n, src, flag, parity);
	zero_counts(DENSEBF_LOWERED(lowered), n);
	DENSEBF_LOG_END(ent);
}

// BF_Naive: thread v scans column v of the row-major matrix m.
template <typename T>
__device__ __forceinline__ void naive(const T *__restrict__ m, const T *__restrict__ sig, T *__restrict__ out,
                                     int *__restrict__ pred, int n, int iter, int *flag, int *parity, bool skip, Lowered lowered) {
	const int v = blockIdx.x * blockDim.x + threadIdx.x;
	bool changed = false;
	if (v < n && !skip) {
		T best = Num<T>::inf();
		int arg = -1;
		scan<T>(m + v, n, sig, n, 0, 1, best, arg);
		changed = settle<T>(sig, out, pred, v, best, arg);
	}
	report(changed, iter, flag, parity, lowered);
}

extern "C" __global__ __launch_bounds__(1024, 1) void densebf_naive_i32(const int *__restrict__ m, const int *__restrict__ sig,
                                             int *__restrict__ out, int *__restrict__ pred, int n, int iter,
                                             int *flag, int *parity, int check, DENSEBF_TRACE_PARAMS) {
	DENSEBF_LOG_BEGIN(ent, nxt);
	naive<int>(m, sig, out, pred, n, iter, flag, parity, idle(parity, iter, check), DENSEBF_LOWERED(lowered));
}

extern "C" __global__ __launch_bounds__(1024, 1) void densebf_naive_f32(const float *__restrict__ m, const float *__restrict__ sig,
                                             float *__restrict__ out, int *__restrict__ pred, int n, int iter,
                                             int *flag, int *parity, int check, DENSEBF_TRACE_PARAMS) {
	DENSEBF_LOG_BEGIN(ent, nxt);
	naive<float>(m, sig, out, pred, n, iter, flag, parity, idle(parity, iter, check), DENSEBF_LOWERED(lowered));
}

// BF_Reduce: group g of the block handles vertex v = b*G + g in each
// round b = blockIdx.x, blockIdx.x + gridDim.x, …; its thread t scans
// j = t, t+M, … of column v of the row-major matrix.
template <typename T>
__device__ __forceinline__ void reduce(const T *__restrict__ m, const T *__restrict__ sig, T *__restrict__ out,
                                      int *__restrict__ pred, int n, int M, int iter, int *flag, int *parity, bool skip, Lowered lowered) {
	const int G = blockDim.x / M;
	const int g = threadIdx.x / M;
	const int t = threadIdx.x - g * M;
	int count = 0;
	for (int first = skip ? n : blockIdx.x * G; first < n; first += gridDim.x * G) {
		const int v = first + g;
		T best = Num<T>::inf();
		int arg = -1;
		if (v < n) {
			scan<T>(m + v, n, sig, n, t, M, best, arg);
		}
		count += finish_group<T>(sig, out, pred, n, M, g, t, v, best, arg) ? 1 : 0;
	}
	report_count(count, iter, flag, parity, lowered);
}

extern "C" __global__ __launch_bounds__(1024, 1) void densebf_reduce_i32(const int *__restrict__ m, const int *__restrict__ sig,
                                              int *__restrict__ out, int *__restrict__ pred, int n, int M, int iter,
                                              int *flag, int *parity, int check, DENSEBF_TRACE_PARAMS) {
	DENSEBF_LOG_BEGIN(ent, nxt);
	reduce<int>(m, sig, out, pred, n, M, iter, flag, parity, idle(parity, iter, check), DENSEBF_LOWERED(lowered));
}

extern "C" __global__ __launch_bounds__(1024, 1) void densebf_reduce_f32(const float *__restrict__ m, const float *__restrict__ sig,
                                              float *__restrict__ out, int *__restrict__ pred, int n, int M,
                                              int iter, int *flag, int *parity, int check, DENSEBF_TRACE_PARAMS) {
	DENSEBF_LOG_BEGIN(ent, nxt);
	reduce<float>(m, sig, out, pred, n, M, iter, flag, parity, idle(parity, iter, check), DENSEBF_LOWERED(lowered));
}

// BF_Reduce_Coarse: as reduce over row v of the transpose mt, so the M
// threads of a group read M consecutive entries, and reduced by
// group_min_shfl. With VEC (n % 4 == 0), thread t takes the 16-byte
// vectors k = t, t+M, … of the row and of σ, entries 4k..4k+3 in order.
//
// With alternate (non-zero), even iterations take the vertices in the
// opposite order (group g of block b in round r: vertex n-1-((b +
// r*gridDim.x)*G + g)), so that an iteration starts with the rows the
// iteration before read last, which the L2 cache still holds. Each vertex
// is still settled once per iteration, from the same σ: the order changes
// nothing else.
//
// The traced build's kernels take the untraced build's 32 registers a
// thread because log_hold is a call of its own (inlined, the float
// vector kernel took 38: 6 blocks of 256 threads an SM instead of 8,
// 2.4–3.8% of a traced run at n = 8192, H100). What a traced launch
// still costs is its instructions: at n = 1024 (1024 blocks of one row
// each) 12% more of them, 0.5 µs of a 5 µs launch under ncu, about 2%
// of a run that the host's flag reads dominate.
template <typename T, bool VEC>
__device__ __forceinline__ void coarse(const T *__restrict__ mt, const T *__restrict__ sig, T *__restrict__ out,
                                      int *__restrict__ pred, int n, int M, int iter, int *flag, int *parity, bool skip, int alternate,
                                      Lowered lowered) {
	const int G = blockDim.x / M;
	const int g = threadIdx.x / M;
	const int t = threadIdx.x - g * M;
	const bool backward = alternate && (iter & 1) == 0;
	int count = 0;
	int round = 0;
	for (int first = skip ? n : blockIdx.x * G; first < n; first += gridDim.x * G, round++) {
		const int v = backward ? n - 1 - (first + g) : first + g; // v < 0 or v ≥ n: no vertex
		T best = Num<T>::inf();
		int arg = -1;
		if (v >= 0 && v < n) {
			const T *row = mt + (i64)v * n;
			if constexpr (VEC) {
				scan_vec<T>(row, sig, n, t, M, best, arg);
			} else {
				scan<T>(row, 1, sig, n, t, M, best, arg);
			}
		}
		group_min_shfl<T>(best, arg, t, M, round);
		if (t == 0 && v >= 0 && v < n && settle<T>(sig, out, pred, v, best, arg)) {
			count++;
		}
	}
	report_count(count, iter, flag, parity, lowered);
}

extern "C" __global__ __launch_bounds__(1024, 1) void densebf_coarse_i32(const int *__restrict__ mt, const int *__restrict__ sig,
                                              int *__restrict__ out, int *__restrict__ pred, int n, int M, int iter,
                                              int *flag, int *parity, int check, int alternate, DENSEBF_TRACE_PARAMS) {
	DENSEBF_LOG_BEGIN(ent, nxt);
	coarse<int, false>(mt, sig, out, pred, n, M, iter, flag, parity, idle(parity, iter, check), alternate, DENSEBF_LOWERED(lowered));
}

extern "C" __global__ __launch_bounds__(1024, 1) void densebf_coarse_f32(const float *__restrict__ mt, const float *__restrict__ sig,
                                              float *__restrict__ out, int *__restrict__ pred, int n, int M,
                                              int iter, int *flag, int *parity, int check, int alternate, DENSEBF_TRACE_PARAMS) {
	DENSEBF_LOG_BEGIN(ent, nxt);
	coarse<float, false>(mt, sig, out, pred, n, M, iter, flag, parity, idle(parity, iter, check), alternate, DENSEBF_LOWERED(lowered));
}

extern "C" __global__ __launch_bounds__(1024, 1) void densebf_coarse_vec_i32(const int *__restrict__ mt, const int *__restrict__ sig,
                                                  int *__restrict__ out, int *__restrict__ pred, int n, int M,
                                                  int iter, int *flag, int *parity, int check, int alternate, DENSEBF_TRACE_PARAMS) {
	DENSEBF_LOG_BEGIN(ent, nxt);
	coarse<int, true>(mt, sig, out, pred, n, M, iter, flag, parity, idle(parity, iter, check), alternate, DENSEBF_LOWERED(lowered));
}

extern "C" __global__ __launch_bounds__(1024, 1) void densebf_coarse_vec_f32(const float *__restrict__ mt, const float *__restrict__ sig,
                                                  float *__restrict__ out, int *__restrict__ pred, int n, int M,
                                                  int iter, int *flag, int *parity, int check, int alternate, DENSEBF_TRACE_PARAMS) {
	DENSEBF_LOG_BEGIN(ent, nxt);
	coarse<float, true>(mt, sig, out, pred, n, M, iter, flag, parity, idle(parity, iter, check), alternate, DENSEBF_LOWERED(lowered));
}
