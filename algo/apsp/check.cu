// check.cu: the device check of an all-pairs result (Prepared.Check) on
// sampled source rows. It shares nothing with fw.cu: instead of
// Floyd-Warshall's k loop it recomputes each sampled row s by a
// single-source Bellman-Ford in float64 — frontier relaxation, only the
// vertices whose distance changed in the last round relax their out-edges
// — and compares the result's row with it entry by entry, then checks the
// row's predecessors (a tight edge into every reached vertex, and
// following them leads to s).
//
// A failure is recorded as one 64-bit key, rule << 48 | index, kept at its
// minimum with atomicMin in ctl[CK_ERR]: the lowest rule wins, then the
// lowest entry t*n + j (sample t, vertex j), so the report does not depend
// on scheduling. The host words the error.
//
// The input matrix m is int (no edge: INF_I32 or more) or float (no edge:
// +Inf), row-major, entry (i, j) at i*n + j, its diagonal ignored. The
// sampled rows of the result are dist (the matrix's type) and par (int,
// -1: none), k rows of n; the reference rows ref are double (+Inf:
// unreached; integer sums are exact in double).
//
// The shared helpers (ck_fail, ck_inf, ck_warp_sum, ck_block_add,
// csr_tail), the types and CK_BLOCK, CK_FULL, CK_ERR are
// algo/internal/devcheck/check.cuh, compiled before this file.

#define INF_I32 1073741823

// Control words (devcheck.go declares the same).
#define CK_CHANGED 1 // the last relaxation round that changed a distance
#define CK_MAXABS 2  // bits of the largest |finite entry| (float32 matrices)
#define CK_WORDS 4

// Rules, in the order they are reported (devcheck.go words them).
#define R_VALUE 1  // Dist[s][j] agrees with the reference
#define R_PARENT 2 // Parents[s][j]: s for s, -1 unreached, else a tight edge into j
#define R_TREE 3   // following Parents[s][·] from j reaches s

// Elem<T> reads entries and result values as double (+Inf: none).
template <typename T> struct Elem;
template <> struct Elem<int> {
	static __device__ __forceinline__ double get(int x) { return x >= INF_I32 ? ck_inf() : (double)x; }
};
template <> struct Elem<float> {
	static __device__ __forceinline__ double get(float x) { return (double)x; }
};

// apspck_maxabs_f32 records the largest |finite entry| off the diagonal
// (as the bits of a non-negative float, whose order is the numbers').
extern "C" __global__ void apspck_maxabs_f32(const float *m, i64 n, u64 *ctl) {
	unsigned best = 0;
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < n * n; e += (i64)gridDim.x * blockDim.x) {
		float x = m[e];
		if (e / n == e % n || x == __int_as_float(0x7f800000)) continue;
		unsigned b = __float_as_uint(x < 0 ? -x : x);
		best = b > best ? b : best;
	}
	if (best != 0) atomicMax(&ctl[CK_MAXABS], (u64)best);
}

// apspck_ref_init starts each sampled row t at its source src[t]:
// distance 0 there, +Inf elsewhere, the source in the frontier.
extern "C" __global__ void apspck_ref_init(double *ref, u8 *front, const int *src, int k, i64 n) {
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < k * n; e += (i64)gridDim.x * blockDim.x) {
		bool s = e % n == src[e / n];
		ref[e] = s ? 0 : ck_inf();
		front[e] = s;
	}
}

// ck_relax is one round: for row t and vertex j (a thread each), the
// least ref[t][i] + w(i, j) over the vertices i of the frontier (changed
// in the last round), written in place when it improves ref[t][j], which
// then joins the next frontier. Reads racing with this round's writes see
// older or newer distances, both lengths of real paths, so the rounds
// still converge to the shortest distances; ctl[CK_CHANGED] = round when
// one changed.
template <typename T>
static __device__ __forceinline__ void ck_relax(const T *m, i64 n, int k, double *ref, const u8 *front, u8 *next,
                                                int round, u64 *ctl) {
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < k * n; e += (i64)gridDim.x * blockDim.x) {
		i64 t = e / n, j = e % n;
		const double *row = ref + t * n;
		const u8 *f = front + t * n;
		double best = row[j];
		for (i64 i = 0; i < n; i++) {
			if (!f[i] || i == j) continue;
			double w = Elem<T>::get(m[i * n + j]);
			double c = row[i] + w;
			if (c < best) best = c;
		}
		if (best < row[j]) {
			ref[e] = best;
			next[e] = 1;
			atomicMax(&ctl[CK_CHANGED], (u64)round);
		}
	}
}

extern "C" __global__ void apspck_relax_i32(const int *m, i64 n, int k, double *ref, const u8 *front, u8 *next,
                                            int round, u64 *ctl) {
	ck_relax<int>(m, n, k, ref, front, next, round, ctl);
}

extern "C" __global__ void apspck_relax_f32(const float *m, i64 n, int k, double *ref, const u8 *front, u8 *next,
                                            int round, u64 *ctl) {
	ck_relax<float>(m, n, k, ref, front, next, round, ctl);
}

// ck_agree compares a result value with a reference value as Check does:
// reachability exactly; int32 exactly (true lengths ≥ INF_I32 are
// unreached); float32 within tol·S, S = |want|, or sneg when the matrix
// has negative entries (sneg > 0).
static __device__ __forceinline__ bool ck_agree(double got, double want, int isint, double tol, double sneg) {
	const double inf = ck_inf();
	if (isint && want >= INF_I32) want = inf;
	if (got == inf || want == inf) return got == inf && want == inf;
	if (isint) return got == want;
	double s = sneg > 0 ? sneg : (want < 0 ? -want : want);
	double d = got - want;
	return (d < 0 ? -d : d) <= tol * s;
}

// ck_rows checks each sampled entry (t, j): the value against the
// reference (R_VALUE) and, with par, its predecessor (R_PARENT); it
// starts the pointer jumping: anc[t][j] = the predecessor of a reached j
// other than the source, the source for an unreached j (nothing to
// follow), j itself otherwise.
template <typename T>
static __device__ __forceinline__ void ck_rows(const T *m, i64 n, int k, const int *src, const T *dist,
                                               const int *par, const double *ref, int isint, double tol, double sneg,
                                               int *anc, u64 *ctl) {
	const double inf = ck_inf();
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < k * n; e += (i64)gridDim.x * blockDim.x) {
		i64 t = e / n, j = e % n;
		int s = src[t];
		double got = Elem<T>::get(dist[e]);
		if (!ck_agree(got, ref[e], isint, tol, sneg)) ck_fail(ctl, R_VALUE, e);
		int a = (int)j;
		if (par) {
			int p = par[e];
			if (j == s) {
				if (p != s) ck_fail(ctl, R_PARENT, e);
			} else if (got == inf) {
				if (p != -1) ck_fail(ctl, R_PARENT, e);
				a = s;
			} else if (p < 0 || p >= n || p == j) {
				ck_fail(ctl, R_PARENT, e);
			} else {
				double w = Elem<T>::get(m[(i64)p * n + j]);
				double dp = Elem<T>::get(dist[t * n + p]);
				if (w == inf || !ck_agree(got, dp + w, isint, tol, sneg)) ck_fail(ctl, R_PARENT, e);
				a = p;
			}
		}
		anc[e] = a;
	}
}

extern "C" __global__ void apspck_rows_i32(const int *m, i64 n, int k, const int *src, const int *dist, const int *par,
                                           const double *ref, int isint, double tol, double sneg, int *anc, u64 *ctl) {
	ck_rows<int>(m, n, k, src, dist, par, ref, isint, tol, sneg, anc, ctl);
}

extern "C" __global__ void apspck_rows_f32(const float *m, i64 n, int k, const int *src, const float *dist,
                                           const int *par, const double *ref, int isint, double tol, double sneg,
                                           int *anc, u64 *ctl) {
	ck_rows<float>(m, n, k, src, dist, par, ref, isint, tol, sneg, anc, ctl);
}

// apspck_jump is one round of pointer jumping within each sampled row:
// anc[t][j] = anc[t][anc[t][j]] (reads racing with writes see ancestors
// at least as far up, so ⌈log₂ n⌉+1 rounds reach every path's end).
extern "C" __global__ void apspck_jump(int *anc, int k, i64 n) {
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < k * n; e += (i64)gridDim.x * blockDim.x) {
		i64 t = e / n;
		anc[e] = anc[t * n + anc[e]];
	}
}

// apspck_final checks that the predecessors of every reached entry lead
// to the row's source (unreached entries start there).
extern "C" __global__ void apspck_final(const int *anc, const int *src, int k, i64 n, u64 *ctl) {
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < k * n; e += (i64)gridDim.x * blockDim.x) {
		if (anc[e] != src[e / n]) ck_fail(ctl, R_TREE, e);
	}
}
