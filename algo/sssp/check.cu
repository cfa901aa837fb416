// check.cu: the device check of a shortest-path result (Prepared.Check),
// the certificate of check.go's CheckTolerance computed where the graph
// already is. It shares nothing with sssp.cu: the searches lower
// distances, the check only reads distances and parents and tests every
// vertex and every arc once, in float64 with the CPU checker's formulas.
// The Go side compiles it with --fmad=false, so that no multiply-add is
// fused and every comparison rounds as the CPU's does.
//
// A failure is recorded as one 64-bit key, rule << 48 | index, kept at its
// minimum with atomicMin in ctl[CK_ERR]: the lowest rule wins, then the
// lowest vertex or arc, so the report does not depend on scheduling.
// ssspck_explain then writes what the host needs to word the error.
//
// Distances are double (+Inf: unreached), parents int (-1: none); weights
// float or double, or NULL for unit weights; every kernel is grid-stride
// over blocks of CK_BLOCK threads.
//
// The shared helpers (ck_fail, ck_inf, ck_warp_sum, ck_block_add), the
// types and CK_BLOCK, CK_FULL, CK_ERR are algo/internal/devcheck/check.cuh,
// and csr_tail, csr_advance algo/internal/devcsr/csr.cuh, both compiled
// before this file.

// Control words (the Go side, devcheck.go, declares the same).
#define CK_REACHED 1 // vertices with a finite distance
#define CK_ARCS 2    // arcs (CSR) leaving a reached vertex
#define CK_JUMPED 3  // the last pointer-jumping round that changed an ancestor
#define CK_FLAT 4    // reached vertices whose parent is not closer (ssspck_vertices)
#define CK_CHASE 5   // ≠ 0: ssspck_chase could not show the parents acyclic
#define CK_WORDS 6

// Forms of the arc pass (ssspck_explain reads the failing arc by it).
#define CK_FORM_CSR 0        // ssspck_csr_*: arc k
#define CK_FORM_COO 1        // ssspck_coo_*: 2e, 2e+1
#define CK_FORM_UNDIRECTED 2 // ssspck_undirected_*: 2k, 2k+1

// Rules, in the order they are reported (devcheck.go words them).
#define R_SOURCE 1    // Dist[src] = 0, Parents[src] = src
#define R_REACH 2     // no NaN or -Inf; unreached ⇔ no parent; parents reached
#define R_TREE 3      // following parents reaches the source
#define R_BOUND 4     // no arc can still shorten a distance
#define R_PARENTARC 5 // a tight arc joins each parent to its child

static __device__ __forceinline__ double ck_abs(double x) { return x < 0 ? -x : x; }

// ssspck_vertices checks the source and reach rules, counts the reached
// vertices and starts the pointer jumping: anc[v] = v's parent where it is
// a reached vertex, v itself otherwise. It counts in ctl[CK_FLAT] the
// flat vertices, v ≠ src with anc[v] = p ≠ v and not d[p] < d[v], and
// lists the first `cap` of them in flat (for ssspck_chase).
extern "C" __global__ void ssspck_vertices(const double *d, const int *par, i64 n, int src, int *anc, int *flat,
                                           u64 cap, u64 *ctl) {
	const double inf = ck_inf();
	u64 reached = 0;
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		double x = d[v];
		int p = par[v], a = (int)v;
		if (v == src) {
			if (x != 0 || p != src) ck_fail(ctl, R_SOURCE, v);
		} else if (x != x || x == -inf || (x == inf && p != -1)) {
			ck_fail(ctl, R_REACH, v);
		} else if (x != inf) {
			double dp = p < 0 || p >= n ? inf : d[p];
			if (dp == inf) {
				ck_fail(ctl, R_REACH, v);
			} else {
				a = p;
				if (!(dp < x)) {
					u64 i = atomicAdd(&ctl[CK_FLAT], 1ull);
					if (i < cap) flat[i] = (int)v;
				}
			}
		}
		anc[v] = a;
		if (x == x && x != inf && x != -inf) reached++;
	}
	ck_block_add(reached, &ctl[CK_REACHED]);
}

// ssspck_chase shows, when it can, that the parents hold no cycle, so that
// the pointer jumping is not needed: on a cycle the distances cannot all
// decrease, so every cycle holds a flat vertex; if each flat vertex
// reaches the source by following anc (the parents, before any jumping)
// within `steps` steps, no cycle exists, and every reached vertex reaches
// the source or a vertex that broke the reach rule (which is reported
// first). Otherwise, or when more than `cap` vertices are flat, it sets
// ctl[CK_CHASE] and the host runs the pointer jumping.
extern "C" __global__ void ssspck_chase(const int *anc, const int *flat, u64 cap, u64 steps, int src, u64 *ctl) {
	u64 count = ctl[CK_FLAT];
	i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (count > cap) {
		if (tid == 0) ctl[CK_CHASE] = 1;
		return;
	}
	for (i64 i = tid; i < (i64)count; i += (i64)gridDim.x * blockDim.x) {
		int x = flat[i];
		for (u64 s = 0; x != src && s < steps; s++) {
			int a = anc[x];
			if (a == x) break;
			x = a;
		}
		if (x != src) ctl[CK_CHASE] = 1;
	}
}

// ssspck_jump is round `round` of pointer jumping: anc[v] = anc[anc[v]].
// Reads racing with writes of this round see an ancestor at least as far
// up the same parent path, so after k rounds every anc[v] is 2^k steps up
// or at the path's end (the source, or a vertex that is its own anc). A
// round that changes an ancestor writes its number into ctl[CK_JUMPED]:
// once a round changes none, every anc[v] is a path's end (anc[anc[v]] ==
// anc[v]) and later rounds would change nothing either.
extern "C" __global__ void ssspck_jump(int *anc, i64 n, u64 round, u64 *ctl) {
	bool changed = false;
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		int a = anc[v], b = anc[a];
		if (b != a) {
			anc[v] = b;
			changed = true;
		}
	}
	if (changed) ctl[CK_JUMPED] = round;
}

// ck_arc_at checks the arc u→v of weight w (index idx in the error key),
// given du = d[u] and dv = d[v]: with slack = tol·(|d[u]| + |w|), d[v] ≤
// d[u] + w + slack (bound), and it marks v when u is v's parent and |d[v] −
// (d[u] + w)| ≤ slack. Arcs of infinite weight bound nothing. The parent
// is read only for a tight arc (few: the other arcs cost one gather,
// d[v]).
static __device__ __forceinline__ bool ck_arc_at(u64 idx, int u, int v, double w, double du, double dv,
                                                 const int *par, int src, double tol, u8 *mark, u64 *ctl) {
	if (du == ck_inf()) return false;
	if (w == ck_inf()) return true;
	double via = du + w;
	double slack = tol * (ck_abs(du) + ck_abs(w));
	if (dv > via + slack) ck_fail(ctl, R_BOUND, idx);
	if (ck_abs(dv - via) <= slack && v != src && par[v] == u) mark[v] = 1;
	return true;
}

// ck_arc is ck_arc_at reading d[u] and d[v].
static __device__ __forceinline__ bool ck_arc(u64 idx, int u, int v, double w, const double *d, const int *par,
                                              int src, double tol, u8 *mark, u64 *ctl) {
	return ck_arc_at(idx, u, v, w, d[u], d[v], par, src, tol, mark, ctl);
}

template <typename W> static __device__ __forceinline__ double ck_w(const W *ws, i64 k) {
	return ws ? (double)ws[k] : 1.0;
}

// ck_coo checks the m undirected edges of a COO in both directions: index
// 2e is start→end, 2e+1 end→start.
template <typename W>
static __device__ __forceinline__ void ck_coo(const int *st, const int *en, const W *ws, i64 m, const double *d,
                                              const int *par, int src, double tol, u8 *mark, u64 *ctl) {
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += (i64)gridDim.x * blockDim.x) {
		int a = st[e], b = en[e];
		double w = ck_w(ws, e);
		ck_arc(2 * (u64)e, a, b, w, d, par, src, tol, mark, ctl);
		ck_arc(2 * (u64)e + 1, b, a, w, d, par, src, tol, mark, ctl);
	}
}

extern "C" __global__ void ssspck_coo_w32(const int *st, const int *en, const float *ws, i64 m, const double *d,
                                          const int *par, int src, double tol, u8 *mark, u64 *ctl) {
	ck_coo<float>(st, en, ws, m, d, par, src, tol, mark, ctl);
}

extern "C" __global__ void ssspck_coo_w64(const int *st, const int *en, const double *ws, i64 m, const double *d,
                                          const int *par, int src, double tol, u8 *mark, u64 *ctl) {
	ck_coo<double>(st, en, ws, m, d, par, src, tol, mark, ctl);
}

#define CK_STEPS 8  // 32-arc steps per warp tile
// Blocks per SM the undirected pass is compiled for (__launch_bounds__):
// 4 caps it at 64 registers, for 50% occupancy instead of 37.5% at its
// natural 77; measured on the H100 at R-MAT s22, 1.77 → 1.59 ms.
#define CK_ARC_BLOCKS 4
#define CK_TILE 256 // arcs per warp tile (32·CK_STEPS)

// ck_csr checks the m arcs of a CSR in warp tiles of CK_TILE consecutive
// arcs (lane j takes arcs j, j+32, …: coalesced loads of adj and weights;
// one binary search per tile for its first tail, which each lane then
// advances; a lane loads the heads, weights and head distances of its
// CK_STEPS arcs before it checks them, so that those loads overlap), and
// counts the arcs that leave a reached vertex into ctl[CK_ARCS].
template <typename W>
static __device__ __forceinline__ void ck_csr(const i64 *off, const int *adj, const W *ws, i64 n, i64 m,
                                              const double *d, const int *par, int src, double tol, u8 *mark,
                                              u64 *ctl) {
	u64 arcs = 0;
	i64 tiles = (m + CK_TILE - 1) / CK_TILE, lane = threadIdx.x & 31;
	i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5, warps = ((i64)gridDim.x * blockDim.x) >> 5;
	for (i64 t = warp; t < tiles; t += warps) {
		i64 end = (t + 1) * CK_TILE < m ? (t + 1) * CK_TILE : m;
		i64 base = t * CK_TILE + lane;
		int u = csr_tail(off, n, t * CK_TILE), head[CK_STEPS];
		double w[CK_STEPS], dv[CK_STEPS];
#pragma unroll
		for (int s = 0; s < CK_STEPS; s++) {
			i64 k = base + 32 * s;
			head[s] = k < end ? adj[k] : 0;
			w[s] = k < end ? ck_w(ws, k) : 0;
		}
#pragma unroll
		for (int s = 0; s < CK_STEPS; s++) dv[s] = d[head[s]];
#pragma unroll
		for (int s = 0; s < CK_STEPS; s++) {
			i64 k = base + 32 * s;
			if (k >= end) break;
			u = csr_advance(off, n, u, k);
			if (ck_arc_at((u64)k, u, head[s], w[s], d[u], dv[s], par, src, tol, mark, ctl)) arcs++;
		}
	}
	ck_block_add(arcs, &ctl[CK_ARCS]);
}

extern "C" __global__ void ssspck_csr_w32(const i64 *off, const int *adj, const float *ws, i64 n, i64 m,
                                          const double *d, const int *par, int src, double tol, u8 *mark, u64 *ctl) {
	ck_csr<float>(off, adj, ws, n, m, d, par, src, tol, mark, ctl);
}

extern "C" __global__ void ssspck_csr_w64(const i64 *off, const int *adj, const double *ws, i64 n, i64 m,
                                          const double *d, const int *par, int src, double tol, u8 *mark, u64 *ctl) {
	ck_csr<double>(off, adj, ws, n, m, d, par, src, tol, mark, ctl);
}

// ck_undirected checks an undirected CSR, whose arcs come in pairs u→v,
// v→u of equal weight (graph.CSR's invariant; the COO check relies on the
// same): in warp tiles as ck_csr, it reads every arc's head and weight but
// gathers d[v] only for the arcs u→v with v ≥ u, and checks both
// directions of each (index 2k for arc k, 2k+1 for its reverse), so that
// every arc is checked once from half the gathers. It counts the arcs
// that leave a reached vertex into ctl[CK_ARCS], both directions.
template <typename W>
static __device__ __forceinline__ void ck_undirected(const i64 *off, const int *adj, const W *ws, i64 n, i64 m,
                                                     const double *d, const int *par, int src, double tol, u8 *mark,
                                                     u64 *ctl) {
	u64 arcs = 0;
	i64 tiles = (m + CK_TILE - 1) / CK_TILE, lane = threadIdx.x & 31;
	i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5, warps = ((i64)gridDim.x * blockDim.x) >> 5;
	for (i64 t = warp; t < tiles; t += warps) {
		i64 end = (t + 1) * CK_TILE < m ? (t + 1) * CK_TILE : m;
		i64 base = t * CK_TILE + lane;
		int u = csr_tail(off, n, t * CK_TILE), head[CK_STEPS], row[CK_STEPS];
		double w[CK_STEPS], dv[CK_STEPS];
#pragma unroll
		for (int s = 0; s < CK_STEPS; s++) {
			i64 k = base + 32 * s;
			head[s] = k < end ? adj[k] : -1;
			w[s] = k < end ? ck_w(ws, k) : 0;
		}
#pragma unroll
		for (int s = 0; s < CK_STEPS; s++) {
			i64 k = base + 32 * s;
			if (k < end) u = csr_advance(off, n, u, k);
			row[s] = k < end ? u : n;
		}
#pragma unroll
		for (int s = 0; s < CK_STEPS; s++) dv[s] = head[s] >= row[s] ? d[head[s]] : 0;
#pragma unroll
		for (int s = 0; s < CK_STEPS; s++) {
			int a = row[s], b = head[s];
			if (b < a) continue; // the reverse's turn, or past the end
			u64 k = (u64)(base + 32 * s);
			double da = d[a];
			if (ck_arc_at(2 * k, a, b, w[s], da, dv[s], par, src, tol, mark, ctl)) arcs++;
			if (b != a && ck_arc_at(2 * k + 1, b, a, w[s], dv[s], da, par, src, tol, mark, ctl)) arcs++;
		}
	}
	ck_block_add(arcs, &ctl[CK_ARCS]);
}

extern "C" __global__ __launch_bounds__(CK_BLOCK, CK_ARC_BLOCKS) void ssspck_undirected_w32(
		const i64 *off, const int *adj, const float *ws, i64 n, i64 m, const double *d, const int *par, int src,
		double tol, u8 *mark, u64 *ctl) {
	ck_undirected<float>(off, adj, ws, n, m, d, par, src, tol, mark, ctl);
}

extern "C" __global__ __launch_bounds__(CK_BLOCK, CK_ARC_BLOCKS) void ssspck_undirected_w64(
		const i64 *off, const int *adj, const double *ws, i64 n, i64 m, const double *d, const int *par, int src,
		double tol, u8 *mark, u64 *ctl) {
	ck_undirected<double>(off, adj, ws, n, m, d, par, src, tol, mark, ctl);
}

// ssspck_final checks, with tree ≠ 0 (after the pointer jumping), that
// parents lead every reached vertex to the source (anc), and that each
// reached vertex but the source was marked by a tight parent arc.
extern "C" __global__ void ssspck_final(const double *d, const int *anc, const u8 *mark, i64 n, int src, int tree,
                                        u64 *ctl) {
	const double inf = ck_inf();
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		if (d[v] == inf) continue;
		if (tree && anc[v] != src) ck_fail(ctl, R_TREE, v);
		if (v != src && !mark[v]) ck_fail(ctl, R_PARENTARC, v);
	}
}

// ssspck_explain (thread 0 of one warp) writes what the host words the
// failure of key with: info = {u, v, bits of d[u], bits of d[v], bits of
// w, parent of v, bits of d[parent of v]} where u→v of weight w is the
// arc of the bound rule (form CK_FORM_COO: index 2e or 2e+1 of the COO's
// edge e; CK_FORM_UNDIRECTED: 2k or 2k+1 of the CSR's arc k; CK_FORM_CSR:
// arc k; odd indices are the reverse direction), and u = v = the vertex of
// a vertex rule (w = 0). Indices outside [0, n) read as NaN distances and
// parent -2.
extern "C" __global__ void ssspck_explain(u64 key, int form, const int *st, const int *en, const i64 *off,
                                          const int *adj, const float *w32, const double *w64, i64 n,
                                          const double *d, const int *par, i64 *info) {
	if (blockIdx.x != 0 || threadIdx.x != 0) return;
	u64 rule = key >> 48, idx = key & ((1ull << 48) - 1);
	i64 u = (i64)idx, v = (i64)idx;
	double w = 0;
	if (rule == R_BOUND) {
		i64 k = form == CK_FORM_CSR ? (i64)idx : (i64)(idx / 2);
		if (form == CK_FORM_COO) {
			u = st[k];
			v = en[k];
		} else {
			u = csr_tail(off, n, k);
			v = adj[k];
		}
		if (form != CK_FORM_CSR && idx % 2) {
			i64 x = u;
			u = v;
			v = x;
		}
		w = w64 ? w64[k] : w32 ? (double)w32[k] : 1.0;
	}
	const double nan = __longlong_as_double(0x7ff8000000000000ll);
	int pv = v >= 0 && v < n ? par[v] : -2;
	info[0] = u;
	info[1] = v;
	info[2] = __double_as_longlong(u >= 0 && u < n ? d[u] : nan);
	info[3] = __double_as_longlong(v >= 0 && v < n ? d[v] : nan);
	info[4] = __double_as_longlong(w);
	info[5] = pv;
	info[6] = __double_as_longlong(pv >= 0 && pv < n ? d[pv] : nan);
}
