// fake_launch.cpp turns package gpu's fake CUDA driver
// (gpu/testdata/fakecuda.c, whose "device memory" is host memory) into a
// slow CPU GPU for this package's kernels: linked with fakecuda.c compiled
// with -DcuLaunchKernel=fake_orig_cuLaunchKernel, it defines
// cuLaunchKernel, lets the fake do its checks, then runs the sssp.cu
// kernel of that name on the emulator (cuda_emu.h), with the arguments
// unpacked from the 8-byte slots package gpu passes. TestFakeGPU builds
// it as libcuda.so.1 and runs the GPU tests' checks through the real Go
// code (Prepare, Run, argument packing, launch loops, copies).
#include <cstdint>
#include <cstdio>
#include <string>

#include "testdata/cuda_emu.h"

#include "sssp.cu"

extern "C" int fake_orig_cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                        unsigned bz, unsigned shared, void *s, void **params, void **extra);

namespace {

template <typename T> T val(void **p, int i) {
	T v;
	std::memcpy(&v, p[i], sizeof(T));
	return v;
}

template <typename T> T *ptr(void **p, int i) { return (T *)(uintptr_t)val<unsigned long long>(p, i); }

int nargs(void **p) {
	int n = 0;
	while (p && p[n]) {
		n++;
	}
	return n;
}

} // namespace

#define EDGE_PLAIN(NAME, D, W)                                                                                  \
	if (name == #NAME) {                                                                                        \
		want = 7;                                                                                               \
		if (n == want)                                                                                          \
			emu_launch(gx, bx, [&] {                                                                            \
				NAME(ptr<const int>(a, 0), ptr<const int>(a, 1), ptr<const W>(a, 2), ptr<D>(a, 3), ptr<int>(a, 4), \
				     val<int>(a, 5), val<int>(a, 6));                                                          \
			});                                                                                                 \
	}
#define EDGE_RESTRICT(NAME, D, W)                                                                                     \
	if (name == #NAME) {                                                                                              \
		want = 8;                                                                                                     \
		if (n == want)                                                                                                \
			emu_launch(gx, bx, [&] {                                                                                  \
				NAME(ptr<const int>(a, 0), ptr<const int>(a, 1), ptr<const W>(a, 2), ptr<const D>(a, 3), ptr<D>(a, 4), \
				     ptr<int>(a, 5), val<int>(a, 6), val<int>(a, 7));                                                \
			});                                                                                                       \
	}
#define EDGE_INIT(NAME, D)                                                                                     \
	if (name == #NAME) {                                                                                       \
		want = 5;                                                                                              \
		if (n == want)                                                                                         \
			emu_launch(gx, bx,                                                                                 \
			           [&] { NAME(ptr<D>(a, 0), val<int>(a, 1), val<int>(a, 2), val<D>(a, 3), ptr<int>(a, 4)); }); \
	}
#define NF_INIT(NAME, D, B)                                                                                      \
	if (name == #NAME) {                                                                                          \
		want = 10;                                                                                                \
		if (n == want)                                                                                            \
			emu_launch(gx, bx, [&] {                                                                              \
				NAME(ptr<B>(a, 0), ptr<int>(a, 1), ptr<int>(a, 2), ptr<int>(a, 3), val<int>(a, 4), val<int>(a, 5), \
				     val<D>(a, 6), ptr<u64>(a, 7), val<unsigned>(a, 8), ptr<u64>(a, 9));                          \
			});                                                                                                   \
	}
// The step kernel's loops are grid-stride over whole warps: a smaller
// grid of smaller blocks computes the same (its epilogue waits for the
// blocks there are), and the emulator cannot afford 132×8 blocks of 256
// threads per step: one block of 64 (TestKernelsEmulated runs several).
#define NF_STEP(NAME, D, W, B)                                                                                        \
	if (name == #NAME) {                                                                                              \
		want = 17;                                                                                                    \
		if (n == want)                                                                                                \
			emu_launch(1, 64, [&] {                                                                                   \
				NAME(ptr<const i64>(a, 0), ptr<const i64>(a, 1), ptr<const int>(a, 2), ptr<const W>(a, 3), ptr<B>(a, 4), \
				     ptr<int>(a, 5), ptr<int>(a, 6), ptr<int>(a, 7), ptr<const u64>(a, 8), ptr<u64>(a, 9),             \
				     ptr<u64>(a, 10), ptr<int>(a, 11), ptr<int>(a, 12), ptr<u64>(a, 13), val<int>(a, 14),             \
				     val<int>(a, 15), val<D>(a, 16));                                                                 \
			});                                                                                                       \
	}

extern "C" int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                              unsigned shared, void *s, void **a, void **extra) {
	int r = fake_orig_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, a, extra);
	if (r != 0) {
		return r;
	}
	// The fake's function handle starts with the kernel's name.
	const std::string name((const char *)f);
	if (name.rfind("sssp_", 0) != 0) {
		return 0;
	}
	if (gy != 1 || gz != 1 || by != 1 || bz != 1 || bx % 32 != 0 || shared != 0) {
		fprintf(stderr, "fake_launch: %s: grid %u×%u×%u block %u×%u×%u shared %u: want 1-D grids, blocks of whole warps\n",
		        name.c_str(), gx, gy, gz, bx, by, bz, shared);
		return 1; // CUDA_ERROR_INVALID_VALUE
	}
	const int n = nargs(a);
	int want = -1;
	EDGE_INIT(sssp_edge_init_d64, double)
	EDGE_INIT(sssp_edge_init_d32, float)
	EDGE_PLAIN(sssp_edge_d64_w32_plain, double, float)
	EDGE_PLAIN(sssp_edge_d64_w64_plain, double, double)
	EDGE_PLAIN(sssp_edge_d32_w32_plain, float, float)
	EDGE_PLAIN(sssp_edge_d32_w64_plain, float, double)
	EDGE_RESTRICT(sssp_edge_d64_w32_restrict, double, float)
	EDGE_RESTRICT(sssp_edge_d64_w64_restrict, double, double)
	EDGE_RESTRICT(sssp_edge_d32_w32_restrict, float, float)
	EDGE_RESTRICT(sssp_edge_d32_w64_restrict, float, double)
	NF_INIT(sssp_nf_init_d64, double, u64)
	NF_INIT(sssp_nf_init_d32, float, u32)
	NF_STEP(sssp_nf_step_d64_w32, double, float, u64)
	NF_STEP(sssp_nf_step_d64_w64, double, double, u64)
	NF_STEP(sssp_nf_step_d32_w32, float, float, u32)
	NF_STEP(sssp_nf_step_d32_w64, float, double, u32)
	if (want < 0) {
		fprintf(stderr, "fake_launch: no emulation of kernel %s\n", name.c_str());
		return 500; // CUDA_ERROR_NOT_FOUND
	}
	if (n != want) {
		fprintf(stderr, "fake_launch: %s takes %d arguments, the launch passed %d\n", name.c_str(), want, n);
		return 1;
	}
	return 0;
}
