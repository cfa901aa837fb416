// check.cuh: what the device checks of the algorithm packages (each
// package's check.cu) share. NVRTC takes no #include, so the Go side
// (devcheck.Source) compiles this text followed by the package's
// check.cu, after algo/internal/devcsr's csr.cuh (csr_tail, csr_advance:
// an arc's row); the fake GPU's testdata/fake_check.cpp includes both
// files before check.cu, so both compile the same text.
//
// A failure is recorded as one 64-bit key, rule << 48 | index, kept at its
// minimum with atomicMin in ctl[CK_ERR]: the lowest rule wins, then the
// lowest index, so the report does not depend on scheduling. The host
// resets ctl[CK_ERR] to ~0 (no failure) before the kernels run. Every
// kernel is grid-stride over blocks of CK_BLOCK threads.

typedef unsigned char u8;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;

#define CK_BLOCK 256
#define CK_FULL 0xffffffffu

// The first control word (devcheck.ErrWord on the Go side); each
// check.cu numbers its own words after it.
#define CK_ERR 0 // smallest failure key; ~0 when none

// ck_fail records a failure of rule at index idx.
static __device__ __forceinline__ void ck_fail(u64 *ctl, u64 rule, u64 idx) {
	atomicMin(&ctl[CK_ERR], (rule << 48) | idx);
}

static __device__ __forceinline__ double ck_inf() { return __longlong_as_double(0x7ff0000000000000ll); }

static __device__ __forceinline__ u64 ck_warp_sum(u64 x) {
	for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(CK_FULL, x, o);
	return x;
}

// ck_block_add adds x over the block into *dst; every thread calls it.
static __device__ __forceinline__ void ck_block_add(u64 x, u64 *dst) {
	__shared__ u64 part[32];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	x = ck_warp_sum(x);
	if (lane == 0) part[warp] = x;
	__syncthreads();
	if (warp == 0) {
		u64 y = lane < (int)(blockDim.x >> 5) ? part[lane] : 0;
		y = ck_warp_sum(y);
		if (lane == 0 && y != 0) atomicAdd(dst, y);
	}
	__syncthreads();
}
