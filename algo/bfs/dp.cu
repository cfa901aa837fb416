// Dynamic-parallelism step of the BFS study (docs/studies.md §2): on levels with
// few frontier vertices, one thread per vertex checks whether its vertex is
// on the current level and, if so, launches a child grid over the vertex's
// own CSR arcs instead of scanning every edge. Compiled by NVRTC as
// relocatable device code and linked with the CUDA device runtime
// (gpu.DynamicParallelism). No #include: every type is declared here.
//
// Control words (ctl, 4 unsigned long long, zeroed by the host before a
// step): [CTL_TRIED] child launches attempted, [CTL_RAN] child grids that
// ran (block 0, thread 0 of each counts), [CTL_COUNT] is bfs.cu's level
// count, [CTL_OVER] frontier vertices left unexpanded because the per-step
// cap of DP_MAX_CHILDREN child grids was reached. The host finishes a step
// with the edge scan when CTL_OVER is non-zero or fewer grids ran than were
// launched (a device-side launch that failed, e.g. past the device
// runtime's pending-launch limit of 2048): the scan is idempotent, so the
// level comes out complete either way.

typedef unsigned char u8;
typedef long long i64;
typedef unsigned long long u64;

// Two builds (gpu.go; bfs.cu's header says why): the untraced one, this
// file alone, holds the parents as the study's; the traced one
// (-DBFS_STUDY_TRACED=1, launchlog.cuh prepended) gives them the launch
// log's two arguments, ent and nxt, last, and stamps the start only: a
// parent grid completes after its child grids, so its own end would come
// too early. The host launches it open (gpu.LaunchLog.LaunchOpen) and
// follows it at once with the level's count, whose start ends it.
#ifdef BFS_STUDY_TRACED
#define DP_LOG_ARGS , u64 *ent, u64 *nxt
#define DP_LOG_BEGIN llog_begin(ent, nxt);
#else
#define DP_LOG_ARGS
#define DP_LOG_BEGIN
#endif

#define CTL_TRIED 0
#define CTL_RAN 1
#define CTL_COUNT 2
#define CTL_OVER 3

#define DP_CHILD_BLOCK 256
// Vertices with at most DP_INLINE_DEG arcs scan them in the parent thread:
// a child grid would cost more than it saves.
#define DP_INLINE_DEG 32
// At most this many child grids per step, below the device runtime's
// default pending-launch limit (2048).
#define DP_MAX_CHILDREN 1536

// Levels above iter are unvisited (unsigned char: 255; int: 0x7fffffff).

template <typename L>
__device__ __forceinline__ void dp_child_body(const int *adj, i64 s, i64 deg, L *levels, int iter, u64 *ctl) {
	if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&ctl[CTL_RAN], 1ull);
	i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (k < deg) {
		int u = adj[s + k];
		if ((int)levels[u] > iter) levels[u] = (L)(iter + 1);
	}
}

// dp_child_*: the child grid of one frontier vertex, one thread per arc
// adj[s .. s+deg). Launched from the device only.
extern "C" __global__ void dp_child_u8(const int *adj, i64 s, i64 deg, u8 *levels, int iter, u64 *ctl) {
	dp_child_body<u8>(adj, s, deg, levels, iter, ctl);
}

extern "C" __global__ void dp_child_i32(const int *adj, i64 s, i64 deg, int *levels, int iter, u64 *ctl) {
	dp_child_body<int>(adj, s, deg, levels, iter, ctl);
}

__device__ __forceinline__ void launch_child(const int *adj, i64 s, i64 deg, u8 *levels, int iter, u64 *ctl) {
	dp_child_u8<<<(unsigned)((deg + DP_CHILD_BLOCK - 1) / DP_CHILD_BLOCK), DP_CHILD_BLOCK>>>(adj, s, deg, levels, iter, ctl);
}

__device__ __forceinline__ void launch_child(const int *adj, i64 s, i64 deg, int *levels, int iter, u64 *ctl) {
	dp_child_i32<<<(unsigned)((deg + DP_CHILD_BLOCK - 1) / DP_CHILD_BLOCK), DP_CHILD_BLOCK>>>(adj, s, deg, levels, iter, ctl);
}

// The parent: one thread per vertex. Races are benign as in the edge scan:
// writers of a vertex all write iter+1, and a vertex being written is not
// on level iter whichever value a reader sees.
template <typename L>
__device__ __forceinline__ void dp_parent_body(const i64 *off, const int *adj, i64 n, L *levels, int iter, u64 *ctl) {
	i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= n || (int)levels[v] != iter) return;
	i64 s = off[v], deg = off[v + 1] - s;
	if (deg <= DP_INLINE_DEG) {
		for (i64 k = s; k < s + deg; ++k) {
			int u = adj[k];
			if ((int)levels[u] > iter) levels[u] = (L)(iter + 1);
		}
		return;
	}
	if (atomicAdd(&ctl[CTL_TRIED], 1ull) >= DP_MAX_CHILDREN) {
		atomicAdd(&ctl[CTL_OVER], 1ull);
		return;
	}
	launch_child(adj, s, deg, levels, iter, ctl);
}

// dp_parent_*: threads n, in blocks of any size.
extern "C" __global__ void dp_parent_u8(const i64 *off, const int *adj, i64 n, u8 *levels, int iter, u64 *ctl DP_LOG_ARGS) {
	DP_LOG_BEGIN
	dp_parent_body<u8>(off, adj, n, levels, iter, ctl);
}

extern "C" __global__ void dp_parent_i32(const i64 *off, const int *adj, i64 n, int *levels, int iter, u64 *ctl DP_LOG_ARGS) {
	DP_LOG_BEGIN
	dp_parent_body<int>(off, adj, n, levels, iter, ctl);
}
