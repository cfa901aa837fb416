// Kernels of the BFS over a group of GPUs (multi.go): a direction-
// optimizing search over a 1D partition, and its Graph500 check. Compiled
// at run time by NVRTC after chunks.cuh (no #include). Launched with
// blocks of MB_BLOCK threads.
//
// Rank r owns the vertices [lo, lo+B) (B = gpu.BlockSize, a multiple of 64,
// lo = r·B) and their arcs as a CSR (off: local rows, adj: global
// targets). Its levels and parents hold B entries, indexed by v - lo
// (entries past the last vertex stay -1). Bitmaps of all vertices (vis,
// cur, nxt) hold size·B bits as 32-bit words, so vertex v is bit v&31 of
// word v>>5 and rank r's vertices are the words [r·B/32, (r+1)·B/32).

typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;

#define MB_BLOCK 256
#define MB_MAX_RANKS 64
#define FULL_MASK 0xffffffffu

// Control words of mb_merge: [MB_NF] the frontier's vertices of the
// rank's block, [MB_MF] their arcs, [MB_NBIG] those of more than bigdeg
// arcs (listed apart: a top-down step spreads each one's arcs over the
// whole grid, where a warp alone would crawl through an R-MAT hub's
// millions); [MB_READ] the arcs a traced bottom-up step of the level read
// (counted by mb_bu); [MB_GNF], [MB_GMF] and [MB_GREAD] are MB_NF, MB_MF
// and MB_READ summed over the group (an AllReduce of words 0..2 into
// 4..6, multi.go). A rank has two sets (MB_CTL_WORDS each): level L's
// mb_bu and mb_merge count into set L&1, and mb_merge zeroes the other's
// counters for level L+1, so the host never clears them.
#define MB_NF 0
#define MB_MF 1
#define MB_READ 2
#define MB_NBIG 3
#define MB_GNF 4
#define MB_GMF 5
#define MB_GREAD 6
#define MB_CTL_WORDS 8

__device__ __forceinline__ bool bit(const u32 *bm, i64 v) { return (bm[v >> 5] >> (v & 31)) & 1u; }

__device__ __forceinline__ u64 mb_warp_sum(u64 x) {
	for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL_MASK, x, o);
	return x;
}

// mb_init starts a search from src: levels and parents -1 but the
// source's (when this rank owns it) 0 and itself; vis and cur empty, nxt
// holding the source alone (nw words each: the first level's mb_merge
// takes it from there); both control sets and the nx words of xc zero.
extern "C" __global__ void mb_init(int *levels, int *parents, i64 nb, i64 lo, int src, u32 *vis, u32 *cur, u32 *nxt, i64 nw,
                                   u64 *ctl0, u64 *ctl1, u64 *xc, int nx) {
	i64 tid = blockIdx.x * (i64)blockDim.x + threadIdx.x, threads = (i64)gridDim.x * blockDim.x;
	for (i64 i = tid; i < nb; i += threads) {
		bool s = lo + i == src;
		levels[i] = s ? 0 : -1;
		parents[i] = s ? src : -1;
	}
	for (i64 i = tid; i < nw; i += threads) {
		vis[i] = 0;
		cur[i] = 0;
		nxt[i] = i == (src >> 5) ? 1u << (src & 31) : 0;
	}
	if (tid < MB_CTL_WORDS) ctl0[tid] = ctl1[tid] = 0;
	for (i64 i = tid; i < nx; i += threads) xc[i] = 0;
}

// mb_merge ends a level, once nxt holds every rank's new vertices (nw
// words): it adds them to vis (only the words with new bits are written),
// lists those of the rank's block (words [own, own+lw), bit i = vertex
// lo+i) into q and the ones of more than bigdeg arcs into big, counting
// into ctl (MB_NF, MB_MF, MB_NBIG; zero before); and it clears what the
// next level fills: dead (the block's lw words of the other bitmap, the
// next nxt), ctlNext's counters and the nx words of xc. Queue order is
// unspecified. One atomic per warp and word group for the queue.
extern "C" __global__ void mb_merge(const u32 *nxt, u32 *vis, i64 nw, i64 own, i64 lw, i64 lo, const i64 *off, i64 bigdeg,
                                    int *q, int *big, u32 *dead, u64 *ctl, u64 *ctlNext, u64 *xc, int nx) {
	i64 tid = blockIdx.x * (i64)blockDim.x + threadIdx.x, threads = (i64)gridDim.x * blockDim.x;
	int lane = threadIdx.x & 31;
	if (tid <= MB_NBIG) ctlNext[tid] = 0;
	for (i64 i = tid; i < nx; i += threads) xc[i] = 0;
	u64 arcs = 0;
	for (i64 w0 = tid - lane; w0 < nw; w0 += threads) {
		i64 i = w0 + lane;
		u32 x = i < nw ? nxt[i] : 0;
		if (x) vis[i] |= x;
		bool mine = i >= own && i < own + lw;
		if (mine) dead[i - own] = 0;
		if (!mine) x = 0;
		int c = __popc(x), incl = c;
		for (int o = 1; o < 32; o <<= 1) {
			int y = __shfl_up_sync(FULL_MASK, incl, o);
			if (lane >= o) incl += y;
		}
		int total = __shfl_sync(FULL_MASK, incl, 31);
		if (total == 0) continue;
		u64 base = 0;
		if (lane == 31) base = atomicAdd(ctl + MB_NF, (u64)total);
		u64 at = __shfl_sync(FULL_MASK, base, 31) + (u64)(incl - c);
		while (x) {
			int b = __ffs(x) - 1;
			x &= x - 1;
			i64 li = (i - own) * 32 + b;
			q[at++] = (int)(lo + li);
			i64 deg = off[li + 1] - off[li];
			arcs += (u64)deg;
			if (deg > bigdeg) big[atomicAdd(ctl + MB_NBIG, 1ull)] = (int)(lo + li);
		}
	}
	arcs = mb_warp_sum(arcs);
	if (lane == 0 && arcs) atomicAdd(ctl + MB_MF, arcs);
}

// td_scan walks the arcs of the frontier q (nq vertices, a warp per vertex
// of at most bigdeg arcs) and of its big vertices (nbig, spread over the
// whole grid) and calls f(target, source) for every arc of the former
// whose target is not marked in vis, and g(valid, target, source) for the
// latter, from every thread of the block in each round (valid: the thread
// has an arc whose target is not marked), so that g may synchronise the
// block. The big vertices go a chunk of MB_BLOCK at a time: every block
// builds the prefix sums of the chunk's degrees in shared memory, then
// the grid strides over the chunk's arcs, each thread finding its vertex
// by binary search (chunks.cuh). (One vertex at a time, each spread over
// the grid, a level of 2,600 hubs with 16.3 M arcs took 2.3 ms at R-MAT
// scale 24 on a group of one, against 1.1 ms in the one-GPU search,
// H200.) Every thread of the block calls it; blocks of MB_BLOCK threads.
template <typename F, typename G>
__device__ __forceinline__ void td_scan(const int *q, i64 nq, const int *big, i64 nbig, i64 bigdeg, const i64 *off,
                                        const int *adj, i64 lo, const u32 *vis, F f, G g) {
	__shared__ i64 pre[MB_BLOCK + 1];
	__shared__ i64 start[MB_BLOCK];
	__shared__ int vid[MB_BLOCK];
	i64 tid = blockIdx.x * (i64)blockDim.x + threadIdx.x;
	i64 threads = (i64)gridDim.x * blockDim.x;
	i64 warp = tid >> 5, warps = threads >> 5;
	int lane = threadIdx.x & 31;
	for (i64 k = warp; k < nq; k += warps) {
		int u = q[k];
		i64 a = off[u - lo], e = off[u - lo + 1];
		if (e - a > bigdeg) continue;
		for (a += lane; a < e; a += 32) {
			int w = adj[a];
			if (!bit(vis, w)) f(w, u);
		}
	}
	const int t = threadIdx.x;
	for (i64 c0 = 0; c0 < nbig; c0 += MB_BLOCK) {
		const int cnt = nbig - c0 < MB_BLOCK ? (int)(nbig - c0) : MB_BLOCK;
		i64 d = 0;
		if (t < cnt) {
			int u = big[c0 + t];
			i64 s = off[u - lo];
			start[t] = s;
			vid[t] = u;
			d = off[u - lo + 1] - s;
		}
		pre[t + 1] = d;
		if (t == 0) pre[0] = 0;
		chunk_scan(pre, t, MB_BLOCK);
		const i64 total = pre[cnt];
		// Block-uniform rounds: g may synchronise the block.
		for (i64 a0 = tid - t; a0 < total; a0 += threads) {
			const i64 a = a0 + t;
			int w = -1, u = -1;
			if (a < total) {
				const int l = chunk_find(pre, cnt, a);
				w = adj[start[l] + (a - pre[l])];
				u = vid[l];
			}
			g(w >= 0 && !bit(vis, w), w, u);
		}
		__syncthreads();
	}
}

// mb_push appends the pair (w, u) to pairs (length in *n): one atomic per
// group of lanes that push together.
__device__ __forceinline__ void mb_push(int *pairs, u64 *n, int w, int u) {
	u32 mask = __activemask();
	int lane = threadIdx.x & 31;
	int leader = __ffs(mask) - 1;
	u64 base = 0;
	if (lane == leader) base = atomicAdd(n, (u64)__popc(mask));
	base = __shfl_sync(mask, base, leader);
	u64 at = base + __popc(mask & ((1u << lane) - 1u));
	pairs[2 * at] = w;
	pairs[2 * at + 1] = u;
}

// mb_block_push appends the pairs (w, u) of the block's threads that have
// one (push) to pairs (length in *n) with one atomic for the block: the
// big vertices' arcs, which the whole grid walks at once, would otherwise
// queue on the one length word, an atomic per warp (the one-GPU search's
// block_push says what that cost). Every thread of the block calls it;
// s_pairs holds 2·blockDim.x entries.
__device__ __forceinline__ void mb_block_push(bool push, int w, int u, int *pairs, u64 *n, int *s_pairs, int *s_n,
                                              u64 *s_base) {
	if (threadIdx.x == 0) *s_n = 0;
	__syncthreads();
	if (push) {
		int k = atomicAdd(s_n, 1);
		s_pairs[2 * k] = w;
		s_pairs[2 * k + 1] = u;
	}
	__syncthreads();
	const int k = *s_n;
	if (threadIdx.x == 0 && k != 0) *s_base = atomicAdd(n, (u64)k);
	__syncthreads();
	for (int i = threadIdx.x; i < 2 * k; i += blockDim.x) pairs[2 * *s_base + i] = s_pairs[i];
}

// mb_td_walk is a top-down step's one walk over the frontier's arcs: it
// claims the unvisited targets in the rank's own block at once (level,
// parent, bit in nxt: the rank's words) and appends a (target, source)
// pair for every unvisited target of another rank to stage (*nstage
// pairs, in no order; room for every arc of the frontier), counting them
// per owner: counts[o] += pairs whose target is in rank o's block (bsize
// vertices per block). A remote target gets one pair from this rank, not
// one per arc: the first arc to reach it marks it in vis (its owner will
// claim it at this level, so the mark is what the gathered frontier adds
// to vis anyway) and the others skip it. The big vertices' pairs are
// appended a block at a time (mb_block_push; not in a group of one, which
// has none).
extern "C" __global__ void mb_td_walk(const int *q, i64 nq, const int *big, i64 nbig, i64 bigdeg, const i64 *off, const int *adj,
                                      i64 lo, u32 *vis, i64 bsize, int ranks, int rank, int level, int *levels,
                                      int *parents, u32 *nxt, u64 *counts, u64 *nstage, int *stage) {
	__shared__ unsigned s_cnt[MB_MAX_RANKS];
	__shared__ int s_pairs[2 * MB_BLOCK];
	__shared__ int s_n;
	__shared__ u64 s_base;
	for (int i = threadIdx.x; i < ranks; i += blockDim.x) s_cnt[i] = 0;
	__syncthreads();
	// claim takes w for this rank's block, or reports that a pair (w, u)
	// is to be sent: w is another rank's, and this thread marked it first.
	auto claim = [&](int w, int u) -> bool {
		int o = (int)(w / bsize);
		if (o != rank) {
			u32 b = 1u << (w & 31);
			if (atomicOr(vis + (w >> 5), b) & b) return false; // sent already
			atomicAdd(&s_cnt[o], 1u);
			return true;
		}
		i64 li = w - lo;
		if (atomicCAS(levels + li, -1, level) == -1) {
			parents[li] = u;
			atomicOr(nxt + (li >> 5), 1u << (li & 31));
		}
		return false;
	};
	td_scan(
			q, nq, big, nbig, bigdeg, off, adj, lo, vis,
			[&](int w, int u) {
				if (claim(w, u)) mb_push(stage, nstage, w, u);
			},
			[&](bool valid, int w, int u) {
				const bool send = valid && claim(w, u);
				if (ranks > 1) mb_block_push(send, w, u, stage, nstage, s_pairs, &s_n, &s_base);
			});
	__syncthreads();
	for (int i = threadIdx.x; i < ranks; i += blockDim.x)
		if (s_cnt[i]) atomicAdd(counts + i, (u64)s_cnt[i]);
}

// mb_td_pack copies mb_td_walk's pairs from stage to send grouped by
// owner rank, in rank order (owner o's pairs start after those of the
// ranks before it, counts[·] pairs each): each block takes a contiguous
// share of the pairs, counts it per owner, reserves room with one atomic
// per owner on cursor (zero before) and writes.
extern "C" __global__ void mb_td_pack(const int *stage, const u64 *counts, i64 bsize, int ranks, u64 *cursor, int *send) {
	__shared__ unsigned s_cnt[MB_MAX_RANKS];
	__shared__ u64 s_base[MB_MAX_RANKS];
	__shared__ u64 s_total;
	if (threadIdx.x == 0) {
		u64 sum = 0;
		for (int i = 0; i < ranks; i++) {
			s_base[i] = sum;
			sum += counts[i];
		}
		s_total = sum;
	}
	for (int i = threadIdx.x; i < ranks; i += blockDim.x) s_cnt[i] = 0;
	__syncthreads();
	u64 share = (s_total + gridDim.x - 1) / gridDim.x;
	u64 from = blockIdx.x * share, to = from + share < s_total ? from + share : s_total;
	for (u64 i = from + threadIdx.x; i < to; i += blockDim.x) atomicAdd(&s_cnt[(int)(stage[2 * i] / bsize)], 1u);
	__syncthreads();
	for (int i = threadIdx.x; i < ranks; i += blockDim.x) {
		s_base[i] += s_cnt[i] ? atomicAdd(cursor + i, (u64)s_cnt[i]) : 0;
		s_cnt[i] = 0;
	}
	__syncthreads();
	for (u64 i = from + threadIdx.x; i < to; i += blockDim.x) {
		int w = stage[2 * i];
		int o = (int)(w / bsize);
		u64 at = s_base[o] + atomicAdd(&s_cnt[o], 1u);
		send[2 * at] = w;
		send[2 * at + 1] = stage[2 * i + 1];
	}
}

// mb_td_apply claims, for every received (target, source) pair whose
// target is still unvisited, the target at level with source as parent,
// and sets its bit in nxt (this rank's words: bit i = vertex lo+i).
extern "C" __global__ void mb_td_apply(const int *pairs, i64 np, i64 lo, int level, int *levels, int *parents, u32 *nxt) {
	for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < np; i += (i64)gridDim.x * blockDim.x) {
		i64 li = pairs[2 * i] - lo;
		if (atomicCAS(levels + li, -1, level) == -1) {
			parents[li] = pairs[2 * i + 1];
			atomicOr(nxt + (li >> 5), 1u << (li & 31));
		}
	}
}

// mb_bu is a bottom-up step: every unvisited vertex of the block looks for
// a neighbour in the frontier cur (a bitmap of all vertices) and, on the
// first found, takes level and that parent. A warp owns a 32-vertex word
// of the block: words whose vertices are all visited (vis, the bitmap of
// all vertices) cost one load, and the warp writes the word of nxt (this
// rank's words) with its finds, no atomics. A traced search passes ctl
// (the level's control set; NULL untraced) and gets the arcs read added
// to ctl[MB_READ], one atomic per block.
extern "C" __global__ void mb_bu(const i64 *off, const int *adj, i64 nl, i64 lo, int level, int *levels, int *parents,
                                 const u32 *vis, const u32 *cur, u32 *nxt, u64 *ctl) {
	__shared__ u64 s_read;
	if (threadIdx.x == 0) s_read = 0;
	u64 read = 0;
	int lane = threadIdx.x & 31;
	i64 warp = (blockIdx.x * (i64)blockDim.x + threadIdx.x) >> 5;
	i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
	i64 words = (nl + 31) / 32;
	const u32 *bvis = vis + (lo >> 5);
	for (i64 w = warp; w < words; w += warps) {
		u32 vw = bvis[w];
		if (vw == FULL_MASK) {
			if (lane == 0) nxt[w] = 0;
			continue;
		}
		i64 li = w * 32 + lane;
		bool found = false;
		if (li < nl && ((vw >> lane) & 1u) == 0) {
			i64 a = __ldg(off + li), e = __ldg(off + li + 1), s = a;
			for (; a < e; a++) {
				int u = __ldg(adj + a);
				if ((__ldg(cur + (u >> 5)) >> (u & 31)) & 1u) {
					levels[li] = level;
					parents[li] = u;
					found = true;
					break;
				}
			}
			read += (u64)((found ? a + 1 : e) - s);
		}
		u32 fm = __ballot_sync(FULL_MASK, found);
		if (lane == 0) nxt[w] = fm;
	}
	if (ctl != 0) { // uniform: every thread of the grid takes the same branch
		__syncthreads();
		read = mb_warp_sum(read);
		if (lane == 0 && read != 0) atomicAdd(&s_read, read);
		__syncthreads();
		if (threadIdx.x == 0 && s_read != 0) atomicAdd(ctl + MB_READ, s_read);
	}
}

// ---- the check ----
//
// glv holds every vertex's level (all ranks' levels gathered, index = the
// vertex). ck[2·rule] counts violations of a rule and ck[2·rule+1] holds
// the least vertex that broke it (start at ~0); ck[MBCK_REACHED] counts
// the block's reached vertices and ck[MBCK_ARCS] their arcs.
#define MBCK_ROOT 0        // the source has level 0 and is its own parent
#define MBCK_UNREACHED 1   // an unreached vertex has no parent
#define MBCK_TREE 2        // a reached vertex (not the source) has level > 0 and a parent one level up
#define MBCK_SPAN 3        // no arc joins a reached and an unreached vertex
#define MBCK_GAP 4         // arcs join levels at most 1 apart
#define MBCK_PARENT_ARC 5  // the parent arc is an arc of the graph
#define MBCK_RULES 6
#define MBCK_REACHED 12
#define MBCK_ARCS 13
#define MBCK_WORDS 14

__device__ __forceinline__ void ck_fail(u64 *ck, int rule, i64 v) {
	atomicAdd(ck + 2 * rule, 1ull);
	atomicMin(ck + 2 * rule + 1, (u64)v);
}

// mbck_clear starts the check words.
extern "C" __global__ void mbck_clear(u64 *ck) {
	int i = threadIdx.x;
	if (i < MBCK_WORDS) ck[i] = (i < 2 * MBCK_RULES && (i & 1)) ? ~0ull : 0;
}

// mbck_block checks the block's vertices and arcs, a warp per vertex.
extern "C" __global__ void mbck_block(const i64 *off, const int *adj, i64 nl, i64 lo, i64 n, int src, const int *levels,
                                      const int *parents, const int *glv, u64 *ck) {
	i64 warp = (blockIdx.x * (i64)blockDim.x + threadIdx.x) >> 5;
	i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
	int lane = threadIdx.x & 31;
	u64 reached = 0, arcs = 0;
	for (i64 li = warp; li < nl; li += warps) {
		i64 v = lo + li;
		int lv = levels[li], p = parents[li];
		i64 a = off[li], e = off[li + 1];
		if (lane == 0) {
			if (v == src) {
				if (lv != 0 || p != src) ck_fail(ck, MBCK_ROOT, v);
			} else if (lv < 0) {
				if (lv != -1 || p != -1) ck_fail(ck, MBCK_UNREACHED, v);
			} else if (lv == 0 || p < 0 || p >= n || glv[p] != lv - 1) {
				ck_fail(ck, MBCK_TREE, v);
			}
			if (lv >= 0) {
				reached++;
				arcs += (u64)(e - a);
			}
		}
		bool found = false;
		for (a += lane; a < e; a += 32) {
			int w = adj[a];
			int lw = glv[w];
			if ((lv < 0) != (lw < 0)) ck_fail(ck, MBCK_SPAN, v);
			else if (lv >= 0 && (lw - lv > 1 || lv - lw > 1)) ck_fail(ck, MBCK_GAP, v);
			if (w == p) found = true;
		}
		if (__ballot_sync(FULL_MASK, found) == 0 && lane == 0 && lv > 0) ck_fail(ck, MBCK_PARENT_ARC, v);
	}
	reached = mb_warp_sum(reached);
	arcs = mb_warp_sum(arcs);
	if (lane == 0) {
		if (reached) atomicAdd(ck + MBCK_REACHED, reached);
		if (arcs) atomicAdd(ck + MBCK_ARCS, arcs);
	}
}
