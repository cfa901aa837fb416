// GPU kernels of package sssp, compiled at run time by NVRTC for the
// device's own architecture (no #include: every type is declared here, and
// only NVRTC's built-in device functions are used; the host prepends
// gpu/launchlog.cuh, which the traced edge sweep's logged kernels use). Every kernel is
// extern "C" so the Go side (gpu.go) finds it by name; a CI test checks
// that each name gpu.go launches is declared below.
//
// Two methods:
//
// 1. The SSSP study's edge-parallel Bellman-Ford (docs/studies.md §1): the graph
//    as COO with each undirected edge {st, en} once, one thread per edge
//    relaxing both directions, one launch per iteration, a "modif" word
//    the host reads after each launch (iteration iter writes iter there
//    when it changed a distance; the host stops after a launch that did
//    not write it). Kernels sssp_edge_<dist>_<weight>_<plain|restrict>;
//    a traced run launches their logged copies, the same name + "_log".
//
// 2. Work-efficient methods over the CSR (beyond the study): near-far
//    Δ-stepping (Davidson et al. 2014, with Meyer and Sanders' light and
//    heavy arcs) and, as its Δ = +Inf case, a frontier Bellman-Ford. Only
//    vertices whose distance dropped relax their arcs; distances are
//    lowered with atomicMin on their bit patterns; per-vertex stamps keep
//    each vertex at most once in each queue. The host launches steps in
//    batches and reads the control words once per batch; a step with
//    nothing to do returns at once. Kernels sssp_nf_init_<dist> and
//    sssp_nf_step_<dist>_<weight>.
//
// Name tags: d64 / d32 = double / float distances; w32 / w64 = float /
// double weights (a NULL weight pointer means unit weights, for
// unweighted graphs). Distances: +Inf (passed in by the host) for
// unreached vertices, 0 at the source. Weights are non-negative and not
// NaN (the host checks); +Inf weights are allowed (such an arc relaxes
// nothing).
//
// Arithmetic: one addition per relaxation, dist + (D)w, rounded to the
// distance type; no multiplication, so no fused multiply-add can change a
// result. With double distances the sums are the very float64 additions
// the CPU algorithms make (float weights widen exactly), which is why the
// GPU distances equal the CPU's bit for bit.

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;

#define FULL_MASK 0xffffffffu

// ---- distance types ----

// Dist<D> converts distances to and from their bit patterns. For
// non-negative values (and +Inf) the unsigned order of the bit patterns is
// the numeric order, so atomicMin on the bits is a minimum on the values.
template <typename D> struct Dist;

template <> struct Dist<double> {
	typedef u64 Bits;
	static __device__ __forceinline__ double val(Bits b) { return __longlong_as_double((long long)b); }
	static __device__ __forceinline__ Bits bits(double d) { return (Bits)__double_as_longlong(d); }
	// inf is the bit pattern of +Inf.
	static __device__ __forceinline__ Bits inf() { return 0x7ff0000000000000ull; }
};

template <> struct Dist<float> {
	typedef u32 Bits;
	static __device__ __forceinline__ float val(Bits b) { return __uint_as_float(b); }
	static __device__ __forceinline__ Bits bits(float d) { return __float_as_uint(d); }
	static __device__ __forceinline__ Bits inf() { return 0x7f800000u; }
};

// weight_at returns the weight of edge or arc k in the distance type: the
// float weight widened (exact) or the double weight rounded (float
// distances), 1 when the graph is unweighted (w == NULL).
template <typename D, typename W>
__device__ __forceinline__ D weight_at(const W *w, i64 k) {
	if (w == 0) {
		return (D)1;
	}
	return (D)w[k];
}

// read_dist reads *p through the read-only (texture) path when RO: the
// study's "restrict" switch.
template <typename D, bool RO>
__device__ __forceinline__ D read_dist(const D *p) {
	if constexpr (RO) {
		return __ldg(p);
	} else {
		return *p;
	}
}

// ---- 1. the study's edge-parallel Bellman-Ford ----

// edge_init sets every distance to inf, the source's to 0, and clears the
// modif word.
template <typename D>
__device__ __forceinline__ void edge_init(D *dist, int n, int src, D inf, int *modif) {
	const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		dist[i] = (i == src) ? (D)0 : inf;
	}
	if (i == 0) {
		*modif = 0;
	}
}

extern "C" __global__ void sssp_edge_init_d64(double *dist, int n, int src, double inf, int *modif) {
	edge_init<double>(dist, n, src, inf, modif);
}

extern "C" __global__ void sssp_edge_init_d32(float *dist, int n, int src, float inf, int *modif) {
	edge_init<float>(dist, n, src, inf, modif);
}

// bf_edge is one thread of one iteration: edge k = {st[k], en[k]} of weight
// w[k] lowers the distance of one of its ends through the other, with the
// study's test order (st first).
//
// The races are the study's and are benign. Reads and writes of dist are
// plain (non-atomic) 8- or 4-byte accesses, which never tear. Two threads
// may write the same dist entry in one launch, and a thread may act on a
// value another thread has just lowered (or, through the read-only path,
// on a stale one from earlier in the launch): a write can then replace a
// smaller value by a larger one. Every value ever written is still the
// length of a real walk from the source (the value read at the other end,
// itself such a length, plus the weight), and the writing thread sets
// modif, so another launch follows; in it the lost improvement is made
// again (the edge that gave it still sees the larger value). The loop
// stops only after a launch that wrote nothing: no write means no race, and
// the read-only cache is coherent again at every launch boundary, so in
// that last launch every edge read current values and found
// dist[st] <= dist[en] + w and dist[en] <= dist[st] + w. Distances that
// satisfy this for every edge and are all walk lengths are the shortest
// ones. Races change only the number of launches. A write never stores
// more than the value this thread read for its target: it happens only
// when dist[target] > dist[other] + w, and stores dist[other] + w.
//
// The modif word is written once per block (__syncthreads_or), not by
// every changing thread: the same effect as the study's modif[0] = iter
// from each thread, without thousands of stores to one address.
//
// lowered, when not null (a traced run, sssp Options.Trace), counts the
// writes: running counts in BF_COUNT_SLOTS words BF_COUNT_STRIDE apart
// (one a 128-byte line) from lowered[BF_COUNT_STRIDE] on, block b adding
// its writes (__syncthreads_count) to slot b % BF_COUNT_SLOTS; the host
// zeroes them before a run and takes a sweep's count as the sums'
// difference. A traced run passes lowered's first word as modif too, so
// that one download a sweep reads both. (The former count, an atomic
// per warp on one word that a memset zeroed and a download of its own
// read every sweep, cost a traced run 57-116% of its time, this one
// with events around each launch 1.8-2.8% (medians; H100, R-MAT scales
// 20 and 22, BenchmarkGPUTraceStudy).) A traced run launches this code
// through the logged copies below (section 1b); its lowered argument is
// NULL in every other launch.
#define BF_COUNT_SLOTS 16
#define BF_COUNT_STRIDE 16
template <typename D, typename W, bool RO>
__device__ __forceinline__ void bf_edge(const int *st, const int *en, const W *w, const D *distR, D *distW,
                                        int *modif, u64 *lowered, int m, int iter) {
	const i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	int changed = 0;
	if (k < m) {
		const D wk = weight_at<D, W>(w, k);
		const int s = st[k];
		const int e = en[k];
		const D ds = read_dist<D, RO>(distR + s);
		const D de = read_dist<D, RO>(distR + e);
		if (ds > de + wk) {
			distW[s] = de + wk;
			changed = 1;
		} else if (de > ds + wk) {
			distW[e] = ds + wk;
			changed = 1;
		}
	}
	if (lowered) { // the same for every thread: no divergence
		const int c = __syncthreads_count(changed);
		if (c && threadIdx.x == 0) {
			*modif = iter;
			atomicAdd(lowered + (1 + blockIdx.x % BF_COUNT_SLOTS) * BF_COUNT_STRIDE, (u64)c);
		}
	} else if (__syncthreads_or(changed) && threadIdx.x == 0) {
		*modif = iter;
	}
}

// "restrict off": dist is one plain pointer, read and written through it.
extern "C" __global__ void sssp_edge_d64_w32_plain(const int *st, const int *en, const float *w, double *dist,
                                                   int *modif, u64 *lowered, int m, int iter) {
	bf_edge<double, float, false>(st, en, w, dist, dist, modif, lowered, m, iter);
}

extern "C" __global__ void sssp_edge_d64_w64_plain(const int *st, const int *en, const double *w, double *dist,
                                                   int *modif, u64 *lowered, int m, int iter) {
	bf_edge<double, double, false>(st, en, w, dist, dist, modif, lowered, m, iter);
}

extern "C" __global__ void sssp_edge_d32_w32_plain(const int *st, const int *en, const float *w, float *dist,
                                                   int *modif, u64 *lowered, int m, int iter) {
	bf_edge<float, float, false>(st, en, w, dist, dist, modif, lowered, m, iter);
}

extern "C" __global__ void sssp_edge_d32_w64_plain(const int *st, const int *en, const double *w, float *dist,
                                                   int *modif, u64 *lowered, int m, int iter) {
	bf_edge<float, double, false>(st, en, w, dist, dist, modif, lowered, m, iter);
}

// "restrict on" (the texture-cache switch): the host passes the same dist
// buffer twice; every read goes through distR (const __restrict__, read
// with __ldg on the read-only path), every write through distW.
extern "C" __global__ void sssp_edge_d64_w32_restrict(const int *__restrict__ st, const int *__restrict__ en,
                                                      const float *__restrict__ w,
                                                      const double *__restrict__ distR, double *distW,
                                                      int *modif, u64 *lowered, int m, int iter) {
	bf_edge<double, float, true>(st, en, w, distR, distW, modif, lowered, m, iter);
}

extern "C" __global__ void sssp_edge_d64_w64_restrict(const int *__restrict__ st, const int *__restrict__ en,
                                                      const double *__restrict__ w,
                                                      const double *__restrict__ distR, double *distW,
                                                      int *modif, u64 *lowered, int m, int iter) {
	bf_edge<double, double, true>(st, en, w, distR, distW, modif, lowered, m, iter);
}

extern "C" __global__ void sssp_edge_d32_w32_restrict(const int *__restrict__ st, const int *__restrict__ en,
                                                      const float *__restrict__ w,
                                                      const float *__restrict__ distR, float *distW,
                                                      int *modif, u64 *lowered, int m, int iter) {
	bf_edge<float, float, true>(st, en, w, distR, distW, modif, lowered, m, iter);
}

extern "C" __global__ void sssp_edge_d32_w64_restrict(const int *__restrict__ st, const int *__restrict__ en,
                                                      const double *__restrict__ w,
                                                      const float *__restrict__ distR, float *distW,
                                                      int *modif, u64 *lowered, int m, int iter) {
	bf_edge<float, double, true>(st, en, w, distR, distW, modif, lowered, m, iter);
}

// ---- 1b. the same kernels, logged (traced runs) ----
//
// A traced edge sweep (Options.Trace) launches these: the kernels above,
// unchanged, between the launch log's stamps (gpu/launchlog.cuh, which
// the host prepends to this file: gpu.PrependLaunchLog), so that its
// launches are timed by the GPU's own clock and the host records no
// event between them. The untraced kernels above keep their exact code:
// a traced run's stamps are in these wrappers only. ent and nxt are the
// launch's log entry and the next one (gpu.LaunchLog appends them).
//
// A sweep stamps its start (block 0) and its end from its last blocks
// only, block stamp_from on, each once, after bf_edge's barrier
// (llog_end_synced: no barrier of its own). The host passes the grid
// less edgeStampBlocks (gpu.go; 0 for a smaller grid): several waves of
// the blocks the GPU holds at once. The blocks are dispatched in index
// order and each relaxes 256 edges, so the last ones end last; the
// others skip the timer read and the atomic. The init kernel is launched
// open (gpu.LaunchLog.LaunchOpen): it stamps its start only, and its
// time runs to the first sweep's start.
//
// SSSP_TAIL_CHECK is defined by a test's build only (tailcheck_test.go,
// which puts testdata/tailcheck.cuh before this file): there every block
// also reports its end in check words of its own, so that the test sees
// whether a block before stamp_from ended after the logged end. The
// builds gpu.go compiles do not define it, and compile as without the
// #ifdef.

template <typename D>
__device__ __forceinline__ void edge_init_logged(D *dist, int n, int src, D inf, int *modif, u64 *ent, u64 *nxt) {
	llog_begin(ent, nxt);
	edge_init<D>(dist, n, src, inf, modif);
	llog_end(ent); // nothing when launched open
}

extern "C" __global__ void sssp_edge_init_d64_log(double *dist, int n, int src, double inf, int *modif, u64 *ent, u64 *nxt) {
	edge_init_logged<double>(dist, n, src, inf, modif, ent, nxt);
}

extern "C" __global__ void sssp_edge_init_d32_log(float *dist, int n, int src, float inf, int *modif, u64 *ent, u64 *nxt) {
	edge_init_logged<float>(dist, n, src, inf, modif, ent, nxt);
}

// bf_edge_logged is bf_edge between the log's stamps: every thread has
// passed bf_edge's barrier after its relaxation, so the block's end is
// stamped without another one.
template <typename D, typename W, bool RO>
__device__ __forceinline__ void bf_edge_logged(const int *st, const int *en, const W *w, const D *distR, D *distW,
                                               int *modif, u64 *lowered, int m, int iter, int stamp_from,
                                               u64 *ent, u64 *nxt) {
	llog_begin(ent, nxt);
	bf_edge<D, W, RO>(st, en, w, distR, distW, modif, lowered, m, iter);
	if ((int)blockIdx.x >= stamp_from) {
		llog_end_synced(ent);
	}
#ifdef SSSP_TAIL_CHECK
	sssp_tail_check(ent, iter, stamp_from);
#endif
}

extern "C" __global__ void sssp_edge_d64_w32_plain_log(const int *st, const int *en, const float *w, double *dist,
                                                       int *modif, u64 *lowered, int m, int iter, int stamp_from,
                                                       u64 *ent, u64 *nxt) {
	bf_edge_logged<double, float, false>(st, en, w, dist, dist, modif, lowered, m, iter, stamp_from, ent, nxt);
}

extern "C" __global__ void sssp_edge_d64_w64_plain_log(const int *st, const int *en, const double *w, double *dist,
                                                       int *modif, u64 *lowered, int m, int iter, int stamp_from,
                                                       u64 *ent, u64 *nxt) {
	bf_edge_logged<double, double, false>(st, en, w, dist, dist, modif, lowered, m, iter, stamp_from, ent, nxt);
}

extern "C" __global__ void sssp_edge_d32_w32_plain_log(const int *st, const int *en, const float *w, float *dist,
                                                       int *modif, u64 *lowered, int m, int iter, int stamp_from,
                                                       u64 *ent, u64 *nxt) {
	bf_edge_logged<float, float, false>(st, en, w, dist, dist, modif, lowered, m, iter, stamp_from, ent, nxt);
}

extern "C" __global__ void sssp_edge_d32_w64_plain_log(const int *st, const int *en, const double *w, float *dist,
                                                       int *modif, u64 *lowered, int m, int iter, int stamp_from,
                                                       u64 *ent, u64 *nxt) {
	bf_edge_logged<float, double, false>(st, en, w, dist, dist, modif, lowered, m, iter, stamp_from, ent, nxt);
}

extern "C" __global__ void sssp_edge_d64_w32_restrict_log(const int *__restrict__ st, const int *__restrict__ en,
                                                          const float *__restrict__ w,
                                                          const double *__restrict__ distR, double *distW,
                                                          int *modif, u64 *lowered, int m, int iter, int stamp_from,
                                                          u64 *ent, u64 *nxt) {
	bf_edge_logged<double, float, true>(st, en, w, distR, distW, modif, lowered, m, iter, stamp_from, ent, nxt);
}

extern "C" __global__ void sssp_edge_d64_w64_restrict_log(const int *__restrict__ st, const int *__restrict__ en,
                                                          const double *__restrict__ w,
                                                          const double *__restrict__ distR, double *distW,
                                                          int *modif, u64 *lowered, int m, int iter, int stamp_from,
                                                          u64 *ent, u64 *nxt) {
	bf_edge_logged<double, double, true>(st, en, w, distR, distW, modif, lowered, m, iter, stamp_from, ent, nxt);
}

extern "C" __global__ void sssp_edge_d32_w32_restrict_log(const int *__restrict__ st, const int *__restrict__ en,
                                                          const float *__restrict__ w,
                                                          const float *__restrict__ distR, float *distW,
                                                          int *modif, u64 *lowered, int m, int iter, int stamp_from,
                                                          u64 *ent, u64 *nxt) {
	bf_edge_logged<float, float, true>(st, en, w, distR, distW, modif, lowered, m, iter, stamp_from, ent, nxt);
}

extern "C" __global__ void sssp_edge_d32_w64_restrict_log(const int *__restrict__ st, const int *__restrict__ en,
                                                          const double *__restrict__ w,
                                                          const float *__restrict__ distR, float *distW,
                                                          int *modif, u64 *lowered, int m, int iter, int stamp_from,
                                                          u64 *ent, u64 *nxt) {
	bf_edge_logged<float, double, true>(st, en, w, distR, distW, modif, lowered, m, iter, stamp_from, ent, nxt);
}

// ---- 2. near-far Δ-stepping over the CSR ----
//
// The method of Davidson, Baxter, Garland and Owens ("Work-efficient
// parallel GPU methods for single-source shortest paths", IPDPS 2014):
// a near queue holds the vertices whose distance is below the threshold
// T of the current phase and is relaxed round after round until it
// empties; vertices lowered to T or more wait in a far pile; then T
// moves up by Δ and the far pile is split into the new near queue and
// what stays far. Within a phase, as in Meyer and Sanders' Δ-stepping,
// the rounds relax only the light arcs (weight below Δ), and the heavy
// ones of every vertex the phase expanded are relaxed once, after its
// rounds (the settle step): a hub lowered several times in a phase then
// rescans only its few light arcs. The host lays the arcs of each
// vertex out light first (lend[v] ends v's light arcs; NULL means all
// arcs are light). Δ = +Inf with lend NULL is a frontier Bellman-Ford:
// everything is near, nothing ever settles or splits.
//
// Queues and load balance. The near queues and the settle list hold
// vertices, each with the arcs it brings: its light arcs in a near queue
// (at least one slot, empty when it has none, so that its expansion
// still registers its heavy arcs; vertices without any arc are not
// queued), its heavy arcs in the settle list. An entry is a 64-bit word,
// the vertex in the low 32 bits and in the high 32 bits its first slot:
// the number of slots (arcs) of the entries before it. One atomicAdd per
// warp on a packed length word (entries << 32 | slots) appends up to 32
// vertices the warp has staged (see "Staged appends" below), so entries
// and slots grow together, in the same order. A
// step deals the slots out evenly: every warp takes a range of about
// slots/warps (a multiple of 32, at least minSlots), finds the entry
// holding its first slot by a 32-way search over the queue, and walks
// the entries from there, 32 at a time, its lanes taking 32 consecutive
// slots per pass. So a hub's arcs spread over as many warps as they
// need, small vertices share warps, and no warp does much more than the
// others: the step lasts about as long as its average warp. The far
// pile holds vertex ids. Each vertex is at most once in a near queue
// (stamp[v] = the round whose queue holds it), at most once in the
// settle list (sst[v] = the settle epoch it was registered in) and at
// most once in the far pile (fstamp[v] = the phase whose pile holds it),
// so N entries suffice for each, and the slots of a queue are at most
// M + N (the host checks that this fits in 32 bits).
//
// Steps. The host launches steps r = 1, 2, … (sssp_nf_step, round = r),
// each in one of four modes, chosen alike by every thread from control
// words that no thread writes during the step:
//   - light round (the near queue of r, queue r%2, is not empty): expand
//     its entries over their light arcs; a lowered vertex goes to the
//     near queue of r+1 (queue (r+1)%2) when its new distance is below T,
//     to the far pile otherwise; the warp that holds the first slot of a
//     vertex with heavy arcs registers them in the settle list (once per
//     epoch).
//   - settle step (the near queue is empty, the settle list is not):
//     expand the settle list over the heavy arcs, pushing as above; then
//     the list is emptied and the epoch advances.
//   - split (both empty, the far pile is not): T' = fmin + Δ·2^s (fmin:
//     a lower bound on the pile's distances, at least T; s the widening
//     below); a pile vertex below T is stale (it was lowered into a near
//     queue since) and dropped, one below T' goes to the near queue of
//     r+1, the others to the other pile; then the phase advances and T
//     becomes T'. Taking T' from fmin rather than T skips empty stretches
//     of distances, and while s is 0 every phase's vertices lie in
//     [fmin, T'), a window of width Δ, so heavy arcs land beyond it. If
//     the sum rounds to fmin, T' is the next float above fmin, so a split
//     always makes progress.
//     Widening: s starts at 0 and grows by one (to at most NF_WIDEN_MAX)
//     at each split that ends a phase which relaxed fewer arcs than the
//     grid has threads times NF_SMALL_ARCS. On R-MAT graphs the first
//     phases hold nearly all the work and the tail is dozens of phases of
//     a few thousand arcs, each costing three launches and a split's pass
//     over the whole far pile: there a wider window costs a few more
//     relaxations and saves most of those steps. A heavy arc may then
//     land inside the window; its target goes to the next near queue, as
//     any vertex lowered below T does, so the result is unchanged.
//   - idle (all empty): return; the run is over.
// Settle steps and splits change control words every block reads, so the
// last block to finish (a counter, after a __threadfence in every
// thread) applies those changes.
//
// Control words (ctl, NF_CTL unsigned long longs; the Go side declares
// the same indices and a test compares them):
#define NF_Q0 0       // 0, 1, 2: near-queue lengths (entries << 32 | slots),
                      // rotating: step r reads ctl[r%3], appends to
                      // ctl[(r+1)%3] (zeroed during step r-1) and zeroes
                      // ctl[(r+2)%3] (read in step r-1)
#define NF_SCNT 3     // settle-list length (entries << 32 | slots)
#define NF_FCNT 4     // 4, 5: far-pile lengths; phase p fills pile p&1
#define NF_PHASE 6    // the phase, from 1 (splits done + 1)
#define NF_EPOCH 7    // the settle epoch, from 1 (settle steps done + 1)
#define NF_THR 8      // bits of T: near iff the distance is below T
#define NF_FMIN 9     // bits of fmin, a lower bound on the far distances
#define NF_FKEEP 10   // bits of the least distance a split keeps far
#define NF_DONE 11    // blocks done in a step with an epilogue
#define NF_ROUNDS 12  // light rounds with a non-empty near queue
#define NF_SCANNED 13 // 13, 14: arcs relaxed (tried), by the parity of the
                      // step: step r adds to NF_SCANNED + (r & 1)
#define NF_WIDEN 15    // s, the window's widening: T' = fmin + Δ·2^s
#define NF_PSCAN 16    // arcs relaxed (both NF_SCANNED words) when the phase began
#define NF_LOWERED 17  // 17, 18: successful relaxations (atomicMin lowered a
                       // distance), by the parity of the step like NF_SCANNED
#define NF_CTL 19
#define NF_WIDEN_MAX 20
#define NF_SMALL_ARCS 8
// The step log of a traced run (tlog, NF_TLOG words a step, in a ring of
// tcap steps: step r writes entry r % tcap): as it starts, the first lane
// of the grid's last warp writes the words below from the control words,
// and zeroes the start, round and ends of entry (r+1) % tcap (nf_init
// zeroes step 1's entry). The last warp, because queue slots go to warps
// in order: in the many small steps it has nothing to do, so the timer
// read and the stores delay no work (block 0's first thread, which always
// has slots, cost a traced run about half a point more at scale 20; the
// grid is resident at once, so the start is the step's within a
// microsecond). The words it reads are not written during the step, except
// the settle list's and far pile's lengths during a light round (light
// rounds append to both): for those the entry holds the length as the last
// warp started, and the trace uses it only in a step's note. Only the
// batch's last step (r a multiple of tcap - 1, the host's batch) logs its
// end: every block, once its threads are done, raises one of the NF_T_ENDS
// end words (block b the word b % NF_T_ENDS: one word for the whole grid
// made its blocks queue on one address at the step's end) to the global
// timer (nf_log_end). Any other step ends where the next one starts (the
// same stream, launched back to back), so the host takes its time from the
// next entry's start: the end stamps of every step, a barrier and a timer
// read on each block's way out, cost a traced run about 1% at scale 20
// (H100). The step's counts cost no atomic of their own: the counts of
// step r - 1's parity as they stood at step r's start (NF_T_PSCANNED,
// NF_T_PLOWERED: step r - 1 was done and step r adds to the other parity's
// words) are the running counts after step r - 1 and before step r + 1, so
// the host takes step r's counts as entry r + 1's minus entry r - 1's (0
// before step 1; after the batch's last step, the control words
// themselves), where adding them to the entry took every block two more
// atomics on two hot words. The host reads the ring after each batch (tcap = batch + 1) and
// takes a step's time from its start to the next step's (the gap between
// the two launches included, as with events between launches), and the
// batch's last step's as its latest end minus its start.
#define NF_TLOG 23
#define NF_T_START 0   // %globaltimer at the step's start, ns
#define NF_T_NEAR 1    // the near queue (entries << 32 | slots)
#define NF_T_SETTLE 2  // the settle list (entries << 32 | slots)
#define NF_T_FAR 3     // the far pile's length
#define NF_T_THR 4     // bits of T
#define NF_T_PSCANNED 5 // NF_SCANNED + ((r - 1) & 1) at the step's start
#define NF_T_PLOWERED 6 // NF_LOWERED + ((r - 1) & 1) at the step's start
#define NF_T_ROUND 7   // r, so that the host can tell a stale entry
#define NF_T_END 8     // the first end word: %globaltimer when a block was done, ns
#define NF_T_ENDS 15
// Bit fields hold float distances zero-extended: the unsigned order of
// the bits is still the numeric order.
//
// Why the result is exact. dist only decreases, through atomicMin, and
// every value written is du + w for a u and arc read then, so it is the
// length (float sum) of a walk from the source. The run ends with every
// queue and pile empty. Take any vertex u with arcs and the last time its
// distance dropped (or the source's start). The thread that lowered it
// pushed u to the near queue of the next round, or u was there already
// (stamp), or it went to the far pile, or was there already (fstamp); a
// pile vertex is kept at each split until T' passes its distance, and is
// dropped as stale only when its distance is below T, which means a
// later drop sent it to a near queue. So u is expanded in a round that
// reads dist[u] after that last drop: a round skips u only when u
// already sits in the next near queue, i.e. it dropped again. That
// expansion relaxes u's light arcs and, if u has heavy ones, either
// registers u in the settle list or finds it registered in this epoch
// already; the epoch's settle step comes later still and relaxes the
// heavy arcs from the final dist[u] (it too skips u only when u dropped
// again meanwhile, and then u is expanded and registered anew, in the
// next epoch). So when the run ends every arc u->v has been relaxed from
// the final dist[u], which leaves dist[v] <= dist[u] + w: the distances
// are a fixed point of every arc, made of walk lengths, i.e. the least
// one, which the CPU algorithms reach with the same additions. Which
// arcs count as light changes the work only, never the result; so do the
// races: plain reads of dist may be stale (larger), which costs at most a
// useless atomic.

// Relaxation outcomes.
#define NF_NONE 0
#define NF_NEAR 1
#define NF_FAR 2

// nf_clock is the GPU's global timer in ns (the emulator's steady clock
// under the fake driver).
__device__ __forceinline__ u64 nf_clock() {
#ifdef __CUDA_ARCH__
	u64 t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
#else
	return emu::globaltimer();
#endif
}

// nf_init: all distances inf but the source's 0, stamps 0, the source
// alone in the near queue of round 1 with `slots` slots (the host passes
// at least one, so the source alone is round 1 even without arcs), the
// control words, and in a traced run (tent1 not NULL: step 1's entry in
// the step log) that entry zeroed, which step 1 does not do itself.
// Threads: max(n, NF_CTL, NF_TLOG). sst and fstamp may be NULL (frontier).
template <typename D>
__device__ __forceinline__ void nf_init(typename Dist<D>::Bits *dist, int *stamp, int *sst, int *fstamp, int n,
                                        int src, D thr, u64 *q, u32 slots, u64 *ctl, u64 *tent1) {
	const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		dist[i] = (i == src) ? Dist<D>::bits((D)0) : Dist<D>::inf();
		stamp[i] = 0;
		if (sst != 0) {
			sst[i] = 0;
		}
		if (fstamp != 0) {
			fstamp[i] = 0;
		}
	}
	if (i == 0) {
		q[0] = (u64)(u32)src; // first slot 0
	}
	if (i < NF_CTL) {
		u64 x = 0;
		if (i == NF_Q0 + 1) {
			x = (1ull << 32) | (u64)slots;
		} else if (i == NF_PHASE || i == NF_EPOCH) {
			x = 1;
		} else if (i == NF_THR) {
			x = (u64)Dist<D>::bits(thr);
		} else if (i == NF_FMIN || i == NF_FKEEP) {
			x = (u64)Dist<D>::inf();
		}
		ctl[i] = x;
	}
	if (tent1 != 0 && i < NF_TLOG) {
		tent1[i] = 0;
	}
}

extern "C" __global__ void sssp_nf_init_d64(u64 *dist, int *stamp, int *sst, int *fstamp, int n, int src,
                                            double thr, u64 *q, unsigned slots, u64 *ctl, u64 *tent1) {
	nf_init<double>(dist, stamp, sst, fstamp, n, src, thr, q, slots, ctl, tent1);
}

extern "C" __global__ void sssp_nf_init_d32(u32 *dist, int *stamp, int *sst, int *fstamp, int n, int src,
                                            float thr, u64 *q, unsigned slots, u64 *ctl, u64 *tent1) {
	nf_init<float>(dist, stamp, sst, fstamp, n, src, thr, q, slots, ctl, tent1);
}

// warp_incl_scan64 returns the inclusive prefix sum of x over the lanes;
// every lane must call it.
__device__ __forceinline__ u64 warp_incl_scan64(u64 x, int lane) {
	for (int o = 1; o < 32; o <<= 1) {
		const u64 t = __shfl_up_sync(FULL_MASK, x, o);
		if (lane >= o) {
			x += t;
		}
	}
	return x;
}

// warp_owner returns, for position j of the lanes' ranges laid end to end
// (lane l's range starts at start, non-decreasing over the lanes), the
// lane whose range holds j: the last lane with start <= j (a lane with an
// empty range never is, for j inside some range). Every lane must call
// it.
__device__ __forceinline__ int warp_owner(u32 start, u32 j) {
	int owner = 0;
	for (int s = 16; s > 0; s >>= 1) {
		const u32 st = __shfl_sync(FULL_MASK, start, owner + s);
		if (st <= j) {
			owner += s;
		}
	}
	return owner;
}

// append_vertex appends v with `slots` slots to queue q, whose packed
// length (entries << 32 | slots) is *len, for the lanes with add set: one
// atomicAdd per warp. Every lane must call it.
__device__ __forceinline__ void append_vertex(bool add, int v, u64 slots, u64 *q, u64 *len, int lane) {
	const unsigned m = __ballot_sync(FULL_MASK, add);
	if (m == 0) {
		return;
	}
	const u64 mine = add ? slots : 0;
	const u64 incl = warp_incl_scan64(mine, lane);
	u64 base = 0;
	if (lane == 31) {
		base = atomicAdd(len, ((u64)__popc(m) << 32) | incl);
	}
	base = __shfl_sync(FULL_MASK, base, 31);
	if (add) {
		const u64 at = (base >> 32) + (u64)__popc(m & ((1u << lane) - 1u));
		const u64 first = (base & 0xffffffffull) + incl - mine;
		q[at] = (first << 32) | (u64)(u32)v;
	}
}

// append_pile appends v to the far pile `pile`, whose length is *len, for
// the lanes with add set: one atomicAdd per warp. Every lane must call
// it.
__device__ __forceinline__ void append_pile(bool add, int v, int *pile, u64 *len, int lane) {
	const unsigned m = __ballot_sync(FULL_MASK, add);
	if (m == 0) {
		return;
	}
	u64 base = 0;
	if (lane == 0) {
		base = atomicAdd(len, (u64)__popc(m));
	}
	base = __shfl_sync(FULL_MASK, base, 0);
	if (add) {
		pile[base + (u64)__popc(m & ((1u << lane) - 1u))] = v;
	}
}

// Staged appends. A step appends to three queues whose lengths are one
// word each, which every warp of the grid would hit once per pass of 32
// arcs (an atomic a pass, serialized at the word). Instead a warp stages
// what its lanes append, one item per lane, in registers, and appends 32
// at a time (append_vertex, append_pile: one atomic), flushing what is
// left when its share of the step ends. Appending later within the step
// changes nothing: the queues are read in later steps, and a vertex's
// stamp, which keeps it from being queued twice, is set when it is
// staged.

// nth_set_bit is the position of the j-th set bit of m (from 0; m has
// more than j set bits).
__device__ __forceinline__ int nth_set_bit(unsigned m, int j) {
	int pos = 0;
	for (int s = 16; s > 0; s >>= 1) {
		const int c = __popc(m & ((1u << s) - 1u));
		if (j >= c) {
			j -= c;
			m >>= s;
			pos += s;
		}
	}
	return pos;
}

// stage_take moves the items (v, x) of the lanes in m to lanes cnt,
// cnt+1, … of the stage (sv, sx), in lane order; the caller made room
// (cnt + popc(m) <= 32). Every lane must call it.
__device__ __forceinline__ void stage_take(unsigned m, int v, u32 x, int &sv, u32 &sx, int cnt, int lane) {
	const int j = lane - cnt;
	const bool mine = j >= 0 && j < __popc(m);
	const int src = mine ? nth_set_bit(m, j) : lane;
	const int xv = __shfl_sync(FULL_MASK, v, src);
	const u32 xx = __shfl_sync(FULL_MASK, x, src);
	if (mine) {
		sv = xv;
		sx = xx;
	}
}

// stage_vertex stages v with `slots` slots (below 2^32) for queue q of
// packed length *len, for the lanes with add set; the stage (sv, ss, cnt
// items, cnt warp-uniform) is appended first when they do not fit.
// Every lane must call it.
__device__ __forceinline__ void stage_vertex(bool add, int v, u64 slots, int &sv, u32 &ss, int &cnt, u64 *q, u64 *len,
                                             int lane) {
	const unsigned m = __ballot_sync(FULL_MASK, add);
	if (m == 0) {
		return;
	}
	if (cnt + __popc(m) > 32) {
		append_vertex(lane < cnt, sv, (u64)ss, q, len, lane);
		cnt = 0;
	}
	stage_take(m, v, (u32)slots, sv, ss, cnt, lane);
	cnt += __popc(m);
}

// stage_pile is stage_vertex for a far pile (vertex ids only).
__device__ __forceinline__ void stage_pile(bool add, int v, int &sv, int &cnt, int *pile, u64 *len, int lane) {
	const unsigned m = __ballot_sync(FULL_MASK, add);
	if (m == 0) {
		return;
	}
	if (cnt + __popc(m) > 32) {
		append_pile(lane < cnt, sv, pile, len, lane);
		cnt = 0;
	}
	u32 none = 0;
	stage_take(m, v, 0, sv, none, cnt, lane);
	cnt += __popc(m);
}

// near_slots is the number of slots v brings to a near queue: its light
// arcs, at least one when it has arcs at all (so that its expansion
// registers its heavy arcs), none without arcs (it is then not queued).
__device__ __forceinline__ u64 near_slots(const i64 *__restrict__ off, const i64 *__restrict__ lend, int v) {
	const i64 o0 = off[v];
	const i64 o1 = off[v + 1];
	if (o1 == o0) {
		return 0;
	}
	const i64 le = (lend != 0) ? lend[v] : o1;
	return (le > o0) ? (u64)(le - o0) : 1;
}

// nf_relax tries arc k (to v = adj[k]) from a vertex at distance du and
// returns what the caller must do with v: NF_NEAR (append it to the next
// near queue: it dropped below T and was not queued yet), NF_FAR (append
// it to the far pile: it dropped, stays at T or more, and was not in the
// pile yet) or NF_NONE. fmin takes the least far distance produced.
template <typename D, typename W>
__device__ __forceinline__ int nf_relax(const int *__restrict__ adj, const W *__restrict__ w,
                                        typename Dist<D>::Bits *dist, int *stamp, int *fstamp, i64 k, D du,
                                        typename Dist<D>::Bits thr, int next, int phase, int &v,
                                        typename Dist<D>::Bits &fmin, u64 &lowered) {
	typedef typename Dist<D>::Bits B;
	v = adj[k];
	const B nb = Dist<D>::bits(du + weight_at<D, W>(w, k));
	if (nb >= dist[v]) {
		return NF_NONE;
	}
	const B old = atomicMin(dist + v, nb);
	if (nb >= old) {
		return NF_NONE;
	}
	lowered++;
	if (nb < thr) {
		// The plain read skips the atomic when v is queued already
		// (stamps only grow, so it never reads next too early).
		return (stamp[v] != next && atomicExch(stamp + v, next) != next) ? NF_NEAR : NF_NONE;
	}
	if (nb < fmin) {
		fmin = nb;
	}
	return (fstamp[v] != phase && atomicExch(fstamp + v, phase) != phase) ? NF_FAR : NF_NONE;
}

// nf_expand relaxes the arcs of queue q (packed length qw): light arcs in
// a round (HEAVY false), heavy ones in a settle step. The slots are dealt
// to the warps in ranges of S (see "Queues and load balance" above); an
// entry whose vertex already sits in the next near queue is skipped (it
// dropped again: its next expansion starts from the smaller distance).
template <typename D, typename W, bool HEAVY>
__device__ __forceinline__ void nf_expand(const i64 *__restrict__ off, const i64 *__restrict__ lend,
                                          const int *__restrict__ adj, const W *__restrict__ w,
                                          typename Dist<D>::Bits *dist, int *stamp, int *sst, int *fstamp,
                                          const u64 *q, u64 qw, u64 *qnext, u64 *sq, int *pile, u64 *ctl,
                                          int round, int minSlots, typename Dist<D>::Bits thr, int phase,
                                          int epoch, u64 &scanned, u64 &lowered, typename Dist<D>::Bits &fmin) {
	const int next = round + 1;
	u64 *nearLen = ctl + NF_Q0 + (round + 1) % 3;
	u64 *farLen = ctl + NF_FCNT + (phase & 1);
	const int lane = threadIdx.x & 31;
	const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
	const i64 qlen = (i64)(qw >> 32);
	const i64 total = (i64)(qw & 0xffffffffull);
	int nv = 0, ncnt = 0, fv = 0, fcnt = 0; // the stages (see "Staged appends")
	u32 nslots = 0;
	i64 S = (total + warps - 1) / warps;
	S = (S + 31) & ~(i64)31;
	if (S < minSlots) {
		S = minSlots;
	}
	for (i64 a0 = warp * S; a0 < total; a0 += warps * S) {
		const i64 a1 = (a0 + S < total) ? a0 + S : total;
		// The entry holding slot a0: the last with first slot <= a0
		// (entry 0 starts at slot 0), by a 32-way search.
		i64 lo = 0, hi = qlen;
		while (hi - lo > 1) {
			const i64 step = (hi - lo + 31) / 32;
			const i64 idx = lo + lane * step;
			const bool le = idx < hi && (i64)(q[idx] >> 32) <= a0;
			const unsigned m = __ballot_sync(FULL_MASK, le);
			lo += (i64)(31 - __clz(m)) * step;
			const i64 h = lo + step;
			hi = (h < hi) ? h : hi;
		}
		// Windows of 32 entries from there, while their slots are ours.
		i64 slot = a0;
		for (i64 e = lo; slot < a1; e += 32) {
			const i64 i = e + lane;
			i64 first = total;
			int u = 0;
			i64 b = 0;
			i64 cnt = 0;
			bool reg = false;
			i64 heavy = 0;
			D du = 0;
			if (i < qlen) {
				const u64 ent = q[i];
				first = (i64)(ent >> 32);
				if (first < a1) {
					u = (int)(u32)ent;
					// All of u's words at once (one memory latency, not
					// two), then the stamp decides.
					const int su = stamp[u];
					const i64 o0 = off[u];
					const i64 o1 = off[u + 1];
					const i64 le = (lend != 0) ? lend[u] : o1;
					const D dd = Dist<D>::val(dist[u]);
					if (su != next) {
						b = HEAVY ? le : o0;
						cnt = HEAVY ? o1 - le : le - o0;
						du = dd;
						heavy = o1 - le;
						reg = !HEAVY && heavy > 0 && first >= a0 && sst[u] != epoch &&
						      atomicExch(sst + u, epoch) != epoch;
					}
				}
			}
			if (!HEAVY) {
				append_vertex(reg, u, (u64)heavy, sq, ctl + NF_SCNT, lane);
			}
			// Slots relative to the window's first entry (lane 0's: e <
			// qlen always), below 2^32 since all slots are (the host
			// checks M + N < 2^32).
			const i64 base = __shfl_sync(FULL_MASK, first, 0);
			const u32 rel = (u32)(first - base);
			i64 wend = total; // first slot after the window
			if (e + 32 < qlen) {
				wend = (i64)(q[e + 32] >> 32);
			}
			const i64 limit = (a1 < wend) ? a1 : wend;
			for (; slot < limit; slot += 32) {
				const i64 j = slot + lane;
				const u32 jr = (u32)(j - base);
				const int o = warp_owner(rel, jr);
				const i64 ob = __shfl_sync(FULL_MASK, b, o);
				const u32 orel = __shfl_sync(FULL_MASK, rel, o);
				const i64 oc = __shfl_sync(FULL_MASK, cnt, o);
				const D d = __shfl_sync(FULL_MASK, du, o);
				const i64 t = (i64)(jr - orel);
				int v = 0;
				int kind = NF_NONE;
				if (j < limit && t < oc) {
					scanned++;
					kind = nf_relax<D, W>(adj, w, dist, stamp, fstamp, ob + t, d, thr, next, phase, v, fmin, lowered);
				}
				const u64 ns = (kind == NF_NEAR) ? near_slots(off, lend, v) : 0;
				stage_vertex(ns > 0, v, ns, nv, nslots, ncnt, qnext, nearLen, lane);
				stage_pile(kind == NF_FAR, v, fv, fcnt, pile, farLen, lane);
			}
			if (slot > limit) {
				slot = limit; // the last pass overshot: resume at the window's end
			}
		}
	}
	append_vertex(lane < ncnt, nv, (u64)nslots, qnext, nearLen, lane);
	append_pile(lane < fcnt, fv, pile, farLen, lane);
}

// nf_split moves the far pile pile[0..plen) of phase `phase`: vertices
// below thr are stale and dropped, those below tnew go to the next near
// queue, the others to the pile `keep` of the next phase; kmin takes the
// least distance kept. No distance changes during a split.
template <typename D>
__device__ __forceinline__ void nf_split(const typename Dist<D>::Bits *dist, int *stamp, int *fstamp,
                                         const i64 *__restrict__ off, const i64 *__restrict__ lend,
                                         const int *pile, u64 plen, int *keep, u64 *qnext, u64 *ctl, int round,
                                         typename Dist<D>::Bits thr, typename Dist<D>::Bits tnew, int phase,
                                         typename Dist<D>::Bits &kmin) {
	typedef typename Dist<D>::Bits B;
	const int lane = threadIdx.x & 31;
	const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
	const i64 n = (i64)plen;
	u64 *nearLen = ctl + NF_Q0 + (round + 1) % 3;
	u64 *keepLen = ctl + NF_FCNT + ((phase + 1) & 1);
	int nv = 0, ncnt = 0, kv = 0, kcnt = 0; // the stages (see "Staged appends")
	u32 nslots = 0;
	for (i64 base = warp * 32; base < n; base += warps * 32) {
		const i64 i = base + lane;
		int v = 0;
		u64 ns = 0;
		bool kept = false;
		if (i < n) {
			v = pile[i];
			const B d = dist[v];
			if (d >= thr) {
				if (d < tnew) {
					stamp[v] = round + 1;
					ns = near_slots(off, lend, v);
				} else {
					fstamp[v] = phase + 1;
					kept = true;
					if (d < kmin) {
						kmin = d;
					}
				}
			}
		}
		stage_vertex(ns > 0, v, ns, nv, nslots, ncnt, qnext, nearLen, lane);
		stage_pile(kept, v, kv, kcnt, keep, keepLen, lane);
	}
	append_vertex(lane < ncnt, nv, (u64)nslots, qnext, nearLen, lane);
	append_pile(lane < kcnt, kv, keep, keepLen, lane);
}

// nf_flush adds the warp's counts to the control words and lowers *minw
// to the warp's least m, with one atomic each from lane 0 (none when
// there is nothing to add or lower); the counts go to the words of the
// step's parity (par, 0 or 1). Every lane must call it.
template <typename B>
__device__ __forceinline__ void nf_flush(u64 scanned, u64 lowered, B m, u64 *ctl, int par, u64 *minw, int lane) {
	for (int o = 16; o > 0; o >>= 1) {
		scanned += __shfl_xor_sync(FULL_MASK, scanned, o);
		lowered += __shfl_xor_sync(FULL_MASK, lowered, o);
		const B x = __shfl_xor_sync(FULL_MASK, m, o);
		if (x < m) {
			m = x;
		}
	}
	if (lane == 0) {
		if (scanned != 0) {
			atomicAdd(ctl + NF_SCANNED + par, scanned);
		}
		if (lowered != 0) {
			atomicAdd(ctl + NF_LOWERED + par, lowered);
		}
		// A stale read is larger, so at worst the atomic is useless.
		if ((u64)m < *minw) {
			atomicMin(minw, (u64)m);
		}
	}
}

// nf_step is step `round` (see above). Queues: q is the near queue of
// this round, qnext that of the next one, sq the settle list, far0 and
// far1 the piles; lend, sst, fstamp, sq, far0 and far1 may be NULL when
// delta is +Inf and every arc is light (frontier Bellman-Ford). minSlots
// (a multiple of 32) is the least number of slots a warp takes.
template <typename D, typename W>
__device__ __forceinline__ void nf_step(const i64 *__restrict__ off, const i64 *__restrict__ lend,
                                        const int *__restrict__ adj, const W *__restrict__ w,
                                        typename Dist<D>::Bits *dist, int *stamp, int *sst, int *fstamp,
                                        const u64 *q, u64 *qnext, u64 *sq, int *far0, int *far1, u64 *ctl,
                                        int round, int minSlots, D delta, u64 *tlog, int tcap) {
	typedef typename Dist<D>::Bits B;
	const int lane = threadIdx.x & 31;
	const u64 qw = ctl[NF_Q0 + round % 3];
	const int phase = (int)ctl[NF_PHASE];
	const int epoch = (int)ctl[NF_EPOCH];
	const B thr = (B)ctl[NF_THR];
	int *pile = (phase & 1) ? far1 : far0;
	u64 scanned = 0, lowered = 0;
	B fmin = Dist<D>::inf();
	u64 *tent = (tlog != 0) ? tlog + (i64)(round % tcap) * NF_TLOG : 0;
	if (tent != 0 && blockIdx.x == gridDim.x - 1 && threadIdx.x == blockDim.x - 32) {
		tent[NF_T_START] = nf_clock();
		tent[NF_T_NEAR] = qw;
		tent[NF_T_SETTLE] = ctl[NF_SCNT];
		tent[NF_T_FAR] = ctl[NF_FCNT + (phase & 1)];
		tent[NF_T_THR] = (u64)thr;
		tent[NF_T_ROUND] = (u64)round;
		tent[NF_T_PSCANNED] = ctl[NF_SCANNED + ((round - 1) & 1)];
		tent[NF_T_PLOWERED] = ctl[NF_LOWERED + ((round - 1) & 1)];
		u64 *nx = tlog + (i64)((round + 1) % tcap) * NF_TLOG;
		nx[NF_T_START] = 0; // a step that never runs leaves an entry the host refuses
		nx[NF_T_ROUND] = 0;
		for (int k = 0; k < NF_T_ENDS; k++) {
			nx[NF_T_END + k] = 0;
		}
	}
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		ctl[NF_Q0 + (round + 2) % 3] = 0;
		if (qw != 0) {
			ctl[NF_ROUNDS] += 1;
		}
	}
	if (qw != 0) {
		nf_expand<D, W, false>(off, lend, adj, w, dist, stamp, sst, fstamp, q, qw, qnext, sq, pile, ctl, round,
		                       minSlots, thr, phase, epoch, scanned, lowered, fmin);
		nf_flush<B>(scanned, lowered, fmin, ctl, round & 1, ctl + NF_FMIN, lane);
		return;
	}
	const u64 sw = ctl[NF_SCNT];
	const u64 plen = ctl[NF_FCNT + (phase & 1)];
	if (sw == 0 && plen == 0) {
		return;
	}
	B tnew = 0;
	int widen = 0;
	if (sw != 0) {
		nf_expand<D, W, true>(off, lend, adj, w, dist, stamp, sst, fstamp, sq, sw, qnext, sq, pile, ctl, round,
		                      minSlots, thr, phase, epoch, scanned, lowered, fmin);
		nf_flush<B>(scanned, lowered, fmin, ctl, round & 1, ctl + NF_FMIN, lane);
	} else {
		const B fb = (B)ctl[NF_FMIN];
		const D fm = Dist<D>::val(fb);
		widen = (int)ctl[NF_WIDEN];
		if (widen < NF_WIDEN_MAX &&
		    ctl[NF_SCANNED] + ctl[NF_SCANNED + 1] - ctl[NF_PSCAN] < (u64)gridDim.x * blockDim.x * NF_SMALL_ARCS) {
			widen++;
		}
		const D t = fm + delta * (D)(1u << widen);
		if (t > fm) {
			tnew = Dist<D>::bits(t);
		} else {
			tnew = (fb >= Dist<D>::inf()) ? fb : fb + 1; // the next float above fmin
		}
		int *keep = (phase & 1) ? far0 : far1;
		B kmin = Dist<D>::inf();
		nf_split<D>(dist, stamp, fstamp, off, lend, pile, plen, keep, qnext, ctl, round, thr, tnew, phase, kmin);
		nf_flush<B>(0, 0, kmin, ctl, round & 1, ctl + NF_FKEEP, lane);
	}
	// Epilogue, by the last block to finish: every thread's atomics are
	// ordered before its block's count by the fence and the barrier.
	__threadfence();
	__syncthreads();
	if (threadIdx.x == 0 && atomicAdd(ctl + NF_DONE, 1ull) == (u64)gridDim.x - 1) {
		__threadfence();
		if (sw != 0) {
			ctl[NF_SCNT] = 0;
			ctl[NF_EPOCH] = (u64)epoch + 1;
		} else {
			ctl[NF_FMIN] = atomicExch(ctl + NF_FKEEP, (u64)Dist<D>::inf());
			ctl[NF_THR] = (u64)tnew;
			ctl[NF_WIDEN] = (u64)widen;
			ctl[NF_PSCAN] = ctl[NF_SCANNED] + ctl[NF_SCANNED + 1];
			ctl[NF_FCNT + (phase & 1)] = 0;
			ctl[NF_PHASE] = (u64)phase + 1;
		}
		ctl[NF_DONE] = 0;
	}
}

// nf_log_end raises step round's logged end to the block's when the step
// is its batch's last (round a multiple of tcap - 1; nothing untraced or
// for any other step). Every thread of the block must call it, after the
// step.
__device__ __forceinline__ void nf_log_end(u64 *tlog, int tcap, int round) {
	if (tlog == 0 || round % (tcap - 1) != 0) {
		return;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		atomicMax(tlog + (i64)(round % tcap) * NF_TLOG + NF_T_END + blockIdx.x % NF_T_ENDS, nf_clock());
	}
}

// The four steps: double or float distances, float or double weights.
extern "C" __global__ void sssp_nf_step_d64_w32(const i64 *__restrict__ off, const i64 *__restrict__ lend,
                                                const int *__restrict__ adj, const float *__restrict__ w,
                                                u64 *dist, int *stamp, int *sst, int *fstamp, const u64 *q,
                                                u64 *qnext, u64 *sq, int *far0, int *far1, u64 *ctl, int round,
                                                int minSlots, double delta, u64 *tlog, int tcap) {
	nf_step<double, float>(off, lend, adj, w, dist, stamp, sst, fstamp, q, qnext, sq, far0, far1, ctl, round, minSlots,
	                       delta, tlog, tcap);
	nf_log_end(tlog, tcap, round);
}

extern "C" __global__ void sssp_nf_step_d64_w64(const i64 *__restrict__ off, const i64 *__restrict__ lend,
                                                const int *__restrict__ adj, const double *__restrict__ w,
                                                u64 *dist, int *stamp, int *sst, int *fstamp, const u64 *q,
                                                u64 *qnext, u64 *sq, int *far0, int *far1, u64 *ctl, int round,
                                                int minSlots, double delta, u64 *tlog, int tcap) {
	nf_step<double, double>(off, lend, adj, w, dist, stamp, sst, fstamp, q, qnext, sq, far0, far1, ctl, round, minSlots,
	                        delta, tlog, tcap);
	nf_log_end(tlog, tcap, round);
}

extern "C" __global__ void sssp_nf_step_d32_w32(const i64 *__restrict__ off, const i64 *__restrict__ lend,
                                                const int *__restrict__ adj, const float *__restrict__ w,
                                                u32 *dist, int *stamp, int *sst, int *fstamp, const u64 *q,
                                                u64 *qnext, u64 *sq, int *far0, int *far1, u64 *ctl, int round,
                                                int minSlots, float delta, u64 *tlog, int tcap) {
	nf_step<float, float>(off, lend, adj, w, dist, stamp, sst, fstamp, q, qnext, sq, far0, far1, ctl, round, minSlots,
	                      delta, tlog, tcap);
	nf_log_end(tlog, tcap, round);
}

extern "C" __global__ void sssp_nf_step_d32_w64(const i64 *__restrict__ off, const i64 *__restrict__ lend,
                                                const int *__restrict__ adj, const double *__restrict__ w,
                                                u32 *dist, int *stamp, int *sst, int *fstamp, const u64 *q,
                                                u64 *qnext, u64 *sq, int *far0, int *far1, u64 *ctl, int round,
                                                int minSlots, float delta, u64 *tlog, int tcap) {
	nf_step<float, double>(off, lend, adj, w, dist, stamp, sst, fstamp, q, qnext, sq, far0, far1, ctl, round, minSlots,
	                       delta, tlog, tcap);
	nf_log_end(tlog, tcap, round);
}
