// cuda_emu.h: a tiny CPU emulation of the CUDA built-ins sssp.cu uses, so
// that the kernels can run, slowly, on the host in tests
// (TestKernelsEmulated builds emulate.cpp with g++). Every CUDA thread is
// an OS thread; warp collectives (__shfl_*_sync, __ballot_sync) meet at a
// barrier of the warp's 32 threads and __syncthreads_or at one of the
// block, so a collective that not every lane reaches deadlocks here as it
// would misbehave on a GPU (the harness then times out); __syncthreads
// meets at the block's barrier. Atomics are real atomics, __threadfence a
// sequentially consistent fence; plain loads and stores race as on the
// GPU (aligned, x86). Blocks run `concurrent` at a time, later ones after
// earlier ones end, as on a GPU too small to hold the grid.
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline

struct emu_dim3 {
	unsigned x = 0, y = 1, z = 1;
};
thread_local emu_dim3 threadIdx, blockIdx;
emu_dim3 blockDim, gridDim;

// EmuBarrier: the threads yield the CPU until the last one arrives (with
// far more threads than cores, yielding beats sleeping on a futex).
struct EmuBarrier {
	int n = 0;
	std::atomic<int> arrived{0};
	std::atomic<unsigned> gen{0};
	void wait() {
		unsigned g = gen.load(std::memory_order_acquire);
		if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == n) {
			arrived.store(0, std::memory_order_relaxed);
			gen.store(g + 1, std::memory_order_release);
			return;
		}
		while (gen.load(std::memory_order_acquire) == g) {
			std::this_thread::yield();
		}
	}
};

// EmuWarp: slot[p] holds the lanes' values of a collective; collectives
// alternate p, so one barrier per collective suffices (a lane cannot
// write slot[p] again before every lane has passed the next barrier, by
// which time all have read it).
struct EmuWarp {
	EmuBarrier bar;
	unsigned long long slot[2][32];
	int parity[32] = {0};
};

struct EmuBlock {
	EmuBarrier bar;
	std::atomic<int> orAcc{0};
	std::vector<std::unique_ptr<EmuWarp>> warps;
};

thread_local EmuBlock *emu_block;
thread_local EmuWarp *emu_warp;
thread_local int emu_lane;

// emu_collect publishes this lane's value and returns the slot array of
// all 32 once every lane has published.
inline const unsigned long long *emu_collect(unsigned long long raw) {
	EmuWarp *w = emu_warp;
	int p = w->parity[emu_lane];
	w->parity[emu_lane] = p ^ 1;
	w->slot[p][emu_lane] = raw;
	w->bar.wait();
	return w->slot[p];
}

template <typename T> T emu_exchange(T v, int src) {
	unsigned long long raw = 0;
	std::memcpy(&raw, &v, sizeof(T));
	raw = emu_collect(raw)[src & 31];
	T out;
	std::memcpy(&out, &raw, sizeof(T));
	return out;
}

#define EMU_SHFL(T)                                                                                      \
	T __shfl_sync(unsigned, T var, int src, int = 32) { return emu_exchange<T>(var, src); }           \
	T __shfl_xor_sync(unsigned, T var, int m, int = 32) { return emu_exchange<T>(var, emu_lane ^ m); } \
	T __shfl_up_sync(unsigned, T var, unsigned d, int = 32) {                                          \
		T o = emu_exchange<T>(var, emu_lane - (int)d);                                                 \
		return emu_lane >= (int)d ? o : var;                                                           \
	}
EMU_SHFL(int)
EMU_SHFL(unsigned)
EMU_SHFL(long long)
EMU_SHFL(unsigned long long)
EMU_SHFL(float)
EMU_SHFL(double)

unsigned __ballot_sync(unsigned, int p) {
	const unsigned long long *all = emu_collect(p != 0);
	unsigned m = 0;
	for (int i = 0; i < 32; i++) {
		if (all[i]) {
			m |= 1u << i;
		}
	}
	return m;
}

int __syncthreads_or(int p) {
	EmuBlock *b = emu_block;
	if (p) {
		b->orAcc.fetch_or(1);
	}
	b->bar.wait();
	int r = b->orAcc.load();
	b->bar.wait();
	if (threadIdx.x == 0) {
		b->orAcc.store(0);
	}
	b->bar.wait();
	return r;
}

void __syncthreads() { emu_block->bar.wait(); }

void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }

int __ffs(int x) { return __builtin_ffs(x); }
int __popc(unsigned x) { return __builtin_popcount(x); }
int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }

template <typename T> T __ldg(const T *p) {
	T out;
	__atomic_load(p, &out, __ATOMIC_RELAXED);
	return out;
}

template <typename T> T atomicMin(T *p, T v) {
	T old = __atomic_load_n(p, __ATOMIC_RELAXED);
	while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
	}
	return old;
}
template <typename T> T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }
template <typename T> T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }

double __longlong_as_double(long long x) {
	double d;
	std::memcpy(&d, &x, 8);
	return d;
}
long long __double_as_longlong(double d) {
	long long x;
	std::memcpy(&x, &d, 8);
	return x;
}
float __uint_as_float(unsigned x) {
	float f;
	std::memcpy(&f, &x, 4);
	return f;
}
unsigned __float_as_uint(float f) {
	unsigned x;
	std::memcpy(&x, &f, 4);
	return x;
}

// EmuPool keeps the OS threads that play CUDA threads alive across
// launches, each woken on its own (creating threads per launch, or waking
// them all, dominated the run time).
struct EmuPool {
	struct Worker {
		std::mutex mu;
		std::condition_variable cv;
		bool go = false;
	};
	std::mutex mu;
	std::condition_variable done;
	std::vector<std::unique_ptr<Worker>> workers;
	int pending = 0;
	const std::function<void(int)> *job = nullptr;

	void run(int n, const std::function<void(int)> &f) {
		while ((int)workers.size() < n) {
			workers.push_back(std::make_unique<Worker>());
			Worker *w = workers.back().get();
			int id = (int)workers.size() - 1;
			std::thread([this, w, id] { loop(w, id); }).detach();
		}
		{
			std::lock_guard<std::mutex> l(mu);
			job = &f;
			pending = n;
		}
		for (int i = 0; i < n; i++) {
			Worker *w = workers[i].get();
			std::lock_guard<std::mutex> l(w->mu);
			w->go = true;
			w->cv.notify_one();
		}
		std::unique_lock<std::mutex> l(mu);
		done.wait(l, [&] { return pending == 0; });
	}

	void loop(Worker *w, int id) {
		for (;;) {
			{
				std::unique_lock<std::mutex> l(w->mu);
				w->cv.wait(l, [&] { return w->go; });
				w->go = false;
			}
			const std::function<void(int)> *f;
			{
				std::lock_guard<std::mutex> l(mu);
				f = job;
			}
			(*f)(id);
			std::lock_guard<std::mutex> l(mu);
			if (--pending == 0) {
				done.notify_all();
			}
		}
	}
};

// Never destroyed: its threads wait on it until the process exits.
EmuPool &emu_pool = *new EmuPool;

// emu_launch runs kernel() as grid×block threads, up to `concurrent`
// blocks at a time. block must be a multiple of 32.
template <typename F> void emu_launch(unsigned grid, unsigned block, F kernel, unsigned concurrent = 8) {
	blockDim.x = block;
	gridDim.x = grid;
	for (unsigned b0 = 0; b0 < grid; b0 += concurrent) {
		unsigned nb = grid - b0 < concurrent ? grid - b0 : concurrent;
		std::vector<std::unique_ptr<EmuBlock>> blocks;
		for (unsigned i = 0; i < nb; i++) {
			auto b = std::make_unique<EmuBlock>();
			b->bar.n = (int)block;
			for (unsigned w = 0; w < block / 32; w++) {
				auto wp = std::make_unique<EmuWarp>();
				wp->bar.n = 32;
				b->warps.push_back(std::move(wp));
			}
			blocks.push_back(std::move(b));
		}
		std::function<void(int)> body = [&](int id) {
			unsigned i = (unsigned)id / block, t = (unsigned)id % block;
			EmuBlock *b = blocks[i].get();
			blockIdx.x = b0 + i;
			threadIdx.x = t;
			emu_block = b;
			emu_warp = b->warps[t / 32].get();
			emu_lane = (int)(t % 32);
			kernel();
		};
		emu_pool.run((int)(nb * block), body);
	}
}
