// fw.cu: Floyd-Warshall on the GPU (docs/studies.md §4), compiled by NVRTC at
// run time (gpu.go). No headers; every kernel is extern "C" so that Go
// finds it by name.
//
// Layout: an n×n matrix padded to np×np (np a multiple of the tile for
// the blocked method), row-major, three planes of 4-byte entries:
//   d  distances: int (no path: INF_I32 = 2^30 - 1) or float (+inf);
//   p  predecessors: p[i][j] is the vertex before j on the path i→j, -1
//      for no path, p[i][i] = i (only with FW_PRED);
//   h  hop counts, the tie-break of equal distances (only with FW_HOPS).
// Padding vertices are isolated (0 on their diagonal, no edges), so they
// change no distance. The out-of-core method keeps the matrix on the
// host in blocks of K×K and streams them; its kernels take offsets into
// block-major buffers (see fw_mp).
//
// Compile-time configuration (-D from gpu.go):
//   FW_TILE  16, 32 or 64: the tile side of the blocked method
//   FW_PRED  1: keep predecessors; 0: distances only
//   FW_HOPS  1: among equally short paths prefer fewer edges (needs
//            FW_PRED): used when zero-weight cycles could otherwise close
//            a cycle of predecessors
//   FW_NEG   1: entries may be negative. int: infinite operands are
//            skipped and sums clamped at -INF_I32 (as the CPU's
//            relaxI32Neg); float: the products keep their compare (0:
//            the distances-only product takes fminf, and fw_init turns
//            an input's -0 into +0, so that no NaN and no -0 meets it)
//   FW_DPX   1: the int32 products use Hopper's DPX instructions (the
//            host sets it for compute capability 9.0 and later):
//            __viaddmin_s32(a, b, c) = min(a + b, c) for distances only,
//            __vibmin_s32(d, s, &keep) = min(d, s) with keep = (d <= s)
//            selecting the predecessor; the results are the generic
//            code's, bit for bit (FW_HOPS keeps the generic code, FW_NEG
//            its clamped sum). NVRTC 13 for sm_90 compiles the generic
//            distances-only update to the same VIADDMNMX, and
//            __vibmin_s32 to VIMNMX, ISETP and SEL as the generic update
//            with predecessors (measured: no change in time, issue 18)
//   FW_TRACED 1: the traced build (see "the two builds" below)
//
// Every update keeps D[i][j] = min(D[i][j], D[i][k] + D[k][j]) and, on a
// strict improvement (or a tie with fewer hops under FW_HOPS), copies the
// predecessor p[k][j]. The blocked method (Venkataraman, Sahni,
// Mukhopadhyaya; Katz and Kider on the GPU) runs, for each diagonal tile
// b: phase 1 (fw_phase1) closes tile (b,b) in shared memory, one block;
// phase 2 (fw_phase2) updates the tiles of row b and column b; phase 3
// (fw_phase3) all the others. Phases 2 and 3 are min-plus products
// C = min(C, A ⊗ B) with the closed diagonal tile (phase 2) or the final
// row and column tiles (phase 3) as operands: each thread keeps a REG×REG
// register tile of C, moved to and from memory in vectors of REG
// entries, and reads A and B from shared memory, 32 k at a time (the
// whole tile at once for distances only).

#ifndef FW_TILE
#define FW_TILE 64
#endif
#ifndef FW_PRED
#define FW_PRED 1
#endif
#ifndef FW_HOPS
#define FW_HOPS 0
#endif
#ifndef FW_NEG
#define FW_NEG 0
#endif
#ifndef FW_DPX
#define FW_DPX 0
#endif
#ifndef FW_TRACED
#define FW_TRACED 0
#endif

// ---- the two builds ----
//
// gpu.go compiles each configuration in two builds. The untraced one
// (FW_TRACED 0, no gpu/launchlog.cuh before it) is what every untraced
// run and every out-of-core run launches: no trace code at all, its
// kernels take the launch log's two arguments unnamed, so a reference to
// the log (llog_*, ent, nxt) outside #if FW_TRACED fails to compile
// there (TestUntracedBuild checks the preprocessed text). The traced one
// (-DFW_TRACED=1 after launchlog.cuh: gpu.PrependLaunchLog) is what a
// traced in-core run launches: each kernel that an in-core run launches
// (fw_init, fw_plain, the three phases, the CSR's three kernels, the
// rebuild kernels) stamps its span in the log, FW_LOG_BEGIN first and
// FW_LOG_END last, run by every thread (the bodies that return early are
// functions of their own). Both builds declare the same kernels with the
// same parameters (FW_LOG_PARAMS last: the log entries ent and nxt), so
// one Go launch path serves both; the host passes NULL for both
// untraced. fw_compact, fw_copy and fw_mp run outside the logged
// launches (the download; out of core) and take no log arguments.
//
// Why two builds: trace code compiled into every kernel, even skipped,
// slows untraced runs (MST's kernels ran 21% slower so, H100), and issue
// 17 asks that a trace cost nothing when off.
#if FW_TRACED
#define FW_LOG_PARAMS unsigned long long *ent, unsigned long long *nxt
#define FW_LOG_BEGIN(ent, nxt) llog_begin(ent, nxt)
#define FW_LOG_END(ent) llog_end(ent)
#else
#define FW_LOG_PARAMS unsigned long long *, unsigned long long *
#define FW_LOG_BEGIN(ent, nxt)
#define FW_LOG_END(ent)
#endif

typedef long long i64;

constexpr int TILE = FW_TILE;
constexpr int SIDE = 16;                  // threads per block side (16×16 = 256)
constexpr int THREADS = SIDE * SIDE;
constexpr int REG = TILE / SIDE;          // outputs per thread per side
// k-chunk of the products: with predecessors at most 32 (their plane
// would take the shared memory past 48 KiB at TILE 64), distances only
// the whole tile (one load of A and B per product of tiles, two
// barriers; 33 KiB at TILE 64: 3% faster for int32 and 8% for float32
// at n = 16384 on an H100 than chunks of 32, issue 18).
constexpr int KC = !FW_PRED ? TILE : (TILE < 32 ? TILE : 32);
constexpr int APAD = 4;                   // padding of the transposed A chunk (keeps 16-byte rows)
constexpr int INF_I32 = 1073741823;       // graph.InfI32

static_assert(TILE == 16 || TILE == 32 || TILE == 64, "FW_TILE must be 16, 32 or 64");
static_assert(!FW_HOPS || FW_PRED, "FW_HOPS needs FW_PRED");
static_assert(TILE * KC % THREADS == 0 && TILE * TILE % THREADS == 0, "tiles must split evenly over the threads");

// Phase 1 pads its rows by one entry when the planes still fit the 48 KiB
// of static shared memory (64×65 ints × 3 planes would not).
constexpr int P1PLANES = 1 + FW_PRED + FW_HOPS;
constexpr int PAD1 = (P1PLANES * TILE * (TILE + 1) * 4 <= 49152) ? 1 : 0;

template <typename T> struct Num;

template <> struct Num<int> {
	// exact: sums do not round.
	static constexpr bool exact = true;
	static __device__ __forceinline__ int inf() { return INF_I32; }
	static __device__ __forceinline__ bool finite(int x) { return x < INF_I32; }
	// an input entry: anything at or above INF_I32 means no edge.
	static __device__ __forceinline__ int clamp(int x) { return x < INF_I32 ? x : INF_I32; }
	static __device__ __forceinline__ int add(int a, int b) {
#if FW_NEG
		if (a >= INF_I32 || b >= INF_I32) {
			return INF_I32;
		}
		int s = a + b; // both in [-INF_I32, INF_I32): no overflow
		return s < -INF_I32 ? -INF_I32 : s;
#else
		return a + b; // both in [0, INF_I32]: at most 2·INF_I32 < 2^31
#endif
	}
};

template <> struct Num<float> {
	static constexpr bool exact = false;
	static __device__ __forceinline__ float inf() { return __int_as_float(0x7f800000); }
	static __device__ __forceinline__ bool finite(float x) { return x < __int_as_float(0x7f800000); }
#if FW_NEG
	static __device__ __forceinline__ float clamp(float x) { return x; }
#else
	// +0 for -0 (x + +0 is x for every other x), which fminf could
	// otherwise order differently from the generic compare.
	static __device__ __forceinline__ float clamp(float x) { return x + 0.0f; }
#endif
	static __device__ __forceinline__ float add(float a, float b) { return a + b; }
};

// improves reports whether the candidate (s, hs) replaces (d, h).
template <typename T> __device__ __forceinline__ bool improves(T s, T d, int hs, int h) {
#if FW_HOPS
	return s < d || (s == d && Num<T>::finite(s) && hs < h);
#else
	return s < d;
#endif
}

// addmin is min(c, a + b) with Num<T>::add's sum: the update of a
// distances-only product. With FW_DPX an int32 product without negative
// entries does it in one DPX instruction (the sum of two entries of
// [0, INF_I32] cannot overflow).
template <typename T> __device__ __forceinline__ T addmin(T a, T b, T c) {
	T s = Num<T>::add(a, b);
	return s < c ? s : c;
}

#if FW_DPX && !FW_NEG
template <> __device__ __forceinline__ int addmin<int>(int a, int b, int c) { return __viaddmin_s32(a, b, c); }
#endif

#if !FW_NEG
// Without negative entries no NaN arises (no -inf) and no -0 (fw_init),
// so fminf, one FMNMX, gives the generic compare's result; the compare
// and select it replaces are two instructions.
template <> __device__ __forceinline__ float addmin<float>(float a, float b, float c) { return fminf(c, a + b); }
#endif

// lower takes the candidate s for the entry (d, p) when s < d, with p
// becoming pv: the update of a product with predecessors and without hop
// counts. With FW_DPX an int32 product selects with a DPX min that also
// says which operand won (keep: d <= s, so ties keep d and p as the
// generic code does).
template <typename T> __device__ __forceinline__ void lower(T s, T &d, int &p, int pv) {
	if (s < d) {
		d = s;
		p = pv;
	}
}

#if FW_DPX
template <> __device__ __forceinline__ void lower<int>(int s, int &d, int &p, int pv) {
	bool keep;
	d = __vibmin_s32(d, s, &keep);
	p = keep ? p : pv;
}
#endif

// Pack is REG consecutive entries, aligned for one vector load from
// shared memory.
template <typename T, int N> struct alignas(sizeof(T) * N) Pack {
	T v[N];
};

// ---- element-wise kernels ----

// init: the working matrix from the input (in: n×n, row-major; d, p, h:
// np×np). in may be d itself when np == n (each entry is read and
// written by the same thread).
template <typename T> __device__ __forceinline__ void init_body(const T *in, i64 n, T *d, int *p, int *h, i64 np) {
	i64 total = np * np;
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (i64)gridDim.x * blockDim.x) {
		i64 i = e / np, j = e - i * np;
		T v;
		if (i == j) {
			v = 0;
		} else if (i < n && j < n) {
			v = Num<T>::clamp(in[i * n + j]);
		} else {
			v = Num<T>::inf();
		}
		d[e] = v;
#if FW_PRED
		p[e] = (i == j || Num<T>::finite(v)) ? (int)i : -1;
#endif
#if FW_HOPS
		h[e] = i == j ? 0 : 1;
#endif
	}
}

extern "C" __global__ void fw_init_i32(const int *in, i64 n, int *d, int *p, int *h, i64 np, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	init_body<int>(in, n, d, p, h, np);
	FW_LOG_END(ent);
}

extern "C" __global__ void fw_init_f32(const float *in, i64 n, float *d, int *p, int *h, i64 np, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	init_body<float>(in, n, d, p, h, np);
	FW_LOG_END(ent);
}

// fw_compact copies the top-left n×n entries of an np×np plane of 4-byte
// entries (any type) into a dense n×n array.
extern "C" __global__ void fw_compact(const int *src, i64 np, int *dst, i64 n) {
	i64 total = n * n;
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (i64)gridDim.x * blockDim.x) {
		i64 i = e / n;
		dst[e] = src[i * np + (e - i * n)];
	}
}

// fw_copy copies count 4-byte entries from src+soff to dst+doff (the
// regions do not overlap).
extern "C" __global__ void fw_copy(int *dst, i64 doff, const int *src, i64 soff, i64 count) {
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += (i64)gridDim.x * blockDim.x) {
		dst[doff + e] = src[soff + e];
	}
}

// ---- plain Floyd-Warshall: one launch per k over the n×n matrix ----

// Row k and column k do not change during step k (D[k][k] = 0 cannot
// shorten them), so threads may read them while others write.
//
// A traced run logs only the first launch of each k-block (traceKBlock
// k's) and the run's last from the traced build; the block's other
// launches come from the untraced build, unlogged (gpu.go's
// plainLaunches): most of fw_plain's threads return after one load, so
// any trace instruction a thread runs shows in the run's time (rome99
// on an H100: 7.4-8.0% with every launch traced, issue 17).
template <typename T> __device__ __forceinline__ void plain_body(T *d, int *p, int *h, int n, int k) {
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i >= n || j >= n) {
		return;
	}
	i64 row = (i64)i * n, krow = (i64)k * n;
	T a = d[row + k];
	if (!Num<T>::finite(a)) {
		return;
	}
	T s = Num<T>::add(a, d[krow + j]);
	int hs = 0, hc = 0;
#if FW_HOPS
	hs = h[row + k] + h[krow + j];
	hc = h[row + j];
#endif
	if (improves<T>(s, d[row + j], hs, hc)) {
		d[row + j] = s;
#if FW_PRED
		p[row + j] = p[krow + j];
#endif
#if FW_HOPS
		h[row + j] = hs;
#endif
	}
}

extern "C" __global__ void fw_plain_i32(int *d, int *p, int *h, int n, int k, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	plain_body<int>(d, p, h, n, k);
	FW_LOG_END(ent);
}

extern "C" __global__ void fw_plain_f32(float *d, int *p, int *h, int n, int k, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	plain_body<float>(d, p, h, n, k);
	FW_LOG_END(ent);
}

// ---- blocked Floyd-Warshall ----
//
// The blocked kernels address the matrix as base + row·ld + column (in
// entries): the whole padded matrix (base 0, ld np), or one K×K block of
// the out-of-core buffers (ld K). Blocks are 16×16 threads; thread
// (tx, ty) owns rows ty·REG … ty·REG+REG-1 and columns tx·REG … of a tile.

// phase 1: the k-steps of the diagonal tile b on the tile itself, one
// block, in shared memory with a barrier per k.
template <typename T> __device__ __forceinline__ void phase1_body(T *d, int *p, int *h, i64 base, i64 ld, int b) {
	__shared__ T sd[TILE][TILE + PAD1];
#if FW_PRED
	__shared__ int sp[TILE][TILE + PAD1];
#endif
#if FW_HOPS
	__shared__ int sh[TILE][TILE + PAD1];
#endif
	const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * SIDE + tx;
	const i64 t0 = base + (i64)b * TILE * ld + (i64)b * TILE;
#pragma unroll
	for (int it = 0; it < TILE * TILE / THREADS; it++) {
		int e = tid + it * THREADS, r = e / TILE, c = e % TILE;
		i64 g = t0 + r * ld + c;
		sd[r][c] = d[g];
#if FW_PRED
		sp[r][c] = p[g];
#endif
#if FW_HOPS
		sh[r][c] = h[g];
#endif
	}
	__syncthreads();
	T cd[REG][REG];
	int ch[REG][REG];
#if FW_PRED
	int cp[REG][REG];
#endif
#pragma unroll
	for (int a = 0; a < REG; a++) {
#pragma unroll
		for (int q = 0; q < REG; q++) {
			int r = ty * REG + a, c = tx * REG + q;
			cd[a][q] = sd[r][c];
			ch[a][q] = 0;
#if FW_PRED
			cp[a][q] = sp[r][c];
#endif
#if FW_HOPS
			ch[a][q] = sh[r][c];
#endif
		}
	}
	for (int k = 0; k < TILE; k++) {
		T bk[REG];
		int hk[REG];
#if FW_PRED
		int pk[REG];
#endif
#pragma unroll
		for (int q = 0; q < REG; q++) {
			bk[q] = sd[k][tx * REG + q];
			hk[q] = 0;
#if FW_PRED
			pk[q] = sp[k][tx * REG + q];
#endif
#if FW_HOPS
			hk[q] = sh[k][tx * REG + q];
#endif
		}
#pragma unroll
		for (int a = 0; a < REG; a++) {
			int r = ty * REG + a;
			T ak = sd[r][k];
			int hak = 0;
#if FW_HOPS
			hak = sh[r][k];
#endif
#pragma unroll
			for (int q = 0; q < REG; q++) {
				T s = Num<T>::add(ak, bk[q]);
				int hs = hak + hk[q];
				if (improves<T>(s, cd[a][q], hs, ch[a][q])) {
					int c = tx * REG + q;
					cd[a][q] = s;
					ch[a][q] = hs;
					sd[r][c] = s;
#if FW_PRED
					cp[a][q] = pk[q];
					sp[r][c] = pk[q];
#endif
#if FW_HOPS
					sh[r][c] = hs;
#endif
				}
			}
		}
		__syncthreads();
	}
#pragma unroll
	for (int a = 0; a < REG; a++) {
#pragma unroll
		for (int q = 0; q < REG; q++) {
			i64 g = t0 + (i64)(ty * REG + a) * ld + tx * REG + q;
			d[g] = cd[a][q];
#if FW_PRED
			p[g] = cp[a][q];
#endif
#if FW_HOPS
			h[g] = ch[a][q];
#endif
		}
	}
}

// product: the TILE×TILE tile of C at cin (read) / cout (written) takes
// min(C, A ⊗ B), A the TILE×L strip at aoff, B the L×TILE strip at boff,
// all with row stride ld. Predecessors come from B's plane (the vertex
// before j on the path k→j), hops add A's and B's. C is read into
// registers first and written last, so C may be one of A and B (phase 2)
// as long as no other block writes what this one reads.
template <typename T>
__device__ __forceinline__ void product_body(const T *cind, const int *cinp, const int *cinh, i64 cin, T *coutd,
                                             int *coutp, int *couth, i64 cout, const T *ad, const int *ah, i64 aoff,
                                             const T *bd, const int *bp, const int *bh, i64 boff, i64 ld, int L) {
	alignas(16) __shared__ T sa[KC][TILE + APAD]; // A transposed: sa[k][i]
	alignas(16) __shared__ T sb[KC][TILE];
#if FW_PRED
	alignas(16) __shared__ int sbp[KC][TILE];
#endif
#if FW_HOPS
	alignas(16) __shared__ int sah[KC][TILE + APAD];
	alignas(16) __shared__ int sbh[KC][TILE];
#endif
	const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * SIDE + tx;
	T cd[REG][REG];
	int ch[REG][REG];
#if FW_PRED
	int cp[REG][REG];
#endif
	// C's rows in vectors of REG entries: every offset is a multiple of
	// the tile (ld of TILE, cin and cout of REG), so the vectors align.
#pragma unroll
	for (int a = 0; a < REG; a++) {
		i64 g = cin + (i64)(ty * REG + a) * ld + tx * REG;
		const Pack<T, REG> dv = *reinterpret_cast<const Pack<T, REG> *>(&cind[g]);
#if FW_PRED
		const Pack<int, REG> pv = *reinterpret_cast<const Pack<int, REG> *>(&cinp[g]);
#endif
#if FW_HOPS
		const Pack<int, REG> hv = *reinterpret_cast<const Pack<int, REG> *>(&cinh[g]);
#endif
#pragma unroll
		for (int q = 0; q < REG; q++) {
			cd[a][q] = dv.v[q];
			ch[a][q] = 0;
#if FW_PRED
			cp[a][q] = pv.v[q];
#endif
#if FW_HOPS
			ch[a][q] = hv.v[q];
#endif
		}
	}
	for (int k0 = 0; k0 < L; k0 += KC) {
#pragma unroll
		for (int it = 0; it < TILE * KC / THREADS; it++) {
			int e = tid + it * THREADS, i = e / KC, kk = e % KC;
			i64 g = aoff + (i64)i * ld + k0 + kk;
			sa[kk][i] = ad[g];
#if FW_HOPS
			sah[kk][i] = ah[g];
#endif
		}
#pragma unroll
		for (int it = 0; it < KC * TILE / THREADS; it++) {
			int e = tid + it * THREADS, kk = e / TILE, j = e % TILE;
			i64 g = boff + (i64)(k0 + kk) * ld + j;
			sb[kk][j] = bd[g];
#if FW_PRED
			sbp[kk][j] = bp[g];
#endif
#if FW_HOPS
			sbh[kk][j] = bh[g];
#endif
		}
		__syncthreads();
#pragma unroll 4
		for (int kk = 0; kk < KC; kk++) {
			const Pack<T, REG> av = *reinterpret_cast<const Pack<T, REG> *>(&sa[kk][ty * REG]);
			const Pack<T, REG> bv = *reinterpret_cast<const Pack<T, REG> *>(&sb[kk][tx * REG]);
			Pack<int, REG> hav = {}, hbv = {};
#if FW_PRED
			const Pack<int, REG> pv = *reinterpret_cast<const Pack<int, REG> *>(&sbp[kk][tx * REG]);
#endif
#if FW_HOPS
			hav = *reinterpret_cast<const Pack<int, REG> *>(&sah[kk][ty * REG]);
			hbv = *reinterpret_cast<const Pack<int, REG> *>(&sbh[kk][tx * REG]);
#endif
#pragma unroll
			for (int a = 0; a < REG; a++) {
#pragma unroll
				for (int q = 0; q < REG; q++) {
#if FW_HOPS
					T s = Num<T>::add(av.v[a], bv.v[q]);
					int hs = hav.v[a] + hbv.v[q];
					if (improves<T>(s, cd[a][q], hs, ch[a][q])) {
						cd[a][q] = s;
						ch[a][q] = hs;
						cp[a][q] = pv.v[q];
					}
#elif FW_PRED
					lower<T>(Num<T>::add(av.v[a], bv.v[q]), cd[a][q], cp[a][q], pv.v[q]);
#else
					cd[a][q] = addmin<T>(av.v[a], bv.v[q], cd[a][q]);
#endif
				}
			}
		}
		__syncthreads();
	}
#pragma unroll
	for (int a = 0; a < REG; a++) {
		i64 g = cout + (i64)(ty * REG + a) * ld + tx * REG;
		Pack<T, REG> dv;
		Pack<int, REG> pv, hv;
#pragma unroll
		for (int q = 0; q < REG; q++) {
			dv.v[q] = cd[a][q];
#if FW_PRED
			pv.v[q] = cp[a][q];
#endif
			hv.v[q] = ch[a][q];
		}
		*reinterpret_cast<Pack<T, REG> *>(&coutd[g]) = dv;
#if FW_PRED
		*reinterpret_cast<Pack<int, REG> *>(&coutp[g]) = pv;
#endif
#if FW_HOPS
		*reinterpret_cast<Pack<int, REG> *>(&couth[g]) = hv;
#endif
	}
}

// phase 2: grid (nb-1, 2). Row y = 0: tile (b, J) takes (b,b) ⊗ (b,J);
// y = 1: tile (J, b) takes (J,b) ⊗ (b,b); J runs over the tiles but b.
// The diagonal tile is closed, so one product does all its k-steps.
template <typename T> __device__ __forceinline__ void phase2_body(T *d, int *p, int *h, i64 base, i64 ld, int b) {
	int J = blockIdx.x + (blockIdx.x >= (unsigned)b ? 1 : 0);
	i64 diag = base + (i64)b * TILE * ld + (i64)b * TILE;
	i64 c, a, bb;
	if (blockIdx.y == 0) {
		c = base + (i64)b * TILE * ld + (i64)J * TILE;
		a = diag;
		bb = c;
	} else {
		c = base + (i64)J * TILE * ld + (i64)b * TILE;
		a = c;
		bb = diag;
	}
	product_body<T>(d, p, h, c, d, p, h, c, d, h, a, d, p, h, bb, ld, TILE);
}

// phase 3: grid (nb-1, nb-1): tile (I, J), I ≠ b ≠ J, takes (I,b) ⊗ (b,J).
template <typename T> __device__ __forceinline__ void phase3_body(T *d, int *p, int *h, i64 base, i64 ld, int b) {
	int J = blockIdx.x + (blockIdx.x >= (unsigned)b ? 1 : 0);
	int I = blockIdx.y + (blockIdx.y >= (unsigned)b ? 1 : 0);
	i64 c = base + (i64)I * TILE * ld + (i64)J * TILE;
	i64 a = base + (i64)I * TILE * ld + (i64)b * TILE;
	i64 bb = base + (i64)b * TILE * ld + (i64)J * TILE;
	product_body<T>(d, p, h, c, d, p, h, c, d, h, a, d, p, h, bb, ld, TILE);
}

// mp (out of core): C = min(C, A ⊗ B) over K×K blocks. C is G blocks
// side by side (block g at cin + g·K², row-major, stride K), written to
// cout (which may equal cin); A is one K×K block at aoff; B is G blocks
// at boff + g·K². Grid (G·K/TILE, K/TILE), one tile per thread block.
template <typename T>
__device__ __forceinline__ void mp_body(const T *cind, const int *cinp, const int *cinh, i64 cin, T *coutd, int *coutp,
                                        int *couth, i64 cout, const T *ad, const int *ah, i64 aoff, const T *bd,
                                        const int *bp, const int *bh, i64 boff, int K) {
	int per = K / TILE;
	i64 g = blockIdx.x / per;
	i64 jj = (i64)(blockIdx.x % per) * TILE, i0 = (i64)blockIdx.y * TILE;
	i64 KK = (i64)K * K;
	product_body<T>(cind, cinp, cinh, cin + g * KK + i0 * K + jj, coutd, coutp, couth, cout + g * KK + i0 * K + jj, ad,
	                ah, aoff + i0 * K, bd, bp, bh, boff + g * KK + jj, K, K);
}

extern "C" __global__ __launch_bounds__(256) void fw_phase1_i32(int *d, int *p, int *h, i64 base, i64 ld, int b, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	phase1_body<int>(d, p, h, base, ld, b);
	FW_LOG_END(ent);
}

extern "C" __global__ __launch_bounds__(256) void fw_phase1_f32(float *d, int *p, int *h, i64 base, i64 ld, int b, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	phase1_body<float>(d, p, h, base, ld, b);
	FW_LOG_END(ent);
}

extern "C" __global__ __launch_bounds__(256) void fw_phase2_i32(int *d, int *p, int *h, i64 base, i64 ld, int b, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	phase2_body<int>(d, p, h, base, ld, b);
	FW_LOG_END(ent);
}

extern "C" __global__ __launch_bounds__(256) void fw_phase2_f32(float *d, int *p, int *h, i64 base, i64 ld, int b, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	phase2_body<float>(d, p, h, base, ld, b);
	FW_LOG_END(ent);
}

extern "C" __global__ __launch_bounds__(256) void fw_phase3_i32(int *d, int *p, int *h, i64 base, i64 ld, int b, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	phase3_body<int>(d, p, h, base, ld, b);
	FW_LOG_END(ent);
}

extern "C" __global__ __launch_bounds__(256) void fw_phase3_f32(float *d, int *p, int *h, i64 base, i64 ld, int b, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	phase3_body<float>(d, p, h, base, ld, b);
	FW_LOG_END(ent);
}

extern "C" __global__ __launch_bounds__(256) void fw_mp_i32(const int *cind, const int *cinp, const int *cinh, i64 cin, int *coutd, int *coutp, int *couth, i64 cout, const int *ad, const int *ah, i64 aoff, const int *bd, const int *bp, const int *bh, i64 boff, int K) {
	mp_body<int>(cind, cinp, cinh, cin, coutd, coutp, couth, cout, ad, ah, aoff, bd, bp, bh, boff, K);
}

extern "C" __global__ __launch_bounds__(256) void fw_mp_f32(const float *cind, const int *cinp, const int *cinh, i64 cin, float *coutd, int *coutp, int *couth, i64 cout, const float *ad, const int *ah, i64 aoff, const float *bd, const int *bp, const int *bh, i64 boff, int K) {
	mp_body<float>(cind, cinp, cinh, cin, coutd, coutp, couth, cout, ad, ah, aoff, bd, bp, bh, boff, K);
}

// ---- predecessors rebuilt from the distances (issue 18) ----
//
// With every finite off-diagonal weight positive, a run may compute the
// distances alone (the cheaper products) and rebuild the predecessors
// afterwards: pred[i][j] = a k with D[i][k] + W[k][j] = D[i][j] (a tight
// arc into j), found among j's in-arcs. The in-arcs come from a CSR of
// the padded matrix by column (arcs in order of their tail), built after
// fw_init, before the products overwrite the matrix:
//   fw_csr_count: per column, how many finite off-diagonal entries each
//     of CSR_GROUPS row segments holds (cnt[g·np + j]);
//   fw_csr_scan: off[j] = the arcs of the columns before j (off[np] = m);
//   fw_csr_fill: the arcs of each (segment, column) at off[j] plus the
//     segments above it: tails in src, weights in w.
// None depends on the configuration's -D options.

// CSR_GROUPS row segments per column: a block is 32 columns (one warp
// reads 32 consecutive entries of a row) × CSR_GROUPS segments.
constexpr int CSR_GROUPS = 8;
// SCAN_THREADS is fw_csr_scan's block, its only one.
constexpr int SCAN_THREADS = 1024;

// arc reports whether entry (i, j) of the padded matrix is an arc: off
// the diagonal and finite.
template <typename T> __device__ __forceinline__ bool csr_arc(const T *d, i64 np, i64 i, i64 j) {
	return i != j && Num<T>::finite(d[i * np + j]);
}

// csr_segment is the rows [lo, hi) of segment g of np rows.
__device__ __forceinline__ void csr_segment(i64 np, int g, i64 &lo, i64 &hi) {
	i64 per = (np + CSR_GROUPS - 1) / CSR_GROUPS;
	lo = per * g < np ? per * g : np;
	hi = lo + per < np ? lo + per : np;
}

// csr_count: block (32, CSR_GROUPS), grid (np+31)/32; thread (x, g)
// counts the arcs of column 32·blockIdx.x + x in row segment g.
template <typename T> __device__ __forceinline__ void csr_count_body(const T *d, i64 np, int *cnt) {
	i64 j = (i64)blockIdx.x * 32 + threadIdx.x;
	int g = threadIdx.y;
	if (j >= np) {
		return;
	}
	i64 lo, hi;
	csr_segment(np, g, lo, hi);
	int c = 0;
	for (i64 i = lo; i < hi; i++) {
		c += csr_arc<T>(d, np, i, j) ? 1 : 0;
	}
	cnt[g * np + j] = c;
}

extern "C" __global__ void fw_csr_count_i32(const int *d, i64 np, int *cnt, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	csr_count_body<int>(d, np, cnt);
	FW_LOG_END(ent);
}

extern "C" __global__ void fw_csr_count_f32(const float *d, i64 np, int *cnt, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	csr_count_body<float>(d, np, cnt);
	FW_LOG_END(ent);
}

// fw_csr_scan: one block of SCAN_THREADS threads. Thread t sums the
// columns of its chunk, the block scans the sums (Hillis-Steele in
// shared memory), and each thread writes its chunk's offsets; the last
// off[np] = m.
extern "C" __global__ __launch_bounds__(1024) void fw_csr_scan(const int *cnt, i64 np, i64 *off, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	__shared__ i64 part[2][SCAN_THREADS];
	const int t = threadIdx.x;
	const i64 chunk = (np + SCAN_THREADS - 1) / SCAN_THREADS;
	const i64 lo = chunk * t < np ? chunk * t : np, hi = lo + chunk < np ? lo + chunk : np;
	i64 sum = 0;
	for (i64 j = lo; j < hi; j++) {
		for (int g = 0; g < CSR_GROUPS; g++) {
			sum += cnt[g * np + j];
		}
	}
	int cur = 0;
	part[cur][t] = sum;
	__syncthreads();
	for (int s = 1; s < SCAN_THREADS; s *= 2) {
		i64 v = part[cur][t];
		if (t >= s) {
			v += part[cur][t - s];
		}
		part[1 - cur][t] = v;
		cur = 1 - cur;
		__syncthreads();
	}
	i64 at = part[cur][t] - sum; // exclusive: the chunks before t
	for (i64 j = lo; j < hi; j++) {
		off[j] = at;
		for (int g = 0; g < CSR_GROUPS; g++) {
			at += cnt[g * np + j];
		}
	}
	if (t == SCAN_THREADS - 1) {
		off[np] = at;
	}
	FW_LOG_END(ent);
}

// csr_fill: the shape of csr_count; thread (x, g) writes the arcs of its
// column in its segment, in row order, after those of the segments above.
template <typename T> __device__ __forceinline__ void csr_fill_body(const T *d, i64 np, const int *cnt, const i64 *off, int *src, T *w) {
	i64 j = (i64)blockIdx.x * 32 + threadIdx.x;
	int g = threadIdx.y;
	if (j >= np) {
		return;
	}
	i64 at = off[j];
	for (int h = 0; h < g; h++) {
		at += cnt[h * np + j];
	}
	i64 lo, hi;
	csr_segment(np, g, lo, hi);
	for (i64 i = lo; i < hi; i++) {
		if (csr_arc<T>(d, np, i, j)) {
			src[at] = (int)i;
			w[at] = d[i * np + j];
			at++;
		}
	}
}

extern "C" __global__ void fw_csr_fill_i32(const int *d, i64 np, const int *cnt, const i64 *off, int *src, int *w, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	csr_fill_body<int>(d, np, cnt, off, src, w);
	FW_LOG_END(ent);
}

extern "C" __global__ void fw_csr_fill_f32(const float *d, i64 np, const int *cnt, const i64 *off, int *src, float *w, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	csr_fill_body<float>(d, np, cnt, off, src, w);
	FW_LOG_END(ent);
}

// rebuild: grid-stride over the np×np entries, j fastest, so that a warp
// reads one row i of the distances (its D[i][k] lookups fall in one row,
// cached; consecutive blocks share the row). A block per row instead
// (each SM's L1 then holds whole rows for its blocks, no 64-bit
// division) took 20.0 ms against 12.3 ms at n = 16384, int32, degree 8,
// on an H100 (issue 18); float32 about 20 ms both. p[i][i] = i;
// p[i][j] = -1 where D[i][j] is infinite; else the
// in-arc k → j of least D[i][k] + W[k][j], the first in tail order among
// equals. int32 sums are exact, so the first arc whose sum equals D[i][j]
// is the least and ends the scan; float32 scans every in-arc (its sums
// round, and one may fall below D[i][j]). With every weight positive a
// tight arc's tail is strictly nearer to i, so the int32 predecessors
// form no cycle; float32 rounding may tie the wrong way, and the host's
// cycle check catches it (gpu.go).
template <typename T>
__device__ __forceinline__ void rebuild_body(const T *d, i64 np, const i64 *off, const int *src, const T *w, int *p) {
	i64 total = np * np;
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (i64)gridDim.x * blockDim.x) {
		i64 i = e / np, j = e - i * np;
		T dij = d[e];
		int best = -1;
		if (i == j) {
			best = (int)i;
		} else if (Num<T>::finite(dij)) {
			const T *row = d + i * np;
			T least = Num<T>::inf();
			for (i64 a = off[j], end = off[j + 1]; a < end; a++) {
				int k = src[a];
				T s = Num<T>::add(row[k], w[a]);
				if (s < least) {
					least = s;
					best = k;
				}
				if (Num<T>::exact && s == dij) {
					break;
				}
			}
		}
		p[e] = best;
	}
}

extern "C" __global__ void fw_rebuild_i32(const int *d, i64 np, const i64 *off, const int *src, const int *w, int *p, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	rebuild_body<int>(d, np, off, src, w, p);
	FW_LOG_END(ent);
}

extern "C" __global__ void fw_rebuild_f32(const float *d, i64 np, const i64 *off, const int *src, const float *w, int *p, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	rebuild_body<float>(d, np, off, src, w, p);
	FW_LOG_END(ent);
}

// rebuild_rows: the same predecessors, bit for bit, with rows of the
// distances staged in shared memory, so that the lookups D[i][k] read
// shared memory instead of the L2 cache (they were most of fw_rebuild's
// traffic: a gather of one 32-byte sector per lookup) and each load of
// an in-arc serves every staged row. Block b takes the rows r·b .. r·b +
// r − 1 (r = rows, 1 ≤ r ≤ REBUILD_MAX_ROWS; a grid-stride loop over the
// groups of r rows when the grid is smaller), copies them (contiguous in
// the padded matrix: r·np entries) into the dynamic shared memory, r·np
// entries of T (the launch passes at least r·np·4 bytes), and its threads
// take the columns j = threadIdx.x, + blockDim.x, …: each reads j's
// offsets and in-arcs once and scans them for all r rows, in tail order,
// as rebuild_body does for one (int32 stops once every row has its first
// tight arc; float32 scans all). Any 1-D block size works; the host
// takes whole warps (rebuild.go).
constexpr int REBUILD_MAX_ROWS = 4;

// rebuild_smem is the block's dynamic shared memory.
#ifndef FW_EMULATED
__device__ __forceinline__ unsigned char *rebuild_smem() {
	extern __shared__ int4 rebuild_smem_words[];
	return reinterpret_cast<unsigned char *>(rebuild_smem_words);
}
#endif

// rebuild_stage copies the entries [0, count) at from into to, in 16-byte
// vectors (count is a multiple of 4 and from 16-byte aligned: whole rows
// of the padded matrix, whose side is a multiple of 16).
template <typename T> __device__ __forceinline__ void rebuild_stage(const T *from, T *to, int count) {
	const int4 *f = reinterpret_cast<const int4 *>(from);
	int4 *t = reinterpret_cast<int4 *>(to);
	for (int e = threadIdx.x; e < count / 4; e += blockDim.x) {
		t[e] = f[e];
	}
}

// rebuild_column finds the predecessors of column j in the nr staged rows
// i0 .. i0 + nr − 1 (rows: their distances, row r at rows + r·np) and
// writes them to p.
template <typename T>
__device__ __forceinline__ void rebuild_column(const T *rows, int nr, i64 i0, int j, int np, const i64 *off,
                                               const int *src, const T *w, int *p) {
	T dij[REBUILD_MAX_ROWS], least[REBUILD_MAX_ROWS];
	int best[REBUILD_MAX_ROWS];
	unsigned pending = 0; // rows still scanning
#pragma unroll
	for (int r = 0; r < REBUILD_MAX_ROWS; r++) {
		dij[r] = r < nr ? rows[r * np + j] : Num<T>::inf();
		least[r] = Num<T>::inf();
		best[r] = -1;
		if (r < nr && i0 + r == j) {
			best[r] = j;
		} else if (r < nr && Num<T>::finite(dij[r])) {
			pending |= 1u << r;
		}
	}
	for (i64 a = off[j], end = off[j + 1]; a < end && pending != 0; a++) {
		const int k = src[a];
		const T wk = w[a];
#pragma unroll
		for (int r = 0; r < REBUILD_MAX_ROWS; r++) {
			if (pending & (1u << r)) {
				T s = Num<T>::add(rows[r * np + k], wk);
				if (s < least[r]) {
					least[r] = s;
					best[r] = k;
				}
				if (Num<T>::exact && s == dij[r]) {
					pending &= ~(1u << r);
				}
			}
		}
	}
#pragma unroll
	for (int r = 0; r < REBUILD_MAX_ROWS; r++) {
		if (r < nr) {
			p[(i0 + r) * np + j] = best[r];
		}
	}
}

template <typename T>
__device__ __forceinline__ void rebuild_rows_body(const T *d, i64 np, const i64 *off, const int *src, const T *w, int *p, int rows) {
	T *staged = reinterpret_cast<T *>(rebuild_smem());
	const int n = (int)np;
	for (i64 i0 = (i64)blockIdx.x * rows; i0 < np; i0 += (i64)gridDim.x * rows) {
		const int nr = np - i0 < rows ? (int)(np - i0) : rows;
		__syncthreads(); // the previous group's lookups are done
		rebuild_stage<T>(d + i0 * np, staged, nr * n);
		__syncthreads();
		for (int j = threadIdx.x; j < n; j += blockDim.x) {
			rebuild_column<T>(staged, nr, i0, j, n, off, src, w, p);
		}
	}
}

extern "C" __global__ __launch_bounds__(1024) void fw_rebuild_rows_i32(const int *d, i64 np, const i64 *off, const int *src, const int *w, int *p, int rows, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	rebuild_rows_body<int>(d, np, off, src, w, p, rows);
	FW_LOG_END(ent);
}

extern "C" __global__ __launch_bounds__(1024) void fw_rebuild_rows_f32(const float *d, i64 np, const i64 *off, const int *src, const float *w, int *p, int rows, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	rebuild_rows_body<float>(d, np, off, src, w, p, rows);
	FW_LOG_END(ent);
}

// rebuild_warp: rebuild_rows's staging and results, the in-arcs read by
// warps instead of threads. In rebuild_rows a warp's 32 columns scan
// their arcs side by side, so each load of an arc touches the ~8 cache
// lines of the 32 columns' arcs and the warp runs as long as its longest
// scan. Here a warp takes 32 consecutive columns (lane l owns column
// j0 + l and writes its results) and reads their arcs, contiguous in the
// CSR, 32 at a time, a lane per arc (one line per load). For each staged
// row, a lane's arc is a candidate when its sum equals its column's
// target: int32, the column's distance (a tight arc); float32, the least
// sum of the column's arcs in this chunk (a segmented minimum by
// shuffles). The owner takes the first candidate of its column in the
// chunk (a ballot, lanes in tail order) when its sum is less than the
// owner's best so far, so that an earlier chunk wins ties: the first
// tight in-arc (int32), the least sum and the first among equals
// (float32), as rebuild_body. int32 stops once every owner has its
// arcs. Blocks of whole warps.
constexpr unsigned FULL_MASK = 0xffffffffu;

// warp_column is the owner lane of the column of relative arc x (x below
// the group's total): how many owned columns end at or before x (end:
// the lane's column's end, relative; the ends ascend over the lanes).
// Every lane of the warp must call it.
__device__ __forceinline__ int warp_column(int end, int x) {
	int pos = 0;
#pragma unroll
	for (int step = 16; step > 0; step >>= 1) {
		if (__shfl_sync(FULL_MASK, end, pos + step - 1) <= x) {
			pos += step;
		}
	}
	return pos;
}

// warp_segmin is, in each lane, the least s of the lanes whose col equals
// its own (a run of lanes: cols ascend), by a suffix minimum over
// shuffles and the run's first lane's value to every lane of the run;
// first: the run's first lane. Every lane of the warp must call it.
template <typename T> __device__ __forceinline__ T warp_segmin(T s, int col, int first) {
	const int lane = threadIdx.x & 31;
#pragma unroll
	for (int d = 1; d < 32; d <<= 1) {
		const T o = __shfl_down_sync(FULL_MASK, s, d);
		const int oc = __shfl_down_sync(FULL_MASK, col, d);
		if (lane + d < 32 && oc == col && o < s) {
			s = o;
		}
	}
	return __shfl_sync(FULL_MASK, s, first);
}

// rebuild_warp_group: one warp, the columns j0 .. j0 + 31 (below np) of
// the nr staged rows (rows, row r at rows + r·np, rows i0 + r).
template <typename T>
__device__ __forceinline__ void rebuild_warp_group(const T *rows, int nr, i64 i0, int j0, int np, const i64 *off,
                                                   const int *src, const T *w, int *p) {
	const int lane = threadIdx.x & 31, j = j0 + lane;
	const bool own = j < np;
	const i64 a0 = off[j0];
	const int total = (int)(off[j0 + 32 < np ? j0 + 32 : np] - a0);
	// the owned column's arcs, relative to a0: [start, end); none past np.
	const int start = own ? (int)(off[j] - a0) : total, end = own ? (int)(off[j + 1] - a0) : total;
	T dij[REBUILD_MAX_ROWS], least[REBUILD_MAX_ROWS];
	int best[REBUILD_MAX_ROWS];
	unsigned pending = 0; // rows where the owned column is reachable and (int32) its tight arc not yet found
#pragma unroll
	for (int r = 0; r < REBUILD_MAX_ROWS; r++) {
		dij[r] = r < nr && own ? rows[r * np + j] : Num<T>::inf();
		least[r] = Num<T>::inf();
		best[r] = -1;
		if (r < nr && own && i0 + r != j && Num<T>::finite(dij[r])) {
			pending |= 1u << r;
		}
	}
	for (int base = 0; base < total; base += 32) {
		if (Num<T>::exact && __ballot_sync(FULL_MASK, pending != 0) == 0) {
			break; // every owner has its tight arcs
		}
		// this lane's arc: tail k, weight wk, owner lane col.
		const int rel = base + lane;
		const bool has = rel < total;
		const int k = has ? src[a0 + rel] : 0;
		const T wk = has ? w[a0 + rel] : Num<T>::inf();
		int col = warp_column(end, rel);
		col = has ? col : 32 + lane; // a run of its own
		// the lanes holding the owned column's arcs in this chunk.
		const int from = start > base ? start : base, to = end < base + 32 ? end : base + 32;
		const unsigned mine = from >= to ? 0u : to - from == 32 ? FULL_MASK : ((1u << (to - from)) - 1u) << (from - base);
		// float32: the first lane of this lane's arc's column in the chunk.
		int runFirst = lane;
		if (!Num<T>::exact) {
			const int cs = __shfl_sync(FULL_MASK, start, has ? col : lane);
			runFirst = has ? (cs > base ? cs - base : 0) : lane;
		}
#pragma unroll
		for (int r = 0; r < REBUILD_MAX_ROWS; r++) {
			if (r >= nr) { // the same in every lane
				break;
			}
			const T s = has ? Num<T>::add(rows[r * np + k], wk) : Num<T>::inf();
			T target;
			if (Num<T>::exact) {
				target = has ? rows[r * np + j0 + col] : Num<T>::inf();
			} else {
				target = warp_segmin<T>(s, col, runFirst);
			}
			const unsigned hit = __ballot_sync(FULL_MASK, has && s == target) & mine;
			const int first = hit ? __ffs((int)hit) - 1 : lane;
			const int tail = __shfl_sync(FULL_MASK, k, first);
			// the candidates' sum: int32 the owned column's distance; float32
			// the least sum of its arcs in the chunk.
			T v = dij[r];
			if (!Num<T>::exact) {
				v = __shfl_sync(FULL_MASK, target, first);
			}
			if ((pending & (1u << r)) && hit && v < least[r]) {
				least[r] = v;
				best[r] = tail;
				if (Num<T>::exact) {
					pending &= ~(1u << r);
				}
			}
		}
	}
#pragma unroll
	for (int r = 0; r < REBUILD_MAX_ROWS; r++) {
		if (r < nr && own) {
			p[(i0 + r) * np + j] = i0 + r == j ? j : best[r];
		}
	}
}

template <typename T>
__device__ __forceinline__ void rebuild_warp_body(const T *d, i64 np, const i64 *off, const int *src, const T *w, int *p, int rows) {
	T *staged = reinterpret_cast<T *>(rebuild_smem());
	const int n = (int)np, warps = blockDim.x >> 5, warp = threadIdx.x >> 5;
	for (i64 i0 = (i64)blockIdx.x * rows; i0 < np; i0 += (i64)gridDim.x * rows) {
		const int nr = np - i0 < rows ? (int)(np - i0) : rows;
		__syncthreads(); // the previous group's lookups are done
		rebuild_stage<T>(d + i0 * np, staged, nr * n);
		__syncthreads();
		for (int j0 = warp * 32; j0 < n; j0 += warps * 32) {
			rebuild_warp_group<T>(staged, nr, i0, j0, n, off, src, w, p);
		}
	}
}

extern "C" __global__ __launch_bounds__(1024) void fw_rebuild_warp_i32(const int *d, i64 np, const i64 *off, const int *src, const int *w, int *p, int rows, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	rebuild_warp_body<int>(d, np, off, src, w, p, rows);
	FW_LOG_END(ent);
}

extern "C" __global__ __launch_bounds__(1024) void fw_rebuild_warp_f32(const float *d, i64 np, const i64 *off, const int *src, const float *w, int *p, int rows, FW_LOG_PARAMS) {
	FW_LOG_BEGIN(ent, nxt);
	rebuild_warp_body<float>(d, np, off, src, w, p, rows);
	FW_LOG_END(ent);
}
