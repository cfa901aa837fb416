// GPU BFS kernels of package bfs: the BFS study's level-synchronous edge
// scan (docs/studies.md §2) and a direction-optimizing BFS (Beamer et al., SC 2012).
// Compiled at run time by NVRTC after chunks.cuh (no #include: every type
// is declared here).
// Kernels are launched with blocks of BFS_BLOCK threads (the Go side passes
// it); the warp-level code needs whole warps, so BFS_BLOCK is a multiple of 32.
//
// Control words (ctl, 6 unsigned long long, zeroed before a step: by the host
// for the edge scan, by plan_next for the direction-optimizing search):
//   edge scan + dynamic parallelism:  [CTL_COUNT] vertices on the level counted
//                                     by bfs_count_* (dp.cu uses 0, 1 and 3)
//   direction-optimizing:             [CTL_TAIL] next queue length / frontier
//                                     size, [CTL_MF] arcs leaving the new
//                                     frontier, [CTL_NBIG] high-degree vertices
//                                     handed to do_td_big, [CTL_QTAIL] queue
//                                     length written by do_convert, [CTL_READ]
//                                     arcs a bottom-up step read, [CTL_BIGARCS]
//                                     arcs of the vertices handed to
//                                     do_td_big (traced searches only)
// The Go side (gpu.go) declares the same indices; a test compares them.

typedef unsigned char u8;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;

#define BFS_BLOCK 256
#define FULL_MASK 0xffffffffu
#define UNVISITED8 255
#define UNVISITED32 0x7fffffff

#define CTL_COUNT 2
#define CTL_TAIL 0
#define CTL_MF 1
#define CTL_NBIG 2
#define CTL_QTAIL 3
#define CTL_READ 4
#define CTL_BIGARCS 5

// Top-down tiers: a frontier vertex with fewer than TD_WARP_DEG arcs is
// expanded by its own thread, one with fewer than TD_BIG_DEG by its whole
// warp, a larger one by the whole grid (do_td_big).
#define TD_WARP_DEG 32
#define TD_BIG_DEG 256
// On a frontier of at most TD_SMALL_FRONTIER vertices (a search's first
// levels), do_td_big takes every vertex of TD_WARP_DEG arcs or more: a
// warp walking a few medium vertices' arcs one after the other, each a
// chain of dependent loads and atomics, made such a level last 10–20 µs
// (R-MAT scale 22, H100); the grid takes their arcs at once (kernel
// time of a search 60 µs less at scale 24, 23 µs at 22).
#define TD_SMALL_FRONTIER 2048

// ---- the study kernels' two builds ----
//
// gpu.go compiles this file twice, launchlog.cuh and chunks.cuh before
// it (the direction-optimizing kernels below log themselves in either,
// through their ent and nxt arguments, NULL when untraced). The untraced
// build (no BFS_STUDY_TRACED), which untraced runs of the edge scan and
// dynamic parallelism launch, holds the study's kernels as they are:
// bfs_init_u8, the four scans, bfs_widen and the two counts take no log
// argument and hold no trace code once preprocessed (a test checks it).
// The traced build (-DBFS_STUDY_TRACED=1) gives each of them the launch
// log's two arguments, ent and nxt, last, and logs its span
// (gpu.LaunchLog): the STUDY_LOG_* macros below, empty in the untraced
// build.
#ifdef BFS_STUDY_TRACED
#define STUDY_LOG_ARGS , u64 *ent, u64 *nxt
#define STUDY_LOG_BEGIN llog_begin(ent, nxt);
#define STUDY_LOG_END llog_end(ent);
// after a barrier of the kernel's own (block_add's)
#define STUDY_LOG_END_SYNCED llog_end_synced(ent);
#else
#define STUDY_LOG_ARGS
#define STUDY_LOG_BEGIN
#define STUDY_LOG_END
#define STUDY_LOG_END_SYNCED
#endif

// ---- helpers ----

// ld reads p[i], through the read-only (texture) path when RO.
template <typename T, bool RO>
__device__ __forceinline__ T ld(const T *p, i64 i) {
	if constexpr (RO) {
		return __ldg(p + i);
	} else {
		return p[i];
	}
}

// warp_sum adds x over the 32 lanes; every lane must call it.
__device__ __forceinline__ u64 warp_sum(u64 x) {
	for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL_MASK, x, o);
	return x;
}

// block_add adds x over the block and adds the total to *dst with one
// atomic per block. Every thread of the block must call it: it
// synchronises the block.
__device__ __forceinline__ void block_add(u64 x, u64 *dst) {
	__shared__ u64 part[32];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	x = warp_sum(x);
	if (lane == 0) part[warp] = x;
	__syncthreads();
	if (warp == 0) {
		int warps = blockDim.x >> 5;
		u64 y = lane < warps ? part[lane] : 0;
		y = warp_sum(y);
		if (lane == 0 && y != 0) atomicAdd(dst, y);
	}
	__syncthreads();
}

// ---- the study's edge scan (§2) ----
//
// One launch is one iteration iter. Each undirected edge {st, en} is stored
// once; if one end is on level iter and the other is unvisited (any level
// above iter), the other end gets level iter+1 and the thread reports a
// change. Levels are read through `levels` (the read-only path when RO, the
// study's "restrict" switch) and written through `levels_NR`: both point to
// the same array.
//
// Races, all benign: several threads may write iter+1 to the same vertex
// (same value); a thread may read a level another thread is writing in this
// launch, seeing either the old value (unvisited, > iter) or iter+1 — both
// mean "not on level iter", so the decision is the same. Levels iter and
// below were written by earlier launches and are visible. Single bytes are
// stored without tearing their neighbours.
//
// Each thread takes 4 consecutive edges with one 16-byte load of starts and
// one of ends (the arrays come from cuMemAlloc, 256-byte aligned), loads
// the 8 levels, then decides; the last thread takes the m % 4 left over.
// *modif is set to iter (the study's flag) by one lane per warp that saw a
// change, so the host compares it with iter.

template <typename L>
__device__ __forceinline__ bool relax(L *levels_NR, int s, int e, int ls, int le, int iter) {
	if (ls == iter && le > iter) {
		levels_NR[e] = (L)(iter + 1);
		return true;
	}
	if (le == iter && ls > iter) {
		levels_NR[s] = (L)(iter + 1);
		return true;
	}
	return false;
}

template <typename L, bool RO>
__device__ __forceinline__ void edge_scan(const int *st, const int *en, i64 m, const L *levels, L *levels_NR, int iter, int *modif) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	i64 e = i * 4;
	bool ch = false;
	if (e + 4 <= m) {
		int4 s4 = ld<int4, RO>(reinterpret_cast<const int4 *>(st), i);
		int4 e4 = ld<int4, RO>(reinterpret_cast<const int4 *>(en), i);
		int a0 = ld<L, RO>(levels, s4.x), b0 = ld<L, RO>(levels, e4.x);
		int a1 = ld<L, RO>(levels, s4.y), b1 = ld<L, RO>(levels, e4.y);
		int a2 = ld<L, RO>(levels, s4.z), b2 = ld<L, RO>(levels, e4.z);
		int a3 = ld<L, RO>(levels, s4.w), b3 = ld<L, RO>(levels, e4.w);
		if (relax<L>(levels_NR, s4.x, e4.x, a0, b0, iter)) ch = true;
		if (relax<L>(levels_NR, s4.y, e4.y, a1, b1, iter)) ch = true;
		if (relax<L>(levels_NR, s4.z, e4.z, a2, b2, iter)) ch = true;
		if (relax<L>(levels_NR, s4.w, e4.w, a3, b3, iter)) ch = true;
	} else {
		for (; e < m; ++e) {
			int s = ld<int, RO>(st, e), t = ld<int, RO>(en, e);
			if (relax<L>(levels_NR, s, t, ld<L, RO>(levels, s), ld<L, RO>(levels, t), iter)) ch = true;
		}
	}
	if (__ballot_sync(FULL_MASK, ch) != 0 && (threadIdx.x & 31) == 0) *modif = iter;
}

// bfs_init_u8 sets every level to UNVISITED8 and the source's to 0.
extern "C" __global__ void bfs_init_u8(u8 *levels, i64 n, int src STUDY_LOG_ARGS) {
	STUDY_LOG_BEGIN
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) levels[i] = i == src ? 0 : UNVISITED8;
	STUDY_LOG_END
}

// The four scans: unsigned char or int levels, plain or read-only path.
// Threads: ceil(m/4), in blocks of BFS_BLOCK.
extern "C" __global__ void bfs_scan_u8(const int *st, const int *en, i64 m, const u8 *levels, u8 *levels_NR, int iter, int *modif
		STUDY_LOG_ARGS) {
	STUDY_LOG_BEGIN
	edge_scan<u8, false>(st, en, m, levels, levels_NR, iter, modif);
	STUDY_LOG_END
}

extern "C" __global__ void bfs_scan_u8_ro(const int *__restrict__ st, const int *__restrict__ en, i64 m,
		const u8 *__restrict__ levels, u8 *levels_NR, int iter, int *modif STUDY_LOG_ARGS) {
	STUDY_LOG_BEGIN
	edge_scan<u8, true>(st, en, m, levels, levels_NR, iter, modif);
	STUDY_LOG_END
}

extern "C" __global__ void bfs_scan_i32(const int *st, const int *en, i64 m, const int *levels, int *levels_NR, int iter, int *modif
		STUDY_LOG_ARGS) {
	STUDY_LOG_BEGIN
	edge_scan<int, false>(st, en, m, levels, levels_NR, iter, modif);
	STUDY_LOG_END
}

extern "C" __global__ void bfs_scan_i32_ro(const int *__restrict__ st, const int *__restrict__ en, i64 m,
		const int *__restrict__ levels, int *levels_NR, int iter, int *modif STUDY_LOG_ARGS) {
	STUDY_LOG_BEGIN
	edge_scan<int, true>(st, en, m, levels, levels_NR, iter, modif);
	STUDY_LOG_END
}

// bfs_widen copies unsigned char levels into int levels (UNVISITED8 becomes
// UNVISITED32): the fallback once a search is deeper than 254 levels.
extern "C" __global__ void bfs_widen(const u8 *l8, int *l32, i64 n STUDY_LOG_ARGS) {
	STUDY_LOG_BEGIN
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		int x = l8[i];
		l32[i] = x == UNVISITED8 ? UNVISITED32 : x;
	}
	STUDY_LOG_END
}

// bfs_count_* add the number of vertices on level lvl to ctl[CTL_COUNT]
// (grid-stride: any grid of BFS_BLOCK-thread blocks covers all n). Kernel
// bodies span several lines: NVRTC 11.8 crashed (SIGSEGV) compiling a
// one-line kernel body that calls a template with -lineinfo to sm_90.
template <typename L>
__device__ __forceinline__ void count_level(const L *levels, i64 n, int lvl, u64 *ctl) {
	u64 c = 0;
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
		if ((int)levels[i] == lvl) c++;
	}
	block_add(c, &ctl[CTL_COUNT]);
}

extern "C" __global__ void bfs_count_u8(const u8 *levels, i64 n, int lvl, u64 *ctl STUDY_LOG_ARGS) {
	STUDY_LOG_BEGIN
	count_level<u8>(levels, n, lvl, ctl);
	STUDY_LOG_END_SYNCED
}

extern "C" __global__ void bfs_count_i32(const int *levels, i64 n, int lvl, u64 *ctl STUDY_LOG_ARGS) {
	STUDY_LOG_BEGIN
	count_level<int>(levels, n, lvl, ctl);
	STUDY_LOG_END_SYNCED
}

// ---- results of the edge scan and dynamic parallelism ----
//
// After the search the levels become the Result's (int, -1 unreached) in
// a buffer of the result's own, and the bookkeeping is reduced on the
// device: stats[0] (zeroed by the host) gets the degree sum of the
// reached vertices (the TEPS numerator before halving), stats[1+l] the
// number of vertices of level l for l < nhist (the frontier sizes), and,
// when arcs is not 0 (traced runs), stats[1+nhist+l] their degree sum
// (the frontier's arcs).
// Grid-stride: any grid of BFS_BLOCK-thread blocks. Untraced, every
// reached vertex adds 1 to its level's shared count. Traced, the lanes of
// a warp that reached the same level below FIN_HIST add to its two
// counts once, through lane 0 (the level's vertices and their degree sum
// over the warp): a 64-bit atomic add on shared memory is a compare-and-
// swap loop, and one per reached vertex, on the word the rest of its warp
// adds to (R-MAT puts most vertices in two or three levels), made the
// traced finish kernel take 55-58 us at R-MAT scale 20 on an H100,
// against 8 us untraced (ncu).

#define FIN_HIST 64 // levels counted in shared memory first

template <typename L>
__device__ __forceinline__ void finish_levels(const L *in, int *out, L idle, const i64 *off, i64 n, u64 *stats, int nhist,
		int arcs) {
	__shared__ unsigned hist[FIN_HIST];
	__shared__ u64 harcs[FIN_HIST];
	for (int i = threadIdx.x; i < FIN_HIST; i += blockDim.x) {
		hist[i] = 0;
		harcs[i] = 0;
	}
	__syncthreads();
	u64 deg = 0;
	// base is the same for the lanes of a warp, so they go round together
	// and every lane reaches the warp collectives of traced runs.
	for (i64 base = (i64)blockIdx.x * blockDim.x; base < n; base += (i64)gridDim.x * blockDim.x) {
		const i64 v = base + threadIdx.x;
		int l = -1;
		u64 d = 0;
		if (v < n) {
			L x = in[v];
			l = x == idle ? -1 : (int)x;
			out[v] = l;
			if (l >= 0) {
				d = (u64)(off[v + 1] - off[v]);
				deg += d;
				if (l < FIN_HIST) {
					if (!arcs) atomicAdd(&hist[l], 1u);
				} else if (l < nhist) {
					atomicAdd(&stats[1 + l], 1ull);
					if (arcs) atomicAdd(&stats[1 + nhist + l], d);
				}
			}
		}
		if (arcs) { // the same for the whole grid
			const bool in_shared = l >= 0 && l < FIN_HIST;
			for (unsigned todo = __ballot_sync(FULL_MASK, in_shared); todo != 0;) {
				const int lv = __shfl_sync(FULL_MASK, l, __ffs((int)todo) - 1);
				const bool mine = in_shared && l == lv;
				const unsigned peers = __ballot_sync(FULL_MASK, mine);
				const u64 sum = warp_sum(mine ? d : 0); // in lane 0
				if ((threadIdx.x & 31) == 0) {
					atomicAdd(&hist[lv], (unsigned)__popc(peers));
					atomicAdd(&harcs[lv], sum);
				}
				todo &= ~peers;
			}
		}
	}
	__syncthreads();
	for (int i = threadIdx.x; i < FIN_HIST && i < nhist; i += blockDim.x) {
		if (hist[i] != 0) atomicAdd(&stats[1 + i], (u64)hist[i]);
		if (arcs && harcs[i] != 0) atomicAdd(&stats[1 + nhist + i], harcs[i]);
	}
	block_add(deg, &stats[0]);
}

// bfs_finish_u8 converts unsigned char levels (UNVISITED8: unreached) into
// out and reduces them into stats.
extern "C" __global__ void bfs_finish_u8(const u8 *l8, int *out, const i64 *off, i64 n, u64 *stats, int nhist, int arcs) {
	finish_levels<u8>(l8, out, (u8)UNVISITED8, off, n, stats, nhist, arcs);
}

// bfs_finish_i32 converts int levels (UNVISITED32: unreached) in place
// and reduces them into stats.
extern "C" __global__ void bfs_finish_i32(int *levels, const i64 *off, i64 n, u64 *stats, int nhist, int arcs) {
	finish_levels<int>(levels, levels, (int)UNVISITED32, off, n, stats, nhist, arcs);
}

// Parents from the levels (Options.Parents), for the searches that find
// only levels: every reached vertex but the source takes the
// lowest-numbered neighbour one level up. bfs_parents_init sets parents to
// -1 (unreached), the source to itself and the others to INT_MAX;
// bfs_parents_coo then lowers them over the COO's edges in both
// directions with atomicMin. Grid-stride.
extern "C" __global__ void bfs_parents_init(const int *levels, int *parents, i64 n, int src) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		parents[v] = levels[v] < 0 ? -1 : v == src ? src : UNVISITED32;
	}
}

extern "C" __global__ void bfs_parents_coo(const int *st, const int *en, i64 m, const int *levels, int *parents) {
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += (i64)gridDim.x * blockDim.x) {
		int a = st[e], b = en[e];
		int la = levels[a], lb = levels[b];
		if (la >= 0 && lb == la + 1) {
			atomicMin(&parents[b], a);
		} else if (lb >= 0 && la == lb + 1) {
			atomicMin(&parents[a], b);
		}
	}
}

// ---- direction-optimizing BFS ----
//
// State: levels (int, -1 unvisited), vis (visited bitmap, bit v%32 of word
// v/32), the top-down frontier as a queue of vertex ids, the bottom-up
// frontier as a bitmap. A vertex is claimed exactly once: in a top-down
// step by the thread whose atomicOr sets its vis bit, in a bottom-up step
// by its own thread (one warp owns one vis word). So the frontier counts
// are exact, and levels need no atomics.

// Parents (parents != nullptr, Options.Parents): the vertex that claims u
// records itself as u's parent next to u's level — a top-down step the
// frontier vertex whose arc won the vis bit, a bottom-up step the
// frontier vertex u found among its arcs — so the tree costs one store per
// vertex. With parents == nullptr nothing is recorded.
//
// The device drives the search. The host launches the levels in batches
// without reading anything back between them: per level do_convert,
// do_td, do_bu and do_td_big, whose last block to finish reads the
// level's counts, decides the next level's direction (Beamer's test, the
// same integers as the Go side's turnsDown and turnsUp) and writes it to
// the state words st (plan_after); every step kernel reads st and does
// its work only on a level of its direction (do_convert only on a level
// that switches), the others pass through (a few microseconds a launch).
// The host reads st once per batch, and stops when ST_DONE is set (a
// level found nothing).
// Against a round trip per level (a copy and a synchronisation, then the
// next launches: about 35 µs a level on an H100 with its host, measured)
// a level now costs its kernels and the launches that pass through.
//
// Two queues (qa, qb) and two bitmaps (b0, b1) alternate: ST_QP says
// which queue holds the top-down frontier (the other receives the next),
// ST_BP which bitmap holds the bottom-up frontier. Invariant: outside a
// bottom-up stretch, bitmap ST_BP is all zero (do_init zeroes b0; the
// conversion back to a queue zeroes the other bitmap, which then becomes
// ST_BP), so a switch to bottom-up sets the queue's bits into it without
// clearing it first.
#define ST_DONE 0   // 1 once a level found no vertex: the search is over
#define ST_DEPTH 1  // the level planned last (its kernels run next); when
                    // done, the number of levels with a frontier
#define ST_NF 2     // the planned level's frontier: vertices,
#define ST_MF 3     // its arcs,
#define ST_MU 4     // the arcs of vertices not reached before it or by it,
#define ST_PREVNF 5 // the frontier before it
#define ST_MODE 6   // MODE_* bits of the planned level
#define ST_QP 7     // 0: the frontier queue is qa, 1: qb
#define ST_BP 8     // 0: the frontier bitmap is b0, 1: b1
#define ST_BLOCKS 9 // blocks of the level's last kernel done (plan_after)
#define ST_HEAD 16  // words before the level records
// Level records: a ring of `ring` records after the head, level d in
// record d % ring; plan_next writes the first five words when it plans
// the level, plan_level the others when it has run. The host reads them
// after a batch.
#define LV_NF 0
#define LV_MF 1
#define LV_MU 2
#define LV_PREVNF 3
#define LV_MODE 4
#define LV_TAIL 5    // vertices the level reached (the next frontier)
#define LV_READ 6    // arcs a bottom-up level read
#define LV_NBIG 7    // top-down: vertices handed to do_td_big
#define LV_BIGARCS 8 // their arcs (traced searches)
#define LV_WORDS 9
#define MODE_BU 1   // the level runs bottom-up
#define MODE_DOWN 2 // it turned bottom-up: do_convert sets the queue's bits first
#define MODE_UP 4   // it turned top-down: do_convert queues the bitmap's vertices first

// do_init: levels -1 but the source's 0, parents -1 but the source's
// itself, vis empty but the source (and the padding bits past n, which
// are no vertices), b0 zero, qa = {src}. Threads: n (n >= words).
extern "C" __global__ void do_init(int *levels, int *parents, u32 *vis, u32 *b0, i64 n, i64 words, int src, int *qa) {
	i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		levels[i] = i == src ? 0 : -1;
		if (parents) parents[i] = i == src ? src : -1;
	}
	if (i < words) {
		u32 w = 0;
		if (i == (src >> 5)) w |= 1u << (src & 31);
		if (i == words - 1 && (n & 31) != 0) w |= ~((1u << (n & 31)) - 1u);
		vis[i] = w;
		b0[i] = 0;
	}
	if (i == 0) qa[0] = src;
}

// plan_next plans level d of the search, whose frontier has nf vertices
// and mf arcs (mu: the arcs of vertices not reached before it or by it;
// prev: the frontier before it; mode: the level before's MODE_BU bit):
// its direction (Beamer's test: alpha, beta; fixed_td: no switching, a
// directed graph or Options.TopDownOnly), the state words, its record
// (the first five words; the others zero until it has run), and the
// control words zeroed for it. One thread.
__device__ void plan_next(u64 *ctl, u64 *st, i64 d, i64 nf, i64 mf, i64 mu, i64 prev, u64 mode, i64 n, i64 alpha,
		i64 beta, int fixed_td, int ring) {
	if (!fixed_td) {
		if (!(mode & MODE_BU) && nf > prev && mf > mu / alpha) {
			mode = MODE_BU | MODE_DOWN;
		} else if ((mode & MODE_BU) && nf < prev && nf < n / beta) {
			mode = MODE_UP;
		}
	}
	st[ST_DEPTH] = (u64)d;
	st[ST_NF] = (u64)nf;
	st[ST_MF] = (u64)mf;
	st[ST_MU] = (u64)mu;
	st[ST_PREVNF] = (u64)prev;
	st[ST_MODE] = mode;
	u64 *rec = st + ST_HEAD + (d % ring) * LV_WORDS;
	rec[LV_NF] = (u64)nf;
	rec[LV_MF] = (u64)mf;
	rec[LV_MU] = (u64)mu;
	rec[LV_PREVNF] = (u64)prev;
	rec[LV_MODE] = mode;
	for (int k = LV_TAIL; k < LV_WORDS; k++) rec[k] = 0;
	for (int k = 0; k < 6; k++) ctl[k] = 0;
}

// plan_level closes the level that ran — its counts into its record, the
// queues or bitmaps swapped — and plans the next (plan_next), or sets
// ST_DONE when the level found nothing. Nothing once ST_DONE is set. One
// thread: the last block of each level's do_td_big (plan_after).
__device__ void plan_level(u64 *ctl, u64 *st, i64 n, i64 alpha, i64 beta, int fixed_td, int ring) {
	if (st[ST_DONE] != 0) return;
	const i64 d = (i64)st[ST_DEPTH];
	const u64 mode = st[ST_MODE];
	// The counts, through volatile loads: the last block of do_td_big may
	// hold an older copy of their line in its L1.
	const volatile u64 *cnt = ctl;
	const u64 tail = cnt[CTL_TAIL];
	u64 *rec = st + ST_HEAD + (d % ring) * LV_WORDS;
	rec[LV_TAIL] = tail;
	rec[LV_READ] = cnt[CTL_READ];
	rec[LV_NBIG] = cnt[CTL_NBIG];
	rec[LV_BIGARCS] = cnt[CTL_BIGARCS];
	u64 bp = st[ST_BP];
	if (mode & MODE_BU) {
		bp ^= 1; // the level wrote its frontier into the other bitmap
	} else {
		st[ST_QP] ^= 1; // ... into the other queue
	}
	if (mode & MODE_UP) bp ^= 1; // do_convert zeroed the other bitmap
	st[ST_BP] = bp;
	const i64 nf = (i64)tail, mf = (i64)cnt[CTL_MF];
	if (nf == 0) {
		st[ST_DEPTH] = (u64)(d + 1);
		st[ST_DONE] = 1;
		return;
	}
	plan_next(ctl, st, d + 1, nf, mf, (i64)st[ST_MU] - mf, (i64)st[ST_NF], mode & MODE_BU, n, alpha, beta, fixed_td,
			ring);
}

// do_plan plans level 0, the source alone, with the state words reset.
// One thread.
extern "C" __global__ void do_plan(const i64 *off, int src, u64 *ctl, u64 *st, i64 n, i64 arcs, i64 alpha,
		i64 beta, int fixed_td, int ring) {
	if (blockIdx.x != 0 || threadIdx.x != 0) return;
	st[ST_DONE] = 0;
	st[ST_QP] = 0;
	st[ST_BP] = 0;
	st[ST_BLOCKS] = 0;
	const i64 mf = off[src + 1] - off[src];
	plan_next(ctl, st, 0, 1, mf, arcs - mf, 0, 0, n, alpha, beta, fixed_td, ring);
}

// plan_after is how a level's last kernel (do_td_big) ends: the last of
// its blocks to finish plans the next level (plan_level), once every
// block has read the state and added its counts. Every thread of every
// block calls it.
__device__ __forceinline__ void plan_after(u64 *ctl, u64 *st, i64 n, i64 alpha, i64 beta, int fixed_td, int ring) {
	__shared__ int last;
	__syncthreads();
	if (threadIdx.x == 0) {
		__threadfence();
		last = atomicAdd(&st[ST_BLOCKS], 1ull) == (u64)gridDim.x - 1;
	}
	__syncthreads();
	if (last && threadIdx.x == 0) {
		__threadfence();
		st[ST_BLOCKS] = 0;
		plan_level(ctl, st, n, alpha, beta, fixed_td, ring);
	}
}

// level_runs reports whether the planned level runs in the direction a
// kernel serves (bu: bottom-up, else top-down): not once the search is
// over. Every thread of a grid gets the same answer: only do_td_big's last
// block writes st, once every block of it has read it (plan_after).
__device__ __forceinline__ bool level_runs(const u64 *st, bool bu) {
	return st[ST_DONE] == 0 && ((st[ST_MODE] & MODE_BU) != 0) == bu;
}

// push appends u to the queue out (length in *tail): one atomic per group
// of lanes that push together.
__device__ __forceinline__ void push(int *out, u64 *tail, int u) {
	u32 mask = __activemask();
	int lane = threadIdx.x & 31;
	int leader = __ffs(mask) - 1;
	u64 base = 0;
	if (lane == leader) base = atomicAdd(tail, (u64)__popc(mask));
	base = __shfl_sync(mask, base, leader);
	out[base + __popc(mask & ((1u << lane) - 1u))] = u;
}

// td_claim claims u for level lvl if it is unvisited: sets its vis bit
// (the atomicOr decides who wins; the plain read first only skips visited
// vertices cheaply), its level and parent (from), and counts its arcs
// into mf. It reports whether this thread claimed u.
__device__ __forceinline__ bool td_claim(int u, int from, int lvl, const i64 *off, int *levels, int *parents, u32 *vis,
		u64 &mf) {
	u32 bit = 1u << (u & 31);
	u32 *w = vis + (u >> 5);
	if ((*w & bit) != 0) return false;
	if ((atomicOr(w, bit) & bit) != 0) return false;
	levels[u] = lvl;
	if (parents) parents[u] = from;
	mf += (u64)(__ldg(off + u + 1) - __ldg(off + u));
	return true;
}

// td_visit is td_claim, and queues u when claimed.
__device__ __forceinline__ void td_visit(int u, int from, int lvl, const i64 *off, int *levels, int *parents, u32 *vis,
		int *out, u64 *ctl, u64 &mf) {
	if (td_claim(u, from, lvl, off, levels, parents, vis, mf)) push(out, &ctl[CTL_TAIL], u);
}

// block_push appends the vertices u >= 0 of the block's threads to the
// queue out (length in *tail) with one atomic for the block: a grid
// whose threads all claim from a few hubs' arcs would otherwise queue on
// the one tail word, an atomic per warp (R-MAT scale 24: a top-down level
// over 2,600 hubs' 16 M arcs took 1.09 ms, 0.77 with it, H100). Every thread of the
// block calls it; s_q holds blockDim.x entries.
__device__ __forceinline__ void block_push(int u, int *out, u64 *tail, int *s_q, int *s_n, u64 *s_base) {
	if (threadIdx.x == 0) *s_n = 0;
	__syncthreads();
	if (u >= 0) s_q[atomicAdd(s_n, 1)] = u;
	__syncthreads();
	const int k = *s_n;
	if (threadIdx.x == 0 && k != 0) *s_base = atomicAdd(tail, (u64)k);
	__syncthreads();
	if ((int)threadIdx.x < k) out[*s_base + threadIdx.x] = s_q[threadIdx.x];
}

// The direction-optimizing kernels read the CSR, the frontier queue and
// the bitmap being expanded through the read-only path (__ldg): none of
// them is written during the kernel that reads it.

// Launch log of a traced search (Options.Trace): each step kernel takes
// ent and nxt, its entry and the next launch's in gpu.LaunchLog's ring
// (both NULL untraced), and calls llog_begin first and llog_end last
// (gpu/launchlog.cuh, prepended to this file). So the entry holds the
// kernel's span on the device, its host round trips not included,
// without events. (A count of blocks done, the last writing the end, made
// every block wait for its atomic's answer before retiring: 3–7% of a
// search, measured; llog_end's maximum is not waited for.) A launch that
// passed through logs too; the host drops it from the trace.

// td_chunk expands the frontier vertices fr[i0 .. i0 + blockDim.x) (those
// below nfr) of level depth into out, a thread a vertex: vertices of
// big_deg arcs or more go to big[] for do_td_big, the warp tier takes
// the lanes' medium vertices one after the other, each by all 32 lanes
// (coalesced reads of its arcs), the thread tier the rest. Every thread of
// the block calls it.
__device__ __forceinline__ void td_chunk(i64 i0, const int *fr, i64 nfr, i64 big_deg, const i64 *off, const int *adj,
		int *levels, int *parents, u32 *vis, int *out, int *big, u64 *ctl, int lvl, bool traced, u64 &mf) {
	i64 i = i0 + threadIdx.x;
	int lane = threadIdx.x & 31;
	i64 s = 0, deg = 0;
	int v = -1;
	if (i < nfr) {
		v = __ldg(fr + i);
		s = __ldg(off + v);
		deg = __ldg(off + v + 1) - s;
		if (deg >= big_deg) {
			big[atomicAdd(&ctl[CTL_NBIG], 1ull)] = v;
			if (traced) atomicAdd(&ctl[CTL_BIGARCS], (u64)deg);
			deg = 0;
		}
	}
	u32 wm = __ballot_sync(FULL_MASK, deg >= TD_WARP_DEG);
	while (wm != 0) {
		int from = __ffs(wm) - 1;
		wm &= wm - 1;
		i64 ws = __shfl_sync(FULL_MASK, s, from);
		i64 wd = __shfl_sync(FULL_MASK, deg, from);
		int wv = __shfl_sync(FULL_MASK, v, from);
		for (i64 k = lane; k < wd; k += 32) td_visit(__ldg(adj + ws + k), wv, lvl, off, levels, parents, vis, out, ctl, mf);
	}
	if (deg < TD_WARP_DEG) {
		for (i64 k = 0; k < deg; ++k) td_visit(__ldg(adj + s + k), v, lvl, off, levels, parents, vis, out, ctl, mf);
	}
}

// do_td expands the frontier queue (qa or qb by ST_QP, ST_NF vertices) of
// a top-down level depth into the other queue. Grid-stride over the
// frontier in chunks of a block: any grid of BFS_BLOCK-thread blocks.
extern "C" __global__ void do_td(int *qa, int *qb, const i64 *off, const int *adj, int *levels, int *parents,
		u32 *vis, int *big, u64 *ctl, const u64 *st, int depth, u64 *ent, u64 *nxt) {
	llog_begin(ent, nxt);
	if (level_runs(st, false)) {
		const bool q1 = st[ST_QP] != 0;
		const int *fr = q1 ? qb : qa;
		int *out = q1 ? qa : qb;
		const i64 nfr = (i64)st[ST_NF];
		const i64 big_deg = nfr <= TD_SMALL_FRONTIER ? TD_WARP_DEG : TD_BIG_DEG;
		u64 mf = 0;
		for (i64 i0 = (i64)blockIdx.x * blockDim.x; i0 < nfr; i0 += (i64)gridDim.x * blockDim.x) {
			td_chunk(i0, fr, nfr, big_deg, off, adj, levels, parents, vis, out, big, ctl, depth + 1, ent != 0, mf);
		}
		block_add(mf, &ctl[CTL_MF]);
	}
	llog_end(ent);
}

// do_td_big expands the high-degree frontier vertices big[0..ctl[CTL_NBIG])
// of a top-down level with the whole grid: per chunk of BFS_BLOCK
// vertices every block builds the prefix sums of their degrees in shared
// memory, then the grid strides over the chunk's arcs, each thread finding
// its vertex by binary search (chunks.cuh), and each block queues its
// round's claims at once (block_push). It is every level's last kernel:
// its last block plans the next level (plan_after).
// Blocks must have exactly BFS_BLOCK threads; any grid size works.
extern "C" __global__ void do_td_big(const int *big, int *qa, int *qb, const i64 *off, const int *adj, int *levels,
		int *parents, u32 *vis, u64 *ctl, u64 *st, int depth, i64 n, i64 alpha, i64 beta, int fixed_td, int ring,
		u64 *ent, u64 *nxt) {
	llog_begin(ent, nxt);
	__shared__ i64 pre[BFS_BLOCK + 1];
	__shared__ i64 start[BFS_BLOCK];
	__shared__ int vid[BFS_BLOCK];
	__shared__ int s_q[BFS_BLOCK];
	__shared__ int s_n;
	__shared__ u64 s_base;
	if (level_runs(st, false)) {
		int *out = st[ST_QP] != 0 ? qa : qb;
		i64 nbig = (i64)ctl[CTL_NBIG];
		int t = threadIdx.x;
		int lvl = depth + 1;
		u64 mf = 0;
		for (i64 c0 = 0; c0 < nbig; c0 += BFS_BLOCK) {
			int cnt = nbig - c0 < BFS_BLOCK ? (int)(nbig - c0) : BFS_BLOCK;
			i64 d = 0;
			if (t < cnt) {
				int v = __ldg(big + c0 + t);
				i64 s = __ldg(off + v);
				start[t] = s;
				vid[t] = v;
				d = __ldg(off + v + 1) - s;
			}
			pre[t + 1] = d;
			if (t == 0) pre[0] = 0;
			chunk_scan(pre, t, BFS_BLOCK);
			i64 total = pre[cnt];
			// Block-uniform rounds (block_push's barriers).
			for (i64 a0 = (i64)blockIdx.x * BFS_BLOCK; a0 < total; a0 += (i64)gridDim.x * BFS_BLOCK) {
				const i64 a = a0 + t;
				int won = -1;
				if (a < total) {
					const int lo = chunk_find(pre, cnt, a);
					const int u = __ldg(adj + start[lo] + (a - pre[lo]));
					if (td_claim(u, vid[lo], lvl, off, levels, parents, vis, mf)) won = u;
				}
				block_push(won, out, &ctl[CTL_TAIL], s_q, &s_n, &s_base);
			}
			__syncthreads();
		}
		block_add(mf, &ctl[CTL_MF]);
	}
	plan_after(ctl, st, n, alpha, beta, fixed_td, ring);
	llog_end(ent);
}

// do_bu is a bottom-up level: every unvisited vertex scans its arcs until
// one comes from the frontier bitmap (b0 or b1 by ST_BP), and joins level
// depth+1 with that vertex (the first in its arc order) as its parent. A
// warp owns one 32-vertex word: it writes the word of the other bitmap
// (every word, so it needs no clearing) and ORs its finds into vis
// without atomics. Words whose vertices are all visited are skipped at
// the cost of one load. Grid-stride over words: any grid of
// BFS_BLOCK-thread blocks. (A lane scanning one arc of each of its
// vertices in 2, 4 or 8 words per round, to overlap their chains of
// loads, made a search 7–36% slower at R-MAT scale 24 on an H100 than
// this loop, whose arc loads the compiler runs ahead.)
extern "C" __global__ void do_bu(const i64 *off, const int *adj, int *levels, int *parents, u32 *vis, u32 *b0,
		u32 *b1, i64 n, i64 words, u64 *ctl, const u64 *st, int depth, u64 *ent, u64 *nxt) {
	llog_begin(ent, nxt);
	if (level_runs(st, true)) {
		const bool f1 = st[ST_BP] != 0;
		const u32 *front = f1 ? b1 : b0;
		u32 *next = f1 ? b0 : b1;
		int lane = threadIdx.x & 31;
		i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
		i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
		int lvl = depth + 1;
		u64 nf = 0, mf = 0, rd = 0;
		for (i64 w = warp; w < words; w += warps) {
			u32 vw = vis[w];
			if (vw == FULL_MASK) {
				if (lane == 0) next[w] = 0;
				continue;
			}
			i64 v = w * 32 + lane;
			bool found = false;
			if (v < n && ((vw >> lane) & 1u) == 0) {
				i64 s = __ldg(off + v), e = __ldg(off + v + 1);
				int from = -1;
				i64 k = s;
				for (; k < e; ++k) {
					int u = __ldg(adj + k);
					if ((__ldg(front + (u >> 5)) >> (u & 31)) & 1u) {
						found = true;
						from = u;
						break;
					}
				}
				rd += (u64)((found ? k + 1 : e) - s);
				if (found) {
					levels[v] = lvl;
					if (parents) parents[v] = from;
					mf += (u64)(e - s);
				}
			}
			u32 fm = __ballot_sync(FULL_MASK, found);
			if (lane == 0) {
				next[w] = fm;
				if (fm != 0) vis[w] = vw | fm;
				nf += (u64)__popc(fm);
			}
		}
		block_add(nf, &ctl[CTL_TAIL]);
		block_add(mf, &ctl[CTL_MF]);
		block_add(rd, &ctl[CTL_READ]);
	}
	llog_end(ent);
}

// do_convert changes the frontier's form on a level that switches
// direction: turning bottom-up (MODE_DOWN) it sets the bits of the
// queue's vertices in the frontier bitmap (zero before: the invariant
// above); turning top-down (MODE_UP) it writes the frontier bitmap's
// vertices to the frontier queue, in no particular order
// (ctl[CTL_QTAIL] ends as their number), and zeroes the other bitmap.
// Grid-stride in chunks of a block: any grid of BFS_BLOCK-thread blocks.
extern "C" __global__ void do_convert(int *qa, int *qb, u32 *b0, u32 *b1, i64 words, u64 *ctl, const u64 *st,
		int depth, u64 *ent, u64 *nxt) {
	llog_begin(ent, nxt);
	const u64 mode = st[ST_DONE] == 0 ? st[ST_MODE] : 0;
	const bool f1 = st[ST_BP] != 0;
	u32 *front = f1 ? b1 : b0;
	int *q = st[ST_QP] != 0 ? qb : qa;
	const i64 stride = (i64)gridDim.x * blockDim.x;
	if (mode & MODE_DOWN) {
		const i64 nq = (i64)st[ST_NF];
		for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < nq; i += stride) {
			int v = q[i];
			atomicOr(&front[v >> 5], 1u << (v & 31));
		}
	} else if (mode & MODE_UP) {
		u32 *other = f1 ? b0 : b1;
		int lane = threadIdx.x & 31;
		for (i64 w0 = (i64)blockIdx.x * blockDim.x; w0 < words; w0 += stride) {
			i64 w = w0 + threadIdx.x;
			u32 x = w < words ? front[w] : 0;
			if (w < words) other[w] = 0;
			int c = __popc(x);
			int incl = c;
			for (int o = 1; o < 32; o <<= 1) {
				int y = __shfl_up_sync(FULL_MASK, incl, o);
				if (lane >= o) incl += y;
			}
			int total = __shfl_sync(FULL_MASK, incl, 31);
			u64 base = 0;
			if (lane == 31 && total != 0) base = atomicAdd(&ctl[CTL_QTAIL], (u64)total);
			base = __shfl_sync(FULL_MASK, base, 31);
			u64 p = base + (u64)(incl - c);
			while (x != 0) {
				int b = __ffs(x) - 1;
				x &= x - 1;
				q[p++] = (int)(w * 32 + b);
			}
		}
	}
	llog_end(ent);
}
