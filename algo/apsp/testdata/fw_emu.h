// fw_emu.h: a small CPU emulation of the CUDA built-ins fw.cu uses, so
// that its kernels run, slowly, on the host in tests (TestFakeGPU builds
// them into a fake libcuda.so.1; see fake_launch.cpp). The threads of a
// block are coroutines (ucontext) on one OS thread: each runs until it
// reaches __syncthreads() or returns, and a barrier releases when every
// thread of the block has reached it. A block whose threads do not all
// reach the same barrier is reported and aborts, as it would misbehave on
// a GPU. __shared__ variables are function statics: blocks run one after
// the other, so each block sees "its" shared memory (holding whatever the
// previous block left, as on a GPU).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <ucontext.h>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)

struct emu_dim3 {
	unsigned x = 1, y = 1, z = 1;
};

inline emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

inline float __int_as_float(int x) {
	float f;
	std::memcpy(&f, &x, 4);
	return f;
}

struct EmuSched {
	bool direct = false; // emu_run_direct: no barrier allowed
	ucontext_t main;
	std::vector<ucontext_t> ctx;
	std::vector<std::unique_ptr<char[]>> stacks;
	std::vector<int> state; // 0 runnable, 1 at the barrier, 2 returned
	int cur = -1;
	std::function<void()> body;
};

inline EmuSched emu;

inline void __syncthreads() {
	if (emu.direct) {
		fprintf(stderr, "fw emulator: a kernel run without barriers called __syncthreads\n");
		abort();
	}
	emu.state[emu.cur] = 1;
	swapcontext(&emu.ctx[emu.cur], &emu.main);
}

inline void emu_entry() {
	emu.body();
	emu.state[emu.cur] = 2; // uc_link returns to the scheduler
}

constexpr size_t emu_stack = 256 << 10;

// emu_run_direct runs a kernel that has no barrier: every thread is a
// plain call.
template <typename F> void emu_run_direct(emu_dim3 grid, emu_dim3 block, F kernel) {
	gridDim = grid;
	blockDim = block;
	emu.direct = true;
	for (unsigned bz = 0; bz < grid.z; bz++) {
		for (unsigned by = 0; by < grid.y; by++) {
			for (unsigned bx = 0; bx < grid.x; bx++) {
				blockIdx.x = bx;
				blockIdx.y = by;
				blockIdx.z = bz;
				for (unsigned tz = 0; tz < block.z; tz++) {
					for (unsigned ty = 0; ty < block.y; ty++) {
						for (unsigned tx = 0; tx < block.x; tx++) {
							threadIdx.x = tx;
							threadIdx.y = ty;
							threadIdx.z = tz;
							kernel();
						}
					}
				}
			}
		}
	}
	emu.direct = false;
}

// emu_launch runs kernel() on a grid of blocks, one block after the other,
// each thread a coroutine.
template <typename F> void emu_launch(emu_dim3 grid, emu_dim3 block, F kernel) {
	gridDim = grid;
	blockDim = block;
	int nt = (int)(block.x * block.y * block.z);
	emu.body = kernel;
	while ((int)emu.ctx.size() < nt) {
		emu.ctx.emplace_back();
		emu.stacks.emplace_back(new char[emu_stack]);
	}
	emu.state.assign(nt, 0);
	for (unsigned bz = 0; bz < grid.z; bz++) {
		for (unsigned by = 0; by < grid.y; by++) {
			for (unsigned bx = 0; bx < grid.x; bx++) {
				blockIdx.x = bx;
				blockIdx.y = by;
				blockIdx.z = bz;
				for (int t = 0; t < nt; t++) {
					getcontext(&emu.ctx[t]);
					emu.ctx[t].uc_stack.ss_sp = emu.stacks[t].get();
					emu.ctx[t].uc_stack.ss_size = emu_stack;
					emu.ctx[t].uc_link = &emu.main;
					makecontext(&emu.ctx[t], emu_entry, 0);
					emu.state[t] = 0;
				}
				for (;;) {
					for (int t = 0; t < nt; t++) {
						if (emu.state[t] != 0) {
							continue;
						}
						emu.cur = t;
						threadIdx.x = t % block.x;
						threadIdx.y = (t / block.x) % block.y;
						threadIdx.z = t / (block.x * block.y);
						swapcontext(&emu.main, &emu.ctx[t]);
					}
					int done = 0, waiting = 0;
					for (int t = 0; t < nt; t++) {
						done += emu.state[t] == 2;
						waiting += emu.state[t] == 1;
					}
					if (done == nt) {
						break;
					}
					if (done > 0) {
						fprintf(stderr, "fw emulator: block (%u,%u): %d threads returned while %d wait at __syncthreads\n", bx,
						        by, done, waiting);
						abort();
					}
					for (int t = 0; t < nt; t++) {
						emu.state[t] = 0;
					}
				}
			}
		}
	}
}
