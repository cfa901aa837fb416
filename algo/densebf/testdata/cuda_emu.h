// cuda_emu.h runs the kernels of densebf.cu on the CPU, slowly, for the
// fake-GPU test (TestFakeGPU builds testdata/fake_launch.cpp with it).
//
// The threads of a block are coroutines of one OS thread (switched by a
// few lines of assembly on x86-64, by ucontext elsewhere: glibc's
// swapcontext makes a system call per switch, ten times slower). Each
// runs until it reaches __syncthreads or returns; when every thread of the
// block has, the barrier opens. A pass over the threads runs them in a
// fixed order, forward, backward or shuffled (Emu::order, changed per
// launch), so a read of shared memory that lacks a barrier before it sees
// a different value in some order and the results go wrong. The emulator
// stops a launch with an error when some threads return while others wait
// at a barrier, or when threads wait at barriers after different numbers
// of them (a barrier inside divergent code), and when __ldg reads outside
// the launch's buffers. Blocks run one after another. Shared memory is
// filled with 0xA5 bytes at the start of each block, so a read of a slot
// nobody wrote gives garbage rather than a lucky zero.
#include <ucontext.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__
#define DENSEBF_EMULATED 1

struct emu_dim3 {
	unsigned x = 0, y = 1, z = 1;
};
// One OS thread plays every CUDA thread, so these are plain globals that
// the scheduler sets before resuming a thread.
emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

struct alignas(16) int4 {
	int x, y, z, w;
};
struct alignas(16) float4 {
	float x, y, z, w;
};

namespace emu {

// Ctx is a suspended coroutine; ctx_make prepares one that will run fn
// (which must never return) on the given stack, ctx_switch saves the
// current one into from and resumes to.
#if defined(__x86_64__) && !defined(EMU_UCONTEXT)
extern "C" void emu_ctx_switch(void **save_sp, void *load_sp);
// Saves the callee-saved registers on the current stack and the stack
// pointer in *save_sp, then loads load_sp and restores the registers the
// other coroutine saved there (the System V ABI leaves the rest to the
// caller; nothing here changes MXCSR or the x87 control word).
asm(".text\n"
    ".globl emu_ctx_switch\n"
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

struct Thread {
	Ctx ctx;
	std::vector<char> stack;
	int state = 0; // 0 runnable, 1 waiting at a barrier, 2 returned
	long barriers = 0;
};

struct Range {
	uintptr_t lo, hi;
};

struct State {
	std::vector<Thread> threads;
	Ctx sched;
	int cur = 0;
	std::vector<unsigned char> shared;
	int orSlot[2] = {0, 0}; // __syncthreads_or accumulators, by barrier parity
	const std::function<void()> *body = nullptr;
	std::string error;
	std::vector<Range> buffers; // what __ldg may read
	int order = 0;              // 0 forward, 1 backward, 2 shuffled
	unsigned long long rng = 0x9E3779B97F4A7C15ull;
};

inline State &st() {
	static State *s = new State;
	return *s;
}

inline void fail(const std::string &msg) {
	if (st().error.empty()) {
		st().error = msg;
	}
}

// entry is every coroutine's function: the kernel, then back to the
// scheduler for good (the coroutine is never resumed).
inline void entry() {
	State &s = st();
	(*s.body)();
	s.threads[s.cur].state = 2;
	ctx_switch(s.threads[s.cur].ctx, s.sched);
	std::abort();
}

inline void yield_to_scheduler() {
	State &s = st();
	ctx_switch(s.threads[s.cur].ctx, s.sched);
}

// run_block runs body as the threads of one block; false on an error.
inline bool run_block(unsigned nthreads, const std::function<void()> &body) {
	State &s = st();
	const size_t stackBytes = 128 << 10;
	if (s.threads.size() < nthreads) {
		s.threads.resize(nthreads);
	}
	s.body = &body;
	s.orSlot[0] = s.orSlot[1] = 0;
	std::fill(s.shared.begin(), s.shared.end(), 0xA5);
	for (unsigned i = 0; i < nthreads; i++) {
		Thread &t = s.threads[i];
		if (t.stack.size() < stackBytes) {
			t.stack.resize(stackBytes);
		}
		t.state = 0;
		t.barriers = 0;
		ctx_make(t.ctx, t.stack.data(), t.stack.size(), entry);
	}
	std::vector<unsigned> order(nthreads);
	for (;;) {
		for (unsigned i = 0; i < nthreads; i++) {
			order[i] = i;
		}
		if (s.order == 1) {
			for (unsigned i = 0; i < nthreads; i++) {
				order[i] = nthreads - 1 - i;
			}
		} else if (s.order == 2) {
			for (unsigned i = nthreads; i > 1; i--) {
				s.rng = s.rng * 6364136223846793005ull + 1442695040888963407ull;
				std::swap(order[i - 1], order[(s.rng >> 33) % i]);
			}
		}
		for (unsigned k = 0; k < nthreads; k++) {
			const unsigned i = order[k];
			if (s.threads[i].state != 0) {
				continue;
			}
			s.cur = (int)i;
			threadIdx.x = i;
			ctx_switch(s.sched, s.threads[i].ctx);
		}
		unsigned waiting = 0, done = 0;
		long first = -1;
		bool uneven = false;
		for (unsigned i = 0; i < nthreads; i++) {
			const Thread &t = s.threads[i];
			if (t.state == 2) {
				done++;
				continue;
			}
			waiting++;
			if (first < 0) {
				first = t.barriers;
			} else if (t.barriers != first) {
				uneven = true;
			}
		}
		if (waiting == 0) {
			return s.error.empty();
		}
		if (done > 0) {
			fail("block " + std::to_string(blockIdx.x) + ": " + std::to_string(done) +
			     " threads returned while " + std::to_string(waiting) + " wait at __syncthreads");
			return false;
		}
		if (uneven) {
			fail("block " + std::to_string(blockIdx.x) +
			     ": threads wait at __syncthreads after different numbers of barriers (a barrier in divergent code)");
			return false;
		}
		// Every thread has passed `first` barriers: nobody reads the OR
		// slot of barrier first-2 any more, so barrier `first` may reuse it.
		s.orSlot[first & 1] = 0;
		for (unsigned i = 0; i < nthreads; i++) {
			s.threads[i].state = 0;
		}
	}
}

// launch runs kernel as a grid×block launch with `shared` bytes of
// dynamic shared memory; false on an error (Emu::st().error says which).
template <typename F> bool launch(unsigned grid, unsigned block, unsigned shared, F kernel) {
	State &s = st();
	s.error.clear();
	s.shared.assign(shared, 0xA5);
	blockDim.x = block;
	gridDim.x = grid;
	const std::function<void()> body = kernel;
	for (unsigned b = 0; b < grid; b++) {
		blockIdx.x = b;
		if (!run_block(block, body)) {
			return false;
		}
	}
	return true;
}

inline bool check_read(const void *p, size_t bytes) {
	const uintptr_t a = (uintptr_t)p;
	for (const Range &r : st().buffers) {
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

} // namespace emu

inline unsigned char *dyn_shared() { return emu::st().shared.data(); }

inline void __syncthreads() {
	emu::State &s = emu::st();
	s.threads[s.cur].state = 1;
	s.threads[s.cur].barriers++;
	emu::yield_to_scheduler();
}

// __syncthreads_or is one barrier: the threads OR their predicate into the
// slot of this barrier's parity, which the scheduler cleared when the
// barrier before it opened (see run_block), and read it once it opens.
inline int __syncthreads_or(int p) {
	emu::State &s = emu::st();
	const long b = s.threads[s.cur].barriers;
	if (p) {
		s.orSlot[b & 1] = 1;
	}
	__syncthreads();
	return s.orSlot[b & 1];
}

template <typename T> T __ldg(const T *p) {
	if (!emu::check_read(p, sizeof(T))) {
		return T();
	}
	return *p;
}

inline float __int_as_float(int x) {
	float f;
	std::memcpy(&f, &x, 4);
	return f;
}
