// fake_kernels.cpp: densebf.cu's kernels for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h), run as coroutines in an
// order that changes per launch (forward, backward, shuffled), after
// checks of the launch geometry and buffer sizes the Go code chose
// against what densebf.cu assumes; __ldg may read only the launch's
// buffers. The iteration kernels' last argument, lowered, is null or
// (traced runs) an array of at least iter + 1 ints.
#include "cuda_emu.h"

#define DENSEBF_EMULATED 1
inline unsigned char *dyn_shared() { return emu::dyn_shared(); }

#include "densebf.cu"

#include "fake_launch.h"

namespace {

unsigned launches;

void prepare(fake::Launch &l) {
	emu::order = (int)(launches++ % 3);
	const std::string &name = l.name;
	const unsigned gx = l.grid.x, bx = l.block.x, shared = l.shared;
	l.need(l.grid.y == 1 && l.grid.z == 1 && l.block.y == 1 && l.block.z == 1, "grid and block must be one-dimensional");
	const std::string kind = name.substr(8, name.size() - 12); // between "densebf_" and "_i32"
	if (kind == "init") {
		const int n = l.arg<int>(2), src = l.arg<int>(3);
		l.need(n >= 1 && src >= 0 && src < n, "n = " + std::to_string(n) + ", src = " + std::to_string(src));
		l.need((unsigned long long)gx * bx >= (unsigned long long)n, "fewer threads than vertices");
		l.need(shared == 0, "init takes no shared memory");
		l.buffer(0, 4ull * n, "sig");
		l.buffer(1, 4ull * n, "pred");
		l.buffer(4, 4, "flag");
	} else if (kind == "naive") {
		const int n = l.arg<int>(4), iter = l.arg<int>(5);
		l.need(n >= 1 && iter >= 1, "n = " + std::to_string(n) + ", iter = " + std::to_string(iter));
		l.need((unsigned long long)gx * bx >= (unsigned long long)n, "fewer threads than vertices");
		l.need(shared == 0, "naive takes no shared memory");
		l.need(l.ptr<void>(1) != l.ptr<void>(2), "sig and out are the same buffer");
		l.buffer(0, 4ull * n * n, "matrix");
		l.buffer(1, 4ull * n, "sig");
		l.buffer(2, 4ull * n, "out");
		l.buffer(3, 4ull * n, "pred");
		l.buffer(6, 4, "flag");
		if (l.ptr<void>(7) != nullptr) {
			l.buffer(7, 4ull * (iter + 1), "lowered");
		}
	} else { // reduce, coarse, coarse_vec (these with alternate, argument 9)
		const int n = l.arg<int>(4), M = l.arg<int>(5), iter = l.arg<int>(6);
		l.need(n >= 1 && iter >= 1, "n = " + std::to_string(n) + ", iter = " + std::to_string(iter));
		l.need(M >= 32 && M % 32 == 0 && M <= 1024, "group size M = " + std::to_string(M));
		l.need(M > 0 && bx % (unsigned)M == 0, "the block is not a whole number of groups");
		// Fewer groups than vertices is allowed: each group then settles a
		// vertex per round (densebf.cu, "Rounds").
		l.need(gx >= 1, "an empty grid");
		l.need(shared >= bx * 8, "shared memory below 8 bytes per thread");
		l.need(kind != "coarse_vec" || n % 4 == 0, "16-byte loads need n % 4 == 0");
		if (kind != "reduce") {
			const int alternate = l.arg<int>(9);
			l.need(alternate == 0 || alternate == 1, "alternate = " + std::to_string(alternate));
		}
		l.need(l.ptr<void>(1) != l.ptr<void>(2), "sig and out are the same buffer");
		l.buffer(0, 4ull * n * n, "matrix");
		l.buffer(1, 4ull * n, "sig");
		l.buffer(2, 4ull * n, "out");
		l.buffer(3, 4ull * n, "pred");
		l.buffer(7, 4, "flag");
		if (l.ptr<void>(8) != nullptr) {
			l.buffer(8, 4ull * (iter + 1), "lowered");
		}
	}
}

fake::Package pkg({"densebf_"}, prepare);

fake::Table table({
    fake::kernel("densebf_init_i32", densebf_init_i32),
    fake::kernel("densebf_init_f32", densebf_init_f32),
    fake::kernel("densebf_naive_i32", densebf_naive_i32),
    fake::kernel("densebf_naive_f32", densebf_naive_f32),
    fake::kernel("densebf_reduce_i32", densebf_reduce_i32),
    fake::kernel("densebf_reduce_f32", densebf_reduce_f32),
    fake::kernel("densebf_coarse_i32", densebf_coarse_i32),
    fake::kernel("densebf_coarse_f32", densebf_coarse_f32),
    fake::kernel("densebf_coarse_vec_i32", densebf_coarse_vec_i32),
    fake::kernel("densebf_coarse_vec_f32", densebf_coarse_vec_f32),
});

} // namespace
