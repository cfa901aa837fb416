// multi.cu: Δ-stepping over a group of GPUs (multi.go), one rank per GPU,
// each holding a block of vertices [lo, lo+nl) and their out-arcs (a CSR
// of nl rows whose targets are global vertex numbers), and the device
// certificate of its result. Compiled after algo/internal/devcheck's
// check.cuh (ck_fail, ck_inf, the types) and devcsr's csr.cuh, with
// --fmad=false: every distance is one float64 addition, du + (double)w,
// as in sssp.cu and the CPU algorithms, so the distances equal theirs
// bit for bit.
//
// Distances are doubles lowered with atomicMin on their bit patterns
// (non-negative doubles and +Inf order as their unsigned bits). Every
// kernel is grid-stride, without barriers or warp collectives; the arc
// loops give each queued vertex to a warp whose lanes take its arcs 32 at
// a time, so a hub's arcs spread over the lanes.
//
// A round (multi.go): msssp_frontier moves the active vertices below the
// threshold T into the queue; msssp_relax relaxes their arcs: a local
// target is lowered in place (and becomes active), a remote one lowers
// rbest[v], this rank's least candidate sent for v so far, and is listed
// once per round in its owner's region of `out`; msssp_pack writes the
// listed (v, rbest[v]) pairs per owner for the all-to-all; msssp_apply
// lowers the received pairs on their owner. rbest only falls, and every
// value it took was sent to the owner, whose distance is at most that
// value from then on: a candidate not below rbest[v] cannot lower v and is
// not sent.


// Control words of a rank (multi.go's ms* constants; a test compares).
#define MS_QLEN 0    // vertices queued by msssp_frontier this round
#define MS_FMIN 1    // least distance (bits) of the active vertices at T or beyond
#define MS_SCANNED 2 // arcs relaxed (all rounds)
#define MS_LOWERED 3 // distances lowered (all rounds)
#define MS_REACHED 4 // msssp_take: reached vertices of the block
#define MS_DEGREES 5 // msssp_take: arcs leaving them
#define MS_LEFT 6    // msssp_take: orphans left
#define MS_ADOPTED 7 // msssp_take: orphans adopted
#define MS_LOWEST 8  // msssp_take: lowest orphan left (global)
#define MS_COUNT0 9  // 9, 10, …: vertices listed per owner this round

#define MS_NONE 0x7fffffff // no parent candidate
#define MS_ORPHAN (-2)     // reached, no parent yet

static __device__ __forceinline__ u64 ms_inf_bits() { return 0x7ff0000000000000ull; }

static __device__ __forceinline__ u64 ms_bits(double d) { return (u64)__double_as_longlong(d); }

template <typename W> static __device__ __forceinline__ double ms_w(const W *w, i64 k) {
	return w ? (double)w[k] : 1.0;
}

// msssp_init starts a run: dist (B entries, the block padded) +Inf but 0
// at the source when it is local (and active), no vertex active, rbest
// (N entries) +Inf, rstamp 0.
extern "C" __global__ void msssp_init(double *dist, i64 B, int *act, i64 nl, i64 lo, int src, u64 *rbest,
                                      int *rstamp, i64 n) {
	const i64 stride = (i64)gridDim.x * blockDim.x;
	const i64 top = B > n ? B : n;
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < top; i += stride) {
		if (i < B) {
			const bool s = lo + i == src;
			dist[i] = s ? 0.0 : ck_inf();
			if (i < nl) {
				act[i] = s ? 1 : 0;
			}
		}
		if (i < n && rbest != 0) {
			rbest[i] = ms_inf_bits();
			rstamp[i] = 0;
		}
	}
}

// msssp_reset starts a round: no vertex queued, no active distance seen,
// no vertex listed for any of the size owners (the counters of relaxed
// arcs and lowered distances go on).
extern "C" __global__ void msssp_reset(u64 *ctl, int size) {
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < MS_COUNT0 + size; i += gridDim.x * blockDim.x) {
		if (i == MS_FMIN) {
			ctl[i] = ms_inf_bits();
		} else if (i == MS_QLEN || i >= MS_COUNT0) {
			ctl[i] = 0;
		}
	}
}

// msssp_frontier queues the active vertices below thr (bits of T) and
// makes them inactive; the others left active lower ctl[MS_FMIN].
extern "C" __global__ void msssp_frontier(const double *dist, int *act, i64 nl, u64 thr, int *queue, u64 *ctl) {
	u64 fmin = ms_inf_bits();
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < nl; i += (i64)gridDim.x * blockDim.x) {
		if (!act[i]) {
			continue;
		}
		const u64 b = ms_bits(dist[i]);
		if (b < thr) {
			act[i] = 0;
			queue[atomicAdd(&ctl[MS_QLEN], 1ull)] = (int)i;
		} else if (b < fmin) {
			fmin = b;
		}
	}
	if (fmin < ctl[MS_FMIN]) {
		atomicMin(&ctl[MS_FMIN], fmin);
	}
}

// ms_relax relaxes the arcs of the queued vertices (ctl[MS_QLEN] of them),
// a warp per vertex. Targets in [lo, lo+nl) are lowered in place unless
// loopback (a test switch: every relaxation then goes through the
// exchange, as remote ones do); the others are offered to rbest and
// listed in their owner's region of out (owner v/B, region at owner·B).
template <typename W>
static __device__ __forceinline__ void ms_relax(const i64 *off, const int *adj, const W *w, i64 lo, i64 nl,
                                                const int *queue, double *dist, int *act, u64 *rbest, int *rstamp,
                                                int round, int *out, i64 B, int loopback, u64 *ctl) {
	const i64 qlen = (i64)ctl[MS_QLEN];
	const int lane = threadIdx.x & 31;
	const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
	u64 scanned = 0, lowered = 0;
	u64 *ld = (u64 *)dist;
	for (i64 q = warp; q < qlen; q += warps) {
		const int u = queue[q];
		const double du = dist[u];
		for (i64 k = off[u] + lane; k < off[u + 1]; k += 32) {
			scanned++;
			const i64 v = adj[k];
			const u64 c = ms_bits(du + ms_w(w, k));
			if (!loopback && v >= lo && v < lo + nl) {
				if (c < ld[v - lo] && c < atomicMin(&ld[v - lo], c)) {
					act[v - lo] = 1;
					lowered++;
				}
			} else if (c < rbest[v] && c < atomicMin(&rbest[v], c) && rstamp[v] != round &&
			           atomicExch(&rstamp[v], round) != round) {
				const i64 o = v / B;
				out[o * B + (i64)atomicAdd(&ctl[MS_COUNT0 + o], 1ull)] = (int)v;
			}
		}
	}
	if (scanned != 0) {
		atomicAdd(&ctl[MS_SCANNED], scanned);
	}
	if (lowered != 0) {
		atomicAdd(&ctl[MS_LOWERED], lowered);
	}
}

extern "C" __global__ void msssp_relax_w32(const i64 *off, const int *adj, const float *w, i64 lo, i64 nl,
                                           const int *queue, double *dist, int *act, u64 *rbest, int *rstamp,
                                           int round, int *out, i64 B, int loopback, u64 *ctl) {
	ms_relax<float>(off, adj, w, lo, nl, queue, dist, act, rbest, rstamp, round, out, B, loopback, ctl);
}

extern "C" __global__ void msssp_relax_w64(const i64 *off, const int *adj, const double *w, i64 lo, i64 nl,
                                           const int *queue, double *dist, int *act, u64 *rbest, int *rstamp,
                                           int round, int *out, i64 B, int loopback, u64 *ctl) {
	ms_relax<double>(off, adj, w, lo, nl, queue, dist, act, rbest, rstamp, round, out, B, loopback, ctl);
}

// msssp_pack writes the cnt vertices listed from out[from] as pairs
// (v, rbest[v]) at send[2·at].
extern "C" __global__ void msssp_pack(const int *out, i64 from, i64 cnt, const u64 *rbest, u64 *send, i64 at) {
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += (i64)gridDim.x * blockDim.x) {
		const int v = out[from + i];
		send[2 * (at + i)] = (u64)v;
		send[2 * (at + i) + 1] = rbest[v];
	}
}

// msssp_apply lowers the block's distances by the cnt received pairs
// (v, candidate bits); a lowered vertex becomes active.
extern "C" __global__ void msssp_apply(const u64 *recv, i64 cnt, i64 lo, double *dist, int *act, u64 *ctl) {
	u64 *ld = (u64 *)dist;
	u64 lowered = 0;
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += (i64)gridDim.x * blockDim.x) {
		const i64 v = (i64)recv[2 * i] - lo;
		const u64 c = recv[2 * i + 1];
		if (c < ld[v] && c < atomicMin(&ld[v], c)) {
			act[v] = 1;
			lowered++;
		}
	}
	if (lowered != 0) {
		atomicAdd(&ctl[MS_LOWERED], lowered);
	}
}

// ---- the parent tree, from the gathered distances gd (N entries) ----

// msssp_fill_int sets a[0..n) to x.
extern "C" __global__ void msssp_fill_int(int *a, i64 n, int x) {
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x) {
		a[i] = x;
	}
}

// ms_offer offers, for every arc u→v of the block, u as v's parent
// candidate (cand, N entries, least u wins) when the arc is tight: in the
// strict pass (adopt 0) from a strictly closer u, in an adoption round
// (adopt 1) from a u at the same distance that has a parent (par, the
// block's).
template <typename W>
static __device__ __forceinline__ void ms_offer(const i64 *off, const int *adj, const W *w, i64 lo, i64 nl,
                                                const double *gd, const int *par, int *cand, int adopt) {
	const int lane = threadIdx.x & 31;
	const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
	for (i64 i = warp; i < nl; i += warps) {
		const double du = gd[lo + i];
		if (du == ck_inf() || (adopt && par[i] < 0)) {
			continue;
		}
		for (i64 k = off[i] + lane; k < off[i + 1]; k += 32) {
			const int v = adj[k];
			const double dv = gd[v];
			if (du + ms_w(w, k) == dv && (adopt ? du == dv : du < dv)) {
				atomicMin(&cand[v], (int)(lo + i));
			}
		}
	}
}

extern "C" __global__ void msssp_offer_w32(const i64 *off, const int *adj, const float *w, i64 lo, i64 nl,
                                           const double *gd, const int *par, int *cand, int adopt) {
	ms_offer<float>(off, adj, w, lo, nl, gd, par, cand, adopt);
}

extern "C" __global__ void msssp_offer_w64(const i64 *off, const int *adj, const double *w, i64 lo, i64 nl,
                                           const double *gd, const int *par, int *cand, int adopt) {
	ms_offer<double>(off, adj, w, lo, nl, gd, par, cand, adopt);
}

// msssp_take sets the block's parents from the reduced candidates: in the
// first pass (adopt 0) every vertex (the source itself, -1 unreached, a
// candidate, or MS_ORPHAN), counting the reached vertices and their arcs;
// in an adoption round the orphans with a candidate. It counts the
// orphans left and adopted and keeps the lowest left. par has B entries:
// the padding is -1.
extern "C" __global__ void msssp_take(const i64 *off, const double *gd, const int *cand, i64 lo, i64 nl, i64 B,
                                      int src, int *par, int adopt, u64 *ctl) {
	u64 reached = 0, degrees = 0, left = 0, adopted = 0, lowest = ~0ull;
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < B; i += (i64)gridDim.x * blockDim.x) {
		const i64 v = lo + i;
		if (i >= nl) {
			par[i] = -1;
			continue;
		}
		const int c = cand[v];
		int p = par[i];
		if (!adopt) {
			const bool r = gd[v] != ck_inf();
			p = v == src ? src : !r ? -1 : c != MS_NONE ? c : MS_ORPHAN;
			if (r) {
				reached++;
				degrees += (u64)(off[i + 1] - off[i]);
			}
		} else if (p == MS_ORPHAN && c != MS_NONE) {
			p = c;
			adopted++;
		}
		par[i] = p;
		if (p == MS_ORPHAN) {
			left++;
			if ((u64)v < lowest) {
				lowest = (u64)v;
			}
		}
	}
	if (reached) atomicAdd(&ctl[MS_REACHED], reached);
	if (degrees) atomicAdd(&ctl[MS_DEGREES], degrees);
	if (left) atomicAdd(&ctl[MS_LEFT], left);
	if (adopted) atomicAdd(&ctl[MS_ADOPTED], adopted);
	if (lowest != ~0ull) atomicMin(&ctl[MS_LOWEST], lowest);
}

// ---- the certificate (RunGroup's Check), from the gathered distances
// gd and parents gp (N entries each) ----
//
// Rules (devcheck.go's, reported in this order): 1 source, 2 reach,
// 3 tree, 4 bound, 5 parent arc; a failure's key is rule << 48 | vertex
// (the vertex whose distance or parent is wrong), its count in
// ctl[MSCK_ERRORS].
#define MSCK_ERRORS 1  // failures found by this rank
#define MSCK_JUMPED 3  // ssspck_jump's CK_JUMPED
#define MSCK_REACHED 4 // reached vertices of the block
#define MSCK_WORDS 6

static __device__ __forceinline__ void ms_fail(u64 *ctl, u64 rule, u64 v) {
	ck_fail(ctl, rule, v);
	atomicAdd(&ctl[MSCK_ERRORS], 1ull);
}

// msssp_ck_vertices checks the source and reach rules on the block and
// counts its reached vertices; over all N vertices it starts the pointer
// jumping of the tree rule: anc[v] = gp[v] for a reached v with a reached
// parent, v otherwise.
extern "C" __global__ void msssp_ck_vertices(const double *gd, const int *gp, i64 lo, i64 nl, i64 n, int src,
                                             int *anc, u64 *ctl) {
	u64 reached = 0;
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		const double x = gd[v];
		const int p = gp[v];
		const bool mine = v >= lo && v < lo + nl;
		const bool fin = x == x && x != ck_inf() && x != -ck_inf();
		const bool pok = p >= 0 && p < n && gd[p] != ck_inf();
		anc[v] = (fin && pok && v != src) ? p : (int)v;
		if (!mine) {
			continue;
		}
		if (v == src) {
			if (x != 0 || p != src) ms_fail(ctl, 1, v);
		} else if (!fin && !(x == ck_inf() && p == -1)) {
			ms_fail(ctl, 2, v);
		} else if (fin && !pok) {
			ms_fail(ctl, 2, v);
		}
		if (fin) reached++;
	}
	if (reached) atomicAdd(&ctl[MSCK_REACHED], reached);
}

// msssp_ck_tree checks, after the pointer jumping, that every reached
// vertex of the block reaches the source by its parents.
extern "C" __global__ void msssp_ck_tree(const double *gd, const int *anc, i64 lo, i64 nl, int src, u64 *ctl) {
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < nl; i += (i64)gridDim.x * blockDim.x) {
		const double x = gd[lo + i];
		if (x == x && x != ck_inf() && x != -ck_inf() && anc[lo + i] != src) ms_fail(ctl, 3, lo + i);
	}
}

// ms_ck_arcs checks every arc u→v of the block (bound: d[v] ≤ d[u] + w +
// slack, slack = tol·(|d[u]| + |w|)) and marks v (mark, N entries) when
// the arc is tight within the slack and u is v's parent.
template <typename W>
static __device__ __forceinline__ void ms_ck_arcs(const i64 *off, const int *adj, const W *w, i64 lo, i64 nl,
                                                  const double *gd, const int *gp, int src, double tol, u8 *mark,
                                                  u64 *ctl) {
	const int lane = threadIdx.x & 31;
	const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
	for (i64 i = warp; i < nl; i += warps) {
		const int u = (int)(lo + i);
		const double du = gd[u];
		if (du == ck_inf()) {
			continue;
		}
		for (i64 k = off[i] + lane; k < off[i + 1]; k += 32) {
			const int v = adj[k];
			const double wk = ms_w(w, k);
			if (wk == ck_inf()) {
				continue;
			}
			const double via = du + wk, dv = gd[v];
			const double slack = tol * ((du < 0 ? -du : du) + (wk < 0 ? -wk : wk));
			if (dv > via + slack) ms_fail(ctl, 4, v);
			const double gap = dv - via;
			if ((gap < 0 ? -gap : gap) <= slack && v != src && gp[v] == u) mark[v] = 1;
		}
	}
}

extern "C" __global__ void msssp_ck_arcs_w32(const i64 *off, const int *adj, const float *w, i64 lo, i64 nl,
                                             const double *gd, const int *gp, int src, double tol, u8 *mark,
                                             u64 *ctl) {
	ms_ck_arcs<float>(off, adj, w, lo, nl, gd, gp, src, tol, mark, ctl);
}

extern "C" __global__ void msssp_ck_arcs_w64(const i64 *off, const int *adj, const double *w, i64 lo, i64 nl,
                                             const double *gd, const int *gp, int src, double tol, u8 *mark,
                                             u64 *ctl) {
	ms_ck_arcs<double>(off, adj, w, lo, nl, gd, gp, src, tol, mark, ctl);
}

// msssp_ck_parent_arcs checks that every reached vertex of the block but
// the source was marked (mark reduced over the ranks with a maximum).
extern "C" __global__ void msssp_ck_parent_arcs(const double *gd, const u8 *mark, i64 lo, i64 nl, int src,
                                                u64 *ctl) {
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < nl; i += (i64)gridDim.x * blockDim.x) {
		const i64 v = lo + i;
		const double x = gd[v];
		if (v != src && x == x && x != ck_inf() && !mark[v]) ms_fail(ctl, 5, v);
	}
}
