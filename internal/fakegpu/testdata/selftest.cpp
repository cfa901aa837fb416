// selftest.cpp runs small kernels on cuda_emu.h in each mode, for
// TestEmulator: the results the built-ins must give, and the misuses the
// emulator must report. It prints one line per case: "NAME ok", or
// "NAME error: MESSAGE" when the launch failed, or "NAME wrong: ..." when
// a result is not what CUDA gives.
#include <cstdio>
#include <string>

#include "cuda_emu.h"

static const emu::Options coop{};
static const emu::Options threads{emu::Mode::threads, 4};
static const emu::Options direct{emu::Mode::direct};

static void report(const char *name, const std::string &err, bool right, const std::string &got = "") {
	if (!err.empty()) {
		printf("%s error: %s\n", name, err.c_str());
	} else if (!right) {
		printf("%s wrong: %s\n", name, got.c_str());
	} else {
		printf("%s ok\n", name);
	}
}

// blockSum: shared memory, __syncthreads, a warp reduction by
// __shfl_down_sync and one atomicAdd per block.
__device__ void blockSum(const int *in, unsigned long long *out) {
	__shared__ unsigned long long part[32];
	unsigned long long x = in[blockIdx.x * blockDim.x + threadIdx.x];
	for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
	if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = x;
	__syncthreads();
	if (threadIdx.x == 0) {
		unsigned long long s = 0;
		for (unsigned w = 0; w < blockDim.x / 32; w++) s += part[w];
		atomicAdd(out, s);
	}
}

int main() {
	std::vector<int> in(4 * 128);
	for (size_t i = 0; i < in.size(); i++) in[i] = (int)i;
	const unsigned long long want = in.size() * (in.size() - 1) / 2;
	for (int order = 0; order < 3; order++) {
		emu::order = order;
		unsigned long long sum = 0;
		std::string err = emu::launch(4, 128, coop, [&] { blockSum(in.data(), &sum); });
		report(("sum_order" + std::to_string(order)).c_str(), err, sum == want, std::to_string(sum));
	}
	emu::order = 0;

	// __ballot_sync, __shfl_xor_sync, __shfl_up_sync, __syncthreads_or.
	{
		unsigned ballot = 0;
		int xorv = 0, up = 0, anyOdd = -1, none = -1;
		std::string err = emu::launch(1, 64, coop, [&] {
			const int lane = threadIdx.x % 32;
			unsigned b = __ballot_sync(0xffffffffu, lane % 3 == 0);
			int x = __shfl_xor_sync(0xffffffffu, lane, 1);
			int u = __shfl_up_sync(0xffffffffu, lane, 2);
			int o = __syncthreads_or(threadIdx.x == 37);
			int z = __syncthreads_or(0);
			if (threadIdx.x == 4) ballot = b, xorv = x, up = u, anyOdd = o, none = z;
		});
		report("collectives", err, ballot == 0x49249249u && xorv == 5 && up == 2 && anyOdd == 1 && none == 0,
		       std::to_string(ballot) + " " + std::to_string(xorv) + " " + std::to_string(up) + " " +
		           std::to_string(anyOdd) + " " + std::to_string(none));
	}

	// Pushing through __activemask from divergent code: a queue of the odd
	// threads, each slot written once.
	{
		std::vector<int> q(64, -1);
		unsigned long long tail = 0;
		std::string err = emu::launch(1, 64, coop, [&] {
			if (threadIdx.x % 2 == 1) {
				unsigned m = __activemask();
				int lane = threadIdx.x % 32, leader = __ffs(m) - 1;
				unsigned long long base = 0;
				if (lane == leader) base = atomicAdd(&tail, (unsigned long long)__popc(m));
				base = __shfl_sync(m, base, leader);
				q[base + __popc(m & ((1u << lane) - 1u))] = threadIdx.x;
			}
		});
		int seen = 0;
		for (unsigned long long i = 0; i < tail; i++) seen += q[i] % 2 == 1;
		report("activemask_push", err, tail == 32 && seen == 32, std::to_string(tail));
	}

	// Threads mode: block 1 spins until block 0 sets a flag, which only
	// concurrent blocks get through.
	{
		int flag = 0, after = 0;
		unsigned long long sum = 0;
		std::string err = emu::launch(2, 64, threads, [&] {
			if (blockIdx.x == 0 && threadIdx.x == 0) __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
			if (blockIdx.x == 1 && threadIdx.x == 0) {
				while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) == 0) std::this_thread::yield();
				after = 1;
			}
			// A warp reduction and one atomic per warp: collectives, but no
			// __shared__ (one static for every block running at once).
			unsigned long long x = in[blockIdx.x * blockDim.x + threadIdx.x];
			for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
			if (threadIdx.x % 32 == 0) atomicAdd(&sum, x);
			__syncthreads();
		});
		report("threads_progress", err, after == 1 && sum == (unsigned long long)128 * 127 / 2, std::to_string(sum));
	}

	// Direct mode, and the child grids a kernel launches.
	{
		std::vector<int> out(10, 0);
		std::string err = emu::launch(1, 2, direct, [&] {
			int *o = out.data();
			const int base = threadIdx.x * 5;
			emu::child(1, 5, [=] { o[base + threadIdx.x] = base + (int)threadIdx.x + 1; });
		});
		bool right = true;
		for (int i = 0; i < 10; i++) right = right && out[i] == i + 1;
		report("children", err, right);
	}

	// Misuses the emulator must report.
	report("barrier_after_return", emu::launch(1, 64, coop, [&] {
		       if (threadIdx.x < 16) return;
		       __syncthreads();
	       }), true);
	report("divergent_barrier", emu::launch(1, 64, coop, [&] {
		       if (threadIdx.x < 16) __syncthreads();
		       __syncthreads();
	       }), true);
	report("collective_after_return", emu::launch(1, 32, coop, [&] {
		       if (threadIdx.x == 3) return;
		       __ballot_sync(0xffffffffu, 1);
	       }), true);
	report("collective_vs_barrier", emu::launch(1, 32, coop, [&] {
		       if (threadIdx.x == 3) __syncthreads();
		       else __ballot_sync(0xffffffffu, 1);
	       }), true);
	report("direct_barrier", emu::launch(1, 32, direct, [&] { __syncthreads(); }), true);
	{
		int inside[4] = {1, 2, 3, 4}, outside = 5;
		emu::readable = {{(uintptr_t)inside, (uintptr_t)(inside + 4)}};
		int got = 0;
		std::string err = emu::launch(1, 32, coop, [&] { got += __ldg(&inside[threadIdx.x % 4]); });
		report("ldg_inside", err, got == 80, std::to_string(got));
		report("ldg_outside", emu::launch(1, 32, coop, [&] { got += __ldg(&outside); }), true);
		emu::readable.clear();
	}
	return 0;
}
