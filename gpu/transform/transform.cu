// GPU kernels of package transform: generic building blocks (exclusive
// scans, a stable LSD radix sort of (key, value) pairs, the arc → source
// map, the COO view of an undirected graph), compiled at run time by NVRTC.
// No #include; every kernel is extern "C" so transform.go finds it by name.
// Every kernel takes 64-bit element counts and computes its element index
// in 64 bits. Blocks are GT_BLOCK threads (the scans and the radix sort
// rely on it).

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;

#define GT_BLOCK 256
#define GT_WARPS (GT_BLOCK / 32)
#define GT_SCAN_ITEMS 8
#define GT_SCAN_TILE (GT_BLOCK * GT_SCAN_ITEMS)
#define GT_RADIX_ROUNDS 16
#define GT_RADIX_TILE (GT_BLOCK * GT_RADIX_ROUNDS)
#define GT_WARP_ITEMS (32 * GT_RADIX_ROUNDS)
#define GT_RADIX_DIGITS 256
#define GT_FULL 0xffffffffu

__device__ __forceinline__ i64 gt_index() { return (i64)blockIdx.x * blockDim.x + threadIdx.x; }

// gt_block_sum returns the sum of x over the block (every thread gets it).
__device__ i64 gt_block_sum(i64 x) {
	__shared__ i64 part[GT_WARPS];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(GT_FULL, x, d);
	if (lane == 0) part[warp] = x;
	__syncthreads();
	i64 s = 0;
	for (int w = 0; w < GT_WARPS; w++) s += part[w];
	__syncthreads();
	return s;
}

// gt_block_exclusive returns the sum of x over the threads before this one
// in the block.
__device__ i64 gt_block_exclusive(i64 x) {
	__shared__ i64 warpSum[GT_WARPS];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	i64 inc = x;
	for (int d = 1; d < 32; d <<= 1) {
		i64 y = __shfl_up_sync(GT_FULL, inc, d);
		if (lane >= d) inc += y;
	}
	if (lane == 31) warpSum[warp] = inc;
	__syncthreads();
	i64 before = 0;
	for (int w = 0; w < warp; w++) before += warpSum[w];
	__syncthreads();
	return before + inc - x;
}

// gt_scan_reduce: sums[b] = the sum of tile b of x[0, n) (tiles of
// GT_SCAN_TILE elements, each thread GT_SCAN_ITEMS consecutive ones).
extern "C" __global__ void gt_scan_reduce(const i64 *x, i64 n, i64 *sums) {
	i64 first = (i64)blockIdx.x * GT_SCAN_TILE + (i64)threadIdx.x * GT_SCAN_ITEMS;
	i64 s = 0;
	for (int j = 0; j < GT_SCAN_ITEMS; j++) {
		if (first + j < n) s += x[first + j];
	}
	s = gt_block_sum(s);
	if (threadIdx.x == 0) sums[blockIdx.x] = s;
}

// gt_scan_down: out[i] = carry[b] + the sum of x over tile b before i
// (carry NULL: 0), the exclusive scan; out may be x. The thread holding
// element n-1 also writes the total to out[n] (when withTotal) and to
// *total (when not NULL).
extern "C" __global__ void gt_scan_down(const i64 *x, i64 *out, i64 n, const i64 *carry, int withTotal, i64 *total) {
	i64 first = (i64)blockIdx.x * GT_SCAN_TILE + (i64)threadIdx.x * GT_SCAN_ITEMS;
	i64 v[GT_SCAN_ITEMS];
	i64 s = 0;
	for (int j = 0; j < GT_SCAN_ITEMS; j++) {
		v[j] = first + j < n ? x[first + j] : 0;
		s += v[j];
	}
	i64 run = gt_block_exclusive(s) + (carry ? carry[blockIdx.x] : 0);
	for (int j = 0; j < GT_SCAN_ITEMS; j++) {
		if (first + j < n) {
			out[first + j] = run;
			if (first + j == n - 1) {
				if (withTotal) out[n] = run + v[j];
				if (total) *total = run + v[j];
			}
		}
		run += v[j];
	}
}

// gt_key_diff ORs (keys[i] XOR keys[0]) over every i into *diff: the bits
// on which some key differs from the first.
extern "C" __global__ void gt_key_diff(const u64 *keys, i64 n, u64 *diff) {
	u64 d = 0;
	for (i64 i = gt_index(); i < n; i += (i64)gridDim.x * blockDim.x) d |= keys[i] ^ keys[0];
	for (int s = 16; s > 0; s >>= 1) d |= __shfl_xor_sync(GT_FULL, d, s);
	if ((threadIdx.x & 31) == 0 && d != 0) atomicOr(diff, d);
}

// ---- the radix sort: one pass per digit of at most 8 bits, three launches
// a pass (gt_radix_hist or gt_radix_hist8, a scan of its counts,
// gt_radix_scatter*) ----

// gt_radix_count: hist[digit * tiles + tile] = how many keys of tile (of
// GT_RADIX_TILE) have that digit, the width bits of the key at shift
// (width 1..8: 2^width digits, the rows of hist), read from the keys, or
// from digits (a byte per key) when it is not NULL. Each warp counts into
// its own row of shared counters (less contention on skewed digits).
__device__ void gt_radix_count(const u64 *keys, const unsigned char *digits, i64 n, int shift, int width, i64 *hist,
                               int tiles) {
	__shared__ u32 cnt[GT_WARPS][GT_RADIX_DIGITS];
	int warp = threadIdx.x >> 5;
	for (int w = 0; w < GT_WARPS; w++) cnt[w][threadIdx.x] = 0;
	__syncthreads();
	u32 mask = (1u << width) - 1;
	i64 first = (i64)blockIdx.x * GT_RADIX_TILE + threadIdx.x;
	for (int r = 0; r < GT_RADIX_ROUNDS; r++) {
		i64 i = first + (i64)r * GT_BLOCK;
		if (i < n) atomicAdd(&cnt[warp][digits ? digits[i] : (u32)(keys[i] >> shift) & mask], 1u);
	}
	__syncthreads();
	u32 s = 0;
	for (int w = 0; w < GT_WARPS; w++) s += cnt[w][threadIdx.x];
	if (threadIdx.x <= mask) hist[(i64)threadIdx.x * tiles + blockIdx.x] = s;
}

// gt_radix_hist counts the digits of the keys (the first pass);
// gt_radix_hist8 those the previous pass's gt_radix_scatter wrote, a byte
// per key (an eighth of the keys' bytes to read).
extern "C" __global__ void gt_radix_hist(const u64 *keys, i64 n, int shift, int width, i64 *hist, int tiles) {
	gt_radix_count(keys, 0, n, shift, width, hist, tiles);
}
extern "C" __global__ void gt_radix_hist8(const unsigned char *digits, i64 n, int width, i64 *hist, int tiles) {
	gt_radix_count(0, digits, n, 0, width, hist, tiles);
}

// gt_syncwarp orders the shared-memory accesses of a warp's lanes on the
// GPU; the emulator switches lanes only at collectives, which the ranking
// loop reaches before any lane reads what another wrote. GT_UNROLL keeps
// the per-thread arrays of the scatter in registers (NVRTC only).
#if defined(__CUDACC__)
#define gt_syncwarp() __syncwarp()
#define GT_UNROLL _Pragma("unroll")
#else
#define gt_syncwarp()
#define GT_UNROLL
#endif

// gt_radix_scatter moves the pairs of one tile to their places in three
// steps, so that the writes to global memory are runs of consecutive
// addresses rather than single elements:
//
//  1. rank: warp w takes the tile's elements [w·GT_WARP_ITEMS, …), 32 a
//     round in order; the lanes of a round that share a digit find each
//     other by ballots, and the lowest of them advances the warp's count of
//     that digit (wcnt), so each element learns its rank among the warp's
//     elements of its digit;
//  2. local order: per digit, the counts of the warps before and the
//     digit's first place in the tile (a block scan); each key goes to
//     buf at its place in the tile sorted stably by digit (the warps'
//     shares in order, each in index order);
//  3. write: thread t writes buf[t], buf[t + GT_BLOCK], … to pos (the
//     exclusive scan of gt_radix_hist's counts, 2^width rows of tiles:
//     the first global place of each digit of this tile) plus its rank in
//     the tile's digit, and beside each key, when dout is not NULL, its
//     digit of the next pass (the nwidth bits at nshift) for
//     gt_radix_hist8; then the values (when vin is not NULL) the same way
//     through buf.
//
// Shared memory: 32 KiB of keys (then values), 4 KiB of digits, 11 KiB of
// counters. Every element keeps its order among those of its digit, so
// the pass is stable.
template <typename V>
__device__ void gt_radix_scatter(const u64 *kin, const V *vin, u64 *kout, V *vout, i64 n, int shift, int width,
                                 const i64 *pos, int tiles, unsigned char *dout, int nshift, int nwidth) {
	__shared__ u64 buf[GT_RADIX_TILE];
	__shared__ unsigned char dig[GT_RADIX_TILE];
	__shared__ u32 wcnt[GT_WARPS][GT_RADIX_DIGITS];
	__shared__ u32 start[GT_RADIX_DIGITS];
	__shared__ i64 base[GT_RADIX_DIGITS];
	int t = threadIdx.x, lane = t & 31, warp = t >> 5;
	u32 mask = (1u << width) - 1;
	i64 place = (u32)t <= mask ? pos[(i64)t * tiles + blockIdx.x] : 0; // digit t's first place, loaded early
	for (int w = 0; w < GT_WARPS; w++) wcnt[w][t] = 0;
	__syncthreads();
	i64 tile0 = (i64)blockIdx.x * GT_RADIX_TILE;
	int valid = n - tile0 < GT_RADIX_TILE ? (int)(n - tile0) : GT_RADIX_TILE;
	int wfirst = warp * GT_WARP_ITEMS + lane;
	u64 key[GT_RADIX_ROUNDS]; // the keys, later the values
	u32 at[GT_RADIX_ROUNDS];  // step 1: rank << 8 | digit; step 2: the place in buf
	GT_UNROLL
	for (int r = 0; r < GT_RADIX_ROUNDS; r++) { // all loads in flight at once
		int j = wfirst + r * 32;
		key[r] = j < valid ? kin[tile0 + j] : 0;
	}
	GT_UNROLL
	for (int r = 0; r < GT_RADIX_ROUNDS; r++) {
		bool ok = wfirst + r * 32 < valid;
		u32 d = (u32)(key[r] >> shift) & mask;
		u32 peers = __ballot_sync(GT_FULL, ok);
		for (int b = 0; b < width; b++) {
			u32 bit = (d >> b) & 1;
			u32 set = __ballot_sync(GT_FULL, bit);
			peers &= bit ? set : ~set;
		}
		int leader = ok ? __ffs(peers) - 1 : lane;
		u32 before = 0;
		if (ok && leader == lane) {
			before = wcnt[warp][d];
			wcnt[warp][d] = before + __popc(peers);
		}
		before = __shfl_sync(GT_FULL, before, leader);
		gt_syncwarp();
		at[r] = (before + __popc(peers & ((1u << lane) - 1))) << 8 | d;
	}
	__syncthreads();
	u32 total = 0;
	for (int w = 0; w < GT_WARPS; w++) {
		u32 c = wcnt[w][t];
		wcnt[w][t] = total;
		total += c;
	}
	u32 first = (u32)gt_block_exclusive(total);
	start[t] = first;
	base[t] = place - first;
	__syncthreads();
	GT_UNROLL
	for (int r = 0; r < GT_RADIX_ROUNDS; r++) {
		if (wfirst + r * 32 < valid) {
			u32 d = at[r] & 255;
			u32 p = start[d] + wcnt[warp][d] + (at[r] >> 8);
			buf[p] = key[r];
			dig[p] = (unsigned char)d;
			at[r] = p;
		}
	}
	__syncthreads();
	u64 nmask = (1ULL << nwidth) - 1;
	for (int r = 0; r < GT_RADIX_ROUNDS; r++) {
		int i = r * GT_BLOCK + t;
		if (i < valid) {
			u64 k = buf[i];
			i64 g = base[dig[i]] + i;
			kout[g] = k;
			if (dout) dout[g] = (unsigned char)((k >> nshift) & nmask);
		}
	}
	if (vin == 0) return;
	V *vbuf = (V *)buf;
	__syncthreads();
	GT_UNROLL
	for (int r = 0; r < GT_RADIX_ROUNDS; r++) {
		int j = wfirst + r * 32;
		key[r] = j < valid ? (u64)vin[tile0 + j] : 0;
	}
	GT_UNROLL
	for (int r = 0; r < GT_RADIX_ROUNDS; r++) {
		if (wfirst + r * 32 < valid) vbuf[at[r]] = (V)key[r];
	}
	__syncthreads();
	for (int r = 0; r < GT_RADIX_ROUNDS; r++) {
		int i = r * GT_BLOCK + t;
		if (i < valid) vout[base[dig[i]] + i] = vbuf[i];
	}
}

// gt_radix_scatter32: a pass over pairs with 4-byte values (vin NULL: keys
// alone); gt_radix_scatter64: with 8-byte values.
extern "C" __global__ void gt_radix_scatter32(const u64 *kin, const u32 *vin, u64 *kout, u32 *vout, i64 n, int shift,
                                              int width, const i64 *pos, int tiles, unsigned char *dout, int nshift,
                                              int nwidth) {
	gt_radix_scatter<u32>(kin, vin, kout, vout, n, shift, width, pos, tiles, dout, nshift, nwidth);
}
extern "C" __global__ void gt_radix_scatter64(const u64 *kin, const u64 *vin, u64 *kout, u64 *vout, i64 n, int shift,
                                              int width, const i64 *pos, int tiles, unsigned char *dout, int nshift,
                                              int nwidth) {
	gt_radix_scatter<u64>(kin, vin, kout, vout, n, shift, width, pos, tiles, dout, nshift, nwidth);
}

// gt_copy_words: dst[i] = src[i] for i < n (a sort's values back into the
// caller's buffer, whatever their type).
extern "C" __global__ void gt_copy_words(const u32 *src, u32 *dst, i64 n) {
	i64 i = gt_index();
	if (i < n) dst[i] = src[i];
}

// gt_arc_source: src[k] = the vertex whose segment of off holds arc k
// (a binary search over the n+1 offsets).
extern "C" __global__ void gt_arc_source(const i64 *off, int n, i64 m, int *src) {
	i64 k = gt_index();
	if (k >= m) return;
	int lo = 0, hi = n; // off[lo] <= k < off[hi]
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		if (off[mid] <= k) lo = mid;
		else hi = mid;
	}
	src[k] = lo;
}

// gt_upper_count: keep[k] = 1 when arc k (from src[k]) goes to a larger
// id, else 0: the arcs of the COO view.
extern "C" __global__ void gt_upper_count(const int *src, const int *adj, i64 m, i64 *keep) {
	i64 k = gt_index();
	if (k < m) keep[k] = adj[k] > src[k] ? 1 : 0;
}

// gt_upper_scatter writes the kept arcs at their scanned places.
extern "C" __global__ void gt_upper_scatter(const int *src, const int *adj, const float *w32, const double *w64, i64 m,
                                            const i64 *at, int *start, int *end, float *o32, double *o64) {
	i64 k = gt_index();
	if (k >= m || adj[k] <= src[k]) return;
	i64 j = at[k];
	start[j] = src[k];
	end[j] = adj[k];
	if (w32) o32[j] = w32[k];
	if (w64) o64[j] = w64[k];
}

// gt_tile_keys: keys[k] = edge k's tile in (end segment, start segment)
// order, oriented start <= end (graph.PermuteCOO's order), segs segments
// of p vertices; vals[k] = k. An id outside [0, n) sets *bad.
extern "C" __global__ void gt_tile_keys(const int *start, const int *end, i64 m, int n, int p, i64 segs, u64 *keys,
                                        u32 *vals, u32 *bad) {
	i64 k = gt_index();
	if (k >= m) return;
	int a = start[k], b = end[k];
	if (a < 0 || a >= n || b < 0 || b >= n) {
		atomicOr(bad, 1u);
		a = b = 0;
	}
	if (a > b) {
		int t = a;
		a = b;
		b = t;
	}
	keys[k] = (u64)(b / p) * (u64)segs + (u64)(a / p);
	vals[k] = (u32)k;
}

// gt_permute_gather: edge i of the result is edge order[i] of the input,
// oriented start <= end, with its weight; index[i] = order[i] when index
// is not NULL.
extern "C" __global__ void gt_permute_gather(const u32 *order, const int *start, const int *end, const float *w32,
                                             const double *w64, i64 m, int *ostart, int *oend, float *o32,
                                             double *o64, i64 *index) {
	i64 i = gt_index();
	if (i >= m) return;
	u32 e = order[i];
	int a = start[e], b = end[e];
	ostart[i] = a < b ? a : b;
	oend[i] = a < b ? b : a;
	if (w32) o32[i] = w32[e];
	if (w64) o64[i] = w64[e];
	if (index) index[i] = e;
}
