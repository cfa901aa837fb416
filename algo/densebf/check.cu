// check.cu: the device check of a dense Bellman-Ford result
// (Prepared.Check): the shortest-path certificate, tested in full on the
// matrix already on the device. It shares nothing with densebf.cu: the
// searches iterate pulls to a fixed point, the check reads the result
// once and tests every vertex and every entry of the matrix once, in the
// matrix's own arithmetic (float32 sums for float, exact integers for
// int), so a result the CPU's Run computed passes exactly.
//
// A failure is recorded as one 64-bit key, rule << 48 | index, kept at its
// minimum with atomicMin in ctl[CK_ERR]: the lowest rule wins, then the
// lowest vertex or entry, so the report does not depend on scheduling.
// The host words the error from the key (it holds the matrix and the
// result).
//
// Distances arrive as double (the result's float64 values, +Inf:
// unreached), parents as int (-1: none). The matrix is int (no edge:
// INF_I32 or more) or float (no edge: +Inf), row-major with entry (u, v)
// at u*n + v, or transposed (at v*n + u: the coarse method's layout).
//
// The shared helpers (ck_fail, ck_inf, ck_warp_sum, ck_block_add,
// csr_tail), the types and CK_BLOCK, CK_FULL, CK_ERR are
// algo/internal/devcheck/check.cuh, compiled before this file.

#define CK_TILE 256 // entries of the outer loop per block of the bound kernel
#define INF_I32 1073741823

// Control words (devcheck.go declares the same).
#define CK_WORDS 1

// Rules, in the order they are reported (devcheck.go words them).
#define R_SOURCE 1    // Dist[src] = 0, Parents[src] = src
#define R_REACH 2     // a distance of the matrix's type; unreached ⇔ no parent; parents reached
#define R_TREE 3      // following parents reaches the source
#define R_PARENTARC 4 // Dist[v] = Dist[p] + w(p, v), p = Parents[v], in the matrix's arithmetic
#define R_BOUND 5     // no entry can still shorten a distance

// Arith<T> is the matrix's arithmetic on the result's double distances.
template <typename T> struct Arith;

template <> struct Arith<int> {
	// valid: x is a reachable distance the int32 arithmetic can hold.
	static __device__ __forceinline__ bool valid(double x) {
		return x > -(double)INF_I32 && x < (double)INF_I32 && x == (double)(i64)x;
	}
	static __device__ __forceinline__ bool edge(int w) { return w < INF_I32; }
	// via is du + w exactly; +Inf when the sum reaches INF_I32 (a path
	// the int32 arithmetic counts as none).
	static __device__ __forceinline__ double via(double du, int w) {
		i64 s = (i64)du + (i64)w;
		return s >= INF_I32 ? ck_inf() : (double)s;
	}
};

template <> struct Arith<float> {
	static __device__ __forceinline__ bool valid(double x) {
		return x == x && x != ck_inf() && x != -ck_inf() && (double)(float)x == x;
	}
	static __device__ __forceinline__ bool edge(float w) { return w != __int_as_float(0x7f800000); }
	// via is the float32 sum, widened.
	static __device__ __forceinline__ double via(double du, float w) { return (double)((float)du + w); }
};

template <typename T> static __device__ __forceinline__ T ck_w(const T *m, int trans, i64 n, i64 u, i64 v) {
	return trans ? m[v * n + u] : m[u * n + v];
}

// ck_vertices checks the source, reach and parent-arc rules of every
// vertex and starts the pointer jumping: anc[v] = v's parent where v is
// reached (and not the source), v itself otherwise.
template <typename T>
static __device__ __forceinline__ void ck_vertices(const T *m, int trans, i64 n, int src, const double *d,
                                                   const int *par, int *anc, u64 *ctl) {
	const double inf = ck_inf();
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		double x = d[v];
		int p = par[v], a = (int)v;
		if (v == src) {
			if (x != 0 || p != src) ck_fail(ctl, R_SOURCE, v);
		} else if (x == inf) {
			if (p != -1) ck_fail(ctl, R_REACH, v);
		} else if (!Arith<T>::valid(x) || p < 0 || p >= n || p == v || !Arith<T>::valid(d[p])) {
			ck_fail(ctl, R_REACH, v);
		} else {
			a = p;
			T w = ck_w(m, trans, n, p, v);
			if (!Arith<T>::edge(w) || Arith<T>::via(d[p], w) != x) ck_fail(ctl, R_PARENTARC, v);
		}
		anc[v] = a;
	}
}

extern "C" __global__ void dbfck_vertices_i32(const int *m, int trans, i64 n, int src, const double *d,
                                              const int *par, int *anc, u64 *ctl) {
	ck_vertices<int>(m, trans, n, src, d, par, anc, ctl);
}

extern "C" __global__ void dbfck_vertices_f32(const float *m, int trans, i64 n, int src, const double *d,
                                              const int *par, int *anc, u64 *ctl) {
	ck_vertices<float>(m, trans, n, src, d, par, anc, ctl);
}

// dbfck_jump is one round of pointer jumping: anc[v] = anc[anc[v]]. Reads
// racing with writes of this round see an ancestor at least as far up the
// same parent path, so after k rounds every anc[v] is 2^k steps up or at
// the path's end (the source, or a vertex that is its own anc).
extern "C" __global__ void dbfck_jump(int *anc, i64 n) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		anc[v] = anc[anc[v]];
	}
}

// dbfck_final checks that parents lead every reached vertex to the source.
extern "C" __global__ void dbfck_final(const double *d, const int *anc, i64 n, int src, u64 *ctl) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		if (d[v] != ck_inf() && anc[v] != src) ck_fail(ctl, R_TREE, v);
	}
}

// ck_bound checks every entry u→v (u ≠ v) of the matrix: Dist[v] ≤
// Dist[u] + w(u, v) in the matrix's arithmetic, for a reached u and an
// edge. Tile t covers CK_TILE consecutive rows y of the layout and
// CK_BLOCK consecutive columns x (a thread each, so that the loads of a
// warp are consecutive): the entry at y*n + x is u→v with (u, v) = (y, x),
// or (x, y) when transposed. The failure index is u*n + v.
template <typename T>
static __device__ __forceinline__ void ck_bound(const T *m, int trans, i64 n, const double *d, u64 *ctl) {
	const double inf = ck_inf();
	i64 cols = (n + CK_BLOCK - 1) / CK_BLOCK, rows = (n + CK_TILE - 1) / CK_TILE;
	for (i64 t = blockIdx.x; t < cols * rows; t += gridDim.x) {
		i64 x = (t % cols) * CK_BLOCK + threadIdx.x;
		if (x >= n) continue;
		double dx = d[x];
		i64 y0 = (t / cols) * CK_TILE, y1 = y0 + CK_TILE < n ? y0 + CK_TILE : n;
		for (i64 y = y0; y < y1; y++) {
			if (y == x) continue;
			T w = m[y * n + x];
			if (!Arith<T>::edge(w)) continue;
			i64 u = trans ? x : y, v = trans ? y : x;
			double du = trans ? dx : d[y], dv = trans ? d[y] : dx;
			if (du == inf || du != du) continue; // the reach rule reports a NaN
			if (dv > Arith<T>::via(du, w) || dv != dv) ck_fail(ctl, R_BOUND, (u64)(u * n + v));
		}
	}
}

extern "C" __global__ void dbfck_bound_i32(const int *m, int trans, i64 n, const double *d, u64 *ctl) {
	ck_bound<int>(m, trans, n, d, ctl);
}

extern "C" __global__ void dbfck_bound_f32(const float *m, int trans, i64 n, const double *d, u64 *ctl) {
	ck_bound<float>(m, trans, n, d, ctl);
}
