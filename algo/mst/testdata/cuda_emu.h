// cuda_emu.h: the CUDA built-ins boruvka.cu uses, emulated on the CPU so
// that its kernels run, slowly, in this package's tests (fake_launch.cpp).
//
// A launch runs its warps one after another on the calling thread. The 32
// lanes of a warp are coroutines (ucontext) that run in turn until each
// reaches a warp collective (__shfl_*_sync, __ballot_sync) or leaves the
// kernel; when every lane still in the kernel waits at a collective, the
// values are exchanged and the lanes resume. A collective reached while a
// lane of the warp has left the kernel (undefined behaviour on a GPU with
// a full mask) fails the launch. Running lanes and warps in turn is one
// of the schedules a GPU may pick; the kernels must be correct under all
// of them. Atomics are plain read-modify-writes: one lane runs at a time.
#include <ucontext.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline

struct emu_dim3 {
	unsigned x = 0, y = 1, z = 1;
};
emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace emu {

const size_t stackBytes = 256 << 10;

struct Lane {
	ucontext_t ctx;
	bool done = false;
	bool waiting = false;
	unsigned long long val = 0;
};

ucontext_t sched;
Lane lanes[32];
std::vector<char> stacks(32 * stackBytes);
unsigned long long out[32];
int cur;
const std::function<void()> *kernel;
std::string error;

void entry() {
	(*kernel)();
	lanes[cur].done = true;
} // returns to sched (uc_link)

// collect publishes the current lane's value, yields until every lane of
// the warp has published, and returns all 32.
inline const unsigned long long *collect(unsigned long long v) {
	Lane &l = lanes[cur];
	l.val = v;
	l.waiting = true;
	swapcontext(&l.ctx, &sched);
	return out;
}

// runWarp runs warp w of block b to its end; false on a collective
// problem (error says which).
inline bool runWarp(unsigned b, unsigned w) {
	for (int i = 0; i < 32; i++) {
		Lane &l = lanes[i];
		l.done = l.waiting = false;
		getcontext(&l.ctx);
		l.ctx.uc_stack.ss_sp = &stacks[i * stackBytes];
		l.ctx.uc_stack.ss_size = stackBytes;
		l.ctx.uc_link = &sched;
		makecontext(&l.ctx, entry, 0);
	}
	for (;;) {
		for (int i = 0; i < 32; i++) {
			if (!lanes[i].done && !lanes[i].waiting) {
				cur = i;
				blockIdx.x = b;
				threadIdx.x = w * 32 + i;
				swapcontext(&sched, &lanes[i].ctx);
			}
		}
		int waiting = 0, done = 0;
		for (int i = 0; i < 32; i++) {
			waiting += lanes[i].waiting;
			done += lanes[i].done;
		}
		if (waiting == 0) {
			return true;
		}
		if (done > 0) {
			error = "a warp collective was reached by " + std::to_string(waiting) + " lanes while " +
			        std::to_string(done) + " had left the kernel";
			return false;
		}
		for (int i = 0; i < 32; i++) {
			out[i] = lanes[i].val;
			lanes[i].waiting = false;
		}
	}
}

} // namespace emu

template <typename T> T emu_exchange(T v, int src) {
	unsigned long long raw = 0;
	std::memcpy(&raw, &v, sizeof(T));
	raw = emu::collect(raw)[src & 31];
	T r;
	std::memcpy(&r, &raw, sizeof(T));
	return r;
}

#define EMU_SHFL(T)                                                                                    \
	inline T __shfl_sync(unsigned, T v, int src, int = 32) { return emu_exchange<T>(v, src); }      \
	inline T __shfl_xor_sync(unsigned, T v, int m, int = 32) { return emu_exchange<T>(v, emu::cur ^ m); }
EMU_SHFL(int)
EMU_SHFL(unsigned)
EMU_SHFL(long long)
EMU_SHFL(unsigned long long)

inline unsigned __ballot_sync(unsigned, int p) {
	const unsigned long long *all = emu::collect(p != 0);
	unsigned m = 0;
	for (int i = 0; i < 32; i++) {
		if (all[i]) {
			m |= 1u << i;
		}
	}
	return m;
}

inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }

template <typename T> T atomicMin(T *p, T v) {
	const T old = *p;
	if (v < old) {
		*p = v;
	}
	return old;
}
template <typename T> T atomicAdd(T *p, T v) {
	const T old = *p;
	*p = old + v;
	return old;
}
template <typename T> T atomicOr(T *p, T v) {
	const T old = *p;
	*p = old | v;
	return old;
}

inline unsigned __float_as_uint(float f) {
	unsigned x;
	std::memcpy(&x, &f, 4);
	return x;
}
inline long long __double_as_longlong(double d) {
	long long x;
	std::memcpy(&x, &d, 8);
	return x;
}

// emu_launch runs kernel() as grid blocks of block threads (a multiple of
// 32) and returns what went wrong ("" if nothing).
template <typename F> std::string emu_launch(unsigned grid, unsigned block, F kernel) {
	std::function<void()> k = kernel;
	emu::kernel = &k;
	emu::error.clear();
	blockDim.x = block;
	gridDim.x = grid;
	for (unsigned b = 0; b < grid; b++) {
		for (unsigned w = 0; w < block / 32; w++) {
			if (!emu::runWarp(b, w)) {
				return emu::error;
			}
		}
	}
	return "";
}
