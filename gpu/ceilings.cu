// The kernels of Device.Ceilings (ceilings.go): a generator of random
// indices, the random gathers whose bandwidth is measured, and the empty
// and spinning kernels that time launches. NVRTC compiles this file at run
// time, without headers.

typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

// mix is splitmix64's finalizer: a well-spread 64-bit hash of x.
__device__ __forceinline__ u64 mix(u64 x) {
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

// ceilings_indices fills idx[0..n) with pseudo-random indices in
// [0, range): the top 32 bits of a hash of (i, seed), scaled to the range
// by a multiply and a shift (Lemire's reduction).
extern "C" __global__ void ceilings_indices(u32 *idx, i64 n, u32 range, u32 seed) {
	const i64 stride = (i64)gridDim.x * blockDim.x;
	for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		const u64 h = mix((u64)i ^ ((u64)seed << 40));
		idx[i] = (u32)(((h >> 32) * (u64)range) >> 32);
	}
}

// gather adds table[idx[i]] over i in [0, n), a grid-stride loop four
// lookups deep (four independent loads in flight per thread), into a
// per-thread sum that it writes to out[thread] so that the loads cannot
// be dropped. The indices stream through once (__ldcs: evict first, so
// they do not push the table out of L2); the table is read through the
// read-only path (__ldg).
template <typename T>
__device__ __forceinline__ void gather(const u32 *__restrict__ idx, i64 n, const T *__restrict__ table, T *__restrict__ out) {
	const i64 stride = (i64)gridDim.x * blockDim.x;
	const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
	i64 i = tid;
	T sum = 0;
	for (; i + 3 * stride < n; i += 4 * stride) {
		const u32 a = __ldcs(idx + i);
		const u32 b = __ldcs(idx + i + stride);
		const u32 c = __ldcs(idx + i + 2 * stride);
		const u32 d = __ldcs(idx + i + 3 * stride);
		sum += __ldg(table + a) + __ldg(table + b) + __ldg(table + c) + __ldg(table + d);
	}
	for (; i < n; i += stride) sum += __ldg(table + __ldcs(idx + i));
	out[tid] = sum;
}

extern "C" __global__ void ceilings_gather4(const u32 *idx, i64 n, const u32 *table, u32 *out) { gather<u32>(idx, n, table, out); }

extern "C" __global__ void ceilings_gather8(const u32 *idx, i64 n, const u64 *table, u64 *out) { gather<u64>(idx, n, table, out); }

// ceilings_empty does nothing: back-to-back launches of it time the
// launch itself.
extern "C" __global__ void ceilings_empty() {}

// ceilings_spin keeps the GPU busy for ns nanoseconds of the global timer,
// so that the host can queue the timed launches behind it and the GPU
// then runs them back to back, not at the host's pace.
extern "C" __global__ void ceilings_spin(i64 ns) {
	u64 start, now;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
	do {
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
	} while ((i64)(now - start) < ns);
}
