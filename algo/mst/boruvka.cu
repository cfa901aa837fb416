// GPU kernels of package mst: the Borůvka rounds of the MST study (Kolganov
// 2016, docs/studies.md §3), compiled at run time by NVRTC for the device's own
// architecture. No #include: every type is declared here and only NVRTC's
// built-in device functions are used. Every kernel is extern "C" so the Go
// side (gpu.go) finds it by name; a CI test checks that each name gpu.go
// launches is declared below.
//
// Data (prepared on the host by gpu.go, never moved on the device):
//
//   off[v], off[v+1]  the CSR segment of vertex v (the study's high index is
//                     off[v+1]); its arcs are sorted by (weight, edge index),
//                     so the first arc of a segment that leaves v's tree is
//                     v's lightest outgoing edge.
//   cur[v]            the study's low index, relative to off[v]: the arcs
//                     before it lead into v's own tree, and stay there
//                     because trees only grow, so it only moves forward.
//   ids               the neighbour ids: plain int (PlainIds) or the study's
//                     compressed encoding (PackedIds: base[v] + 256·hi + lo,
//                     one byte lo and two bits hi per arc).
//   w, eidx           per arc, the weight key (by wkind: nothing, uint32
//                     rank, float or double) and the index of its undirected
//                     edge in the original graph (edges numbered by (smaller
//                     end, larger end)), below 2^32 - 1.
//   comp[v]           the tree of every vertex, 0..P-1.
//
// A candidate (an arc that leaves its tree) has a 64-bit key. For weights
// of at most 32 bits (ranks, float, none) the key is packed: the weight's
// order-preserving bits above, the edge index below, so one atomicMin on a
// tree's best key picks the minimum under the strict order (weight, smaller
// end, larger end) that the CPU uses; equal weights are broken by the edge
// index, so no cycle can form and the forest is unique. Double weights do
// not fit: their key is the weight's ordered bits alone, and a second pass
// (mst_min_edge) takes the smallest edge index among a tree's lightest
// candidates ("split" keys).
//
// One round (launched by gpu.go, one kernel each, on P trees):
//   mst_reset      best[c] = none, F[c] = c, counters cleared
//   mst_probe_*    find-minimum step 1, one thread per vertex: up to
//                  probe_len arcs from the low index; the vertices that need
//                  more are handed to mst_scan_* through a list
//   mst_scan_*     step 1 for the long segments, one warp per vertex, 32
//                  arcs at a time combined with a ballot (the study's warp
//                  scan)
//   mst_merge_host step 2 for the candidates the host computed (hybrid and
//                  beyond-memory vertices)
//   step 2 itself  (per-tree minimum) is the atomicMin in the three above
//   mst_min_edge   split keys only: smallest edge among the lightest
//   mst_hook       the vertex holding its tree's minimum sets F[tree]
//   mst_cycles     F[F[c]] == c: the smaller id points to itself
//   mst_jump       records the edges of the non-roots (a bitmap over edge
//                  indices), then pointer jumping to the roots
//   mst_renumber   roots get new ids 0..P'-1 (warp-aggregated atomics): the
//                  old→new table
//   mst_relabel    comp[v] = new[F[comp[v]]]
// The host reads the new tree count after each round and stops when one
// tree remains or a round merged none (a spanning forest).

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned char u8;

#define FULL_MASK 0xffffffffu
#define NO_KEY 0xffffffffffffffffULL
#define NO_EDGE 0xffffffffu

// Weight kinds (wkind); gpu.go passes the same numbers.
#define W_NONE 0
#define W_RANK 1
#define W_F32 2
#define W_F64 3

// Counter words (counters[]); gpu.go reads the whole array after each
// round: CNT_TREES and CNT_BAD always, and in a traced run
// (Options.Trace, the traced build) the four 64-bit trace counts from
// int word CNT_TRACE on (8-byte aligned), which the find-minimum kernels
// add to through their `traced` argument: the arcs and the candidates of
// the probe (TR_PROBE_ARCS, TR_PROBE_CANDS) and of the warp scan
// (TR_SCAN_ARCS, TR_SCAN_CANDS), each spread over TR_SLOTS 64-bit slots
// (count c, slot s at traced[c * TR_SLOTS + s]; block b adds to slot
// b % TR_SLOTS), which the host sums: one word per count made every
// block of a wide grid add to the same two addresses, and a build
// without the adds ran traced 1% faster at scale 20 (H100). The traced
// build's mst_reset clears all CNT_WORDS words, the untraced build's the
// CNT_TRACE words before the counts (an untraced run reads no count).
#define CNT_TREES 0
#define CNT_LONG 1
#define CNT_BAD 2
#define CNT_TRACE 4
#define TR_SLOTS 16
#define CNT_WORDS 132 // CNT_TRACE + 2 words x 4 counts x TR_SLOTS
#define TR_PROBE_ARCS 0
#define TR_PROBE_CANDS 1
#define TR_SCAN_ARCS 2
#define TR_SCAN_CANDS 3

// ---- the two builds ----
//
// gpu.go compiles this file twice. The untraced build (no MST_TRACED,
// no gpu/launchlog.cuh before it) is what every untraced run launches:
// no trace code at all, so a reference to the launch log (llog_*) or to
// traced_add outside an #ifdef MST_TRACED fails to compile there (and
// TestUntracedBuild checks the preprocessed text). The traced build
// (-DMST_TRACED=1, launchlog.cuh prepended: gpu.PrependLaunchLog) is
// compiled on a Prepared's first traced run: every kernel stamps its own
// span in the launch log (MST_LOG_BEGIN, MST_LOG_END; kernels whose threads
// return early keep their work in a *_body function so that MST_LOG_END
// still runs), and the find-minimum kernels count their arcs and
// candidates (traced_add). Both builds declare the same kernels with the
// same parameters (ent, nxt: the launch's log entries, last; traced: the
// trace counts), so one Go launch path serves both.
//
// Why two builds: with the log compiled into every kernel (its NULL
// checks, the body functions, the registers they hold), untraced SSCA#2
// at scale 20 ran 1.45 ms against 1.20 ms without it (21% slower, H100);
// with CUDA events instead of the log (a chained gpu.LaunchTimer), the
// events' host time a launch cost a traced R-MAT scale-20 run 5-7%.

// MST_LOG_BEGIN starts the launch's log entry in the traced build:
// the first statement of every kernel, run by every thread. MST_LOG_END
// ends it: the last, run by every thread of every block (it synchronises
// the block). The untraced build has neither.
#ifdef MST_TRACED
#define MST_LOG_BEGIN(ent, nxt) llog_begin(ent, nxt)
#define MST_LOG_END(ent) llog_end(ent)
#else
#define MST_LOG_BEGIN(ent, nxt)
#define MST_LOG_END(ent)
#endif

// ---- helpers ----

__device__ __forceinline__ i64 global_id() { return (i64)blockIdx.x * blockDim.x + threadIdx.x; }

__device__ __forceinline__ int lane_id() { return (int)(threadIdx.x & 31); }

// ordered_f32 maps a float to bits whose unsigned order is the numeric
// order, −0 and +0 to the same bits (NaN never occurs: the host refuses it).
__device__ __forceinline__ u32 ordered_f32(float w) {
	const u32 b = (w == 0.0f) ? 0u : __float_as_uint(w);
	return (b >> 31) ? ~b : (b | 0x80000000u);
}

// ordered_f64 is ordered_f32 for doubles.
__device__ __forceinline__ u64 ordered_f64(double w) {
	const u64 b = (w == 0.0) ? 0ULL : (u64)__double_as_longlong(w);
	return (b >> 63) ? ~b : (b | 0x8000000000000000ULL);
}

// arc_key returns the candidate key of arc k and stores its edge index in
// *edge: packed (weight bits << 32 | edge) unless wkind is W_F64, whose key
// is the double's ordered bits alone.
__device__ __forceinline__ u64 arc_key(int wkind, const void *w, const u32 *eidx, i64 k, u32 *edge) {
	const u32 e = eidx[k];
	*edge = e;
	switch (wkind) {
	case W_RANK:
		return ((u64)((const u32 *)w)[k] << 32) | e;
	case W_F32:
		return ((u64)ordered_f32(((const float *)w)[k]) << 32) | e;
	case W_F64:
		return ordered_f64(((const double *)w)[k]);
	default:
		return (u64)e;
	}
}

// read_key reads a key that other threads lower with atomicMin (volatile:
// from L2, so the filter in tree_min sees recent values; a stale value is
// only larger, which costs an atomic, never a wrong result).
__device__ __forceinline__ u64 read_key(const u64 *p) { return *(const volatile u64 *)p; }

// tree_min lowers best[c] to key (NO_KEY: nothing to offer). When the
// whole warp offers to one tree (common once trees are large) the warp
// reduces first and makes one atomic; otherwise each lane makes its own,
// skipped when the tree already holds a smaller key. Every lane of the
// warp must call it; lanes without a vertex pass c = -1, key = NO_KEY.
__device__ __forceinline__ void tree_min(u64 *best, int c, u64 key) {
	const int c0 = __shfl_sync(FULL_MASK, c, 0);
	const unsigned same = __ballot_sync(FULL_MASK, c == c0);
	if (same == FULL_MASK) {
		u64 m = key;
		for (int o = 16; o > 0; o >>= 1) {
			const u64 x = __shfl_xor_sync(FULL_MASK, m, o);
			m = x < m ? x : m;
		}
		if (lane_id() == 0 && m != NO_KEY && m < read_key(best + c0)) {
			atomicMin(best + c0, m);
		}
	} else if (key != NO_KEY && key < read_key(best + c)) {
		atomicMin(best + c, key);
	}
}

// warp_claim gives each lane with pred set its own slot of a shared
// counter (one atomicAdd per warp) and returns it, -1 for the others.
// Every lane of the warp must call it.
__device__ __forceinline__ int warp_claim(int *count, int pred) {
	const unsigned m = __ballot_sync(FULL_MASK, pred);
	if (m == 0) {
		return -1;
	}
	const int lane = lane_id();
	const int leader = __ffs((int)m) - 1;
	int base = 0;
	if (lane == leader) {
		base = atomicAdd(count, __popc(m));
	}
	base = __shfl_sync(FULL_MASK, base, leader);
	return pred ? base + __popc(m & ((1u << lane) - 1u)) : -1;
}

// ---- neighbour ids ----

// PlainIds reads 4-byte neighbour ids.
struct PlainIds {
	const int *adj;
	__device__ __forceinline__ void start(int) {}
	__device__ __forceinline__ int at(i64 k) const { return adj[k]; }
};

// PackedIds reads the study's compressed ids (graph.CompressedAdj): arc k
// of vertex v points to base[v] + 256·hi + lo[k], hi being the two bits of
// hi[k/4] at 2·(k%4).
struct PackedIds {
	const u32 *base;
	const u8 *lo;
	const u8 *hi;
	u32 b;
	__device__ __forceinline__ void start(int v) { b = base[v]; }
	__device__ __forceinline__ int at(i64 k) const {
		const u32 h = ((u32)hi[k >> 2] >> (2u * (u32)(k & 3))) & 3u;
		return (int)(b + (h << 8) + (u32)lo[k]);
	}
};

// ---- find-minimum, step 1 ----

#ifdef MST_TRACED
// traced_add adds a and b, each summed over the block, to counts ia and
// ib, in the block's slot: one atomic each per block (one per warp, on
// the same two words, cost a traced run a quarter of its time). Every
// thread of the block must call it (it synchronises the block).
__device__ __forceinline__ void traced_add(u64 *traced, int ia, u64 a, int ib, u64 b) {
	__shared__ u64 sa[32], sb[32];
	for (int o = 16; o > 0; o >>= 1) {
		a += __shfl_xor_sync(FULL_MASK, a, o);
		b += __shfl_xor_sync(FULL_MASK, b, o);
	}
	const int w = threadIdx.x >> 5;
	if (lane_id() == 0) {
		sa[w] = a;
		sb[w] = b;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		u64 ta = 0, tb = 0;
		for (int i = 0; i < (int)((blockDim.x + 31) >> 5); i++) {
			ta += sa[i];
			tb += sb[i];
		}
		const int slot = (int)(blockIdx.x % TR_SLOTS);
		if (ta != 0) {
			atomicAdd(traced + ia * TR_SLOTS + slot, ta);
		}
		if (tb != 0) {
			atomicAdd(traced + ib * TR_SLOTS + slot, tb);
		}
	}
}
#endif

// probe is one thread of mst_probe_*: vertex v (< ng, the vertices whose
// segments live on the device) looks at up to probe_len arcs from its low
// index. The first that leaves its tree is its candidate: the key goes to
// candK[v] (and the edge to candE[v] for split keys), the neighbour's tree
// to candTo[v], and the key to best[tree] (step 2). A vertex with no arc
// left offers nothing; one that used up probe_len arcs inside its tree is
// appended to the long list for mst_scan_*. The low index advances past
// the arcs found inside the tree.
//
// traced, when not null (a traced run, Options.Trace), gets the arcs
// the step read (those passed inside the tree and the candidate) in
// count TR_PROBE_ARCS and the candidates found in
// count TR_PROBE_CANDS, one atomic each per block (traced_add).
template <typename Ids>
__device__ __forceinline__ void probe(Ids ids, const i64 *off, const int *comp, u32 *cur, int wkind, const void *w,
                                      const u32 *eidx, u64 *candK, u32 *candE, int *candTo, u64 *best,
                                      int *longList, int *counters, u64 *traced, int ng, int probe_len) {
	const i64 gv = global_id();
	const int v = (int)gv;
	int c = -1;
	u64 key = NO_KEY;
	int push = 0;
#ifdef MST_TRACED
	u64 read = 0;
	u64 cands = 0;
#endif
	if (gv < ng) {
		c = comp[v];
		const i64 a = off[v];
		const i64 e = off[v + 1];
		const u32 k0 = cur[v];
		i64 k = a + k0;
		int found = 0;
		int to = 0;
		if (k < e) {
			ids.start(v);
			for (int s = 0; s < probe_len && k < e; s++, k++) {
				const int t = comp[ids.at(k)];
				if (t != c) {
					found = 1;
					to = t;
					break;
				}
			}
		}
		if (found) {
			u32 edge;
			key = arc_key(wkind, w, eidx, k, &edge);
			candK[v] = key;
			if (candE != 0) {
				candE[v] = edge;
			}
			candTo[v] = to;
		} else {
			candK[v] = NO_KEY;
			push = k < e;
		}
		if ((u32)(k - a) != k0) {
			cur[v] = (u32)(k - a);
		}
#ifdef MST_TRACED
		read = (u64)(k - (a + k0)) + (u64)found;
		cands = (u64)found;
#endif
	}
	tree_min(best, c, key);
	const int slot = warp_claim(counters + CNT_LONG, push);
	if (slot >= 0) {
		longList[slot] = v;
	}
#ifdef MST_TRACED
	if (traced) { // the same for every thread of the grid
		traced_add(traced, TR_PROBE_ARCS, read, TR_PROBE_CANDS, cands);
	}
#endif
}

// scan is mst_scan_*: a grid-stride loop of warps over the long list, one
// warp per vertex, 32 arcs at a time: lane i tests arc low+i, a ballot
// finds the first that leaves the tree. The warp's values (v, c, the
// segment, the low index) are uniform, so every lane takes the same path.
// traced, when not null (a traced run), gets the arcs read and the
// candidates found in counts TR_SCAN_ARCS and TR_SCAN_CANDS, one
// atomic each per block after the loop (traced_add).
template <typename Ids>
__device__ __forceinline__ void scan(Ids ids, const i64 *off, const int *comp, u32 *cur, int wkind, const void *w,
                                     const u32 *eidx, u64 *candK, u32 *candE, int *candTo, u64 *best,
                                     const int *longList, const int *counters, u64 *traced) {
	const int lane = lane_id();
	const i64 warp = global_id() >> 5;
	const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
	const int count = counters[CNT_LONG];
#ifdef MST_TRACED
	u64 read = 0, cands = 0; // lane 0's, for traced
#endif
	for (i64 i = warp; i < count; i += warps) {
		const int v = longList[i];
		const int c = comp[v];
		const i64 a = off[v];
		const i64 e = off[v + 1];
		i64 k = a + cur[v];
#ifdef MST_TRACED
		const i64 k0 = k;
#endif
		ids.start(v);
		int found = 0;
		int to = 0;
		while (k < e) {
			const i64 kk = k + lane;
			int t = c;
			if (kk < e) {
				t = comp[ids.at(kk)];
			}
			const unsigned m = __ballot_sync(FULL_MASK, t != c);
			if (m != 0) {
				const int f = __ffs((int)m) - 1;
				k += f;
				to = __shfl_sync(FULL_MASK, t, f);
				found = 1;
				break;
			}
			k += 32;
		}
		if (k > e) {
			k = e;
		}
		if (lane == 0) {
			cur[v] = (u32)(k - a);
#ifdef MST_TRACED
			read += (u64)(k - k0) + (u64)found;
			cands += (u64)found;
#endif
			if (found) {
				u32 edge;
				const u64 key = arc_key(wkind, w, eidx, k, &edge);
				candK[v] = key;
				if (candE != 0) {
					candE[v] = edge;
				}
				candTo[v] = to;
				if (key < read_key(best + c)) {
					atomicMin(best + c, key);
				}
			} else {
				candK[v] = NO_KEY;
			}
		}
	}
#ifdef MST_TRACED
	if (traced) { // the same for every thread of the grid
		traced_add(traced, TR_SCAN_ARCS, read, TR_SCAN_CANDS, cands);
	}
#endif
}

extern "C" __global__ void mst_probe_plain(const i64 *off, const int *adj, const int *comp, u32 *cur, int wkind,
                                           const void *w, const u32 *eidx, u64 *candK, u32 *candE, int *candTo,
                                           u64 *best, int *longList, int *counters, u64 *traced, int ng,
                                           int probe_len, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	PlainIds ids;
	ids.adj = adj;
	probe<PlainIds>(ids, off, comp, cur, wkind, w, eidx, candK, candE, candTo, best, longList, counters, traced, ng,
	                probe_len);
	MST_LOG_END(ent);
}

extern "C" __global__ void mst_probe_comp(const i64 *off, const u32 *base, const u8 *lo, const u8 *hi,
                                          const int *comp, u32 *cur, int wkind, const void *w, const u32 *eidx,
                                          u64 *candK, u32 *candE, int *candTo, u64 *best, int *longList,
                                          int *counters, u64 *traced, int ng, int probe_len, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	PackedIds ids;
	ids.base = base;
	ids.lo = lo;
	ids.hi = hi;
	ids.b = 0;
	probe<PackedIds>(ids, off, comp, cur, wkind, w, eidx, candK, candE, candTo, best, longList, counters, traced, ng,
	                 probe_len);
	MST_LOG_END(ent);
}

extern "C" __global__ void mst_scan_plain(const i64 *off, const int *adj, const int *comp, u32 *cur, int wkind,
                                          const void *w, const u32 *eidx, u64 *candK, u32 *candE, int *candTo,
                                          u64 *best, const int *longList, const int *counters, u64 *traced, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	PlainIds ids;
	ids.adj = adj;
	scan<PlainIds>(ids, off, comp, cur, wkind, w, eidx, candK, candE, candTo, best, longList, counters, traced);
	MST_LOG_END(ent);
}

extern "C" __global__ void mst_scan_comp(const i64 *off, const u32 *base, const u8 *lo, const u8 *hi,
                                         const int *comp, u32 *cur, int wkind, const void *w, const u32 *eidx,
                                         u64 *candK, u32 *candE, int *candTo, u64 *best, const int *longList,
                                         const int *counters, u64 *traced, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	PackedIds ids;
	ids.base = base;
	ids.lo = lo;
	ids.hi = hi;
	ids.b = 0;
	scan<PackedIds>(ids, off, comp, cur, wkind, w, eidx, candK, candE, candTo, best, longList, counters, traced);
	MST_LOG_END(ent);
}

// ---- set-up and the tree steps ----

// mst_init makes every vertex its own tree and rewinds the low indices of
// the device's vertices. With a host share, tail (NULL otherwise) mirrors
// comp[lo..n), the labels the host reads each round (its vertices and
// their neighbours), so that only those are copied.
extern "C" __global__ void mst_init(int *comp, u32 *cur, int *tail, int n, int ng, int lo, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	const i64 v = global_id();
	if (v < n) {
		comp[v] = (int)v;
		if (tail != 0 && v >= lo) {
			tail[v - lo] = (int)v;
		}
	}
	if (v < ng) {
		cur[v] = 0;
	}
	MST_LOG_END(ent);
}

// mst_reset starts a round on p trees: no key yet, every tree its own
// parent, the round's counters (and trace counts) cleared.
extern "C" __global__ void mst_reset(u64 *best, u32 *bestE, int *F, int *counters, int p, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	const i64 c = global_id();
#ifdef MST_TRACED
	if (c < CNT_WORDS) { // the grid has at least one block, more threads than words
		counters[c] = 0;
	}
#else
	if (c < CNT_TRACE) { // the words an untraced run reads
		counters[c] = 0;
	}
#endif
	if (c < p) {
		best[c] = NO_KEY;
		if (bestE != 0) {
			bestE[c] = NO_EDGE;
		}
		F[c] = (int)c;
	}
	MST_LOG_END(ent);
}

// mst_merge_host offers the h candidates the host computed, for vertices
// host_from .. host_from+h-1, to their trees (step 2).
extern "C" __global__ void mst_merge_host(const u64 *hK, const int *comp, u64 *best, int host_from, int h, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	const i64 i = global_id();
	int c = -1;
	u64 key = NO_KEY;
	if (i < h) {
		key = hK[i];
		c = comp[host_from + (int)i];
	}
	tree_min(best, c, key);
	MST_LOG_END(ent);
}

// candidate reads vertex v's candidate: from the device's arrays for v <
// ng, from the host's (index v - ng) otherwise. cE and hE are NULL for
// packed keys (the edge is then not read).
__device__ __forceinline__ u64 candidate(int v, int ng, const u64 *candK, const u32 *candE, const int *candTo,
                                         const u64 *hK, const u32 *hE, const int *hTo, u32 *edge, int *to) {
	if (v < ng) {
		const u64 k = candK[v];
		if (k != NO_KEY) {
			*to = candTo[v];
			*edge = candE != 0 ? candE[v] : NO_EDGE;
		}
		return k;
	}
	const int i = v - ng;
	const u64 k = hK[i];
	if (k != NO_KEY) {
		*to = hTo[i];
		*edge = hE != 0 ? hE[i] : NO_EDGE;
	}
	return k;
}

// mst_min_edge (split keys only): among the candidates whose weight is
// their tree's lightest, the smallest edge index goes to bestE.
// mst_min_edge_body is mst_min_edge's work; its threads may return early, and the kernel
// logs its span around it.
__device__ __forceinline__ void mst_min_edge_body(const u64 *candK, const u32 *candE, const int *candTo, const u64 *hK,
                                        const u32 *hE, const int *hTo, const int *comp, const u64 *best,
                                        u32 *bestE, int ng, int n) {
	const i64 v = global_id();
	if (v >= n) {
		return;
	}
	u32 e = NO_EDGE;
	int to = 0;
	const u64 k = candidate((int)v, ng, candK, candE, candTo, hK, hE, hTo, &e, &to);
	if (k == NO_KEY) {
		return;
	}
	const int c = comp[v];
	if (k == best[c] && e < *(const volatile u32 *)(bestE + c)) {
		atomicMin(bestE + c, e);
	}
}

extern "C" __global__ void mst_min_edge(const u64 *candK, const u32 *candE, const int *candTo, const u64 *hK,
                                        const u32 *hE, const int *hTo, const int *comp, const u64 *best,
                                        u32 *bestE, int ng, int n, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	mst_min_edge_body(candK, candE, candTo, hK, hE, hTo, comp, best, bestE, ng, n);
	MST_LOG_END(ent);
}

// mst_hook: the one vertex whose candidate is its tree's minimum (edge
// indices are unique, and only one end of an edge lies in the tree) hooks
// the tree to the tree across that edge. Trees without a candidate keep
// F[c] = c. bestE is NULL for packed keys.
// mst_hook_body is mst_hook's work; its threads may return early, and the kernel
// logs its span around it.
__device__ __forceinline__ void mst_hook_body(const u64 *candK, const u32 *candE, const int *candTo, const u64 *hK,
                                    const u32 *hE, const int *hTo, const int *comp, const u64 *best,
                                    const u32 *bestE, int *F, int ng, int n) {
	const i64 v = global_id();
	if (v >= n) {
		return;
	}
	u32 e = NO_EDGE;
	int to = 0;
	const u64 k = candidate((int)v, ng, candK, candE, candTo, hK, hE, hTo, &e, &to);
	if (k == NO_KEY) {
		return;
	}
	const int c = comp[v];
	if (k != best[c]) {
		return;
	}
	if (bestE != 0 && e != bestE[c]) {
		return;
	}
	F[c] = to;
}

extern "C" __global__ void mst_hook(const u64 *candK, const u32 *candE, const int *candTo, const u64 *hK,
                                    const u32 *hE, const int *hTo, const int *comp, const u64 *best,
                                    const u32 *bestE, int *F, int ng, int n, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	mst_hook_body(candK, candE, candTo, hK, hE, hTo, comp, best, bestE, F, ng, n);
	MST_LOG_END(ent);
}

// mst_cycles removes the 2-cycles of the hooks (two trees that chose each
// other, hence the same edge): the smaller id becomes a root. Only the
// smaller of a pair writes, and only itself, so the result does not
// depend on timing. Longer cycles cannot form under a strict order.
// mst_cycles_body is mst_cycles's work; its threads may return early, and the kernel
// logs its span around it.
__device__ __forceinline__ void mst_cycles_body(int *F, int p) {
	const i64 c = global_id();
	if (c >= p) {
		return;
	}
	const int t = F[c];
	if (t != (int)c && (int)c < t && F[t] == (int)c) {
		F[c] = (int)c;
	}
}

extern "C" __global__ void mst_cycles(int *F, int p, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	mst_cycles_body(F, p);
	MST_LOG_END(ent);
}

// mst_jump: every non-root tree adds its chosen edge to the forest (bit
// e of inForest), then follows its parents to the root, writing each
// ancestor it reaches into F[c] so that trees behind it jump further
// (pointer jumping; every value F ever holds is an ancestor, and roots
// never change, so the races only speed it up). bestE is NULL for packed
// keys, whose low half is the edge. A walk longer than p steps can only
// mean a cycle in the hooks, a bug: it stops and sets counters[CNT_BAD]
// for the host to report, rather than hang the GPU.
// mst_jump_body is mst_jump's work; its threads may return early, and the kernel
// logs its span around it.
__device__ __forceinline__ void mst_jump_body(int *F, const u64 *best, const u32 *bestE, u32 *inForest, int *counters, int p) {
	const i64 c = global_id();
	if (c >= p) {
		return;
	}
	int r = F[c];
	if (r == (int)c) {
		return;
	}
	const u32 e = bestE != 0 ? bestE[c] : (u32)(best[c] & 0xffffffffULL);
	atomicOr(inForest + (e >> 5), 1u << (e & 31u));
	volatile int *vf = F;
	for (int steps = 0;; steps++) {
		const int nr = vf[r];
		if (nr == r) {
			break;
		}
		if (steps > p) {
			counters[CNT_BAD] = 1;
			break;
		}
		vf[c] = nr;
		r = nr;
	}
}

extern "C" __global__ void mst_jump(int *F, const u64 *best, const u32 *bestE, u32 *inForest, int *counters, int p, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	mst_jump_body(F, best, bestE, inForest, counters, p);
	MST_LOG_END(ent);
}

// mst_renumber gives the roots new ids 0..P'-1 (the old→new table) and
// counts them in counters[CNT_TREES].
extern "C" __global__ void mst_renumber(const int *F, int *newID, int *counters, int p, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	const i64 c = global_id();
	const int root = c < p && F[c] == (int)c;
	const int id = warp_claim(counters + CNT_TREES, root);
	if (id >= 0) {
		newID[c] = id;
	}
	MST_LOG_END(ent);
}

// mst_relabel moves every vertex to its tree's new id (and updates the
// host's copy source tail, as mst_init).
extern "C" __global__ void mst_relabel(int *comp, const int *F, const int *newID, int *tail, int n, int lo, u64 *ent, u64 *nxt) {
	MST_LOG_BEGIN(ent, nxt);
	const i64 v = global_id();
	if (v < n) {
		const int x = newID[F[comp[v]]];
		comp[v] = x;
		if (tail != 0 && v >= lo) {
			tail[v - lo] = x;
		}
	}
	MST_LOG_END(ent);
}
