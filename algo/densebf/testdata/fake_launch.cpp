// fake_launch.cpp makes package gpu's fake CUDA driver
// (gpu/testdata/fakecuda.c, whose device memory is host memory) run this
// package's kernels: linked with fakecuda.c compiled with
// -DcuLaunchKernel=fake_orig_cuLaunchKernel, it defines cuLaunchKernel,
// lets the fake do its own checks, checks the launch geometry and buffer
// sizes the Go code chose against what densebf.cu assumes, then runs the
// named kernel of densebf.cu on the emulator (cuda_emu.h) with the
// arguments unpacked from the 8-byte slots package gpu passes. TestFakeGPU
// builds it into libcuda.so.1 and runs the GPU tests' checks through the
// real Go code (Prepare, Run: compile, uploads, argument packing, the
// iteration loop, copies, events).
//
// The fake driver keeps each allocation's size in the 8 bytes 16 bytes
// before the pointer it returns; that is how buffer sizes are checked.
#include <cstdint>
#include <cstdio>
#include <string>

#include "testdata/cuda_emu.h"

#include "densebf.cu"

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

// allocSize is the size the fake driver recorded for the allocation at p.
size_t allocSize(const void *p) { return *(const size_t *)((const char *)p - 16); }

std::string problem;

// need records a problem (the first one) when ok is false.
void need(bool ok, const std::string &what) {
	if (!ok && problem.empty()) {
		problem = what;
	}
}

// buffer checks that argument i points at an allocation of at least
// `bytes` bytes and lets __ldg read it.
void buffer(void **a, int i, unsigned long long bytes, const char *what) {
	const void *p = ptr<const void>(a, i);
	if (p == nullptr) {
		need(false, std::string(what) + " is NULL");
		return;
	}
	need(allocSize(p) >= bytes, std::string(what) + ": buffer of " + std::to_string(allocSize(p)) +
	                                " bytes, the kernel reads " + std::to_string(bytes));
	emu::st().buffers.push_back({(uintptr_t)p, (uintptr_t)p + allocSize(p)});
}

unsigned launches;

} // namespace

extern "C" int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                              unsigned shared, void *s, void **a, void **extra) {
	int r = fake_orig_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, a, extra);
	if (r != 0) {
		return r;
	}
	// The fake's function handle starts with the kernel's name.
	const std::string name((const char *)f);
	if (name.rfind("densebf_", 0) != 0) {
		return 0;
	}
	problem.clear();
	emu::st().buffers.clear();
	emu::st().order = (int)(launches++ % 3);
	need(gy == 1 && gz == 1 && by == 1 && bz == 1, "grid and block must be one-dimensional");
	const int argc = nargs(a);
	const bool f32 = name.size() > 4 && name.compare(name.size() - 4, 4, "_f32") == 0;
	const bool i32 = name.size() > 4 && name.compare(name.size() - 4, 4, "_i32") == 0;
	need(f32 || i32, "kernel name ends in neither _i32 nor _f32");
	const std::string kind = name.substr(8, name.size() - 12); // between "densebf_" and "_i32"
	auto bad = [&](const std::string &why) {
		fprintf(stderr, "fake_launch: %s (grid %u, block %u, shared %u): %s\n", name.c_str(), gx, bx, shared,
		        why.c_str());
		return 1; // CUDA_ERROR_INVALID_VALUE
	};
	int want = -1;
	bool ok = true;
	if (kind == "init") {
		want = 5;
		if (argc == want) {
			const int n = val<int>(a, 2), src = val<int>(a, 3);
			need(n >= 1 && src >= 0 && src < n, "n = " + std::to_string(n) + ", src = " + std::to_string(src));
			need((unsigned long long)gx * bx >= (unsigned long long)n, "fewer threads than vertices");
			need(shared == 0, "init takes no shared memory");
			buffer(a, 0, 4ull * n, "sig");
			buffer(a, 1, 4ull * n, "pred");
			buffer(a, 4, 4, "flag");
			if (!problem.empty()) {
				return bad(problem);
			}
			if (f32) {
				ok = emu::launch(gx, bx, 0, [&] { densebf_init_f32(ptr<float>(a, 0), ptr<int>(a, 1), n, src, ptr<int>(a, 4)); });
			} else {
				ok = emu::launch(gx, bx, 0, [&] { densebf_init_i32(ptr<int>(a, 0), ptr<int>(a, 1), n, src, ptr<int>(a, 4)); });
			}
		}
	} else if (kind == "naive") {
		want = 7;
		if (argc == want) {
			const int n = val<int>(a, 4), iter = val<int>(a, 5);
			need(n >= 1 && iter >= 1, "n = " + std::to_string(n) + ", iter = " + std::to_string(iter));
			need((unsigned long long)gx * bx >= (unsigned long long)n, "fewer threads than vertices");
			need(shared == 0, "naive takes no shared memory");
			need(ptr<void>(a, 1) != ptr<void>(a, 2), "sig and out are the same buffer");
			buffer(a, 0, 4ull * n * n, "matrix");
			buffer(a, 1, 4ull * n, "sig");
			buffer(a, 2, 4ull * n, "out");
			buffer(a, 3, 4ull * n, "pred");
			buffer(a, 6, 4, "flag");
			if (!problem.empty()) {
				return bad(problem);
			}
			if (f32) {
				ok = emu::launch(gx, bx, 0, [&] {
					densebf_naive_f32(ptr<const float>(a, 0), ptr<const float>(a, 1), ptr<float>(a, 2), ptr<int>(a, 3), n,
					                  iter, ptr<int>(a, 6));
				});
			} else {
				ok = emu::launch(gx, bx, 0, [&] {
					densebf_naive_i32(ptr<const int>(a, 0), ptr<const int>(a, 1), ptr<int>(a, 2), ptr<int>(a, 3), n, iter,
					                  ptr<int>(a, 6));
				});
			}
		}
	} else if (kind == "reduce" || kind == "coarse" || kind == "coarse_vec") {
		want = 8;
		if (argc == want) {
			const int n = val<int>(a, 4), M = val<int>(a, 5), iter = val<int>(a, 6);
			need(n >= 1 && iter >= 1, "n = " + std::to_string(n) + ", iter = " + std::to_string(iter));
			need(M >= 32 && M % 32 == 0 && M <= 1024, "group size M = " + std::to_string(M));
			need(M > 0 && bx % (unsigned)M == 0, "the block is not a whole number of groups");
			if (M > 0) {
				need((unsigned long long)gx * (bx / M) >= (unsigned long long)n, "fewer groups than vertices");
			}
			need(shared >= bx * 8, "shared memory below 8 bytes per thread");
			need(kind != "coarse_vec" || n % 4 == 0, "16-byte loads need n % 4 == 0");
			need(ptr<void>(a, 1) != ptr<void>(a, 2), "sig and out are the same buffer");
			buffer(a, 0, 4ull * n * n, "matrix");
			buffer(a, 1, 4ull * n, "sig");
			buffer(a, 2, 4ull * n, "out");
			buffer(a, 3, 4ull * n, "pred");
			buffer(a, 7, 4, "flag");
			if (!problem.empty()) {
				return bad(problem);
			}
#define RUN(K, T)                                                                                               \
	ok = emu::launch(gx, bx, shared, [&] {                                                                      \
		K(ptr<const T>(a, 0), ptr<const T>(a, 1), ptr<T>(a, 2), ptr<int>(a, 3), n, M, iter, ptr<int>(a, 7)); \
	})
			if (kind == "reduce") {
				if (f32) {
					RUN(densebf_reduce_f32, float);
				} else {
					RUN(densebf_reduce_i32, int);
				}
			} else if (kind == "coarse") {
				if (f32) {
					RUN(densebf_coarse_f32, float);
				} else {
					RUN(densebf_coarse_i32, int);
				}
			} else {
				if (f32) {
					RUN(densebf_coarse_vec_f32, float);
				} else {
					RUN(densebf_coarse_vec_i32, int);
				}
			}
#undef RUN
		}
	}
	if (want < 0) {
		fprintf(stderr, "fake_launch: no emulation of kernel %s\n", name.c_str());
		return 500; // CUDA_ERROR_NOT_FOUND
	}
	if (argc != want) {
		return bad("takes " + std::to_string(want) + " arguments, the launch passed " + std::to_string(argc));
	}
	if (!ok) {
		return bad("emulation failed: " + emu::st().error);
	}
	return 0;
}
