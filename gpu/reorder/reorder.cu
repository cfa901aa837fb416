// GPU kernels of package reorder: the reverse Cuthill-McKee order of
// graph.RCMOrder for all connected components at once (reorder.go has the
// plan). Generic steps (scans, the radix sort) are package
// gpu/transform's. No #include; every kernel is extern "C". Arc indices and
// counts are 64-bit, vertex ids 32-bit. Kernels over vertices run one
// thread per vertex; kernels over arcs take the lists cut in chunks of
// RCM_CHUNK arcs (rcm_chunks) and run a warp per chunk, so that a hub's
// list is spread over many warps and a small frontier costs little.
//
// Vertices are compared by their rank in (degree, id) order ("dk rank",
// rank[v]); a component is named by the least dk rank of its vertices
// (comp[v]), which orders the components as graph.RCMOrder starts them.
// Per-component arrays are indexed by that name.

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;

#define RCM_NONE 0x7fffffff // unreached / no candidate (INT_MAX)
#define RCM_FULL 0xffffffffu
#define RCM_CHUNK 256 // arcs per chunk of a frontier vertex's list

__device__ __forceinline__ i64 rcm_index() { return (i64)blockIdx.x * blockDim.x + threadIdx.x; }

// rcm_lane is the thread's lane in its warp; rcm_warps the number of
// warps of the grid (the stride of the loops over chunks, a warp each).
__device__ __forceinline__ int rcm_lane() { return threadIdx.x & 31; }
__device__ __forceinline__ i64 rcm_warps() { return ((i64)gridDim.x * blockDim.x) >> 5; }

// rcm_check flags (*bad = 1) an arc whose head is outside [0, n).
extern "C" __global__ void rcm_check(const int *adj, i64 m, int n, u32 *bad) {
	i64 k = rcm_index();
	if (k < m && (adj[k] < 0 || adj[k] >= n)) *bad = 1;
}

// rcm_degree_keys: keys[v] = degree << 32 | v, vals[v] = v (sorted, they
// give the (degree, id) order); rep[v] = v starts the components.
extern "C" __global__ void rcm_degree_keys(const i64 *off, int n, u64 *keys, u32 *vals, int *rep) {
	i64 v = rcm_index();
	if (v >= n) return;
	keys[v] = (u64)(off[v + 1] - off[v]) << 32 | (u64)v;
	vals[v] = (u32)v;
	rep[v] = (int)v;
}

// rcm_rank: rank[byDegree[i]] = i.
extern "C" __global__ void rcm_rank(const u32 *byDegree, int n, int *rank) {
	i64 i = rcm_index();
	if (i < n) rank[byDegree[i]] = (int)i;
}

// rcm_root follows rep from v to its tree's root (rep[x] <= x always),
// halving the path on the way: each vertex passed is pointed at its
// grandparent, which is still an ancestor, so concurrent finds and hooks
// stay correct.
__device__ int rcm_root(int *rep, int v) {
	volatile int *r = rep;
	int p = r[v];
	while (p != v) {
		int g = r[p];
		if (g == p) return p;
		r[v] = g;
		v = g;
		p = r[v];
	}
	return v;
}

// rcm_chunks cuts the lists of the vertices list[first, first+count) (list
// NULL: the vertices first, first+1, ...) into
// chunks of RCM_CHUNK arcs: chunks[j] = vertex << 32 | chunk index, at
// slots taken from *nchunks (one atomic per warp), so that the expansion
// balances hubs and leaves alike.
extern "C" __global__ void rcm_chunks(const int *list, int first, int count, const i64 *off, u64 *chunks,
                                      u32 *nchunks) {
	i64 i = rcm_index();
	int lane = rcm_lane();
	int u = 0;
	u32 nc = 0;
	if (i < count) {
		u = list ? list[first + i] : (int)(first + i);
		nc = (u32)((off[u + 1] - off[u] + RCM_CHUNK - 1) / RCM_CHUNK);
	}
	u32 inc = nc;
	for (int d = 1; d < 32; d <<= 1) {
		u32 y = __shfl_up_sync(RCM_FULL, inc, d);
		if (lane >= d) inc += y;
	}
	u32 total = __shfl_sync(RCM_FULL, inc, 31);
	u32 base = 0;
	if (lane == 31 && total) base = atomicAdd(nchunks, total);
	base = __shfl_sync(RCM_FULL, base, 31) + inc - nc;
	for (u32 j = 0; j < nc; j++) chunks[base + j] = (u64)(u32)u << 32 | j;
}

// rcm_chunk_arcs gives chunk c's vertex and its arcs [*start, *end).
__device__ __forceinline__ int rcm_chunk_arcs(const u64 *chunks, i64 c, const i64 *off, i64 *start, i64 *end) {
	u64 ch = chunks[c];
	int u = (int)(ch >> 32);
	*start = off[u] + (i64)(u32)ch * RCM_CHUNK;
	*end = off[u + 1] < *start + RCM_CHUNK ? off[u + 1] : *start + RCM_CHUNK;
	return u;
}

// rcm_hook joins the trees of each arc's ends, over the chunks of every
// vertex's list (a warp per chunk, over a grid-stride loop): the larger
// root is hooked under the smaller by a compare-and-swap, retried from the
// new root when another thread hooked it first. After one pass over every
// arc, each component is one tree.
extern "C" __global__ void rcm_hook(const u64 *chunks, const u32 *nchunks, const i64 *off, const int *adj, int *rep) {
	for (i64 c = rcm_index() >> 5; c < (i64)*nchunks; c += rcm_warps()) {
		i64 start, end;
		int u = rcm_chunk_arcs(chunks, c, off, &start, &end);
		for (i64 k = start + rcm_lane(); k < end; k += 32) {
			int a = rcm_root(rep, u), b = rcm_root(rep, adj[k]);
			while (a != b) {
				int hi = a > b ? a : b, lo = a > b ? b : a;
				int old = atomicCAS(&rep[hi], hi, lo);
				if (old == hi) break;
				a = rcm_root(rep, old);
				b = lo;
			}
		}
	}
}

// rcm_find follows rep from v to its tree's root without writing: once
// the hooking is over, the roots are final, and a walk that wrote (path
// halving) could store a stale ancestor over the root another thread has
// just given its vertex.
__device__ int rcm_find(const int *rep, int v) {
	const volatile int *r = rep;
	int p = r[v];
	while (p != v) {
		v = p;
		p = r[v];
	}
	return v;
}

// rcm_flatten points every vertex at its root and takes the least dk rank
// of each tree into least[root] (least filled with RCM_NONE before). Only
// v's own thread writes rep[v], and only the root: a vertex that another
// thread's walk still reads keeps pointing at one of its ancestors.
extern "C" __global__ void rcm_flatten(int n, int *rep, const int *rank, int *least) {
	i64 v = rcm_index();
	if (v >= n) return;
	int r = rcm_find(rep, (int)v);
	rep[v] = r;
	atomicMin(&least[r], rank[v]);
}

// rcm_label: comp[v] = the least dk rank of v's component (its name);
// the component's first vertex (its name's vertex) marks first[name] = 1
// (first zeroed before: scanned, it numbers the components in order), and
// starts George and Liu's search there: root[name] = try[name] = v,
// active when v has arcs.
extern "C" __global__ void rcm_label(int n, const int *rep, const int *least, const int *rank, const i64 *off,
                                     int *comp, i64 *first, int *root, int *try_, int *active) {
	i64 v = rcm_index();
	if (v >= n) return;
	int c = least[rep[v]];
	comp[v] = c;
	if (c == rank[v]) {
		first[c] = 1;
		root[c] = (int)v;
		try_[c] = (int)v;
		active[c] = off[v + 1] > off[v] ? 1 : 0;
	}
}

// rcm_slot returns, to each lane that wants one, a distinct slot taken
// from *count (one atomic per warp). Every lane of the warp must call it.
__device__ u32 rcm_slot(bool want, u32 *count) {
	u32 votes = __ballot_sync(RCM_FULL, want);
	int lane = rcm_lane();
	u32 base = 0;
	if (lane == 0 && votes) base = atomicAdd(count, (u32)__popc(votes));
	base = __shfl_sync(RCM_FULL, base, 0);
	return base + __popc(votes & ((1u << lane) - 1));
}

// rcm_seed starts a breadth-first search from try[c] for each active
// component c: dist 0 (dist filled with RCM_NONE before), and try[c] in
// the frontier front (its length counted in *count).
extern "C" __global__ void rcm_seed(int n, const int *comp, const int *rank, const int *try_, const int *active,
                                    int *dist, int *front, u32 *count) {
	i64 v = rcm_index();
	bool want = false;
	int r = 0;
	if (v < n) {
		int c = comp[v];
		if (c == rank[v] && active[c]) {
			r = try_[c];
			dist[r] = 0;
			want = true;
		}
	}
	u32 i = rcm_slot(want, count);
	if (want) front[i] = r;
}

// rcm_search_level expands the frontier's chunks (a warp per chunk, over a
// grid-stride loop): each arc to an unreached vertex puts that vertex in
// level+1 (one thread wins it by compare-and-swap) and in the next
// frontier, whose length *count counts.
extern "C" __global__ void rcm_search_level(const u64 *chunks, const u32 *nchunks, const i64 *off, const int *adj,
                                            int level, int *dist, int *next, u32 *count) {
	for (i64 c = rcm_index() >> 5; c < (i64)*nchunks; c += rcm_warps()) {
		i64 start, end;
		rcm_chunk_arcs(chunks, c, off, &start, &end);
		for (i64 a = start + rcm_lane(); a - rcm_lane() < end; a += 32) {
			int v = 0;
			bool put = false;
			if (a < end) {
				v = adj[a];
				put = dist[v] == RCM_NONE && atomicCAS(&dist[v], RCM_NONE, level + 1) == RCM_NONE;
			}
			u32 i = rcm_slot(put, count);
			if (put) next[i] = v;
		}
	}
}

// rcm_ecc: ecc[c] = the largest level reached in component c (ecc filled
// with -1 before).
extern "C" __global__ void rcm_ecc(int n, const int *comp, const int *dist, int *ecc) {
	i64 v = rcm_index();
	if (v < n && dist[v] != RCM_NONE) atomicMax(&ecc[comp[v]], dist[v]);
}

// rcm_last: cand[c] = the least dk rank in the last level of component c
// (cand filled with RCM_NONE before).
extern "C" __global__ void rcm_last(int n, const int *comp, const int *dist, const int *ecc, const int *rank,
                                   int *cand) {
	i64 v = rcm_index();
	if (v >= n || dist[v] == RCM_NONE) return;
	int c = comp[v];
	if (dist[v] == ecc[c]) atomicMin(&cand[c], rank[v]);
}

// rcm_move is one step of George and Liu's search in every active
// component c, after the search from try[c]: in the first round (the
// search from the start) the eccentricity is recorded; later, a search
// that did not reach further ends c's search (root stays), one that did
// moves the root to try[c]. Either way a continuing search next tries the
// least-(degree, id) vertex of its last level (byDegree[cand[c]]) and sets
// *more.
extern "C" __global__ void rcm_move(int n, int first, const int *comp, const int *rank, const u32 *byDegree,
                                    const int *ecc, const int *cand, int *root, int *best, int *try_, int *active,
                                    u32 *more) {
	i64 v = rcm_index();
	if (v >= n) return;
	int c = comp[v];
	if (c != rank[v] || !active[c]) return;
	if (!first) {
		if (ecc[c] <= best[c]) {
			active[c] = 0;
			return;
		}
		root[c] = try_[c];
	}
	best[c] = ecc[c];
	try_[c] = (int)byDegree[cand[c]];
	*more = 1;
}

// rcm_place_roots puts each component's root in Cuthill-McKee level 0 at
// its component's number: level[r] = 0, pos[r] = number, seq[number] = r
// (level filled with RCM_NONE before).
extern "C" __global__ void rcm_place_roots(int n, const int *comp, const int *rank, const int *root,
                                          const i64 *number, int *level, int *pos, int *seq) {
	i64 v = rcm_index();
	if (v >= n) return;
	int c = comp[v];
	if (c != rank[v]) return;
	int r = root[c], i = (int)number[c];
	level[r] = 0;
	pos[r] = i;
	seq[i] = r;
}

// rcm_parent expands the chunks of level cur (a warp per chunk, over a
// grid-stride loop): every unnumbered head of an arc from the level
// learns the least position in the level of such a tail (parent filled
// with RCM_NONE once: numbered vertices are never looked at again).
extern "C" __global__ void rcm_parent(const u64 *chunks, const u32 *nchunks, const i64 *off, const int *adj,
                                      const int *level, const int *pos, int *parent) {
	for (i64 c = rcm_index() >> 5; c < (i64)*nchunks; c += rcm_warps()) {
		i64 start, end;
		int u = rcm_chunk_arcs(chunks, c, off, &start, &end);
		int p = pos[u];
		for (i64 a = start + rcm_lane(); a < end; a += 32) {
			int v = adj[a];
			if (level[v] == RCM_NONE) atomicMin(&parent[v], p);
		}
	}
}

// rcm_count puts every unnumbered vertex with a parent in level L+1 and
// counts them into *count.
extern "C" __global__ void rcm_count(int n, int next, const int *parent, int *level, u32 *count) {
	i64 v = rcm_index();
	bool in = v < n && level[v] == RCM_NONE && parent[v] != RCM_NONE;
	if (in) level[v] = next;
	u32 votes = __ballot_sync(RCM_FULL, in);
	if ((threadIdx.x & 31) == 0 && votes) atomicAdd(count, (u32)__popc(votes));
}

// rcm_level_keys writes, for each vertex of level next, the sort key
// parent << shift | dk rank and the vertex, at a slot taken from *slot,
// into keys and vals of length len; the slots from count to len get the
// largest key (they sort last).
extern "C" __global__ void rcm_level_keys(int n, int next, const int *level, const int *parent, const int *rank,
                                          int shift, u32 *slot, u64 *keys, u32 *vals, int count, int len) {
	i64 v = rcm_index();
	bool in = v < n && level[v] == next;
	u32 i = rcm_slot(in, slot);
	if (in) {
		keys[i] = (u64)parent[v] << shift | (u64)rank[v];
		vals[i] = (u32)v;
	}
	if (v < (i64)len - count) {
		keys[count + v] = ~0ull;
		vals[count + v] = 0;
	}
}

// rcm_place: the i-th vertex of the sorted level takes position i in it
// and place base+i in the level-major sequence.
extern "C" __global__ void rcm_place(const u32 *vals, int count, int base, int *pos, int *seq) {
	i64 i = rcm_index();
	if (i >= count) return;
	int v = (int)vals[i];
	pos[v] = (int)i;
	seq[base + i] = v;
}

// rcm_comp_keys: keys[i] = the number of the component of seq[i],
// vals[i] = seq[i] (a stable sort by component then gives the
// Cuthill-McKee order).
extern "C" __global__ void rcm_comp_keys(int n, const int *seq, const int *comp, const i64 *number, u64 *keys,
                                         u32 *vals) {
	i64 i = rcm_index();
	if (i >= n) return;
	int v = seq[i];
	keys[i] = (u64)number[comp[v]];
	vals[i] = (u32)v;
}

// rcm_reverse: the i-th vertex of the Cuthill-McKee order gets the new id
// n-1-i: newID[v] = n-1-i, oldID[n-1-i] = v.
extern "C" __global__ void rcm_reverse(int n, const u32 *order, int *newID, int *oldID) {
	i64 i = rcm_index();
	if (i >= n) return;
	int v = (int)order[i], j = n - 1 - (int)i;
	newID[v] = j;
	oldID[j] = v;
}
