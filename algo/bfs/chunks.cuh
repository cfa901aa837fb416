// chunks.cuh — a grid's walk over the arcs of a chunk of vertices, shared
// by bfs.cu (do_td_big) and multi.cu (td_scan): the Go side prepends it to
// both (NVRTC compiles each file alone, with no #include); the fake GPU's
// sources include it. Every block holds the chunk's prefix sums in shared
// memory, and each thread finds the vertex of its arc by binary search.
#ifndef GRAPHNB_BFS_CHUNKS_CUH
#define GRAPHNB_BFS_CHUNKS_CUH

// chunk_scan turns pre[1..n] (pre[t+1]: the degree of the chunk's vertex
// t, 0 past its last; pre[0] = 0) into inclusive prefix sums, pre[k] the
// arcs of vertices 0..k-1: a Hillis-Steele scan over n = blockDim.x
// entries. Every thread of the block calls it, with t = threadIdx.x,
// once it has written its pre[t+1] (thread 0 pre[0] too); it begins and
// ends with a barrier.
__device__ __forceinline__ void chunk_scan(long long *pre, int t, int n) {
	__syncthreads();
	for (int o = 1; o < n; o <<= 1) {
		long long x = t >= o ? pre[t + 1 - o] : 0;
		__syncthreads();
		pre[t + 1] += x;
		__syncthreads();
	}
}

// chunk_find returns the vertex of the chunk's arc a (0 <= a < pre[cnt]):
// the last l < cnt with pre[l] <= a.
__device__ __forceinline__ int chunk_find(const long long *pre, int cnt, long long a) {
	int lo = 0, hi = cnt - 1;
	while (lo < hi) {
		int mid = (lo + hi + 1) >> 1;
		if (pre[mid] <= a) lo = mid;
		else hi = mid - 1;
	}
	return lo;
}

#endif
