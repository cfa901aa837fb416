// GPU kernels of package mst's device preparation (resident.go): the same
// transforms as gpu.go's host path (edge numbering, tie order, weight
// keys, renumbering, ranks, compression), on a graph resident on the
// device. Generic steps (scans, the radix sort, arc sources) are package
// gpu/transform's. No #include; every kernel is extern "C". Arc indices
// and counts are 64-bit; one thread per arc or per vertex.

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned char u8;

// Problems mprep_eidx reports (bits of flags[0]); the Go
// side then takes the host path, which names the problem exactly.
#define MP_UNSORTED 1 // a list not strictly increasing by id (or a repeated arc)
#define MP_BAD 2      // an id out of range, a NaN weight, an arc without its reverse
#define MP_NO_EDGE 0xffffffffu
#define MP_SPAN 1024 // graph.CompressSpan

__device__ __forceinline__ i64 mp_index() { return (i64)blockIdx.x * blockDim.x + threadIdx.x; }

// mp_weight is arc k's weight as a double (1 unweighted), as
// graph.CSR.ArcWeight.
__device__ __forceinline__ double mp_weight(const float *w32, const double *w64, i64 k) {
	if (w32) return (double)w32[k];
	if (w64) return w64[k];
	return 1.0;
}

// mprep_upper: upper[a] = the first arc of a to a larger id; cnt[a] = the
// number of such arcs (scanned into the edge numbering at[]).
extern "C" __global__ void mprep_upper(const i64 *off, const int *adj, int n, i64 *upper, i64 *cnt) {
	i64 a = mp_index();
	if (a >= n) return;
	i64 lo = off[a], hi = off[a + 1];
	while (lo < hi) {
		i64 mid = lo + (hi - lo) / 2;
		if (adj[mid] <= a) lo = mid + 1;
		else hi = mid;
	}
	upper[a] = lo;
	cnt[a] = off[a + 1] - lo;
}

// mprep_eidx checks the lists and numbers the edges. It flags ids out
// of range, NaN weights (MP_BAD) and lists not strictly increasing
// (MP_UNSORTED): then the other outputs mean nothing (every search below
// stays inside one list whatever its order) and the Go side takes the
// host path. eidx[k] = the index of arc k's undirected edge {a, b}, a < b:
// at[a] + the position of b among a's arcs to larger ids (from upper[a]);
// MP_NO_EDGE for a self-loop. An arc a→b knows that position; the arc
// b→a gets it from a binary search, done by whichever of the two arcs
// searches the shorter range (both compute the same choice): b→a looks b
// up among a's arcs to larger ids, or a→b looks a up among b's arcs to
// smaller ids and writes the found arc's index. A search that does not
// find the reverse, or finds it of another weight, flags MP_BAD. The
// searches that found it are counted into counts[0] and the self-loops
// into counts[1]: when counts[0] is the number of edges and 2 counts[0] +
// counts[1] = m, every arc has its reverse (each found pair is a
// different edge), so the graph is symmetric.
extern "C" __global__ void mprep_eidx(const i64 *off, const int *adj, const float *w32, const double *w64, int n,
                                      i64 m, const int *src, const i64 *upper, const i64 *at, u32 *eidx, u32 *flags,
                                      u64 *counts) {
	i64 k = mp_index();
	bool found = false, loop = false;
	if (k < m) {
		int u = src[k], v = adj[k];
		u32 f = 0;
		if (k > off[u] && adj[k - 1] >= v) f |= MP_UNSORTED;
		double w = mp_weight(w32, w64, k);
		if (w != w || v < 0 || v >= n) f |= MP_BAD;
		if (f) {
			atomicOr(flags, f);
		} else if (u == v) {
			eidx[k] = MP_NO_EDGE;
			loop = true;
		} else {
			int a = u < v ? u : v, b = u < v ? v : u;
			// The arc a→b searches when b's arcs to smaller ids are fewer
			// than a's to larger ids.
			bool upSearches = upper[b] - off[b] < off[a + 1] - upper[a];
			if (u < v) eidx[k] = (u32)(at[u] + (k - upper[u]));
			if ((u < v) == upSearches) {
				i64 lo = upSearches ? off[v] : upper[v], end = upSearches ? upper[v] : off[v + 1], hi = end;
				while (lo < hi) {
					i64 mid = lo + (hi - lo) / 2;
					if (adj[mid] < u) lo = mid + 1;
					else hi = mid;
				}
				if (lo == end || adj[lo] != u || mp_weight(w32, w64, lo) != w) {
					atomicOr(flags, (u32)MP_BAD);
				} else {
					if (upSearches) eidx[lo] = (u32)(at[u] + (k - upper[u]));
					else eidx[k] = (u32)(at[v] + (lo - upper[v]));
					found = true;
				}
			}
		}
	}
	u32 votes = __ballot_sync(0xffffffffu, found), loops = __ballot_sync(0xffffffffu, loop);
	if ((threadIdx.x & 31) == 0) {
		if (votes) atomicAdd(&counts[0], (u64)__popc(votes));
		if (loops) atomicAdd(&counts[1], (u64)__popc(loops));
	}
}

// mp_ordered32/64 map weights to bits whose unsigned order is the
// numeric order, -0 and +0 alike (boruvka.cu's ordered_f32/f64).
__device__ __forceinline__ u32 mp_ordered32(float w) {
	u32 b = __float_as_uint(w);
	if (w == 0.0f) b = 0;
	return (b >> 31) ? ~b : b | 0x80000000u;
}
__device__ __forceinline__ u64 mp_ordered64(double w) {
	u64 b = (u64)__double_as_longlong(w);
	if (w == 0.0) b = 0;
	return (b >> 63) ? ~b : b | 0x8000000000000000ull;
}

// mprep_first_order: perm = the arcs in CSR order with each self-loop
// moved to the end of its list, so that every list is in edge-index
// order (self-loops have the largest index), and keys (unless null) the
// ordered weight bits of arc perm[i] at i. A list sorted by id has at
// most one self-loop, just before its first arc to a larger id
// (upper[u], mprep_upper's).
extern "C" __global__ void mprep_first_order(const int *src, const i64 *off, const i64 *upper, const int *adj,
                                             const float *w32, const double *w64, i64 m, u32 *perm, u64 *keys) {
	i64 k = mp_index();
	if (k >= m) return;
	int u = src[k];
	i64 s = upper[u] - 1, p = k;
	if (s >= off[u] && adj[s] == u) {
		if (k == s) p = off[u + 1] - 1;
		else if (k > s) p = k - 1;
	}
	perm[p] = (u32)k;
	if (keys) keys[p] = w32 ? (u64)mp_ordered32(w32[k]) : mp_ordered64(w64[k]);
}

// mp_new_value: whether the sorted keys[i] starts a new value (0 past m).
__device__ __forceinline__ int mp_new_value(const u64 *keys, i64 m, i64 i) {
	return i > 0 && i < m && keys[i] != keys[i - 1];
}

// mp_block_count returns how many threads of the block before this one
// (before: exclusive) or up to it (inclusive) have flag set; every thread
// of the block calls it (a ballot per warp, a sum over the warps in
// shared memory; at most 1024 threads, whole warps).
__device__ __forceinline__ int mp_block_count(int flag, bool inclusive) {
	__shared__ int warpCount[32];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	u32 votes = __ballot_sync(0xffffffffu, flag);
	if (lane == 0) warpCount[warp] = __popc(votes);
	__syncthreads();
	int before = 0;
	for (int w = 0; w < warp; w++) before += warpCount[w];
	u32 mask = inclusive ? (lane == 31 ? 0xffffffffu : (2u << lane) - 1) : (1u << lane) - 1;
	return before + __popc(votes & mask);
}

// mprep_distinct_count: cnt[b] = how many of block b's keys (blockDim.x
// of the sorted keys) start a new value (mprep_rank's block offsets, once
// exclusively scanned).
extern "C" __global__ void mprep_distinct_count(const u64 *keys, i64 m, i64 *cnt) {
	i64 i = mp_index();
	int c = mp_block_count(mp_new_value(keys, m, i), true);
	if (threadIdx.x == blockDim.x - 1) cnt[blockIdx.x] = c;
}

// mprep_rank: rank[perm[i]] = the number of distinct values below keys[i]
// (the new values up to i: cnt, mprep_distinct_count's counts exclusively
// scanned, and those of i's block up to i).
extern "C" __global__ void mprep_rank(const u64 *keys, const i64 *cnt, const u32 *perm, i64 m, u32 *rank) {
	i64 i = mp_index();
	int c = mp_block_count(mp_new_value(keys, m, i), true);
	if (i < m) rank[perm[i]] = (u32)(cnt[blockIdx.x] + c);
}

// mprep_vertex_keys: keys[i] = the (renumbered) vertex arc perm[i] leaves.
extern "C" __global__ void mprep_vertex_keys(const int *src, const int *newID, const u32 *perm, i64 m, u64 *keys) {
	i64 i = mp_index();
	if (i >= m) return;
	int u = src[perm[i]];
	keys[i] = (u64)(u32)(newID ? newID[u] : u);
}

// mprep_degree: cnt[newID[u]] = u's degree.
extern "C" __global__ void mprep_degree(const i64 *off, const int *newID, int n, i64 *cnt) {
	i64 u = mp_index();
	if (u < n) cnt[newID[u]] = off[u + 1] - off[u];
}

// mprep_gather lays out the prepared arcs: position i takes arc perm[i],
// its (renumbered) ends, edge index and weight key (a rank, a float with
// -0 turned into +0 as graph.SortByWeight does, or a double).
extern "C" __global__ void mprep_gather(const u32 *perm, const int *src, const int *adj, const int *newID,
                                        const u32 *eidx, const u32 *rank, const float *w32, const double *w64, i64 m,
                                        int *outSrc, int *outAdj, u32 *outEidx, u32 *outRank, float *out32,
                                        double *out64) {
	i64 i = mp_index();
	if (i >= m) return;
	u32 k = perm[i];
	int u = src[k], v = adj[k];
	outSrc[i] = newID ? newID[u] : u;
	outAdj[i] = newID ? newID[v] : v;
	outEidx[i] = eidx[k];
	if (outRank) outRank[i] = rank[k];
	if (out32) {
		float w = w32[k];
		out32[i] = w == 0.0f ? 0.0f : w;
	}
	if (out64) out64[i] = w64[k];
}

// mprep_bounds_sorted: lo[v] and hi[v] = the smallest and largest id in
// v's list (INT_MAX and -1 when it is empty; hi may be null), the first
// and last arc of lists sorted by id.
extern "C" __global__ void mprep_bounds_sorted(const i64 *off, const int *adj, int n, int *lo, int *hi) {
	i64 v = mp_index();
	if (v >= n) return;
	i64 a = off[v], b = off[v + 1];
	lo[v] = a < b ? adj[a] : 0x7fffffff;
	if (hi) hi[v] = a < b ? adj[b - 1] : -1;
}

// mprep_bounds: lo[u] = min(itself, the ids of u's arcs) and hi[u] =
// max(itself, …) (hi may be null), for arcs grouped by source (src[i]
// nondecreasing runs: every list contiguous, in any order within). A warp
// reduces each run of one source among its 32 arcs with shuffles, and
// only the run's first lane updates lo and hi atomically, so a hub's
// list costs one atomic per 32 arcs. Whole warps: blockDim.x % 32 == 0.
extern "C" __global__ void mprep_bounds(const int *src, const int *adj, i64 m, int *lo, int *hi) {
	i64 i = mp_index();
	int u = -1, a = 0x7fffffff, b = -1;
	if (i < m) {
		u = src[i];
		a = adj[i];
		b = a;
	}
	int lane = threadIdx.x & 31;
	for (int d = 1; d < 32; d <<= 1) {
		int ou = __shfl_down_sync(0xffffffffu, u, d);
		int oa = __shfl_down_sync(0xffffffffu, a, d);
		int ob = __shfl_down_sync(0xffffffffu, b, d);
		if (lane + d < 32 && ou == u) {
			a = oa < a ? oa : a;
			b = ob > b ? ob : b;
		}
	}
	int before = __shfl_up_sync(0xffffffffu, u, 1);
	if (u >= 0 && (lane == 0 || before != u)) {
		atomicMin(&lo[u], a);
		if (hi) atomicMax(&hi[u], b);
	}
}

// mprep_base: base[v] = v's smallest neighbour (0 without neighbours);
// flags MP_BAD when a list spans MP_SPAN ids or more.
extern "C" __global__ void mprep_base(const int *lo, const int *hi, int n, u32 *base, u32 *flags) {
	i64 v = mp_index();
	if (v >= n) return;
	if (hi[v] < 0) {
		base[v] = 0;
		return;
	}
	if ((i64)hi[v] - lo[v] >= MP_SPAN) atomicOr(flags, (u32)MP_BAD);
	base[v] = (u32)lo[v];
}

// mprep_pack: one thread per byte j of high: arcs 4j..4j+3 get their low
// bytes and their two high bits (graph.CompressedAdj's layout).
extern "C" __global__ void mprep_pack(const int *src, const int *adj, const u32 *base, i64 m, u8 *low, u8 *high) {
	i64 j = mp_index();
	if (4 * j >= m) return;
	u32 h = 0;
	for (int t = 0; t < 4; t++) {
		i64 k = 4 * j + t;
		if (k >= m) break;
		u32 d = (u32)adj[k] - base[src[k]];
		low[k] = (u8)(d & 255);
		h |= ((d >> 8) & 3) << (2 * t);
	}
	high[j] = (u8)h;
}

// mprep_forest_count: cnt[i] = the forest edges in word i of the bitmap.
extern "C" __global__ void mprep_forest_count(const u32 *words, i64 nwords, i64 *cnt) {
	i64 i = mp_index();
	if (i < nwords) cnt[i] = __popc(words[i]);
}

// mprep_forest_edges writes every forest edge (bit e of the bitmap: the
// edge of index e) at its scanned place pos, in edge-index order: its ends
// a < b in the input's ids (a found by a binary search over the edge
// numbering at, b the arc upper[a] + e - at[a] of the input) and its
// weight as a double (1 unweighted).
extern "C" __global__ void mprep_forest_edges(const u32 *words, i64 nwords, const i64 *pos, const i64 *at,
                                              const i64 *upper, int n, const int *adj, const float *w32,
                                              const double *w64, int *eu, int *ev, double *ew) {
	i64 i = mp_index();
	if (i >= nwords) return;
	i64 p = pos[i];
	for (u32 w = words[i]; w != 0; w &= w - 1) {
		i64 e = i * 32 + __ffs(w) - 1;
		int lo = 0, hi = n; // at[lo] <= e < at[hi]
		while (hi - lo > 1) {
			int mid = lo + (hi - lo) / 2;
			if (at[mid] <= e) lo = mid;
			else hi = mid;
		}
		i64 k = upper[lo] + e - at[lo];
		eu[p] = lo;
		ev[p] = adj[k];
		ew[p] = mp_weight(w32, w64, k);
		p++;
	}
}

// mprep_edge_keys: keys[i] = the ordered bits of forest edge i's weight
// (sort.go's weightKey: -0 as +0), vals[i] = i.
extern "C" __global__ void mprep_edge_keys(const double *ew, i64 count, u64 *keys, u32 *vals) {
	i64 i = mp_index();
	if (i >= count) return;
	keys[i] = mp_ordered64(ew[i]);
	vals[i] = (u32)i;
}

// mp_edge is package mst's Edge as Go lays it out (resident.go checks
// the layout): the ends at bytes 0 and 4, the weight at 8, 16 bytes.
struct mp_edge {
	int u, v;
	double w;
};

// mprep_edge_gather: edge i of the output is edge order[i] of the input,
// written as a Go Edge.
extern "C" __global__ void mprep_edge_gather(const u32 *order, const int *eu, const int *ev, const double *ew, i64 count,
                                             mp_edge *out) {
	i64 i = mp_index();
	if (i >= count) return;
	u32 e = order[i];
	mp_edge x;
	x.u = eu[e];
	x.v = ev[e];
	x.w = ew[e];
	out[i] = x;
}
