// launchlog.cuh — the device side of gpu.LaunchLog: kernels of a traced
// run stamp their own span with the GPU's global timer, so that the host
// records no event between launches (an event costs a microsecond or two
// of host time, which a search of 0.3 ms feels).
//
// A logged kernel takes two extra arguments, last: ent, its entry of
// LLOG_WORDS words in the log's ring on the device, and nxt, the next
// launch's entry (both NULL when the run is not traced). It calls
// llog_begin first and llog_end last, from every thread:
//
//	extern "C" __global__ void k(..., unsigned long long *ent, unsigned long long *nxt) {
//		llog_begin(ent, nxt);
//		...                   // no thread may return before llog_end
//		llog_end(ent);
//	}
//
// or, for a body that returns early, llog_kernel(ent, nxt, [&] { body }):
// a return in the body leaves the lambda, and llog_end still runs. The
// lambda captures by reference: a kernel whose locals must stay in
// registers may run slower so (MST's kernels wrapped this way ran 25%
// slower untraced on SSCA#2, measured; the packed-id reader is the
// suspect), so measure it untraced, or keep the body a function of its
// own.
//
// Block 0's first thread writes the start and zeroes nxt's ends (the next
// launch starts after this one ends: its blocks raise zero ends); every
// block, once its threads are done, raises one of the entry's LLOG_ENDS
// end words (block b the word b % LLOG_ENDS) to the timer with an atomic
// maximum it does not wait for, so it retires at once; the host takes the
// largest. (One word for every block made the blocks of a wide grid that
// finish together queue on one address in the L2: a microsecond a launch
// on a persistent grid, measured.) Under
// NVRTC the text is prepended to a kernel file (gpu.PrependLaunchLog); the
// fake GPU's sources include it (the emulator's emu::globaltimer is a
// steady clock).
#ifndef GRAPHNB_LAUNCHLOG_CUH
#define GRAPHNB_LAUNCHLOG_CUH

#define LLOG_WORDS 16
#define LLOG_START 0
#define LLOG_END 1 // the first of the LLOG_ENDS end words
#define LLOG_ENDS 15

// llog_clock is the GPU's global timer in ns.
__device__ __forceinline__ unsigned long long llog_clock() {
#ifdef __CUDA_ARCH__
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
#else
	return emu::globaltimer();
#endif
}

// An open launch (gpu.LaunchLog.LaunchOpen) gets its entry's address
// with the low bit set (entries are 8-byte aligned): it logs its start
// only, and its time runs to the next logged launch's start, which the
// host launched right after it on the same stream. It skips llog_end's
// barrier and atomic: on every block's way out, every launch, those cost
// a traced run about a point at R-MAT scale 20 (H100, near-far SSSP and
// MST).
#define LLOG_OPEN 1ull

// llog_entry is a kernel's entry argument without its open bit.
__device__ __forceinline__ unsigned long long *llog_entry(unsigned long long *ent) {
	return (unsigned long long *)((unsigned long long)ent & ~LLOG_OPEN);
}

// llog_begin starts a logged launch (nothing when ent is NULL).
__device__ __forceinline__ void llog_begin(unsigned long long *ent, unsigned long long *nxt) {
	if (ent != 0 && blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0 && threadIdx.x == 0 &&
			threadIdx.y == 0 && threadIdx.z == 0) {
		llog_entry(ent)[LLOG_START] = llog_clock();
		for (int k = 0; k < LLOG_ENDS; k++) {
			nxt[LLOG_END + k] = 0;
		}
	}
}

// llog_end_synced is llog_end for a block whose threads have all
// passed a barrier after their last work for the launch (the caller's
// own): it stamps without a barrier of its own, by the block's first
// thread (the others may call it too; nothing when ent is NULL or open).
__device__ __forceinline__ void llog_end_synced(unsigned long long *ent) {
	if (ent == 0 || ((unsigned long long)ent & LLOG_OPEN) != 0) {
		return;
	}
	if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
		atomicMax(ent + LLOG_END + blockIdx.x % LLOG_ENDS, llog_clock());
	}
}

// llog_end raises the launch's end to the block's (nothing when ent is
// NULL or open), in the block's end word. Every thread of the block must
// call it: it synchronises the block.
__device__ __forceinline__ void llog_end(unsigned long long *ent) {
	if (ent == 0 || ((unsigned long long)ent & LLOG_OPEN) != 0) {
		return;
	}
	__syncthreads();
	llog_end_synced(ent);
}

// llog_kernel runs body() between llog_begin and llog_end, so that a
// kernel whose threads return early (from the lambda) still logs.
template <typename Body>
__device__ __forceinline__ void llog_kernel(unsigned long long *ent, unsigned long long *nxt, Body body) {
	llog_begin(ent, nxt);
	body();
	llog_end(ent);
}

#endif
