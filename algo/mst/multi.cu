// multi.cu: Borůvka over a group of GPUs (multi.go), one rank per GPU, each
// holding a block of vertices [lo, lo+nl) and their arcs (a CSR of nl rows
// whose targets are global vertex numbers), and the part-wise rules of the
// group's device check. Compiled after devcsr's csr.cuh, devcheck's
// check.cuh and this package's check.cu (whose union-find, Euler tour and
// lifting kernels the group check launches as they are, and whose Lift
// tables and ck_fail these kernels use).
//
// Component labels comp[v] (all n vertices, on every rank) are vertex
// ids: a component's label is its root, comp[r] == r. A round:
//
//   - mmst_min_w*(pass 0): every arc u→v of the part whose ends lie in
//     different components lowers wkey[comp[u]], the ordered bits of its
//     weight (the host then takes the minimum over the group: AllReduce);
//   - mmst_min_w*(pass 1): the arcs of that weight lower ekey[comp[u]],
//     (smaller end << 32 | larger end) (AllReduce minimum again): with
//     the weight, the component's minimum outgoing edge in the package's
//     strict order (weight, smaller end, larger end);
//   - mmst_hook, mmst_choose, mmst_jump, mmst_relabel run identically on
//     every rank (same inputs, same labels): each component hooks to the
//     component across its edge, a mutual pair keeps the smaller label
//     as root, the edges of the components that hooked are appended to
//     the forest, pointer jumping finds the roots, labels follow them.
//
// Every kernel is grid-stride, without barriers or warp collectives.

// Control words of a rank (multi.go's mm* constants; a test compares).
#define MM_FOREST 1 // forest edges so far
#define MM_JUMPED 2 // mmst_jump: the pass number, when it moved a pointer
#define MM_NAN 3    // arcs with a NaN weight (mmst_min_w*, pass 0)
#define MM_WORDS 4

#define MM_NONE 0xffffffffffffffffull // no outgoing edge

// mm_key maps a weight (unit weights without ws) to bits whose unsigned
// order is the numeric order, −0 and +0 alike (gpu.go's ordered64).
template <typename W> static __device__ __forceinline__ u64 mm_key(const W *ws, i64 k) {
	double w = ws ? (double)ws[k] : 1.0;
	u64 b = w == 0.0 ? 0ull : (u64)__double_as_longlong(w);
	return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

// mm_min scans the part's m arcs, CK_CHUNK per thread: pass 0 lowers
// wkey of the tail's component with each arc that leaves it (and counts
// NaN weights), pass 1 lowers ekey with those whose key is wkey's.
template <typename W>
static __device__ __forceinline__ void mm_min(const i64 *off, const int *adj, const W *ws, i64 lo, i64 nl, i64 m,
                                              const int *comp, u64 *wkey, u64 *ekey, int pass, u64 *ctl) {
	u64 nan = 0;
	ck_arcs(off, nl, m, [&](int r, i64 k) {
		int u = (int)(lo + r), v = adj[k];
		int cu = comp[u];
		if (cu == comp[v]) return;
		if (ws && ws[k] != ws[k]) {
			if (pass == 0) nan++;
			return;
		}
		u64 key = mm_key(ws, k);
		if (pass == 0) {
			if (key < wkey[cu]) atomicMin(&wkey[cu], key);
		} else if (key == wkey[cu]) {
			u64 e = u < v ? (u64)u << 32 | (u64)(u32)v : (u64)v << 32 | (u64)(u32)u;
			if (e < ekey[cu]) atomicMin(&ekey[cu], e);
		}
	});
	if (nan != 0) atomicAdd(&ctl[MM_NAN], nan);
}

extern "C" __global__ void mmst_min_w32(const i64 *off, const int *adj, const float *ws, i64 lo, i64 nl, i64 m,
                                        const int *comp, u64 *wkey, u64 *ekey, int pass, u64 *ctl) {
	mm_min<float>(off, adj, ws, lo, nl, m, comp, wkey, ekey, pass, ctl);
}

extern "C" __global__ void mmst_min_w64(const i64 *off, const int *adj, const double *ws, i64 lo, i64 nl, i64 m,
                                        const int *comp, u64 *wkey, u64 *ekey, int pass, u64 *ctl) {
	mm_min<double>(off, adj, ws, lo, nl, m, comp, wkey, ekey, pass, ctl);
}

// mmst_init labels every vertex with itself.
extern "C" __global__ void mmst_init(int *comp, i64 n) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) comp[v] = (int)v;
}

// mmst_hook points every component c (comp[c] == c) at the component
// across its minimum outgoing edge (itself without one); other vertices
// point at themselves.
extern "C" __global__ void mmst_hook(const int *comp, const u64 *wkey, const u64 *ekey, i64 n, int *hook) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		int c = (int)v, h = c;
		if (comp[c] == c && wkey[c] != MM_NONE) {
			u64 e = ekey[c];
			int a = comp[(int)(e >> 32)], b = comp[(int)(u32)e];
			h = a == c ? b : a;
		}
		hook[c] = h;
	}
}

// mmst_choose breaks the mutual pairs of hook into root (the smaller
// label stays a root) and appends the edge of every component that
// hooked to the forest (fe: pairs of ekey, wkey, room for cap), so a
// mutual pair's edge is appended once. The order of the appended edges depends on
// timing; the host sorts the forest.
extern "C" __global__ void mmst_choose(const int *hook, const u64 *wkey, const u64 *ekey, i64 n, int *root, u64 *fe,
                                       u64 cap, u64 *ctl) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		int c = (int)v, d = hook[c];
		if (d != c && hook[d] == c && c < d) d = c;
		root[c] = d;
		if (d != c) {
			u64 at = atomicAdd(&ctl[MM_FOREST], 1ull);
			if (at < cap) fe[2 * at] = ekey[c], fe[2 * at + 1] = wkey[c];
		}
	}
}

// mmst_jump is one pass of pointer jumping on root (in place: a pointer
// only moves to an ancestor); it writes pass into ctl[MM_JUMPED] when it
// moved one.
extern "C" __global__ void mmst_jump(int *root, i64 n, u64 pass, u64 *ctl) {
	bool moved = false;
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		int p = root[v], g = root[p];
		if (g != p) {
			root[v] = g;
			moved = true;
		}
	}
	if (moved) ctl[MM_JUMPED] = pass;
}

// mmst_relabel moves every vertex to its component's new root.
extern "C" __global__ void mmst_relabel(int *comp, const int *root, i64 n) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		comp[v] = root[comp[v]];
	}
}

// ---- the group's device check (GroupResult.Check) ----
//
// Each rank holds the whole forest (eu, ev, ew) and its trees (comp: the
// union-find of check.cu, each vertex labelled with its tree's smallest
// vertex), and checks its own part: the forest edges whose smaller end
// it owns (rule 1), its arcs (rule 3) and, with the lifting tables of
// check.cu built over the forest, the cycle property on its arcs (rule
// 5). Failures are check.cu's keys, rule << 48 | index; an arc's index
// is global: base (the arcs of the lower ranks) + its index in the part.

// mm_ck_edges checks each forest edge i whose smaller end u is in the
// block: an arc u→v of the part with weight ew[i] (ends in range: the
// host checked them).
template <typename W>
static __device__ __forceinline__ void mm_ck_edges(const i64 *off, const int *adj, const W *ws, i64 lo, i64 nl,
                                                   const int *eu, const int *ev, const double *ew, i64 f, u64 *ctl) {
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < f; i += (i64)gridDim.x * blockDim.x) {
		i64 r = (i64)eu[i] - lo;
		if (r < 0 || r >= nl) continue;
		ck_edge_arcs(adj, ws, off[r], off[r + 1], ev[i], ew[i], i, ctl);
	}
}

extern "C" __global__ void mmst_ck_edges_w32(const i64 *off, const int *adj, const float *ws, i64 lo, i64 nl,
                                             const int *eu, const int *ev, const double *ew, i64 f, u64 *ctl) {
	mm_ck_edges<float>(off, adj, ws, lo, nl, eu, ev, ew, f, ctl);
}

extern "C" __global__ void mmst_ck_edges_w64(const i64 *off, const int *adj, const double *ws, i64 lo, i64 nl,
                                             const int *eu, const int *ev, const double *ew, i64 f, u64 *ctl) {
	mm_ck_edges<double>(off, adj, ws, lo, nl, eu, ev, ew, f, ctl);
}

// mmst_ck_span checks that every arc of the part joins two vertices of
// one tree, CK_CHUNK arcs per thread.
extern "C" __global__ void mmst_ck_span(const i64 *off, const int *adj, i64 lo, i64 nl, i64 m, u64 base,
                                        const int *comp, u64 *ctl) {
	ck_arcs(off, nl, m, [&](int r, i64 k) {
		if (comp[lo + r] != comp[adj[k]]) ck_fail(ctl, R_SPAN, base + (u64)k);
	});
}

// mm_ck_minimal checks the cycle property on every edge {u, v} of the
// part (its arc with u < v; the arc v→u is in v's part and skipped
// there): w(u, v) ≥ the heaviest forest edge on the forest path.
template <typename W>
static __device__ __forceinline__ void mm_ck_minimal(const i64 *off, const int *adj, const W *ws, i64 lo, i64 nl,
                                                     i64 m, u64 base, const Lift<W> &lf, u64 *ctl) {
	ck_arcs(off, nl, m, [&](int r, i64 k) {
		int u = (int)(lo + r), v = adj[k];
		if (u < v && ws[k] < lf.pathmax(u, v)) ck_fail(ctl, R_MINIMAL, base + (u64)k);
	});
}

extern "C" __global__ void mmst_ck_minimal_w32(const i64 *off, const int *adj, const float *ws, i64 lo, i64 nl, i64 m,
                                               u64 base, int L, const u64 *ups, const u64 *mxs, const float *pw,
                                               const u32 *rin, const u32 *rout, u64 *ctl) {
	Lift<float> lf{ups, mxs, L, pw, rin, rout};
	mm_ck_minimal<float>(off, adj, ws, lo, nl, m, base, lf, ctl);
}

extern "C" __global__ void mmst_ck_minimal_w64(const i64 *off, const int *adj, const double *ws, i64 lo, i64 nl,
                                               i64 m, u64 base, int L, const u64 *ups, const u64 *mxs,
                                               const double *pw, const u32 *rin, const u32 *rout, u64 *ctl) {
	Lift<double> lf{ups, mxs, L, pw, rin, rout};
	mm_ck_minimal<double>(off, adj, ws, lo, nl, m, base, lf, ctl);
}

// mm_ck_explain (thread 0) writes what the host words a failure with,
// as check.cu's ck_explain: info = {u, v, a, b, bits of x, bits of y}
// where for R_WEIGHT u–v is forest edge k (u in the block) and x the
// weight of the part's first arc u→v; for R_SPAN and R_MINIMAL u→v is
// arc k of the part, a and b the trees of u and v, x its weight and y
// (R_MINIMAL) the heaviest forest edge on the path (lf unset otherwise).
template <typename W>
static __device__ __forceinline__ void mm_ck_explain(int rule, i64 k, const i64 *off, const int *adj, const W *ws,
                                                     i64 lo, i64 nl, const int *eu, const int *ev, const int *comp,
                                                     const Lift<W> &lf, i64 *info) {
	if (blockIdx.x != 0 || threadIdx.x != 0) return;
	i64 u = -1, v = -1, a = -1, b = -1;
	double x = 0, y = 0;
	if (rule == R_WEIGHT) {
		u = eu[k], v = ev[k];
		for (i64 j = off[u - lo]; j < off[u - lo + 1]; j++) {
			if (adj[j] == v) {
				x = ck_w(ws, j);
				break;
			}
		}
	} else {
		u = lo + csr_tail(off, nl, k), v = adj[k];
		a = comp[u], b = comp[v];
		x = ck_w(ws, k);
		if (rule == R_MINIMAL) y = (double)lf.pathmax((int)u, (int)v);
	}
	info[0] = u, info[1] = v, info[2] = a, info[3] = b;
	info[4] = __double_as_longlong(x), info[5] = __double_as_longlong(y);
}

extern "C" __global__ void mmst_ck_explain_w32(int rule, i64 k, const i64 *off, const int *adj, const float *ws,
                                               i64 lo, i64 nl, const int *eu, const int *ev, const int *comp, int L,
                                               const u64 *ups, const u64 *mxs, const float *pw, const u32 *rin,
                                               const u32 *rout, i64 *info) {
	Lift<float> lf{ups, mxs, L, pw, rin, rout};
	mm_ck_explain<float>(rule, k, off, adj, ws, lo, nl, eu, ev, comp, lf, info);
}

extern "C" __global__ void mmst_ck_explain_w64(int rule, i64 k, const i64 *off, const int *adj, const double *ws,
                                               i64 lo, i64 nl, const int *eu, const int *ev, const int *comp, int L,
                                               const u64 *ups, const u64 *mxs, const double *pw, const u32 *rin,
                                               const u32 *rout, i64 *info) {
	Lift<double> lf{ups, mxs, L, pw, rin, rout};
	mm_ck_explain<double>(rule, k, off, adj, ws, lo, nl, eu, ev, comp, lf, info);
}
