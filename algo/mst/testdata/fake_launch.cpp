// fake_launch.cpp turns package gpu's fake CUDA driver
// (gpu/testdata/fakecuda.c, whose "device memory" is host memory) into a
// slow CPU GPU for boruvka.cu: linked with fakecuda.c compiled with
// -DcuLaunchKernel=fake_orig_cuLaunchKernel, it defines cuLaunchKernel,
// lets the fake check and log the launch, then runs the kernel of that
// name on the emulator (cuda_emu.h) with the arguments unpacked from the
// 8-byte slots package gpu passes. TestFakeGPU builds it as libcuda.so.1
// and runs the GPU tests through the real Go code (Prepare, Run, argument
// packing, the round loop, copies, the host's share).
#include <cstdint>
#include <cstdio>
#include <string>

#include "testdata/cuda_emu.h"

#include "boruvka.cu"

extern "C" int fake_orig_cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                        unsigned bz, unsigned shared, void *s, void **params, void **extra);

namespace {

// Args reads kernel argument i as a value of type T or as a pointer.
struct Args {
	void **p;
	template <typename T> T v(int i) const {
		T x;
		std::memcpy(&x, p[i], sizeof(T));
		return x;
	}
	template <typename T> T *ptr(int i) const { return (T *)(uintptr_t)v<unsigned long long>(i); }
};

int nargs(void **p) {
	int n = 0;
	while (p && p[n]) {
		n++;
	}
	return n;
}

} // namespace

extern "C" int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                              unsigned shared, void *s, void **params, void **extra) {
	int r = fake_orig_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
	if (r != 0) {
		return r;
	}
	// The fake's function handle starts with the kernel's name.
	const std::string name((const char *)f);
	if (name.rfind("mst_", 0) != 0) {
		return 0;
	}
	if (gy != 1 || gz != 1 || by != 1 || bz != 1 || bx % 32 != 0 || shared != 0) {
		fprintf(stderr, "fake_launch: %s: grid %u×%u×%u block %u×%u×%u shared %u: want 1-D grids of whole warps\n",
		        name.c_str(), gx, gy, gz, bx, by, bz, shared);
		return 1; // CUDA_ERROR_INVALID_VALUE
	}
	const Args a{params};
	const int n = nargs(params);
	int want = -1;
	std::string err;
#define KERNEL(NAME, N, GRID, CALL)                                                                           \
	if (name == #NAME) {                                                                                      \
		want = N;                                                                                             \
		if (n == want) {                                                                                      \
			err = emu_launch(GRID, bx, [&] { CALL; });                                                        \
		}                                                                                                     \
	}
	KERNEL(mst_init, 6, gx, mst_init(a.ptr<int>(0), a.ptr<u32>(1), a.ptr<int>(2), a.v<int>(3), a.v<int>(4), a.v<int>(5)))
	KERNEL(mst_reset, 5, gx, mst_reset(a.ptr<u64>(0), a.ptr<u32>(1), a.ptr<int>(2), a.ptr<int>(3), a.v<int>(4)))
	KERNEL(mst_probe_plain, 15, gx,
	       mst_probe_plain(a.ptr<const i64>(0), a.ptr<const int>(1), a.ptr<const int>(2), a.ptr<u32>(3), a.v<int>(4),
	                       a.ptr<const void>(5), a.ptr<const u32>(6), a.ptr<u64>(7), a.ptr<u32>(8), a.ptr<int>(9),
	                       a.ptr<u64>(10), a.ptr<int>(11), a.ptr<int>(12), a.v<int>(13), a.v<int>(14)))
	KERNEL(mst_probe_comp, 17, gx,
	       mst_probe_comp(a.ptr<const i64>(0), a.ptr<const u32>(1), a.ptr<const u8>(2), a.ptr<const u8>(3),
	                      a.ptr<const int>(4), a.ptr<u32>(5), a.v<int>(6), a.ptr<const void>(7), a.ptr<const u32>(8),
	                      a.ptr<u64>(9), a.ptr<u32>(10), a.ptr<int>(11), a.ptr<u64>(12), a.ptr<int>(13),
	                      a.ptr<int>(14), a.v<int>(15), a.v<int>(16)))
	// The scan is a grid-stride loop: two blocks compute the same as the
	// full grid and make the loop wrap.
	KERNEL(mst_scan_plain, 13, gx < 2 ? gx : 2,
	       mst_scan_plain(a.ptr<const i64>(0), a.ptr<const int>(1), a.ptr<const int>(2), a.ptr<u32>(3), a.v<int>(4),
	                      a.ptr<const void>(5), a.ptr<const u32>(6), a.ptr<u64>(7), a.ptr<u32>(8), a.ptr<int>(9),
	                      a.ptr<u64>(10), a.ptr<const int>(11), a.ptr<const int>(12)))
	KERNEL(mst_scan_comp, 15, gx < 2 ? gx : 2,
	       mst_scan_comp(a.ptr<const i64>(0), a.ptr<const u32>(1), a.ptr<const u8>(2), a.ptr<const u8>(3),
	                     a.ptr<const int>(4), a.ptr<u32>(5), a.v<int>(6), a.ptr<const void>(7), a.ptr<const u32>(8),
	                     a.ptr<u64>(9), a.ptr<u32>(10), a.ptr<int>(11), a.ptr<u64>(12), a.ptr<const int>(13),
	                     a.ptr<const int>(14)))
	KERNEL(mst_merge_host, 5, gx,
	       mst_merge_host(a.ptr<const u64>(0), a.ptr<const int>(1), a.ptr<u64>(2), a.v<int>(3), a.v<int>(4)))
	KERNEL(mst_min_edge, 11, gx,
	       mst_min_edge(a.ptr<const u64>(0), a.ptr<const u32>(1), a.ptr<const int>(2), a.ptr<const u64>(3),
	                    a.ptr<const u32>(4), a.ptr<const int>(5), a.ptr<const int>(6), a.ptr<const u64>(7),
	                    a.ptr<u32>(8), a.v<int>(9), a.v<int>(10)))
	KERNEL(mst_hook, 12, gx,
	       mst_hook(a.ptr<const u64>(0), a.ptr<const u32>(1), a.ptr<const int>(2), a.ptr<const u64>(3),
	                a.ptr<const u32>(4), a.ptr<const int>(5), a.ptr<const int>(6), a.ptr<const u64>(7),
	                a.ptr<const u32>(8), a.ptr<int>(9), a.v<int>(10), a.v<int>(11)))
	KERNEL(mst_cycles, 2, gx, mst_cycles(a.ptr<int>(0), a.v<int>(1)))
	KERNEL(mst_jump, 6, gx,
	       mst_jump(a.ptr<int>(0), a.ptr<const u64>(1), a.ptr<const u32>(2), a.ptr<u32>(3), a.ptr<int>(4),
	                a.v<int>(5)))
	KERNEL(mst_renumber, 4, gx, mst_renumber(a.ptr<const int>(0), a.ptr<int>(1), a.ptr<int>(2), a.v<int>(3)))
	KERNEL(mst_relabel, 6, gx,
	       mst_relabel(a.ptr<int>(0), a.ptr<const int>(1), a.ptr<const int>(2), a.ptr<int>(3), a.v<int>(4), a.v<int>(5)))
#undef KERNEL
	if (want < 0) {
		fprintf(stderr, "fake_launch: no emulation of kernel %s\n", name.c_str());
		return 500; // CUDA_ERROR_NOT_FOUND
	}
	if (n != want) {
		fprintf(stderr, "fake_launch: %s takes %d arguments, the launch passed %d\n", name.c_str(), want, n);
		return 1;
	}
	if (!err.empty()) {
		fprintf(stderr, "fake_launch: %s: %s\n", name.c_str(), err.c_str());
		return 719; // CUDA_ERROR_LAUNCH_FAILED
	}
	return 0;
}
