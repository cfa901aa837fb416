// check.cu: the device check of a BFS result (Prepared.Check), the
// Graph500 rules of check.go computed where the graph already is. It shares
// nothing with bfs.cu: the searches expand levels, the check only reads
// levels and parents and tests every vertex and every edge once.
//
// A failure is recorded as one 64-bit key, rule << 48 | index, kept at its
// minimum with atomicMin in ctl[CK_ERR]: the lowest rule wins, then the
// lowest vertex or edge, so the report does not depend on scheduling (nor
// on the order of the kernels). bfsck_explain then writes what the host
// needs to word the error.
//
// A check is three launches and one download: bfsck_clear resets the
// control words and level counts; one pass over the vertices
// (bfsck_vertices) checks the per-vertex rules, counts the levels, writes
// the levels as bytes and clears the parent-arc marks; one pass over the
// arcs (bfsck_csr, reading the heads' byte levels, or bfsck_coo) checks
// rules 3 and 4 and marks, once, each vertex whose parent arc it saw,
// counting the marks. Rule 5 holds when every reached vertex but the
// source was marked; only when fewer were does bfsck_treearc look for the
// lowest unmarked one. R_CYCLE cannot fail alone: when every
// reached vertex but the source has a reached parent one level up
// (R_PARENT, R_TREELEVEL) and the source has level 0 (R_SOURCE),
// following parents lowers the level by one per step and ends at the only
// vertex of level 0, the source. So the host runs the cycle search
// (bfsck_anc, the pointer jumping of bfsck_jump, bfsck_cycle) only when
// R_TREELEVEL is the lowest failure found, where a cycle would be
// reported first.
//
// Levels are int (-1: unreached), parents int (-1: none); every kernel
// but bfsck_clear and bfsck_explain (one block) is grid-stride over
// blocks of CK_BLOCK threads.
//
// The shared helpers (ck_fail, ck_inf, ck_warp_sum, ck_block_add,
// csr_tail), the types and CK_BLOCK, CK_FULL, CK_ERR are
// algo/internal/devcheck/check.cuh, compiled before this file.

// Control words (the Go side, devcheck.go, declares the same).
#define CK_REACHED 1  // vertices with a level
#define CK_ARCS 2     // arcs (CSR) leaving a reached vertex
#define CK_LEVELS 3   // deepest level + 1
#define CK_MARKS 4     // vertices marked by their parent arc
#define CK_WORDS 5     // then the level counts, one word per level

// Rules, in the order they are reported (devcheck.go words them).
#define R_SOURCE 1    // the source has level 0 and is its own parent
#define R_LEVEL 2     // levels ≥ -1; an unreached vertex has no parent
#define R_PARENT 3    // rule 1: a reached vertex has a reached parent
#define R_CYCLE 4     // rule 1: following parents reaches the source
#define R_TREELEVEL 5 // rule 2: a parent is one level up
#define R_SPAN 6      // rule 4: an arc from a reached vertex ends at one
#define R_EDGELEVEL 7 // rule 3: an arc climbs at most one level
#define R_TREEARC 8   // rule 5: an input arc joins each parent to its child

#define CK_HIST 64 // levels counted in shared memory first
#define CK_WIDE 255 // a byte level that stands for "read the int level"
#define CK_CHUNK 16 // consecutive arcs per thread of bfsck_csr

// bfsck_clear (one block) resets the control words and the nwords -
// CK_WORDS level counts after them for a new check.
extern "C" __global__ void bfsck_clear(u64 *ctl, int nwords) {
	for (int i = threadIdx.x; i < nwords; i += blockDim.x) ctl[i] = i == CK_ERR ? ~0ull : 0;
}

// bfsck_vertices checks the per-vertex rules but rule 5, counts the
// vertices of each level below ncounts into the counts after the control
// words, writes the levels as bytes for the arc pass (lv8[v] = level + 1,
// or CK_WIDE where that is not below CK_WIDE: read lv) and clears the
// parent-arc marks (a bit per vertex).
extern "C" __global__ void bfsck_vertices(const int *lv, const int *par, u8 *lv8, unsigned *marks, i64 n, int src,
                                          u64 *ctl, int ncounts) {
	__shared__ unsigned hist[CK_HIST];
	u64 *counts = ctl + CK_WORDS;
	for (int i = threadIdx.x; i < CK_HIST; i += blockDim.x) hist[i] = 0;
	__syncthreads();
	u64 reached = 0;
	int deepest = -1;
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		int l = lv[v], p = par[v];
		lv8[v] = l >= -1 && l < CK_WIDE - 1 ? (u8)(l + 1) : (u8)CK_WIDE;
		if ((v & 31) == 0) marks[v >> 5] = 0;
		if (v == src) {
			if (l != 0 || p != src) ck_fail(ctl, R_SOURCE, v);
		} else if (l < -1 || (l == -1 && p != -1)) {
			ck_fail(ctl, R_LEVEL, v);
		} else if (l >= 0) {
			int lp = p >= 0 && p < n ? lv[p] : -1; // one read of the parent's level
			if (lp < 0) {
				ck_fail(ctl, R_PARENT, v);
			} else if (lp != l - 1) {
				ck_fail(ctl, R_TREELEVEL, v);
			}
		}
		if (l >= 0) {
			reached++;
			deepest = l > deepest ? l : deepest;
			if (l < CK_HIST) {
				atomicAdd(&hist[l], 1u);
			} else if (l < ncounts) {
				atomicAdd(&counts[l], 1ull);
			}
		}
	}
	__syncthreads();
	for (int i = threadIdx.x; i < CK_HIST && i < ncounts; i += blockDim.x) {
		if (hist[i] != 0) atomicAdd(&counts[i], (u64)hist[i]);
	}
	if (deepest >= 0) atomicMax(&ctl[CK_LEVELS], (u64)deepest + 1);
	ck_block_add(reached, &ctl[CK_REACHED]);
}

// ck_mark marks v as reached by its parent arc and returns 1 when v was
// not marked yet (each vertex is counted once into CK_MARKS).
static __device__ __forceinline__ u64 ck_mark(unsigned *marks, int v) {
	unsigned bit = 1u << (v & 31);
	return (atomicOr(&marks[v >> 5], bit) & bit) ? 0 : 1;
}

// bfsck_anc starts the cycle search: anc[v] = v's parent where v is a
// reached vertex other than the source whose parent is a reached vertex,
// v itself otherwise.
extern "C" __global__ void bfsck_anc(const int *lv, const int *par, i64 n, int src, int *anc) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		int l = lv[v], p = par[v], a = (int)v;
		if (v != src && l >= 0 && p >= 0 && p < n && lv[p] >= 0) a = p;
		anc[v] = a;
	}
}

// bfsck_jump is one round of pointer jumping: anc[v] = anc[anc[v]]. Reads
// racing with writes of this round see an ancestor at least as far up the
// same parent path, so after k rounds every anc[v] is 2^k steps up or at
// the path's end (the source, or a vertex that is its own anc).
extern "C" __global__ void bfsck_jump(int *anc, i64 n) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		anc[v] = anc[anc[v]];
	}
}

// ck_arc checks the arc u→v (index idx in the error key) and marks v
// when it is the parent arc of v, a reached vertex other than src; it
// returns the number of new marks.
static __device__ __forceinline__ u64 ck_arc(u64 idx, int u, int v, const int *lv, const int *par, int src,
                                             unsigned *marks, u64 *ctl) {
	int lu = lv[u];
	if (lu < 0) return 0;
	int l = lv[v];
	if (l < 0) {
		ck_fail(ctl, R_SPAN, idx);
	} else if (l > lu + 1) {
		ck_fail(ctl, R_EDGELEVEL, idx);
	}
	return l >= 0 && v != src && par[v] == u ? ck_mark(marks, v) : 0;
}

// bfsck_coo checks the m undirected edges of a COO in both directions:
// index 2e is start→end, 2e+1 end→start.
extern "C" __global__ void bfsck_coo(const int *st, const int *en, i64 m, const int *lv, const int *par, int src,
                                     unsigned *marks, u64 *ctl) {
	u64 marked = 0;
	for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += (i64)gridDim.x * blockDim.x) {
		int a = st[e], b = en[e];
		marked += ck_arc(2 * (u64)e, a, b, lv, par, src, marks, ctl);
		marked += ck_arc(2 * (u64)e + 1, b, a, lv, par, src, marks, ctl);
	}
	ck_block_add(marked, &ctl[CK_MARKS]);
}

// bfscsr_tails fills tails[c] with the tail of arc c*CK_CHUNK, the first
// arc of bfsck_csr's chunk c, for the chunks of the m arcs: a table of
// the graph, built by the first check and kept, so that a check spends no
// binary search per chunk.
extern "C" __global__ void bfscsr_tails(const i64 *off, i64 n, i64 m, int *tails) {
	i64 chunks = (m + CK_CHUNK - 1) / CK_CHUNK;
	for (i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x; c < chunks; c += (i64)gridDim.x * blockDim.x) {
		tails[c] = csr_tail(off, n, c * CK_CHUNK);
	}
}

// bfsck_csr checks the m arcs of a CSR, CK_CHUNK consecutive arcs per
// thread (the first tail from bfscsr_tails's table; the tail's level and
// parent then stay in registers), and counts the arcs that leave a
// reached vertex into ctl[CK_ARCS]. The heads' levels are read from lv8,
// a byte each. Rule 5 on an undirected graph, whose CSR stores both arcs
// of each edge: the arc u→par[u], found while u's own list is read,
// stands for par[u]→u and marks u (so no arc reads the parent of its
// head). On a directed graph an arc u→v one level down marks v when
// par[v] = u. The source is never marked; new marks are counted into
// ctl[CK_MARKS].
extern "C" __global__ void bfsck_csr(const i64 *off, const int *adj, const int *tails, i64 m, int directed, const int *lv,
                                     const u8 *lv8, const int *par, int src, unsigned *marks, u64 *ctl) {
	u64 arcs = 0, marked = 0;
	i64 chunks = (m + CK_CHUNK - 1) / CK_CHUNK;
	for (i64 c = (i64)blockIdx.x * blockDim.x + threadIdx.x; c < chunks; c += (i64)gridDim.x * blockDim.x) {
		i64 k0 = c * CK_CHUNK, end = k0 + CK_CHUNK < m ? k0 + CK_CHUNK : m;
		// The chunk's heads: four 16-byte loads when it is whole (k0 is a
		// multiple of 16 elements, and adj 256-byte aligned).
		int heads[CK_CHUNK];
		if (end - k0 == CK_CHUNK) {
			const int4 *a4 = reinterpret_cast<const int4 *>(adj + k0);
#pragma unroll
			for (int j = 0; j < CK_CHUNK / 4; j++) {
				int4 x = a4[j];
				heads[4 * j] = x.x;
				heads[4 * j + 1] = x.y;
				heads[4 * j + 2] = x.z;
				heads[4 * j + 3] = x.w;
			}
		} else {
#pragma unroll
			for (int j = 0; j < CK_CHUNK; j++) heads[j] = k0 + j < end ? adj[k0 + j] : 0;
		}
		// Their levels, all requested before any is used (the random
		// reads overlap; a tail left unreached wastes its arcs' reads).
		u8 hl[CK_CHUNK];
#pragma unroll
		for (int j = 0; j < CK_CHUNK; j++) hl[j] = lv8[heads[j]];
		int u = tails[c];
		i64 uend = off[u + 1];
		int lu = lv[u], pu = par[u];
#pragma unroll
		for (int j = 0; j < CK_CHUNK; j++) {
			i64 k = k0 + j;
			if (k >= end) continue;
			while (uend <= k) {
				u++;
				uend = off[u + 1];
				lu = lv[u];
				pu = par[u];
			}
			if (lu < 0) continue;
			arcs++;
			int v = heads[j], l = hl[j] == CK_WIDE ? lv[v] : (int)hl[j] - 1;
			if (l < 0) {
				ck_fail(ctl, R_SPAN, (u64)k);
			} else if (l > lu + 1) {
				ck_fail(ctl, R_EDGELEVEL, (u64)k);
			}
			if (!directed) {
				if (v == pu && u != src) marked += ck_mark(marks, u);
			} else if (l == lu + 1 && v != src && par[v] == u) {
				marked += ck_mark(marks, v);
			}
		}
	}
	ck_block_add(arcs, &ctl[CK_ARCS]);
	ck_block_add(marked, &ctl[CK_MARKS]);
}

// bfsck_treearc finds the vertices that break rule 5: reached, not the
// source, not marked by their parent arc. The host runs it only when
// fewer vertices were marked than reached, the source aside.
extern "C" __global__ void bfsck_treearc(const int *lv, const unsigned *marks, i64 n, int src, u64 *ctl) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		if (v != src && lv[v] >= 0 && !(marks[v >> 5] >> (v & 31) & 1)) ck_fail(ctl, R_TREEARC, v);
	}
}

// bfsck_cycle checks, after the pointer jumping, that parents lead every
// reached vertex to the source.
extern "C" __global__ void bfsck_cycle(const int *lv, const int *anc, i64 n, int src, u64 *ctl) {
	for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += (i64)gridDim.x * blockDim.x) {
		if (lv[v] >= 0 && anc[v] != src) ck_fail(ctl, R_CYCLE, v);
	}
}

// bfsck_explain (thread 0 of one warp) writes what the host words the failure of
// key with: info = {u, v, level u, level v, parent u, parent v} where u→v
// is the arc of an arc rule (coo: the COO's edges, else the CSR's arcs),
// and u = v = the vertex of a vertex rule. Levels and parents of indices
// outside [0, n) read as -2.
extern "C" __global__ void bfsck_explain(u64 key, int coo, const int *st, const int *en, const i64 *off,
                                         const int *adj, i64 n, const int *lv, const int *par, i64 *info) {
	if (blockIdx.x != 0 || threadIdx.x != 0) return;
	u64 rule = key >> 48, idx = key & ((1ull << 48) - 1);
	i64 u = (i64)idx, v = (i64)idx;
	if (rule == R_SPAN || rule == R_EDGELEVEL) {
		if (coo) {
			i64 e = (i64)(idx / 2);
			u = idx % 2 ? en[e] : st[e];
			v = idx % 2 ? st[e] : en[e];
		} else {
			u = csr_tail(off, n, (i64)idx);
			v = adj[idx];
		}
	}
	info[0] = u;
	info[1] = v;
	info[2] = u >= 0 && u < n ? lv[u] : -2;
	info[3] = v >= 0 && v < n ? lv[v] : -2;
	info[4] = u >= 0 && u < n ? par[u] : -2;
	info[5] = v >= 0 && v < n ? par[v] : -2;
}
