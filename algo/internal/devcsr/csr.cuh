// csr.cuh: finding the row (tail) of an arc of a CSR whose offsets off
// hold n+1 entries, off[n] = m arcs. NVRTC takes no #include: the Go side
// (devcsr.Prepend) compiles this text before the kernel file; the fake
// GPU's sources include it.

typedef long long i64;

// csr_bisect returns the vertex u in [lo, hi) with off[u] ≤ k < off[u+1],
// given off[lo] ≤ k < off[hi].
static __device__ __forceinline__ int csr_bisect(const i64 *off, i64 lo, i64 hi, i64 k) {
	while (hi - lo > 1) {
		i64 mid = lo + (hi - lo) / 2;
		if (off[mid] <= k) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	return (int)lo;
}

// csr_tail returns the vertex u with off[u] ≤ k < off[u+1], for 0 ≤ k <
// off[n]: a binary search over all of off.
static __device__ __forceinline__ int csr_tail(const i64 *off, i64 n, i64 k) { return csr_bisect(off, 0, n, k); }

// csr_advance returns the vertex u ≥ v with off[u] ≤ k < off[u+1], for
// off[v] ≤ k < off[n]: a few steps forward, else a galloping search from v
// (probes 4, 8, 16, … rows ahead, then halving) — a warp tile of arcs may
// span long runs of vertices with few or no arcs, and the rows near v are
// the ones the thread just read, where a search over all of off would
// start far away each time.
static __device__ __forceinline__ int csr_advance(const i64 *off, i64 n, int v, i64 k) {
	for (int i = 0; i < 4; i++, v++) {
		if (off[v + 1] > k) return v;
	}
	i64 lo = v, hi = n, step = 4; // off[lo] ≤ k < off[n]
	while (lo + step < n) {
		if (off[lo + step] > k) {
			hi = lo + step;
			break;
		}
		lo += step;
		step *= 2;
	}
	return csr_bisect(off, lo, hi, k);
}
