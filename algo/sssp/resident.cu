// resident.cu: the device work around a search that keeps results and
// preparation on the device (resident.go): the weight statistics and the
// light-first arc split of PrepareResident, and, after each run, the
// parents from the distances, the float32 → float64 widening and the
// reached count. It shares no code with sssp.cu (the searches) or check.cu
// (the check) but csr.cuh's row search (algo/internal/devcsr, compiled
// before this file). The Go side compiles it with --fmad=false.
//
// Distances are double or float (+Inf: unreached), parents int (-1: none);
// weights float or double, or NULL for unit weights; every kernel but the
// one-thread ones is grid-stride over blocks of RS_BLOCK threads.

typedef unsigned long long u64;

#define RS_BLOCK 256
#define RS_FULL 0xffffffffu
#define RS_ORPHAN 0x7fffffff // a reached vertex without a parent yet
#define RS_BIG 1024          // vertices of more arcs are split by a whole block

// Control words (resident.go declares the same).
#define RS_REACHED 0 // vertices with a finite distance
#define RS_DEGREES 1 // arcs leaving them
#define RS_ADOPTED 2 // orphans given a parent by the last commit
#define RS_LEFT 3    // orphans left after it
#define RS_LOWEST 4  // the lowest of them (~0 when none)
#define RS_SLOTS 5   // near slots of the source (sssprs_slots)
#define RS_BIGS 6    // vertices left to sssprs_split_big
#define RS_WORDS 8

static __device__ __forceinline__ i64 rs_tid() { return (i64)blockIdx.x * blockDim.x + threadIdx.x; }
static __device__ __forceinline__ i64 rs_threads() { return (i64)gridDim.x * blockDim.x; }

static __device__ __forceinline__ u64 rs_warp_sum(u64 x) {
	for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(RS_FULL, x, o);
	return x;
}

// ---- weight statistics (result.go's scan, chunk by chunk) ----

// rs_wstep adds weight x, at index k, to a chunk's statistics.
static __device__ __forceinline__ void rs_wstep(double x, i64 k, i64 *ng, double *x_max, double *s, i64 *cnt) {
	if (!(x >= 0) && *ng < 0) *ng = k;
	if (x <= 1.7976931348623157e308 && x >= -1.7976931348623157e308) {
		*x_max = x > *x_max ? x : *x_max;
		*s += x;
		(*cnt)++;
	}
}

#define RS_WTILE 16 // weights loaded before they are added (loads in flight per thread)

// sssprs_wstats_* computes, for each chunk of `chunk` weights (one thread,
// in order, as the host's scan), the first negative or NaN index (-1 if
// none), the largest finite weight (from 0), the sum and count of the
// finite ones. The loads of a tile are issued together; the additions
// keep the host's order.
template <typename W>
static __device__ __forceinline__ void rs_wstats(const W *ws, i64 m, i64 chunk, i64 *neg, double *mx, double *sum,
                                                 i64 *count) {
	i64 chunks = (m + chunk - 1) / chunk;
	for (i64 c = rs_tid(); c < chunks; c += rs_threads()) {
		i64 lo = c * chunk, hi = lo + chunk < m ? lo + chunk : m, ng = -1, cnt = 0, k = lo;
		double x_max = 0, s = 0;
		for (; k + RS_WTILE <= hi; k += RS_WTILE) {
			double x[RS_WTILE];
#pragma unroll
			for (int j = 0; j < RS_WTILE; j++) x[j] = (double)ws[k + j];
#pragma unroll
			for (int j = 0; j < RS_WTILE; j++) rs_wstep(x[j], k + j, &ng, &x_max, &s, &cnt);
		}
		for (; k < hi; k++) rs_wstep((double)ws[k], k, &ng, &x_max, &s, &cnt);
		neg[c] = ng;
		mx[c] = x_max;
		sum[c] = s;
		count[c] = cnt;
	}
}

extern "C" __global__ void sssprs_wstats_w32(const float *ws, i64 m, i64 chunk, i64 *neg, double *mx, double *sum,
                                             i64 *count) {
	rs_wstats<float>(ws, m, chunk, neg, mx, sum, count);
}

extern "C" __global__ void sssprs_wstats_w64(const double *ws, i64 m, i64 chunk, i64 *neg, double *mx, double *sum,
                                             i64 *count) {
	rs_wstats<double>(ws, m, chunk, neg, mx, sum, count);
}

// sssprs_wstats_total (one warp) folds the chunks in order into out =
// {first negative index, bits of the largest finite weight, bits of the
// sum, count}: the lanes load 32 chunks' words at a time (coalesced) and
// every lane folds them in order, each broadcast from the lane that
// loaded it.
extern "C" __global__ void sssprs_wstats_total(const i64 *neg, const double *mx, const double *sum, const i64 *count,
                                               i64 chunks, i64 *out) {
	if (blockIdx.x != 0 || threadIdx.x >= 32) return;
	int lane = threadIdx.x;
	i64 ng = -1, cnt = 0;
	double x_max = 0, s = 0;
	for (i64 base = 0; base < chunks; base += 32) {
		i64 c = base + lane;
		bool in = c < chunks;
		i64 my_ng = in ? neg[c] : -1, my_cnt = in ? count[c] : 0;
		double my_mx = in ? mx[c] : 0, my_sum = in ? sum[c] : 0;
		for (int l = 0; l < 32 && base + l < chunks; l++) { // warp-uniform
			i64 c_ng = __shfl_sync(RS_FULL, my_ng, l), c_cnt = __shfl_sync(RS_FULL, my_cnt, l);
			double c_mx = __shfl_sync(RS_FULL, my_mx, l), c_sum = __shfl_sync(RS_FULL, my_sum, l);
			if (ng < 0) ng = c_ng;
			x_max = c_mx > x_max ? c_mx : x_max;
			s += c_sum;
			cnt += c_cnt;
		}
	}
	if (lane == 0) {
		out[0] = ng;
		out[1] = __double_as_longlong(x_max);
		out[2] = __double_as_longlong(s);
		out[3] = cnt;
	}
}

// ---- the light-first split (gpu.go's lightFirst) ----

// rs_split_tile places one warp's tile of up to 32 arcs [base, end):
// lights at *kl, heavies at *kh, each in order, and advances both. With
// whole, the tile is a vertex's whole list and *kh is not yet known: the
// heavies go right after the tile's lights (*kh = *kl + their count).
template <typename W>
static __device__ __forceinline__ void rs_split_tile(i64 base, i64 end, const int *adj, const W *ws, double delta,
                                                     int *adjOut, W *wsOut, i64 *kl, i64 *kh, bool whole) {
	int lane = threadIdx.x & 31;
	i64 k = base + lane;
	bool in = k < end;
	W w = in ? ws[k] : (W)0;
	int a = in ? adj[k] : 0;
	bool light = in && (double)w < delta;
	unsigned bl = __ballot_sync(RS_FULL, light), bh = __ballot_sync(RS_FULL, in && !light);
	unsigned below = (1u << lane) - 1;
	if (whole) *kh = *kl + __popc(bl);
	if (light) {
		i64 at = *kl + __popc(bl & below);
		adjOut[at] = a;
		wsOut[at] = w;
	} else if (in) {
		i64 at = *kh + __popc(bh & below);
		adjOut[at] = a;
		wsOut[at] = w;
	}
	*kl += __popc(bl);
	*kh += __popc(bh);
}

// rs_lights counts, over one warp, the arcs of [lo, hi) lighter than delta.
template <typename W> static __device__ __forceinline__ i64 rs_lights(i64 lo, i64 hi, const W *ws, double delta) {
	i64 nl = 0;
	for (i64 base = lo; base < hi; base += 32) {
		i64 k = base + (threadIdx.x & 31);
		nl += __popc(__ballot_sync(RS_FULL, k < hi && (double)ws[k] < delta));
	}
	return nl;
}

// sssprs_split_* writes each vertex's arcs light (weight < delta) first,
// heavy after, each run in its original order, and lend[v], the end of v's
// light run; one warp per vertex. Vertices of more than RS_BIG arcs are
// listed in big (count in ctl[RS_BIGS]) for sssprs_split_big_*.
template <typename W>
static __device__ __forceinline__ void rs_split(const i64 *off, const int *adj, const W *ws, i64 n, double delta,
                                                int *adjOut, W *wsOut, i64 *lend, int *big, u64 *ctl) {
	i64 warp = rs_tid() >> 5, warps = rs_threads() >> 5;
	for (i64 v = warp; v < n; v += warps) {
		i64 lo = off[v], hi = off[v + 1];
		if (hi - lo > RS_BIG) {
			if ((threadIdx.x & 31) == 0) big[atomicAdd(&ctl[RS_BIGS], 1ull)] = (int)v;
			continue;
		}
		if (hi - lo <= 32) { // one tile (most vertices): its arcs read once
			i64 kl = lo, kh = lo;
			rs_split_tile<W>(lo, hi, adj, ws, delta, adjOut, wsOut, &kl, &kh, true);
			if ((threadIdx.x & 31) == 0) lend[v] = kl;
			continue;
		}
		i64 kl = lo, kh = lo + rs_lights<W>(lo, hi, ws, delta);
		if ((threadIdx.x & 31) == 0) lend[v] = kh;
		for (i64 base = lo; base < hi; base += 32)
			rs_split_tile<W>(base, hi, adj, ws, delta, adjOut, wsOut, &kl, &kh, false);
	}
}

extern "C" __global__ void sssprs_split_w32(const i64 *off, const int *adj, const float *ws, i64 n, double delta,
                                            int *adjOut, float *wsOut, i64 *lend, int *big, u64 *ctl) {
	rs_split<float>(off, adj, ws, n, delta, adjOut, wsOut, lend, big, ctl);
}

extern "C" __global__ void sssprs_split_w64(const i64 *off, const int *adj, const double *ws, i64 n, double delta,
                                            int *adjOut, double *wsOut, i64 *lend, int *big, u64 *ctl) {
	rs_split<double>(off, adj, ws, n, delta, adjOut, wsOut, lend, big, ctl);
}

// rs_split_big splits the listed big vertices, one block each: the block's
// warps take consecutive tiles of 32 arcs, placed after the tiles before
// them (warp counts added up in shared memory).
template <typename W>
static __device__ __forceinline__ void rs_split_big(const i64 *off, const int *adj, const W *ws, double delta,
                                                    int *adjOut, W *wsOut, i64 *lend, const int *big,
                                                    const u64 *ctl) {
	__shared__ i64 lights[RS_BLOCK / 32], heavies[RS_BLOCK / 32];
	__shared__ i64 total;
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
	i64 bigs = (i64)ctl[RS_BIGS];
	for (i64 b = blockIdx.x; b < bigs; b += gridDim.x) {
		int v = big[b];
		i64 lo = off[v], hi = off[v + 1];
		if (threadIdx.x == 0) total = 0;
		__syncthreads();
		i64 mine = 0;
		for (i64 base = lo + 32 * (i64)warp; base < hi; base += 32 * (i64)nw) {
			i64 k = base + lane;
			mine += __popc(__ballot_sync(RS_FULL, k < hi && (double)ws[k] < delta));
		}
		if (lane == 0) atomicAdd((u64 *)&total, (u64)mine);
		__syncthreads();
		i64 kl = lo, kh = lo + total;
		if (threadIdx.x == 0) lend[v] = kh;
		// Rounds of nw tiles: warp i places tile (round·nw + i) after the
		// tiles of the warps before it in this round.
		for (i64 round = lo; round < hi; round += 32 * (i64)nw) {
			i64 base = round + 32 * (i64)warp, k = base + lane;
			bool in = k < hi;
			bool light = in && (double)ws[k] < delta;
			i64 l = __popc(__ballot_sync(RS_FULL, light)), h = __popc(__ballot_sync(RS_FULL, in && !light));
			if (lane == 0) {
				lights[warp] = l;
				heavies[warp] = h;
			}
			__syncthreads();
			i64 bl = kl, bh = kh, sl = 0, sh = 0;
			for (int i = 0; i < nw; i++) {
				if (i < warp) {
					bl += lights[i];
					bh += heavies[i];
				}
				sl += lights[i];
				sh += heavies[i];
			}
			__syncthreads();
			if (base < hi) rs_split_tile<W>(base, hi, adj, ws, delta, adjOut, wsOut, &bl, &bh, false);
			kl += sl;
			kh += sh;
		}
		__syncthreads();
	}
}

extern "C" __global__ void sssprs_split_big_w32(const i64 *off, const int *adj, const float *ws, double delta,
                                                int *adjOut, float *wsOut, i64 *lend, const int *big,
                                                const u64 *ctl) {
	rs_split_big<float>(off, adj, ws, delta, adjOut, wsOut, lend, big, ctl);
}

extern "C" __global__ void sssprs_split_big_w64(const i64 *off, const int *adj, const double *ws, double delta,
                                                int *adjOut, double *wsOut, i64 *lend, const int *big,
                                                const u64 *ctl) {
	rs_split_big<double>(off, adj, ws, delta, adjOut, wsOut, lend, big, ctl);
}

// sssprs_lend_unit is lend for unit weights: every arc light (light ≠ 0)
// or every arc heavy.
extern "C" __global__ void sssprs_lend_unit(const i64 *off, i64 n, int light, i64 *lend) {
	for (i64 v = rs_tid(); v < n; v += rs_threads()) lend[v] = light ? off[v + 1] : off[v];
}

// ---- per run ----

// sssprs_slots (one thread) writes the near-queue slots of src
// (sssp.cu's near_slots: its light arcs, at least one when it has arcs,
// none without; at least 1 in all, for the source) into ctl[RS_SLOTS].
// lend NULL: every arc light.
extern "C" __global__ void sssprs_slots(const i64 *off, const i64 *lend, int src, u64 *ctl) {
	if (blockIdx.x != 0 || threadIdx.x != 0) return;
	i64 o0 = off[src], o1 = off[src + 1], le = lend ? lend[src] : o1;
	i64 s = o1 == o0 ? 0 : (le - o0 > 1 ? le - o0 : 1);
	ctl[RS_SLOTS] = (u64)(s > 1 ? s : 1);
}

// sssprs_widen copies float distances into doubles.
extern "C" __global__ void sssprs_widen(const float *d32, double *d64, i64 n) {
	for (i64 v = rs_tid(); v < n; v += rs_threads()) d64[v] = (double)d32[v];
}

// sssprs_reset (one thread) zeroes the control words, RS_LOWEST set to
// none (~0), in stream order: no host copy before the kernels using them.
extern "C" __global__ void sssprs_reset(u64 *ctl) {
	if (blockIdx.x != 0 || threadIdx.x != 0) return;
	for (int i = 0; i < RS_WORDS; i++) ctl[i] = i == RS_LOWEST ? ~0ull : 0;
}

// rs_orphan lists v where orphan (called by every lane of a warp:
// warp-uniform loops) at the end of list, counting it in ctl[RS_LEFT] (one
// atomic per warp) and keeping the lowest in ctl[RS_LOWEST].
static __device__ __forceinline__ void rs_orphan(bool orphan, int v, int *list, u64 *ctl) {
	unsigned mask = __ballot_sync(RS_FULL, orphan);
	if (mask == 0) return; // the same in every lane
	int lane = threadIdx.x & 31, leader = __ffs(mask) - 1, low = orphan ? v : RS_ORPHAN;
	for (int o = 16; o > 0; o >>= 1) {
		int other = __shfl_xor_sync(RS_FULL, low, o);
		low = other < low ? other : low;
	}
	u64 base = 0;
	if (lane == leader) {
		base = atomicAdd(&ctl[RS_LEFT], (u64)__popc(mask));
		atomicMin(&ctl[RS_LOWEST], (u64)low);
	}
	base = __shfl_sync(RS_FULL, base, leader);
	if (orphan) list[base + __popc(mask & ((1u << lane) - 1))] = v;
}

// sssprs_collect_* adds the vertices of finite distance and their
// out-degrees into ctl[RS_REACHED] and ctl[RS_DEGREES]; with parents (par
// not NULL) it also lists the orphans the strict pass left (par[v] ==
// RS_ORPHAN) in list: their number in ctl[RS_LEFT], the lowest in
// ctl[RS_LOWEST]. Warp-uniform loop (rs_orphan).
template <typename D>
static __device__ __forceinline__ void rs_collect(const i64 *off, const D *d, const int *par, i64 n, int *list,
                                                  u64 *ctl) {
	u64 reached = 0, deg = 0;
	int lane = threadIdx.x & 31;
	for (i64 base = rs_tid() - lane; base < n; base += rs_threads()) {
		i64 v = base + lane;
		bool orphan = false;
		if (v < n) {
			D x = d[v];
			if (x - x == (D)0) { // finite
				reached++;
				deg += (u64)(off[v + 1] - off[v]);
			}
			orphan = par && par[v] == RS_ORPHAN;
		}
		if (par) rs_orphan(orphan, (int)v, list, ctl);
	}
	reached = rs_warp_sum(reached);
	deg = rs_warp_sum(deg);
	if (lane == 0 && reached != 0) {
		atomicAdd(&ctl[RS_REACHED], reached);
		atomicAdd(&ctl[RS_DEGREES], deg);
	}
}

extern "C" __global__ void sssprs_collect_d64(const i64 *off, const double *d, const int *par, i64 n, int *list,
                                              u64 *ctl) {
	rs_collect<double>(off, d, par, n, list, ctl);
}

extern "C" __global__ void sssprs_collect_d32(const i64 *off, const float *d, const int *par, i64 n, int *list,
                                              u64 *ctl) {
	rs_collect<float>(off, d, par, n, list, ctl);
}

// ---- parents from distances ----
//
// Every reached vertex v ≠ src takes, as its parent, the least u of the
// tight arcs u→v (d[u] + w == d[v], in the distances' type) with d[u] <
// d[v]: parents strictly decrease in distance, so they form no cycle. The
// few vertices left (orphans: their tight in-arcs all come from vertices
// at the same distance, over zero weights or weights lost to rounding)
// are adopted in rounds: in round r the least u of the tight arcs u→v
// with d[u] == d[v] and u holding a parent before round r; parents then
// decrease in (distance, round). The choice depends on nothing but the
// graph and the distances.
//
// The strict pass reads every arc once, in warp tiles of RS_TILE
// consecutive arcs (lane j takes arcs j, j+32, …: coalesced loads of adj
// and weights, one binary search per tile for its first tail). On an
// undirected CSR it visits each edge once, from its lower end's list, and
// offers both directions (rs_parents_undirected): half the distance
// gathers; the offers to the list's own vertex are reduced over the lanes
// of a tile, one atomicMin per vertex and 32 arcs, even at a hub with many
// tight in-arcs. On a directed CSR and on the COO it pushes an atomicMin
// per strict tight arc. The adoption rounds run over the list of orphans
// (sssprs_collect_*, sssprs_commit): on an undirected CSR a warp reads
// each orphan's own list (its in-arcs); elsewhere a pass over every arc
// offers candidates to the orphans.

#define RS_STEPS 8  // 32-arc steps per warp tile
#define RS_TILE 256 // arcs per warp tile (32·RS_STEPS)
// Blocks per SM the undirected strict pass is compiled for
// (__launch_bounds__): 4 caps it at 64 registers, for 50% occupancy
// instead of 37.5% at its natural 72; measured on the H100 at R-MAT s22,
// 1.77 → 1.55 ms.
#define RS_ARC_BLOCKS 4

template <typename D>
static __device__ __forceinline__ void rs_parents_init(const D *d, int *par, int *cand, i64 n, int src) {
	for (i64 v = rs_tid(); v < n; v += rs_threads()) {
		D x = d[v];
		bool finite = x - x == (D)0; // false for ±Inf and NaN
		par[v] = v == src ? src : (finite ? RS_ORPHAN : -1);
		cand[v] = RS_ORPHAN;
	}
}

extern "C" __global__ void sssprs_parents_init_d64(const double *d, int *par, int *cand, i64 n, int src) {
	rs_parents_init<double>(d, par, cand, n, src);
}

extern "C" __global__ void sssprs_parents_init_d32(const float *d, int *par, int *cand, i64 n, int src) {
	rs_parents_init<float>(d, par, cand, n, src);
}

// rs_offer is the arc u→v of weight w offered to v: with adopt == 0, u to
// par[v] when the arc is tight and d[u] < d[v] (par[v] is then RS_ORPHAN
// or an earlier offer, -1 for an unreached v, which keeps it); with adopt
// ≠ 0, u to cand[v] when v is an orphan, the arc tight, d[u] == d[v] and
// u not an orphan.
template <typename D>
static __device__ __forceinline__ void rs_offer(int u, int v, D du, D dv, D w, int *par, int *cand, int adopt) {
	if (!(du <= dv) || du + w != dv) return; // u farther, unreached or NaN; or not tight
	if (!adopt) {
		if (du < dv && u < par[v]) atomicMin(&par[v], u);
	} else if (du == dv && par[v] == RS_ORPHAN && par[u] != RS_ORPHAN && par[u] >= 0) {
		atomicMin(&cand[v], u);
	}
}

// rs_parents passes over the arcs of a CSR in warp tiles, offering each
// arc u→v (rs_offer).
template <typename D, typename W>
static __device__ __forceinline__ void rs_parents(const i64 *off, const int *adj, const W *ws, i64 n, i64 m,
                                                  const D *d, int *par, int *cand, int adopt) {
	i64 tiles = (m + RS_TILE - 1) / RS_TILE, lane = threadIdx.x & 31;
	for (i64 t = rs_tid() >> 5; t < tiles; t += rs_threads() >> 5) {
		i64 end = (t + 1) * RS_TILE < m ? (t + 1) * RS_TILE : m;
		int u = csr_tail(off, n, t * RS_TILE);
		for (i64 k = t * RS_TILE + lane; k < end; k += 32) {
			u = csr_advance(off, n, u, k);
			int v = adj[k];
			rs_offer<D>(u, v, d[u], d[v], ws ? (D)ws[k] : (D)1, par, cand, adopt);
		}
	}
}

// rs_parents_undirected is the strict pass of an undirected CSR, whose
// arcs come in pairs u→v, v→u of equal weight (graph.CSR's invariant): it
// reads every arc's head and weight but gathers a distance only for the
// arcs r→o of row r with o > r, and offers both directions of each such
// edge, so that every in-arc of every vertex is offered once, from half
// the gathers. The lanes of a 32-arc step hold ascending rows r; the
// offers o→r (pulls) are reduced per row over the lanes (a segmented
// minimum) and the first lane of each row offers the least to par[r]; an
// offer r→o (a push) is an atomicMin on par[o] where it can lower it.
template <typename D, typename W>
static __device__ __forceinline__ void rs_parents_undirected(const i64 *off, const int *adj, const W *ws, i64 n,
                                                             i64 m, const D *d, int *par) {
	i64 tiles = (m + RS_TILE - 1) / RS_TILE;
	int lane = threadIdx.x & 31;
	for (i64 t = rs_tid() >> 5; t < tiles; t += rs_threads() >> 5) { // warp-uniform
		i64 end = (t + 1) * RS_TILE < m ? (t + 1) * RS_TILE : m;
		i64 base = t * RS_TILE + lane;
		int r = csr_tail(off, n, t * RS_TILE), other[RS_STEPS], row[RS_STEPS];
		D w[RS_STEPS], dother[RS_STEPS];
#pragma unroll
		for (int s = 0; s < RS_STEPS; s++) { // the loads of the tile first, to overlap
			i64 k = base + 32 * s;
			other[s] = k < end ? adj[k] : -1;
			w[s] = k >= end ? (D)0 : ws ? (D)ws[k] : (D)1;
		}
#pragma unroll
		for (int s = 0; s < RS_STEPS; s++) {
			i64 k = base + 32 * s;
			if (k < end) r = csr_advance(off, n, r, k);
			row[s] = k < end ? r : -1;
		}
#pragma unroll
		for (int s = 0; s < RS_STEPS; s++) dother[s] = other[s] > row[s] ? d[other[s]] : (D)0;
#pragma unroll
		for (int s = 0; s < RS_STEPS; s++) { // warp-uniform
			int c = RS_ORPHAN, o = other[s], v = row[s];
			if (o > v) {
				D dv = d[v], dov = dother[s];
				if (dov < dv && dov + w[s] == dv) c = o;                                            // o→v
				if (dv < dov && dv + w[s] == dov && v < par[o]) atomicMin(&par[o], v);              // v→o
			}
			for (int step = 1; step < 32; step <<= 1) {
				int oc = __shfl_down_sync(RS_FULL, c, step), orow = __shfl_down_sync(RS_FULL, v, step);
				if (lane + step < 32 && orow == v && oc < c) c = oc;
			}
			int before = __shfl_up_sync(RS_FULL, v, 1);
			if (v >= 0 && c != RS_ORPHAN && (lane == 0 || before != v) && c < par[v]) atomicMin(&par[v], c);
		}
	}
}

// rs_parents_coo is rs_parents over a COO's undirected edges, both
// directions of each.
template <typename D, typename W>
static __device__ __forceinline__ void rs_parents_coo(const int *st, const int *en, const W *ws, i64 m, const D *d,
                                                      int *par, int *cand, int adopt) {
	for (i64 e = rs_tid(); e < m; e += rs_threads()) {
		int a = st[e], b = en[e];
		D w = ws ? (D)ws[e] : (D)1, da = d[a], db = d[b];
		rs_offer<D>(a, b, da, db, w, par, cand, adopt);
		rs_offer<D>(b, a, db, da, w, par, cand, adopt);
	}
}

// rs_adopt_pull is an adoption round of an undirected CSR: a warp per
// listed orphan v reads v's list (its in-arcs) and writes into cand[v] the
// least u of the tight arcs u→v with d[u] == d[v] and u not an orphan, or
// RS_ORPHAN.
template <typename D, typename W>
static __device__ __forceinline__ void rs_adopt_pull(const i64 *off, const int *adj, const W *ws, const D *d,
                                                     const int *par, int *cand, const int *list, i64 count) {
	int lane = threadIdx.x & 31;
	for (i64 i = rs_tid() >> 5; i < count; i += rs_threads() >> 5) { // warp-uniform
		int v = list[i], c = RS_ORPHAN;
		D dv = d[v];
		for (i64 k = off[v] + lane, hi = off[v + 1]; k < hi; k += 32) {
			int u = adj[k];
			D du = d[u], w = ws ? (D)ws[k] : (D)1;
			if (du == dv && du + w == dv && u < c && par[u] != RS_ORPHAN && par[u] >= 0) c = u;
		}
		for (int o = 16; o > 0; o >>= 1) {
			int oc = __shfl_xor_sync(RS_FULL, c, o);
			c = oc < c ? oc : c;
		}
		if (lane == 0) cand[v] = c;
	}
}

extern "C" __global__ void sssprs_parents_d64_w32(const i64 *off, const int *adj, const float *ws, i64 n, i64 m,
                                              const double *d, int *par, int *cand, int adopt) {
	rs_parents<double, float>(off, adj, ws, n, m, d, par, cand, adopt);
}

extern "C" __global__ __launch_bounds__(RS_BLOCK, RS_ARC_BLOCKS) void sssprs_parents_undirected_d64_w32(
		const i64 *off, const int *adj, const float *ws, i64 n, i64 m, const double *d, int *par) {
	rs_parents_undirected<double, float>(off, adj, ws, n, m, d, par);
}

extern "C" __global__ void sssprs_parents_coo_d64_w32(const int *st, const int *en, const float *ws, i64 m, const double *d,
                                                  int *par, int *cand, int adopt) {
	rs_parents_coo<double, float>(st, en, ws, m, d, par, cand, adopt);
}

extern "C" __global__ void sssprs_adopt_pull_d64_w32(const i64 *off, const int *adj, const float *ws, const double *d,
                                                 const int *par, int *cand, const int *list, i64 count) {
	rs_adopt_pull<double, float>(off, adj, ws, d, par, cand, list, count);
}

extern "C" __global__ void sssprs_parents_d64_w64(const i64 *off, const int *adj, const double *ws, i64 n, i64 m,
                                              const double *d, int *par, int *cand, int adopt) {
	rs_parents<double, double>(off, adj, ws, n, m, d, par, cand, adopt);
}

extern "C" __global__ __launch_bounds__(RS_BLOCK, RS_ARC_BLOCKS) void sssprs_parents_undirected_d64_w64(
		const i64 *off, const int *adj, const double *ws, i64 n, i64 m, const double *d, int *par) {
	rs_parents_undirected<double, double>(off, adj, ws, n, m, d, par);
}

extern "C" __global__ void sssprs_parents_coo_d64_w64(const int *st, const int *en, const double *ws, i64 m, const double *d,
                                                  int *par, int *cand, int adopt) {
	rs_parents_coo<double, double>(st, en, ws, m, d, par, cand, adopt);
}

extern "C" __global__ void sssprs_adopt_pull_d64_w64(const i64 *off, const int *adj, const double *ws, const double *d,
                                                 const int *par, int *cand, const int *list, i64 count) {
	rs_adopt_pull<double, double>(off, adj, ws, d, par, cand, list, count);
}

extern "C" __global__ void sssprs_parents_d32_w32(const i64 *off, const int *adj, const float *ws, i64 n, i64 m,
                                              const float *d, int *par, int *cand, int adopt) {
	rs_parents<float, float>(off, adj, ws, n, m, d, par, cand, adopt);
}

extern "C" __global__ __launch_bounds__(RS_BLOCK, RS_ARC_BLOCKS) void sssprs_parents_undirected_d32_w32(
		const i64 *off, const int *adj, const float *ws, i64 n, i64 m, const float *d, int *par) {
	rs_parents_undirected<float, float>(off, adj, ws, n, m, d, par);
}

extern "C" __global__ void sssprs_parents_coo_d32_w32(const int *st, const int *en, const float *ws, i64 m, const float *d,
                                                  int *par, int *cand, int adopt) {
	rs_parents_coo<float, float>(st, en, ws, m, d, par, cand, adopt);
}

extern "C" __global__ void sssprs_adopt_pull_d32_w32(const i64 *off, const int *adj, const float *ws, const float *d,
                                                 const int *par, int *cand, const int *list, i64 count) {
	rs_adopt_pull<float, float>(off, adj, ws, d, par, cand, list, count);
}

extern "C" __global__ void sssprs_parents_d32_w64(const i64 *off, const int *adj, const double *ws, i64 n, i64 m,
                                              const float *d, int *par, int *cand, int adopt) {
	rs_parents<float, double>(off, adj, ws, n, m, d, par, cand, adopt);
}

extern "C" __global__ __launch_bounds__(RS_BLOCK, RS_ARC_BLOCKS) void sssprs_parents_undirected_d32_w64(
		const i64 *off, const int *adj, const double *ws, i64 n, i64 m, const float *d, int *par) {
	rs_parents_undirected<float, double>(off, adj, ws, n, m, d, par);
}

extern "C" __global__ void sssprs_parents_coo_d32_w64(const int *st, const int *en, const double *ws, i64 m, const float *d,
                                                  int *par, int *cand, int adopt) {
	rs_parents_coo<float, double>(st, en, ws, m, d, par, cand, adopt);
}

extern "C" __global__ void sssprs_adopt_pull_d32_w64(const i64 *off, const int *adj, const double *ws, const float *d,
                                                 const int *par, int *cand, const int *list, i64 count) {
	rs_adopt_pull<float, double>(off, adj, ws, d, par, cand, list, count);
}

// sssprs_commit gives each listed orphan its candidate (if any), counting
// the adopted in ctl[RS_ADOPTED], and lists those left in next (their
// number in ctl[RS_LEFT], the lowest in ctl[RS_LOWEST]: sssprs_reset
// before); it clears the candidates for the next round. Warp-uniform loop
// (rs_orphan).
extern "C" __global__ void sssprs_commit(int *par, int *cand, const int *list, i64 count, int *next, u64 *ctl) {
	u64 adopted = 0;
	int lane = threadIdx.x & 31;
	for (i64 base = rs_tid() - lane; base < count; base += rs_threads()) {
		i64 i = base + lane;
		int v = -1;
		bool left = false;
		if (i < count) {
			v = list[i];
			int c = cand[v];
			if (c != RS_ORPHAN) {
				par[v] = c;
				cand[v] = RS_ORPHAN;
				adopted++;
			} else {
				left = true;
			}
		}
		rs_orphan(left, v, next, ctl);
	}
	adopted = rs_warp_sum(adopted);
	if (lane == 0 && adopted) atomicAdd(&ctl[RS_ADOPTED], adopted);
}
