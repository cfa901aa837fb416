// check.cu: the device check of a spanning forest (DeviceCheck.Check),
// run on the device that holds the graph's CSR. It shares nothing with
// boruvka.cu: it never looks for minimum edges; it reads the forest and
// the graph and tests
//
//   - every forest edge: 0 ≤ U < V < n, an edge of the graph with its
//     weight (a thread per edge scans the shorter of its ends' lists);
//   - the forest: a lock-free union-find over the forest edges (hooking
//     the larger root under the smaller with atomicCAS, so each tree's
//     root is its smallest vertex); it has no cycle iff it has
//     n − (number of roots) edges (the host compares);
//   - spanning: every arc of the graph joins two vertices of one tree;
//   - the cycle property: for every edge {u, v} of the graph, w(u, v) ≥
//     the heaviest forest edge on the forest path from u to v. The forest
//     is rooted by an Euler tour (the arcs of the forest in a CSR, each
//     arc's successor the arc after its twin in the head's list, broken
//     at each root, ranked by pointer jumping: an edge's arc ranked first
//     points from parent to child), then binary lifting: tables of the
//     2^k-th ancestor and the heaviest edge on the way, k < L, and the
//     Euler ranks as ancestor test, answer each edge's path maximum in
//     O(L) reads.
//
// A failure is recorded as one 64-bit key, rule << 48 | index, kept at its
// minimum with atomicMin in ctl[CK_ERR]: the lowest rule wins, then the
// lowest edge or arc, so the report does not depend on scheduling.
//
// Vertices are int; forest edges eu, ev (int) and ew (double); graph
// weights float or double, or NULL (unit weights); forest-arc indices
// unsigned (2(n−1) < 2^32). Grid-stride kernels run over blocks of
// CK_BLOCK threads; the scan kernels need exactly their grid.
//
// The shared helpers (ck_fail, ck_inf, ck_warp_sum, ck_block_add,
// csr_tail), the types and CK_BLOCK, CK_FULL, CK_ERR are
// algo/internal/devcheck/check.cuh, compiled before this file.

#define CK_END 0xffffffffu // no successor: the last arc of a tour

// Control words (devcheck.go declares the same).
#define CK_ROOTS 1 // trees of the forest (union-find roots)
#define CK_DEEP 2  // k + 1 once lifting level k still has a vertex whose 2^k-th ancestor is not its root
#define CK_WORDS 4

// Rules, in the order they are reported (devcheck.go words them; the
// forest's cycles and the weights are decided on the host).
#define R_RANGE 1   // 0 ≤ U < V < n
#define R_EDGE 2    // an edge of the graph
#define R_WEIGHT 3  // with the forest edge's weight
#define R_SPAN 4    // an arc joins two trees
#define R_MINIMAL 5 // an edge is lighter than the heaviest forest edge on its path

template <typename W> static __device__ __forceinline__ double ck_w(const W *ws, i64 k) {
	return ws ? (double)ws[k] : 1.0;
}

// ck_edge_arcs checks forest edge i (weight w) against the arcs [k0, k1)
// of one of its ends: one of them must lead to the other end b with
// weight w (R_EDGE when none leads there, R_WEIGHT when none has w).
template <typename W>
static __device__ __forceinline__ void ck_edge_arcs(const int *adj, const W *ws, i64 k0, i64 k1, int b, double w, i64 i,
                                                    u64 *ctl) {
	bool found = false;
	for (i64 k = k0; k < k1; k++) {
		if (adj[k] == b) {
			if (ck_w(ws, k) == w) return;
			found = true;
		}
	}
	ck_fail(ctl, found ? R_WEIGHT : R_EDGE, i);
}

// ck_edges checks each forest edge i: its ends, and an arc between them
// of weight ew[i] in the shorter of the two lists.
template <typename W>
static __device__ __forceinline__ void ck_edges(const i64 *off, const int *adj, const W *ws, i64 n, const int *eu,
                                                const int *ev, const double *ew, i64 f, u64 *ctl) {
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < f; i += (i64)gridDim.x * blockDim.x) {
		int u = eu[i], v = ev[i];
		if (u < 0 || u >= v || v >= n) {
			ck_fail(ctl, R_RANGE, i);
			continue;
		}
		int a = u, b = v;
		if (off[v + 1] - off[v] < off[u + 1] - off[u]) a = v, b = u;
		ck_edge_arcs(adj, ws, off[a], off[a + 1], b, ew[i], i, ctl);
	}
}

extern "C" __global__ void mstck_edges_w32(const i64 *off, const int *adj, const float *ws, i64 n, const int *eu,
                                           const int *ev, const double *ew, i64 f, u64 *ctl) {
	ck_edges<float>(off, adj, ws, n, eu, ev, ew, f, ctl);
}

extern "C" __global__ void mstck_edges_w64(const i64 *off, const int *adj, const double *ws, i64 n, const int *eu,
                                           const int *ev, const double *ew, i64 f, u64 *ctl) {
	ck_edges<double>(off, adj, ws, n, eu, ev, ew, f, ctl);
}

// mstck_uf_init makes every vertex its own root.
extern "C" __global__ void mstck_uf_init(int *comp, i64 n) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) comp[v] = (int)v;
}

// ck_find returns x's root, halving the path on the way (each write
// moves a pointer to an ancestor, so racing finds and hooks stay valid).
static __device__ __forceinline__ int ck_find(int *comp, int x) {
	int p = comp[x];
	while (p != x) {
		int g = comp[p];
		if (g != p) comp[x] = g;
		x = p;
		p = g;
	}
	return x;
}

// mstck_uf_union joins the ends of every forest edge with ends in range:
// the larger root is hooked under the smaller with atomicCAS (retried
// when another hook got there first).
extern "C" __global__ void mstck_uf_union(const int *eu, const int *ev, i64 f, i64 n, int *comp) {
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < f; i += (i64)gridDim.x * blockDim.x) {
		int u = eu[i], v = ev[i];
		if (u < 0 || v < 0 || u >= n || v >= n) continue;
		for (;;) {
			int ru = ck_find(comp, u), rv = ck_find(comp, v);
			if (ru == rv) break;
			if (ru < rv) {
				int t = ru;
				ru = rv, rv = t;
			}
			if (atomicCAS(&comp[ru], ru, rv) == ru) break;
		}
	}
}

// ck_root returns x's root without writing: while mstck_uf_flatten
// runs, the only writes are roots, so a walk up sees ancestors only and
// every vertex ends pointing at its root. (ck_find's path halving there
// could store a stale ancestor over a root another thread had just
// written, leaving a vertex that looks like a tree of its own.)
static __device__ __forceinline__ int ck_root(const int *comp, int x) {
	for (int p = comp[x]; p != x; p = comp[x]) x = p;
	return x;
}

// mstck_uf_flatten points every vertex at its root (its tree's smallest
// vertex) and counts the roots into ctl[CK_ROOTS].
extern "C" __global__ void mstck_uf_flatten(int *comp, i64 n, u64 *ctl) {
	u64 roots = 0;
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		int r = ck_root(comp, (int)v);
		comp[v] = r;
		if (r == v) roots++;
	}
	roots = ck_warp_sum(roots);
	if ((threadIdx.x & 31) == 0 && roots != 0) atomicAdd(&ctl[CK_ROOTS], roots);
}

#define CK_CHUNK 8 // arcs per thread and binary search

// ck_arcs calls visit(u, k) for every arc k of a CSR of n rows and m arcs
// (off from 0), u its row, CK_CHUNK consecutive arcs per thread.
template <typename F> static __device__ __forceinline__ void ck_arcs(const i64 *off, i64 n, i64 m, F visit) {
	i64 chunks = (m + CK_CHUNK - 1) / CK_CHUNK;
	for (i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x; c < chunks; c += (i64)gridDim.x * blockDim.x) {
		i64 k = c * CK_CHUNK, end = k + CK_CHUNK < m ? k + CK_CHUNK : m;
		int u = csr_tail(off, n, k);
		for (; k < end; k++) {
			while (off[u + 1] <= k) u++;
			visit(u, k);
		}
	}
}

// mstck_span checks that every arc of the graph joins two vertices of one
// tree, CK_CHUNK consecutive arcs per thread.
extern "C" __global__ void mstck_span(const i64 *off, const int *adj, i64 n, i64 m, const int *comp, u64 *ctl) {
	ck_arcs(off, n, m, [&](int u, i64 k) {
		if (comp[u] != comp[adj[k]]) ck_fail(ctl, R_SPAN, (u64)k);
	});
}

// mstck_degree counts the forest arcs of every vertex (deg zeroed).
extern "C" __global__ void mstck_degree(const int *eu, const int *ev, i64 f, u32 *deg) {
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < f; i += (i64)gridDim.x * blockDim.x) {
		atomicAdd(&deg[eu[i]], 1u);
		atomicAdd(&deg[ev[i]], 1u);
	}
}

// ck_block_scan returns the inclusive prefix sum of x over the block
// (s: CK_BLOCK words of shared memory, readable until the next call);
// every thread calls it.
static __device__ __forceinline__ u32 ck_block_scan(u32 x, u32 *s) {
	s[threadIdx.x] = x;
	__syncthreads();
	for (int d = 1; d < CK_BLOCK; d <<= 1) {
		u32 add = threadIdx.x >= d ? s[threadIdx.x - d] : 0;
		__syncthreads();
		s[threadIdx.x] += add;
		__syncthreads();
	}
	return s[threadIdx.x];
}

// mstck_scan_local turns each block's CK_BLOCK entries of x (len in all)
// into their exclusive prefix sums within the block and writes the
// block's total to sums[block]. Grid: exactly ⌈len/CK_BLOCK⌉ blocks.
extern "C" __global__ void mstck_scan_local(u32 *x, i64 len, u32 *sums) {
	__shared__ u32 s[CK_BLOCK];
	i64 i = (i64)blockIdx.x * CK_BLOCK + threadIdx.x;
	u32 mine = i < len ? x[i] : 0;
	u32 inc = ck_block_scan(mine, s);
	if (i < len) x[i] = inc - mine;
	if (threadIdx.x == CK_BLOCK - 1) sums[blockIdx.x] = inc;
}

// mstck_scan_sums turns the nb block totals into their exclusive prefix
// sums, CK_BLOCK at a time. Grid: one block.
extern "C" __global__ void mstck_scan_sums(u32 *sums, i64 nb) {
	__shared__ u32 s[CK_BLOCK];
	__shared__ u32 carry;
	if (threadIdx.x == 0) carry = 0;
	__syncthreads();
	for (i64 base = 0; base < nb; base += CK_BLOCK) {
		i64 i = base + threadIdx.x;
		u32 mine = i < nb ? sums[i] : 0;
		u32 inc = ck_block_scan(mine, s);
		if (i < nb) sums[i] = carry + inc - mine;
		__syncthreads(); // every thread has read carry
		if (threadIdx.x == CK_BLOCK - 1) carry += inc;
		__syncthreads();
	}
}

// mstck_scan_add adds each block's offset: x then holds the exclusive
// prefix sums of the whole array. Grid: as mstck_scan_local's.
extern "C" __global__ void mstck_scan_add(u32 *x, i64 len, const u32 *sums) {
	i64 i = (i64)blockIdx.x * CK_BLOCK + threadIdx.x;
	if (i < len) x[i] += sums[blockIdx.x];
}

// mstck_fill places the two arcs of every forest edge i in the forest's
// CSR (cur: a copy of its offsets): to[a] the head, twin[a] the reverse
// arc, eid[a] = i.
extern "C" __global__ void mstck_fill(const int *eu, const int *ev, i64 f, u32 *cur, int *to, u32 *twin, u32 *eid) {
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < f; i += (i64)gridDim.x * blockDim.x) {
		int u = eu[i], v = ev[i];
		u32 a = atomicAdd(&cur[u], 1u), b = atomicAdd(&cur[v], 1u);
		to[a] = v, twin[a] = b, eid[a] = (u32)i;
		to[b] = u, twin[b] = a, eid[b] = (u32)i;
	}
}

// mstck_tour sets each forest arc's successor in its tree's Euler tour
// (the arc after its twin in the head's list, cyclically), ending the
// tour at the arc that returns to the root after the root's last arc;
// rank[a] starts as 1, 0 for that last arc.
extern "C" __global__ void mstck_tour(const u32 *foff, const int *to, const u32 *twin, const int *comp, i64 arcs,
                                      u32 *succ, u32 *rank) {
	for (i64 a = (i64)blockIdx.x * blockDim.x + threadIdx.x; a < arcs; a += (i64)gridDim.x * blockDim.x) {
		int y = to[a];
		u32 nxt = twin[a] + 1;
		if (nxt == foff[y + 1]) nxt = comp[y] == y ? CK_END : foff[y];
		succ[a] = nxt;
		rank[a] = nxt == CK_END ? 0 : 1;
	}
}

// mstck_rank is one round of list ranking (pointer jumping), from (succ,
// rank) into (succ2, rank2): after ⌈log₂ arcs⌉ + 1 rounds rank[a] is the
// number of arcs after a in its tour.
extern "C" __global__ void mstck_rank(const u32 *succ, const u32 *rank, u32 *succ2, u32 *rank2, i64 arcs) {
	for (i64 a = (i64)blockIdx.x * blockDim.x + threadIdx.x; a < arcs; a += (i64)gridDim.x * blockDim.x) {
		u32 s = succ[a];
		if (s == CK_END) {
			succ2[a] = s, rank2[a] = rank[a];
		} else {
			succ2[a] = succ[s], rank2[a] = rank[a] + rank[s];
		}
	}
}

template <typename W> static __device__ __forceinline__ W ck_neg_inf();
template <> __device__ __forceinline__ float ck_neg_inf<float>() { return __int_as_float(0xff800000); }
template <> __device__ __forceinline__ double ck_neg_inf<double>() {
	return __longlong_as_double(0xfff0000000000000ll);
}

// ck_orient roots the forest: par[v] = v, pw[v] = −∞, rin[v] = CK_END and
// rout[v] = 0 for a root (init), then for each edge the arc ranked first
// (more arcs after it) goes down from parent to child y: par[y], pw[y]
// the edge's weight, rin[y] and rout[y] the ranks of the arcs into and
// out of y's subtree. Vertex a is an ancestor of b (or b) iff rin[a] ≥
// rin[b] and rout[a] ≤ rout[b].
template <typename W>
static __device__ __forceinline__ void ck_root_init(i64 n, int *par, W *pw, u32 *rin, u32 *rout) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		par[v] = (int)v, pw[v] = ck_neg_inf<W>(), rin[v] = CK_END, rout[v] = 0;
	}
}

template <typename W>
static __device__ __forceinline__ void ck_orient(const int *to, const u32 *twin, const u32 *eid, const double *ew,
                                                 i64 arcs, const u32 *rank, int *par, W *pw, u32 *rin, u32 *rout) {
	for (i64 a = (i64)blockIdx.x * blockDim.x + threadIdx.x; a < arcs; a += (i64)gridDim.x * blockDim.x) {
		u32 t = twin[a];
		if (rank[a] > rank[t]) {
			int y = to[a];
			par[y] = to[t], pw[y] = (W)ew[eid[a]], rin[y] = rank[a], rout[y] = rank[t];
		}
	}
}

extern "C" __global__ void mstck_root_init_w32(i64 n, int *par, float *pw, u32 *rin, u32 *rout) {
	ck_root_init<float>(n, par, pw, rin, rout);
}
extern "C" __global__ void mstck_root_init_w64(i64 n, int *par, double *pw, u32 *rin, u32 *rout) {
	ck_root_init<double>(n, par, pw, rin, rout);
}
extern "C" __global__ void mstck_orient_w32(const int *to, const u32 *twin, const u32 *eid, const double *ew, i64 arcs,
                                            const u32 *rank, int *par, float *pw, u32 *rin, u32 *rout) {
	ck_orient<float>(to, twin, eid, ew, arcs, rank, par, pw, rin, rout);
}
extern "C" __global__ void mstck_orient_w64(const int *to, const u32 *twin, const u32 *eid, const double *ew,
                                            i64 arcs, const u32 *rank, int *par, double *pw, u32 *rin, u32 *rout) {
	ck_orient<double>(to, twin, eid, ew, arcs, rank, par, pw, rin, rout);
}

// mstck_deep records level k (ctl[CK_DEEP] ≥ k + 1) when some vertex's
// 2^k-th ancestor up[v] is not its root.
extern "C" __global__ void mstck_deep(const int *up, const int *comp, i64 n, int k, u64 *ctl) {
	bool deep = false;
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		deep = deep || up[v] != comp[v];
	}
	if (deep) atomicMax(&ctl[CK_DEEP], (u64)k + 1);
}

// ck_lift builds lifting level k from level k−1: up[v] = up'[up'[v]], the
// heaviest edge mx[v] = max(mx'[v], mx'[up'[v]]).
template <typename W>
static __device__ __forceinline__ void ck_lift(const int *up1, const W *mx1, int *up, W *mx, i64 n) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		int a = up1[v];
		W x = mx1[v], y = mx1[a];
		up[v] = up1[a];
		mx[v] = x > y ? x : y;
	}
}

extern "C" __global__ void mstck_lift_w32(const int *up1, const float *mx1, int *up, float *mx, i64 n) {
	ck_lift<float>(up1, mx1, up, mx, n);
}
extern "C" __global__ void mstck_lift_w64(const int *up1, const double *mx1, int *up, double *mx, i64 n) {
	ck_lift<double>(up1, mx1, up, mx, n);
}

// Lifting tables: levels k < L at the device addresses ups[k] (int) and
// mxs[k] (W); level 0 is par and pw.
template <typename W> struct Lift {
	const u64 *ups, *mxs;
	int L;
	const W *pw;
	const u32 *rin, *rout;

	__device__ __forceinline__ bool anc(int a, int b) const { return rin[a] >= rin[b] && rout[a] <= rout[b]; }

	// climb returns the heaviest edge on the path from x up to the child
	// of its lowest common ancestor with y (−∞ when x is that ancestor).
	__device__ __forceinline__ W climb(int x, int y) const {
		W m = ck_neg_inf<W>();
		if (anc(x, y)) return m;
		for (int k = L - 1; k >= 0; k--) {
			const int *up = (const int *)ups[k];
			const W *mx = (const W *)mxs[k];
			int z = up[x];
			if (!anc(z, y)) {
				m = mx[x] > m ? mx[x] : m;
				x = z;
			}
		}
		return pw[x] > m ? pw[x] : m;
	}

	// pathmax is the heaviest forest edge on the path between u and v
	// (one tree).
	__device__ __forceinline__ W pathmax(int u, int v) const {
		W a = climb(u, v), b = climb(v, u);
		return a > b ? a : b;
	}
};

// ck_minimal checks the cycle property on every edge {u, v} (its arc
// with u < v): w(u, v) ≥ the heaviest forest edge on the path between u
// and v, CK_CHUNK arcs per thread.
template <typename W>
static __device__ __forceinline__ void ck_minimal(const i64 *off, const int *adj, const W *ws, i64 n, i64 m,
                                                  const Lift<W> &lf, u64 *ctl) {
	ck_arcs(off, n, m, [&](int u, i64 k) {
		int v = adj[k];
		if (u < v && ws[k] < lf.pathmax(u, v)) ck_fail(ctl, R_MINIMAL, (u64)k);
	});
}

extern "C" __global__ void mstck_minimal_w32(const i64 *off, const int *adj, const float *ws, i64 n, i64 m, int L,
                                             const u64 *ups, const u64 *mxs, const float *pw, const u32 *rin,
                                             const u32 *rout, u64 *ctl) {
	Lift<float> lf{ups, mxs, L, pw, rin, rout};
	ck_minimal<float>(off, adj, ws, n, m, lf, ctl);
}

extern "C" __global__ void mstck_minimal_w64(const i64 *off, const int *adj, const double *ws, i64 n, i64 m, int L,
                                             const u64 *ups, const u64 *mxs, const double *pw, const u32 *rin,
                                             const u32 *rout, u64 *ctl) {
	Lift<double> lf{ups, mxs, L, pw, rin, rout};
	ck_minimal<double>(off, adj, ws, n, m, lf, ctl);
}

// ck_explain (thread 0) writes what the host words the failure of key
// with: info = {u, v, a, b, bits of x, bits of y} where for R_WEIGHT u–v
// is the forest edge and x the weight of the graph's first arc u→v; for
// R_SPAN u→v is the arc and a, b the roots of u's and v's trees; for
// R_MINIMAL u→v is the arc, x its weight and y the heaviest forest edge
// on the path (lf unset otherwise).
template <typename W>
static __device__ __forceinline__ void ck_explain(u64 key, const i64 *off, const int *adj, const W *ws, i64 n,
                                                  const int *eu, const int *ev, const int *comp, const Lift<W> &lf,
                                                  i64 *info) {
	if (blockIdx.x != 0 || threadIdx.x != 0) return;
	u64 rule = key >> 48, idx = key & ((1ull << 48) - 1);
	i64 u = -1, v = -1, a = -1, b = -1;
	double x = 0, y = 0;
	if (rule == R_WEIGHT) {
		u = eu[idx], v = ev[idx];
		for (i64 k = off[u]; k < off[u + 1]; k++) {
			if (adj[k] == v) {
				x = ck_w(ws, k);
				break;
			}
		}
	} else if (rule == R_SPAN || rule == R_MINIMAL) {
		u = csr_tail(off, n, (i64)idx), v = adj[idx];
		a = comp[u], b = comp[v];
		if (rule == R_MINIMAL) x = ck_w(ws, (i64)idx), y = (double)lf.pathmax((int)u, (int)v);
	}
	info[0] = u, info[1] = v, info[2] = a, info[3] = b;
	info[4] = __double_as_longlong(x), info[5] = __double_as_longlong(y);
}

extern "C" __global__ void mstck_explain_w32(u64 key, const i64 *off, const int *adj, const float *ws, i64 n,
                                             const int *eu, const int *ev, const int *comp, int L, const u64 *ups,
                                             const u64 *mxs, const float *pw, const u32 *rin, const u32 *rout,
                                             i64 *info) {
	Lift<float> lf{ups, mxs, L, pw, rin, rout};
	ck_explain<float>(key, off, adj, ws, n, eu, ev, comp, lf, info);
}

extern "C" __global__ void mstck_explain_w64(u64 key, const i64 *off, const int *adj, const double *ws, i64 n,
                                             const int *eu, const int *ev, const int *comp, int L, const u64 *ups,
                                             const u64 *mxs, const double *pw, const u32 *rin, const u32 *rout,
                                             i64 *info) {
	Lift<double> lf{ups, mxs, L, pw, rin, rout};
	ck_explain<double>(key, off, adj, ws, n, eu, ev, comp, lf, info);
}
