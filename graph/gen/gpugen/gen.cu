// gen.cu: the device generators of package gpugen, edge for edge the
// graphs of gen.RMAT and gen.SSCA2 (graph/gen/plan.go, RMATPlan and
// SSCA2Plan, give the recipes), built into deduplicated, symmetric CSRs
// as graph.Build does. Launched by rmat.go, ssca2.go and pipeline.go in
// this order:
//
//   gg_states      one thread per chunk of 2^16 edges: runs the chunk's
//                  xoshiro256** stream and records its state at the start
//                  of every segment of GG_SEG edges (R-MAT's edges, the
//                  weights)
//   gg_edges_*     R-MAT, one thread per segment: draws its edges (alias
//                  tables in shared memory), relabels them (Feistel
//                  permutation), draws their weights and writes both arcs
//                  of each edge as keys src<<scale | dst, weights beside
//   gg_ssca2_count, gg_ssca2_emit   SSCA#2: one thread per chunk of
//                  4096 vertices counts the edges of each part of
//                  GG_SSCA2_PART vertices and records the stream's state
//                  there; one thread per part then writes its arcs at the
//                  offsets the host summed; gg_weights_* draws the weights
//                  per segment
//   (sort)         pipeline.go sorts the arcs by key with package
//                  gpu/transform's stable LSD radix sort, the weights
//                  travelling with the keys
//   gg_keep_scan   keeps the first arc of each run of equal keys that is
//                  not a self-loop and numbers the kept arcs in each tile
//                  (32 bits: a tile is 2048 arcs); transform's 64-bit
//                  ExclusiveScan scans the tiles' counts
//   gg_compact_*   writes Adj, the minimum weight of each run, and Offsets
//                  (rows from lo: a rank's part of a partitioned graph)
//                  at 64-bit positions, so that a device or rank may hold
//                  more than 2^32 arcs
//   gg_owner_bounds  parts.go: where each rank's arcs start among a
//                  rank's sorted arcs (the counts it sends to each)
//
// Kernels that use __syncthreads or ballots expect blocks of GG_BLOCK
// threads. No headers (NVRTC has none at run time).

#define GG_BLOCK 256
#define GG_WARPS (GG_BLOCK / 32)
#define GG_SEG 1024
#define GG_SCAN_ITEMS 8
#define GG_MAX_TABLES 8
#define GG_SSCA2_PART 256

typedef unsigned long long u64;

#if defined(__CUDACC__)
__device__ __forceinline__ u64 gg_mulhi(u64 a, u64 b) { return __umul64hi(a, b); }
#else
inline u64 gg_mulhi(u64 a, u64 b) { return (u64)(((unsigned __int128)a * b) >> 64); }
#endif

__device__ __forceinline__ u64 gg_rotl(u64 x, int k) { return (x << k) | (x >> (64 - k)); }

// gg_next is xoshiro256** (gen's rng.next).
__device__ __forceinline__ u64 gg_next(u64 &s0, u64 &s1, u64 &s2, u64 &s3) {
	u64 out = gg_rotl(s1 * 5, 7) * 9;
	u64 t = s1 << 17;
	s2 ^= s0;
	s3 ^= s1;
	s1 ^= s2;
	s0 ^= s3;
	s2 ^= t;
	s3 = gg_rotl(s3, 45);
	return out;
}

// gg_mix64 is SplitMix64's finaliser (gen's mix64).
__device__ __forceinline__ u64 gg_mix64(u64 z) {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

// gg_permute is RMATPlan.PermuteVertex: a Feistel network on 2·half bits
// with four round keys, walked until the image is below n.
__device__ __forceinline__ u64 gg_permute(u64 v, u64 n, int half, u64 k0, u64 k1, u64 k2, u64 k3) {
	u64 mask = (1ULL << half) - 1;
	for (;;) {
		u64 l = v >> half, r = v & mask, t;
		t = l ^ (gg_mix64(r ^ k0) & mask); l = r; r = t;
		t = l ^ (gg_mix64(r ^ k1) & mask); l = r; r = t;
		t = l ^ (gg_mix64(r ^ k2) & mask); l = r; r = t;
		t = l ^ (gg_mix64(r ^ k3) & mask); l = r; r = t;
		v = (l << half) | r;
		if (v < n) {
			return v;
		}
	}
}

// gg_segment sets [lo, hi) to the items of segment g: part g%segs, of
// GG_SEG items, of chunk g/segs (chunk items each), below m.
__device__ __forceinline__ void gg_segment(long long g, int segs, long long chunk, long long m, long long &lo,
                                           long long &hi) {
	long long c = g / segs, j = g % segs;
	lo = c * chunk + j * GG_SEG;
	hi = lo + GG_SEG;
	if (hi > (c + 1) * chunk) {
		hi = (c + 1) * chunk;
	}
	if (hi > m) {
		hi = m;
	}
}

// gg_arcs writes both arcs of edge e = (u, v) as keys, both ends
// relabelled by gg_permute when perm.
__device__ __forceinline__ void gg_arcs(u64 *keys, u64 e, u64 u, u64 v, int scale, u64 n, int perm, int half, u64 pk0,
                                        u64 pk1, u64 pk2, u64 pk3) {
	if (perm) {
		u = gg_permute(u, n, half, pk0, pk1, pk2, pk3);
		v = gg_permute(v, n, half, pk0, pk1, pk2, pk3);
	}
	keys[2 * e] = (u << scale) | v;
	keys[2 * e + 1] = (v << scale) | u;
}

// gg_states: thread c runs the stream of chunk c from start[4c..4c+3] and
// writes its state before each of the chunk's segs segments (segItems
// items of draws numbers each) to out[4(c·segs+j)..].
extern "C" __global__ void gg_states(const u64 *start, long long chunks, int segs, int segItems, int draws, u64 *out) {
	long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= chunks) {
		return;
	}
	u64 s0 = start[4 * c], s1 = start[4 * c + 1], s2 = start[4 * c + 2], s3 = start[4 * c + 3];
	for (int j = 0; j < segs; j++) {
		u64 *o = out + 4 * (c * segs + j);
		o[0] = s0;
		o[1] = s1;
		o[2] = s2;
		o[3] = s3;
		if (j + 1 < segs) {
			for (long long k = (long long)segItems * draws; k > 0; k--) {
				gg_next(s0, s1, s2, s3);
			}
		}
	}
}

// Weight kinds (gpugen's wNone, wUniform, wInt).
#define GG_W_NONE 0
#define GG_W_UNIFORM 1
#define GG_W_INT 2

template <typename W> __device__ __forceinline__ W gg_weight(u64 x, int kind, u64 maxW);
template <> __device__ __forceinline__ float gg_weight<float>(u64 x, int kind, u64 maxW) {
	if (kind == GG_W_INT) {
		return (float)(1 + gg_mulhi(x, maxW));
	}
	return (float)(x >> 40) * 5.9604644775390625e-8f; // 2^-24
}
template <> __device__ __forceinline__ double gg_weight<double>(u64 x, int kind, u64 maxW) {
	if (kind == GG_W_INT) {
		return (double)(1 + gg_mulhi(x, maxW));
	}
	return (double)(x >> 11) * 1.1102230246251565e-16; // 2^-53
}

// gg_edges: thread = segment g (chunk g/segs, j = g%segs) draws edges
// [c·chunk + j·GG_SEG, …) below m and writes arcs 2i and 2i+1 of edge i.
// tables: ntab alias tables of 256 entries (RMATPlan.Tables), the last of
// lastK levels. perm != 0 relabels by gg_permute(…, pk). wstates, w: the
// weight streams' segment states and the arc weights (kind GG_W_*).
template <typename W>
__device__ void gg_edges(const u64 *estates, const u64 *wstates, long long segsTotal, int segs, long long chunk,
                         long long m, int scale, const u64 *tables, int ntab, int lastK, int perm, int half,
                         u64 pk0, u64 pk1, u64 pk2, u64 pk3, int kind, u64 maxW, u64 *keys, W *w) {
	__shared__ u64 tab[GG_MAX_TABLES * 256];
	for (int i = threadIdx.x; i < ntab * 256; i += blockDim.x) {
		tab[i] = tables[i];
	}
	__syncthreads();
	long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (g >= segsTotal) {
		return;
	}
	long long lo, hi;
	gg_segment(g, segs, chunk, m, lo, hi);
	u64 s0 = estates[4 * g], s1 = estates[4 * g + 1], s2 = estates[4 * g + 2], s3 = estates[4 * g + 3];
	u64 w0 = 0, w1 = 0, w2 = 0, w3 = 0;
	if (kind != GG_W_NONE) {
		w0 = wstates[4 * g], w1 = wstates[4 * g + 1], w2 = wstates[4 * g + 2], w3 = wstates[4 * g + 3];
	}
	u64 n = 1ULL << scale;
	for (long long i = lo; i < hi; i++) {
		u64 u = 0, v = 0, x = 0;
		for (int t = 0; t < ntab; t++) {
			if ((t & 1) == 0) {
				x = gg_next(s0, s1, s2, s3);
			}
			int k = t == ntab - 1 ? lastK : 4;
			u64 e = tab[t * 256 + (int)(x & ((1ULL << (2 * k)) - 1))];
			unsigned y = (unsigned)(x >> 8) & 0xffffffu;
			unsigned b = y < (unsigned)e ? (unsigned)(e >> 32) & 255u : (unsigned)(e >> 40) & 255u;
			u = (u << k) | (b >> 4);
			v = (v << k) | (b & 15u);
			x >>= 32;
		}
		gg_arcs(keys, (u64)i, u, v, scale, n, perm, half, pk0, pk1, pk2, pk3);
		if (kind != GG_W_NONE) {
			W wt = gg_weight<W>(gg_next(w0, w1, w2, w3), kind, maxW);
			w[2 * i] = wt;
			w[2 * i + 1] = wt;
		}
	}
}

extern "C" __global__ void gg_edges_f32(const u64 *estates, const u64 *wstates, long long segsTotal, int segs,
                                  long long chunk, long long m, int scale, const u64 *tables, int ntab, int lastK,
                                  int perm, int half, u64 pk0, u64 pk1, u64 pk2, u64 pk3, int kind, u64 maxW,
                                  u64 *keys, float *w) {
	gg_edges<float>(estates, wstates, segsTotal, segs, chunk, m, scale, tables, ntab, lastK, perm, half, pk0, pk1, pk2,
	              pk3, kind, maxW, keys, w);
}
extern "C" __global__ void gg_edges_f64(const u64 *estates, const u64 *wstates, long long segsTotal, int segs,
                                  long long chunk, long long m, int scale, const u64 *tables, int ntab, int lastK,
                                  int perm, int half, u64 pk0, u64 pk1, u64 pk2, u64 pk3, int kind, u64 maxW,
                                  u64 *keys, double *w) {
	gg_edges<double>(estates, wstates, segsTotal, segs, chunk, m, scale, tables, ntab, lastK, perm, half, pk0, pk1, pk2,
	              pk3, kind, maxW, keys, w);
}

// ---- SSCA#2 ----

// gg_ssca2 runs SSCA2Edges' loop for vertices [lo, hi) from the stream
// state s0..s3 (updated). With store it writes both arcs of edge e (from
// first) as keys, relabelled when perm, else it only counts (a clique's
// edges at once when maxPar is 1: they then draw nothing); it returns the
// number of edges.
template <bool store>
__device__ u64 gg_ssca2(long long lo, long long hi, u64 &s0, u64 &s1, u64 &s2, u64 &s3, const int *starts,
                        long long nstarts, long long n, u64 maxPar, u64 inter, int scale, int perm, int half, u64 pk0,
                        u64 pk1, u64 pk2, u64 pk3, u64 first, u64 *keys) {
	// k: the clique of lo, the last start <= lo.
	long long a = 0, b = nstarts - 1;
	while (b - a > 1) {
		long long mid = (a + b) / 2;
		if (starts[mid] <= lo) {
			a = mid;
		} else {
			b = mid;
		}
	}
	long long k = a;
	u64 e = first;
	for (long long i = lo; i < hi; i++) {
		while (starts[k + 1] <= i) {
			k++;
		}
		long long cs = starts[k], ce = starts[k + 1];
		if (!store && maxPar == 1 && i == cs) {
			e += (u64)(ce - cs) * (u64)(ce - cs - 1) / 2;
		}
		for (long long u = cs; (store || maxPar > 1) && i == cs && u < ce; u++) {
			for (long long v = u + 1; v < ce; v++) {
				u64 np = 1;
				if (maxPar > 1) {
					np += gg_mulhi(gg_next(s0, s1, s2, s3), maxPar);
				}
				for (u64 q = 0; q < np; q++, e++) {
					if (store) {
						gg_arcs(keys, e, (u64)u, (u64)v, scale, (u64)n, perm, half, pk0, pk1, pk2, pk3);
					}
				}
			}
		}
		u64 thr = inter;
		for (int t = 1; (1LL << t) < n; t++) {
			long long j = (i + (1LL << t) + (long long)gg_mulhi(gg_next(s0, s1, s2, s3), 1ULL << (t - 1))) % n;
			if (j < cs || j >= ce) {
				u64 np = 1;
				if (maxPar > 1) {
					np += gg_mulhi(gg_next(s0, s1, s2, s3), maxPar);
				}
				for (u64 q = 0; q < np; q++) {
					if ((gg_next(s0, s1, s2, s3) >> 11) < thr) {
						if (store) {
							gg_arcs(keys, e, (u64)i, (u64)j, scale, (u64)n, perm, half, pk0, pk1, pk2, pk3);
						}
						e++;
					}
				}
			}
			thr >>= 1;
		}
	}
	return e - first;
}

// gg_ssca2_count: thread c runs the stream of chunk c0 + c (from
// states[4c..]) over its vertices, by parts of GG_SSCA2_PART vertices;
// part p of the chunk (index c·parts + p among the chunks' parts) gets
// its starting state in pstates and its edge count in counts.
extern "C" __global__ void gg_ssca2_count(const int *starts, long long nstarts, long long n, int chunkV, long long c0,
                                          long long chunks, const u64 *states, u64 maxPar, u64 inter, int scale,
                                          u64 *pstates, u64 *counts) {
	long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (c >= chunks) {
		return;
	}
	u64 s0 = states[4 * c], s1 = states[4 * c + 1], s2 = states[4 * c + 2], s3 = states[4 * c + 3];
	int parts = chunkV / GG_SSCA2_PART;
	for (int p = 0; p < parts; p++) {
		long long g = c * parts + p;
		long long lo = (c0 + c) * chunkV + (long long)p * GG_SSCA2_PART, hi = lo + GG_SSCA2_PART < n ? lo + GG_SSCA2_PART : n;
		pstates[4 * g] = s0;
		pstates[4 * g + 1] = s1;
		pstates[4 * g + 2] = s2;
		pstates[4 * g + 3] = s3;
		counts[g] = lo < hi ? gg_ssca2<false>(lo, hi, s0, s1, s2, s3, starts, nstarts, n, maxPar, inter, scale, 0, 0, 0, 0,
		                                      0, 0, 0, 0)
		                    : 0;
	}
}

// gg_ssca2_emit: thread g writes the arcs of part p0 + g's edges from
// edge first[g], from the state gg_ssca2_count recorded (pstates[4g..]).
extern "C" __global__ void gg_ssca2_emit(const int *starts, long long nstarts, long long n, long long p0,
                                         long long partsTotal, const u64 *pstates, u64 maxPar, u64 inter, int scale,
                                         int perm, int half, u64 pk0, u64 pk1, u64 pk2, u64 pk3, const u64 *first,
                                         u64 *keys) {
	long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (g >= partsTotal) {
		return;
	}
	long long lo = (p0 + g) * GG_SSCA2_PART, hi = lo + GG_SSCA2_PART < n ? lo + GG_SSCA2_PART : n;
	if (lo >= hi) {
		return;
	}
	u64 s0 = pstates[4 * g], s1 = pstates[4 * g + 1], s2 = pstates[4 * g + 2], s3 = pstates[4 * g + 3];
	gg_ssca2<true>(lo, hi, s0, s1, s2, s3, starts, nstarts, n, maxPar, inter, scale, perm, half, pk0, pk1, pk2, pk3,
	               first[g], keys);
}

// gg_weights: thread = segment g of the weight streams (as gg_edges)
// draws the weights of edges [c·chunk + j·GG_SEG, …) below m and writes
// those from edge first on (0 for a whole graph; a rank's first edge
// within its first stream) for both arcs of each, edge i at 2(i-first).
template <typename W>
__device__ void gg_weights(const u64 *wstates, long long segsTotal, int segs, long long chunk, long long first,
                           long long m, int kind, u64 maxW, W *w) {
	long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (g >= segsTotal) {
		return;
	}
	long long lo, hi;
	gg_segment(g, segs, chunk, m, lo, hi);
	if (hi <= first) {
		return;
	}
	u64 s0 = wstates[4 * g], s1 = wstates[4 * g + 1], s2 = wstates[4 * g + 2], s3 = wstates[4 * g + 3];
	for (long long i = lo; i < hi; i++) {
		W wt = gg_weight<W>(gg_next(s0, s1, s2, s3), kind, maxW);
		if (i >= first) {
			w[2 * (i - first)] = wt;
			w[2 * (i - first) + 1] = wt;
		}
	}
}

extern "C" __global__ void gg_weights_f32(const u64 *wstates, long long segsTotal, int segs, long long chunk,
                                          long long first, long long m, int kind, u64 maxW, float *w) {
	gg_weights<float>(wstates, segsTotal, segs, chunk, first, m, kind, maxW, w);
}
extern "C" __global__ void gg_weights_f64(const u64 *wstates, long long segsTotal, int segs, long long chunk,
                                          long long first, long long m, int kind, u64 maxW, double *w) {
	gg_weights<double>(wstates, segsTotal, segs, chunk, first, m, kind, maxW, w);
}

// ---- numbering the arcs to keep ----

// gg_keep: arc i of the sorted keys is kept when it is no self-loop and
// the first of its run of equal keys.
__device__ __forceinline__ bool gg_keep(const u64 *keys, long long i, int scale) {
	u64 k = keys[i];
	u64 mask = (1ULL << scale) - 1;
	return (k >> scale) != (k & mask) && (i == 0 || keys[i - 1] != k);
}

// gg_place is the place of item i of a scan by tiles: pos[i], its place
// in its tile (at most GG_BLOCK·GG_SCAN_ITEMS, so 32 bits), plus
// sums[tile], the scanned tile totals (64 bits: a rank's arcs may number
// more than 2^32).
__device__ __forceinline__ u64 gg_place(const unsigned *pos, const long long *sums, long long i) {
	return (u64)pos[i] + (u64)sums[i / (GG_BLOCK * GG_SCAN_ITEMS)];
}

// ---- deduplication and the CSR ----

// gg_keep_scan numbers the arcs to keep (gg_keep) of the n sorted keys,
// tile blockIdx.x of GG_BLOCK·GG_SCAN_ITEMS arcs (each thread a run of
// GG_SCAN_ITEMS): pos[i] (i ≤ n) = the kept arcs before i in its tile,
// sums[tile] = the tile's kept arcs (arc n, past the end, is not kept;
// keys may be NULL for n = 0). Once sums is scanned (package transform's
// 64-bit ExclusiveScan), gg_place gives the CSR position.
extern "C" __global__ void gg_keep_scan(const u64 *keys, long long n, int scale, unsigned *pos, long long *sums) {
	__shared__ unsigned warpSum[GG_WARPS];
	int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	long long base = (long long)blockIdx.x * GG_BLOCK * GG_SCAN_ITEMS + (long long)tid * GG_SCAN_ITEMS;
	unsigned v[GG_SCAN_ITEMS];
	unsigned sum = 0;
	for (int k = 0; k < GG_SCAN_ITEMS; k++) {
		long long i = base + k;
		v[k] = i < n && gg_keep(keys, i, scale) ? 1u : 0u;
		sum += v[k];
	}
	unsigned incl = sum;
	for (int d = 1; d < 32; d <<= 1) {
		unsigned o = __shfl_up_sync(0xffffffffu, incl, d);
		if (lane >= d) {
			incl += o;
		}
	}
	if (lane == 31) {
		warpSum[warp] = incl;
	}
	__syncthreads();
	unsigned before = 0, total = 0;
	for (int k = 0; k < GG_WARPS; k++) {
		before += k < warp ? warpSum[k] : 0;
		total += warpSum[k];
	}
	unsigned at = before + incl - sum;
	for (int k = 0; k < GG_SCAN_ITEMS; k++) {
		if (base + k <= n) {
			pos[base + k] = at;
		}
		at += v[k];
	}
	if (tid == 0) {
		sums[blockIdx.x] = (long long)total;
	}
}

__device__ __forceinline__ unsigned gg_order(float f) {
	unsigned b = __float_as_uint(f);
	return (b >> 31) ? ~b : b | 0x80000000u;
}
__device__ __forceinline__ u64 gg_order(double f) {
	u64 b = (u64)__double_as_longlong(f);
	return (b >> 63) ? ~b : b | 0x8000000000000000ULL;
}

// gg_compact: pos and sums are gg_keep_scan's, scanned, so that
// gg_place(i) is the number of kept arcs before arc i (gg_place(n): all
// of them). A kept arc i goes to adj[gg_place(i)] with the least weight
// of its run; the first arc of each source s sets offsets[t] =
// gg_place(i) for every row t from the previous arc's source + 1 to s,
// the last arc the offsets after its source up to nv. Rows count from
// vertex lo (every source is in lo … lo+nv-1; lo = 0 for a whole graph).
// Launched with max(n, 1) threads: with no arcs (a rank's block may have
// none), thread 0 sets every offset to gg_place(0).
template <typename W>
__device__ void gg_compact(const u64 *keys, const W *w, long long n, int scale, const unsigned *pos,
                           const long long *sums, int *adj, W *wOut, long long *offsets, long long lo, long long nv) {
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (n == 0 && i == 0) {
		u64 none = gg_place(pos, sums, 0);
		for (long long t = 0; t <= nv; t++) {
			offsets[t] = (long long)none;
		}
	}
	if (i >= n) {
		return;
	}
	u64 k = keys[i];
	long long s = (long long)(k >> scale) - lo;
	u64 p = gg_place(pos, sums, i);
	if (gg_keep(keys, i, scale)) {
		adj[p] = (int)(k & ((1ULL << scale) - 1));
		if (w) {
			W best = w[i];
			for (long long j = i + 1; j < n && keys[j] == k; j++) {
				if (gg_order(w[j]) < gg_order(best)) {
					best = w[j];
				}
			}
			wOut[p] = best;
		}
	}
	long long prev = i == 0 ? -1 : (long long)(keys[i - 1] >> scale) - lo;
	for (long long t = prev + 1; t <= s; t++) {
		offsets[t] = (long long)p;
	}
	if (i == n - 1) {
		u64 all = gg_place(pos, sums, n);
		for (long long t = s + 1; t <= nv; t++) {
			offsets[t] = (long long)all;
		}
	}
}

extern "C" __global__ void gg_compact_f32(const u64 *keys, const float *w, long long n, int scale, const unsigned *pos,
                                          const long long *sums, int *adj, float *wOut, long long *offsets, long long lo,
                                          long long nv) {
	gg_compact<float>(keys, w, n, scale, pos, sums, adj, wOut, offsets, lo, nv);
}
extern "C" __global__ void gg_compact_f64(const u64 *keys, const double *w, long long n, int scale, const unsigned *pos,
                                          const long long *sums, int *adj, double *wOut, long long *offsets, long long lo,
                                          long long nv) {
	gg_compact<double>(keys, w, n, scale, pos, sums, adj, wOut, offsets, lo, nv);
}

// ---- partitioned graphs ----

// gg_owner_bounds: thread k (0 ≤ k ≤ size) writes to bounds[k] the first
// of the n sorted keys whose source is at least k·block (n when none),
// so that rank k's arcs, those of sources k·block … (k+1)·block-1, are
// bounds[k] … bounds[k+1]-1.
extern "C" __global__ void gg_owner_bounds(const u64 *keys, long long n, int scale, long long block, int size,
                                           long long *bounds) {
	long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (k > size) {
		return;
	}
	u64 want = (u64)(k * block) << scale;
	long long a = 0, b = n;
	while (a < b) {
		long long m = (a + b) / 2;
		if (keys[m] < want) {
			a = m + 1;
		} else {
			b = m;
		}
	}
	bounds[k] = a;
}
