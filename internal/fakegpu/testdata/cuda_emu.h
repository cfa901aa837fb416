// cuda_emu.h: the CUDA built-ins the algorithm packages' kernels use,
// emulated on the CPU, so that a host C++17 compiler can build a .cu file
// and run its kernels, slowly, in tests. One emulator for every package:
// fake_launch.cpp (beside this file) runs it under package gpu's fake
// driver, and algo/sssp's emulate.cpp calls it directly.
//
// emu::launch runs a grid in one of three modes (emu::Mode):
//
//   - cooperative (the default): the threads of a block are coroutines of
//     the calling OS thread (switched by a few lines of assembly on
//     x86-64, by ucontext elsewhere: glibc's swapcontext makes a system
//     call per switch). A thread runs until it reaches __syncthreads, a
//     warp collective (__shfl_*_sync, __ballot_sync) or the end of the
//     kernel; a collective completes once every lane of the warp waits at
//     one, the barrier once every thread of the block does. Blocks run one
//     after another, the threads of a pass forward, backward or shuffled
//     (emu::order), so a read of shared memory that lacks a barrier before
//     it sees a different value in some order. The launch fails when some
//     threads return while others wait at a barrier or a collective, when
//     threads wait at barriers after different numbers of them (a barrier
//     in divergent code), or when lanes wait at a collective while others
//     of their warp wait at a barrier.
//   - threads: every CUDA thread is an OS thread (kept in a pool across
//     launches), `concurrent` blocks at a time, later ones after earlier
//     ones end, as on a GPU too small to hold the grid. For kernels that
//     need lock-free progress between blocks (one spinning on a flag
//     another block sets). Collectives meet at a barrier of the warp's 32
//     threads, __syncthreads at one of the block; one that not every lane
//     reaches deadlocks, as it would misbehave on a GPU (the test's time
//     limit then ends it). No __shared__ variables in this mode (they are
//     function statics, one for all the blocks running at once).
//   - direct: every thread is a plain call, one after another; for
//     kernels without barriers or collectives (which fail the launch).
//
// In every mode atomics are real atomics, __threadfence a sequentially
// consistent fence, and plain loads and stores race as on the GPU. A
// collective whose mask holds only the calling lane returns at once, and
// __activemask returns only the calling lane (a GPU may run diverged
// lanes one at a time), so code that pushes through __activemask works.
// Widths other than 32 in the shuffles are not emulated. Static
// __shared__ memory is function statics (each block sees what the block
// before left, as on a GPU); dynamic shared memory is emu::dyn_shared(),
// filled with 0xA5 bytes at the start of each block so that a read of a
// slot nobody wrote gives garbage rather than a lucky zero. __ldg checks
// its address against emu::readable when that list is not empty. A kernel
// launch from a kernel (K<<<g, b>>>(...), rewritten by the test to
// emu::child(g, b, [=] { K(...); })) runs in direct mode once its parent
// grid has finished, a schedule the GPU may pick.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <ucontext.h>
#include <utility>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __shared__ static
#define __launch_bounds__(...)

struct dim3 {
	unsigned x = 1, y = 1, z = 1;
};
struct uint3 {
	unsigned x = 0, y = 0, z = 0;
};
struct alignas(16) int4 {
	int x, y, z, w;
};
struct alignas(16) float4 {
	float x, y, z, w;
};

// The indices belong to the CUDA thread, so to the OS thread (threads
// mode) or the scheduler sets them before resuming a coroutine.
inline thread_local uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

namespace emu {

enum class Mode { cooperative, threads, direct };

// Options says how to run one launch.
struct Options {
	Mode mode = Mode::cooperative;
	unsigned concurrent = 8; // threads mode: blocks at a time
};

// order is the cooperative passes' thread order: 0 forward, 1 backward,
// 2 shuffled.
inline int order = 0;

struct Range {
	uintptr_t lo, hi;
};
// readable lists what __ldg may read; empty: anything.
inline std::vector<Range> readable;

// globaltimer stands in for the GPU's %globaltimer register (read with
// inline PTX, which a host compiler cannot take, under #ifdef
// __CUDA_ARCH__): the host's steady clock in ns.
inline unsigned long long globaltimer() {
	return (unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
	           std::chrono::steady_clock::now().time_since_epoch())
	    .count();
}

// ---- errors ----

inline std::mutex errMu;
inline std::string error; // the launch's first problem

inline void fail(const std::string &msg) {
	std::lock_guard<std::mutex> l(errMu);
	if (error.empty()) {
		error = msg;
	}
}

// ---- the state of a block and of a CUDA thread ----

// Barrier (threads mode): the threads yield the CPU until the last one
// arrives (with far more threads than cores, yielding beats sleeping on a
// futex).
struct Barrier {
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

// Warp holds the lanes' values of a collective. Threads mode: collectives
// alternate slot[p], so one barrier per collective suffices (a lane cannot
// write slot[p] again before every lane has passed the next barrier, by
// which time all have read it). Cooperative mode: slot[0] only.
struct Warp {
	Barrier bar;
	unsigned long long slot[2][32] = {};
	int parity[32] = {0};
};

struct Block {
	Barrier bar;
	std::atomic<int> orAcc{0};    // threads mode's __syncthreads_or and _count
	int orSlot[2] = {0, 0};       // cooperative mode's, by barrier parity
	std::vector<Warp> warps;
	std::vector<unsigned char> shared;
};

enum State { runnable, atBarrier, atCollective, returned };

struct Thread {
	Mode mode = Mode::direct;
	Block *block = nullptr;
	int tid = 0; // linear index in the block
	int state = runnable;
	long barriers = 0;
	unsigned long long val = 0;
};

inline thread_local Thread *self;

inline int lane() { return self->tid & 31; }

// ---- coroutines ----

// Ctx is a suspended coroutine; ctx_make prepares one that will run fn
// (which must never return) on the given stack, ctx_switch saves the
// current one into from and resumes to.
#if defined(__x86_64__) && !defined(EMU_UCONTEXT)
extern "C" void emu_ctx_switch(void **save_sp, void *load_sp);
// Saves the callee-saved registers on the current stack and the stack
// pointer in *save_sp, then loads load_sp and restores the registers the
// other coroutine saved there (the System V ABI leaves the rest to the
// caller; nothing here changes MXCSR or the x87 control word). Weak: every
// object that includes this header defines it.
asm(".text\n"
    ".weak emu_ctx_switch\n"
    ".hidden emu_ctx_switch\n"
    ".type emu_ctx_switch,@function\n"
    "emu_ctx_switch:\n"
    "\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
    "\tmovq %rsp, (%rdi)\n"
    "\tmovq %rsi, %rsp\n"
    "\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
    "\tret\n"
    ".size emu_ctx_switch, .-emu_ctx_switch\n");

struct Ctx {
	void *sp = nullptr;
};

// ctx_make lays out the stack as emu_ctx_switch leaves it: six register
// slots, then fn as the return address at a 16-byte aligned slot, so fn
// starts with the stack pointer 8 mod 16, as after a call.
inline void ctx_make(Ctx &c, char *stack, size_t size, void (*fn)()) {
	uintptr_t a = ((uintptr_t)(stack + size) - 16) & ~(uintptr_t)15;
	void **p = (void **)a;
	p[1] = nullptr; // fn's own return address: it never returns
	p[0] = (void *)fn;
	for (int i = 1; i <= 6; i++) {
		p[-i] = nullptr;
	}
	c.sp = (void *)(p - 6);
}

inline void ctx_switch(Ctx &from, Ctx &to) { emu_ctx_switch(&from.sp, to.sp); }
#else
struct Ctx {
	ucontext_t uc;
};

inline void ctx_make(Ctx &c, char *stack, size_t size, void (*fn)()) {
	getcontext(&c.uc);
	c.uc.uc_stack.ss_sp = stack;
	c.uc.uc_stack.ss_size = size;
	c.uc.uc_link = nullptr;
	makecontext(&c.uc, fn, 0);
}

inline void ctx_switch(Ctx &from, Ctx &to) { swapcontext(&from.uc, &to.uc); }
#endif

// Coop is the cooperative scheduler's state (one OS thread runs it).
struct Coop {
	static constexpr size_t stackBytes = 256 << 10;
	std::vector<Thread> threads;
	std::vector<Ctx> ctx;
	std::vector<std::unique_ptr<char[]>> stacks; // uninitialised: pages are touched only as used
	Ctx sched;
	int cur = 0;
	const std::function<void()> *body = nullptr;
	unsigned long long rng = 0x9E3779B97F4A7C15ull;
};

inline Coop &coop() {
	static Coop *c = new Coop; // never destroyed: coroutines may still point into it at exit
	return *c;
}

// entry is every coroutine's function: the kernel, then back to the
// scheduler for good (the coroutine is never resumed).
inline void entry() {
	Coop &c = coop();
	(*c.body)();
	c.threads[c.cur].state = returned;
	ctx_switch(c.ctx[c.cur], c.sched);
	std::abort();
}

// wait parks the current coroutine in state s until the scheduler
// resumes it.
inline void wait(int s) {
	Coop &c = coop();
	c.threads[c.cur].state = s;
	ctx_switch(c.ctx[c.cur], c.sched);
}

inline std::string where() { return "block (" + std::to_string(blockIdx.x) + "," + std::to_string(blockIdx.y) + ")"; }

inline void setThreadIdx(int t) {
	threadIdx.x = t % blockDim.x;
	threadIdx.y = (t / blockDim.x) % blockDim.y;
	threadIdx.z = t / (blockDim.x * blockDim.y);
}

// coopBlock runs the current block's nt threads to their end; false on
// an error.
inline bool coopBlock(Block &b, int nt) {
	Coop &c = coop();
	b.orSlot[0] = b.orSlot[1] = 0;
	std::fill(b.shared.begin(), b.shared.end(), 0xA5);
	for (int i = 0; i < nt; i++) {
		Thread &t = c.threads[i];
		t = Thread{};
		t.mode = Mode::cooperative;
		t.block = &b;
		t.tid = i;
		ctx_make(c.ctx[i], c.stacks[i].get(), Coop::stackBytes, entry);
	}
	std::vector<int> ord(nt);
	for (;;) {
		for (int i = 0; i < nt; i++) {
			ord[i] = order == 1 ? nt - 1 - i : i;
		}
		if (order == 2) {
			for (int i = nt; i > 1; i--) {
				c.rng = c.rng * 6364136223846793005ull + 1442695040888963407ull;
				std::swap(ord[i - 1], ord[(c.rng >> 33) % i]);
			}
		}
		for (int k = 0; k < nt; k++) {
			const int i = ord[k];
			if (c.threads[i].state != runnable) {
				continue;
			}
			c.cur = i;
			self = &c.threads[i];
			setThreadIdx(i);
			ctx_switch(c.sched, c.ctx[i]);
		}
		// Every thread waits or has returned. First the warps whose lanes
		// all wait at a collective.
		bool progress = false;
		for (int w = 0; w * 32 < nt; w++) {
			int collecting = 0, other = 0, gone = 0;
			const int end = nt < (w + 1) * 32 ? nt : (w + 1) * 32;
			for (int i = w * 32; i < end; i++) {
				const int s = c.threads[i].state;
				collecting += s == atCollective;
				gone += s == returned;
				other += s == atBarrier;
			}
			if (collecting == 0 || other > 0) {
				continue;
			}
			if (gone > 0) {
				fail(where() + " warp " + std::to_string(w) + ": a warp collective was reached by " +
				     std::to_string(collecting) + " lanes while " + std::to_string(gone) + " had left the kernel");
				return false;
			}
			for (int i = w * 32; i < end; i++) {
				b.warps[w].slot[0][i & 31] = c.threads[i].val;
				c.threads[i].state = runnable;
			}
			progress = true;
		}
		if (progress) {
			continue;
		}
		int waiting = 0, collecting = 0, done = 0;
		long first = -1;
		bool uneven = false;
		for (int i = 0; i < nt; i++) {
			const Thread &t = c.threads[i];
			if (t.state == returned) {
				done++;
				continue;
			}
			if (t.state == atCollective) {
				collecting++;
				continue;
			}
			waiting++;
			if (first < 0) {
				first = t.barriers;
			} else if (t.barriers != first) {
				uneven = true;
			}
		}
		if (waiting == 0 && collecting == 0) {
			return true;
		}
		if (collecting > 0) {
			fail(where() + ": " + std::to_string(collecting) + " threads wait at a warp collective that " +
			     "lanes of their warp waiting at __syncthreads or gone never reach");
			return false;
		}
		if (done > 0) {
			fail(where() + ": " + std::to_string(done) + " threads returned while " + std::to_string(waiting) +
			     " wait at __syncthreads");
			return false;
		}
		if (uneven) {
			fail(where() + ": threads wait at __syncthreads after different numbers of barriers (a barrier in "
			               "divergent code)");
			return false;
		}
		// Every thread has passed `first` barriers: nobody reads the OR
		// slot of barrier first-2 any more, so barrier `first` may reuse it.
		b.orSlot[first & 1] = 0;
		for (int i = 0; i < nt; i++) {
			c.threads[i].state = runnable;
		}
	}
}

// ---- threads mode ----

// Pool keeps the OS threads that play CUDA threads alive across
// launches, each woken on its own (creating threads per launch, or waking
// them all, dominated the run time).
struct Pool {
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

inline Pool &pool() {
	static Pool *p = new Pool; // never destroyed: its threads wait on it until the process exits
	return *p;
}

// ---- the collectives ----

// collect publishes this lane's value and returns the slot array of all
// 32 once every lane of the warp has published.
inline const unsigned long long *collect(unsigned long long raw) {
	Thread *t = self;
	Warp &w = t->block->warps[t->tid / 32];
	switch (t->mode) {
	case Mode::threads: {
		const int l = lane(), p = w.parity[l];
		w.parity[l] = p ^ 1;
		w.slot[p][l] = raw;
		w.bar.wait();
		return w.slot[p];
	}
	case Mode::cooperative:
		t->val = raw;
		wait(atCollective);
		return w.slot[0];
	default:
		fail("a kernel run in direct mode reached a warp collective");
		w.slot[0][lane()] = raw;
		return w.slot[0];
	}
}

template <typename T> T exchange(unsigned mask, T v, int src) {
	if (mask == 1u << lane()) {
		return v;
	}
	unsigned long long raw = 0;
	std::memcpy(&raw, &v, sizeof(T));
	raw = collect(raw)[src & 31];
	T out;
	std::memcpy(&out, &raw, sizeof(T));
	return out;
}

inline void syncthreads() {
	Thread *t = self;
	switch (t->mode) {
	case Mode::threads:
		t->block->bar.wait();
		return;
	case Mode::cooperative:
		t->barriers++;
		wait(atBarrier);
		return;
	default:
		fail("a kernel run in direct mode called __syncthreads");
	}
}

// syncthreads_reduce is __syncthreads_count (count) or __syncthreads_or:
// in threads mode three barriers; in cooperative mode one, the threads
// adding 1 for a true predicate (count) or setting 1 (or) in the slot of
// this barrier's parity, which the scheduler cleared when the barrier
// before it opened.
inline int syncthreads_reduce(int p, bool count) {
	Thread *t = self;
	Block *b = t->block;
	if (t->mode == Mode::threads) {
		if (p) {
			if (count) {
				b->orAcc.fetch_add(1);
			} else {
				b->orAcc.fetch_or(1);
			}
		}
		b->bar.wait();
		int r = b->orAcc.load();
		b->bar.wait();
		if (t->tid == 0) {
			b->orAcc.store(0);
		}
		b->bar.wait();
		return r;
	}
	const long n = t->barriers;
	if (p) {
		b->orSlot[n & 1] = count ? b->orSlot[n & 1] + 1 : 1;
	}
	syncthreads();
	return b->orSlot[n & 1];
}

inline int syncthreads_or(int p) { return syncthreads_reduce(p, false); }

inline int syncthreads_count(int p) { return syncthreads_reduce(p, true); }

// ---- launches ----

struct Child {
	dim3 grid, block;
	std::function<void()> kernel;
};
inline std::mutex childMu;
inline std::vector<Child> children;

// child queues a kernel launch made by a kernel.
template <typename F> void child(unsigned grid, unsigned block, F kernel) {
	std::lock_guard<std::mutex> l(childMu);
	dim3 g, b;
	g.x = grid;
	b.x = block;
	children.push_back({g, b, kernel});
}

inline std::vector<std::unique_ptr<Block>> makeBlocks(unsigned n, int nt, unsigned shared) {
	std::vector<std::unique_ptr<Block>> blocks;
	for (unsigned i = 0; i < n; i++) {
		auto b = std::make_unique<Block>();
		b->bar.n = nt;
		b->warps = std::vector<Warp>((nt + 31) / 32);
		for (Warp &w : b->warps) {
			w.bar.n = 32;
		}
		b->shared.assign(shared, 0xA5);
		blocks.push_back(std::move(b));
	}
	return blocks;
}

inline void setBlockIdx(unsigned linear) {
	blockIdx.x = linear % gridDim.x;
	blockIdx.y = (linear / gridDim.x) % gridDim.y;
	blockIdx.z = linear / (gridDim.x * gridDim.y);
}

// grid runs one grid; false on an error.
inline bool grid(dim3 g, dim3 blk, unsigned shared, const Options &o, const std::function<void()> &kernel) {
	gridDim = g;
	blockDim = blk;
	const unsigned nb = g.x * g.y * g.z;
	const int nt = (int)(blk.x * blk.y * blk.z);
	switch (o.mode) {
	case Mode::direct: {
		auto blocks = makeBlocks(1, nt, shared);
		Thread t;
		t.block = blocks[0].get();
		self = &t;
		for (unsigned b = 0; b < nb && error.empty(); b++) {
			setBlockIdx(b);
			std::fill(t.block->shared.begin(), t.block->shared.end(), 0xA5);
			for (int i = 0; i < nt; i++) {
				t.tid = i;
				setThreadIdx(i);
				kernel();
			}
		}
		self = nullptr;
		return error.empty();
	}
	case Mode::cooperative: {
		Coop &c = coop();
		if ((int)c.threads.size() < nt) {
			c.threads.resize(nt);
			c.ctx.resize(nt);
			while ((int)c.stacks.size() < nt) {
				c.stacks.emplace_back(new char[Coop::stackBytes]);
			}
		}
		c.body = &kernel;
		auto blocks = makeBlocks(1, nt, shared);
		for (unsigned b = 0; b < nb; b++) {
			setBlockIdx(b);
			if (!coopBlock(*blocks[0], nt)) {
				self = nullptr;
				return false;
			}
		}
		self = nullptr;
		return error.empty();
	}
	case Mode::threads: {
		if (nt % 32 != 0) {
			fail("threads mode needs blocks of whole warps, not " + std::to_string(nt) + " threads");
			return false;
		}
		for (unsigned b0 = 0; b0 < nb; b0 += o.concurrent) {
			const unsigned n = nb - b0 < o.concurrent ? nb - b0 : o.concurrent;
			auto blocks = makeBlocks(n, nt, shared);
			std::vector<Thread> threads(n * nt);
			std::function<void(int)> body = [&](int id) {
				Thread &t = threads[id];
				t.mode = Mode::threads;
				t.block = blocks[id / nt].get();
				t.tid = id % nt;
				self = &t;
				setBlockIdx(b0 + id / nt);
				setThreadIdx(t.tid);
				kernel();
				self = nullptr;
			};
			pool().run((int)(n * nt), body);
		}
		return error.empty();
	}
	}
	return false;
}

// launch runs kernel() as a grid×block launch with `shared` bytes of
// dynamic shared memory, then the launches the kernel made, and returns
// what went wrong ("" if nothing).
inline std::string launch(dim3 g, dim3 blk, unsigned shared, Options o, const std::function<void()> &kernel) {
	error.clear();
	children.clear();
	if (grid(g, blk, shared, o, kernel)) {
		Options direct;
		direct.mode = Mode::direct;
		for (size_t i = 0; i < children.size() && error.empty(); i++) {
			Child ch = children[i]; // a child may queue more
			grid(ch.grid, ch.block, 0, direct, ch.kernel);
		}
	}
	children.clear();
	return error;
}

inline std::string launch(unsigned g, unsigned blk, Options o, const std::function<void()> &kernel) {
	dim3 gd, bd;
	gd.x = g;
	bd.x = blk;
	return launch(gd, bd, 0, o, kernel);
}

inline bool checkRead(const void *p, size_t bytes) {
	if (readable.empty()) {
		return true;
	}
	const uintptr_t a = (uintptr_t)p;
	for (const Range &r : readable) {
		if (a >= r.lo && a + bytes <= r.hi) {
			return true;
		}
	}
	char buf[160];
	snprintf(buf, sizeof buf, "block %u thread %u: __ldg of %zu bytes at %p, outside every buffer of the launch",
	         blockIdx.x, threadIdx.x, bytes, p);
	fail(buf);
	return false;
}

// dyn_shared is the block's dynamic shared memory.
inline unsigned char *dyn_shared() { return self->block->shared.data(); }

template <typename T> T bits(const void *p) {
	T out;
	std::memcpy(&out, p, sizeof(T));
	return out;
}

} // namespace emu

// ---- the built-ins ----

#define EMU_SHFL(T)                                                                                              \
	inline T __shfl_sync(unsigned m, T v, int src, int = 32) { return emu::exchange<T>(m, v, src); }             \
	inline T __shfl_xor_sync(unsigned m, T v, int x, int = 32) { return emu::exchange<T>(m, v, emu::lane() ^ x); } \
	inline T __shfl_up_sync(unsigned m, T v, unsigned d, int = 32) {                                             \
		T o = emu::exchange<T>(m, v, emu::lane() - (int)d);                                                      \
		return emu::lane() >= (int)d ? o : v;                                                                    \
	}                                                                                                            \
	inline T __shfl_down_sync(unsigned m, T v, unsigned d, int = 32) {                                           \
		T o = emu::exchange<T>(m, v, emu::lane() + (int)d);                                                      \
		return emu::lane() + (int)d < 32 ? o : v;                                                                \
	}
EMU_SHFL(int)
EMU_SHFL(unsigned)
EMU_SHFL(long long)
EMU_SHFL(unsigned long long)
EMU_SHFL(float)
EMU_SHFL(double)
#undef EMU_SHFL

inline unsigned __ballot_sync(unsigned mask, int p) {
	if (mask == 1u << emu::lane()) {
		return p ? mask : 0;
	}
	const unsigned long long *all = emu::collect(p != 0);
	unsigned m = 0;
	for (int i = 0; i < 32; i++) {
		if (all[i]) {
			m |= 1u << i;
		}
	}
	return m;
}

inline unsigned __activemask() { return 1u << emu::lane(); }
inline void __syncthreads() { emu::syncthreads(); }
inline int __syncthreads_or(int p) { return emu::syncthreads_or(p); }
inline int __syncthreads_count(int p) { return emu::syncthreads_count(p); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }

inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }

template <typename T> T __ldg(const T *p) {
	T out{};
	if (!emu::checkRead(p, sizeof(T))) {
		return out;
	}
	if constexpr (sizeof(T) <= 8) {
		__atomic_load(p, &out, __ATOMIC_RELAXED);
	} else {
		std::memcpy(&out, p, sizeof(T));
	}
	return out;
}

template <typename T> T atomicMin(T *p, T v) {
	T old = __atomic_load_n(p, __ATOMIC_RELAXED);
	while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
	}
	return old;
}
template <typename T> T atomicMax(T *p, T v) {
	T old = __atomic_load_n(p, __ATOMIC_RELAXED);
	while (v > old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
	}
	return old;
}
template <typename T> T atomicCAS(T *p, T cmp, T v) {
	__atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return cmp;
}
template <typename T> T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }
template <typename T> T atomicAdd(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
template <typename T> T atomicOr(T *p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }
template <typename T> T atomicAnd(T *p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); }

inline float __int_as_float(int x) { return emu::bits<float>(&x); }
inline int __float_as_int(float x) { return emu::bits<int>(&x); }
inline float __uint_as_float(unsigned x) { return emu::bits<float>(&x); }
inline unsigned __float_as_uint(float x) { return emu::bits<unsigned>(&x); }
inline double __longlong_as_double(long long x) { return emu::bits<double>(&x); }
inline long long __double_as_longlong(double x) { return emu::bits<long long>(&x); }

// ---- Hopper's DPX intrinsics and fminf (algo/apsp's fw.cu) ----
//
// fminf is CUDA's (a device function NVRTC knows without a header), here
// the C library's.
#include <cmath>
//
// The CUDA Math API's integer DPX functions, compiled by NVRTC to one
// instruction on compute capability 9.0 and later (and to a sequence of
// instructions before it); here plain C++. A sum that overflows wraps
// here (unsigned arithmetic, defined in C++); the kernels never let it
// overflow. Only the forms the kernels use.

// __viaddmin_s32 is min(a + b, c).
inline int __viaddmin_s32(int a, int b, int c) {
	int s = (int)((unsigned)a + (unsigned)b);
	return s < c ? s : c;
}

// __vibmin_s32 is min(a, b), with *pred set to (a <= b): true when a,
// the first operand, is the minimum (ties included).
inline int __vibmin_s32(int a, int b, bool *pred) {
	*pred = a <= b;
	return *pred ? a : b;
}
