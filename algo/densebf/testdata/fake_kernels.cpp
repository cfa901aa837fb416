// fake_kernels.cpp: densebf.cu's kernels for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h), run as coroutines in an
// order that changes per launch (forward, backward, shuffled), after
// checks of the launch geometry and buffer sizes the Go code chose
// against what densebf.cu assumes; __ldg may read only the launch's
// buffers. Both of gpu.go's builds are here: the untraced one (table
// "0") compiled first, before gpu/launchlog.cuh, so that trace code
// outside #ifdef DENSEBF_TRACED fails to compile here as under NVRTC,
// and the traced one (-DDENSEBF_TRACED=1, table "1") in a namespace of
// its own, its kernels renamed so that the two builds' extern "C" names
// do not collide (the untraced build has a namespace of its own too:
// else argument-dependent lookup on the global int4 and float4 would
// find both builds' functions). A launch runs the table of its module's
// DENSEBF_TRACED; the trace arguments (lowered, an array of at least
// iter + 1 ints for an iteration kernel and n + 1 for the init kernel,
// which zeroes it, and every kernel's two log entries) must be NULL for the untraced build and set for the traced.
#include "cuda_emu.h"

#define DENSEBF_EMULATED 1
inline unsigned char *dyn_shared() { return emu::dyn_shared(); }

namespace untraced_build {
#include "densebf.cu"
} // namespace untraced_build

#include "fake_launch.h"

namespace {

unsigned launches;

// traceArgs checks the trace arguments from argument i on (lowered, when
// counted, then the log's two entries) against the build.
void traceArgs(fake::Launch &l, int i, bool counted, int iter) {
	const bool traced = l.config == "1";
	const int last = i + (counted ? 2 : 1);
	for (int k = i; k <= last; k++) {
		const bool set = l.ptr<void>(k) != nullptr;
		l.need(set == traced, "trace argument " + std::to_string(k) + (set ? " is set for the untraced build" : " is NULL for the traced build"));
	}
	if (traced && counted) {
		l.buffer(i, 4ull * (iter + 1), "lowered");
	}
}

// checkArg checks an iteration kernel's check argument (i): 0 or 1.
void checkArg(fake::Launch &l, int i) {
	const int check = l.arg<int>(i);
	l.need(check == 0 || check == 1, "check = " + std::to_string(check));
}

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
		l.buffer(5, 4 * 2 * PARITY_STRIDE, "parity");
		traceArgs(l, 6, true, n); // lowered: n + 1 ints, zeroed here
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
		l.buffer(7, 4 * 2 * PARITY_STRIDE, "parity");
		checkArg(l, 8);
		traceArgs(l, 9, true, iter);
	} else { // reduce, coarse, coarse_vec (these with alternate, argument 10)
		const bool isReduce = kind == "reduce";
		const int n = l.arg<int>(4), M = l.arg<int>(5), iter = l.arg<int>(6);
		l.need(n >= 1 && iter >= 1, "n = " + std::to_string(n) + ", iter = " + std::to_string(iter));
		l.need(M >= 32 && M % 32 == 0 && M <= 1024, "group size M = " + std::to_string(M));
		l.need(M > 0 && bx % (unsigned)M == 0, "the block is not a whole number of groups");
		// Fewer groups than vertices is allowed: each group then settles a
		// vertex per round (densebf.cu, "Rounds").
		l.need(gx >= 1, "an empty grid");
		l.need(shared >= bx * 8, "shared memory below 8 bytes per thread");
		l.need(kind != "coarse_vec" || n % 4 == 0, "16-byte loads need n % 4 == 0");
		if (!isReduce) {
			const int alternate = l.arg<int>(10);
			l.need(alternate == 0 || alternate == 1, "alternate = " + std::to_string(alternate));
		}
		l.need(l.ptr<void>(1) != l.ptr<void>(2), "sig and out are the same buffer");
		l.buffer(0, 4ull * n * n, "matrix");
		l.buffer(1, 4ull * n, "sig");
		l.buffer(2, 4ull * n, "out");
		l.buffer(3, 4ull * n, "pred");
		l.buffer(7, 4, "flag");
		l.buffer(8, 4 * 2 * PARITY_STRIDE, "parity");
		checkArg(l, 9);
		traceArgs(l, isReduce ? 10 : 11, true, iter);
	}
}

std::string config(const fake::Launch &l) { return l.define("DENSEBF_TRACED", "0"); }

fake::Package pkg({"densebf_"}, prepare, config);

} // namespace

// DENSEBF_TABLE registers the kernels of namespace ns as table name for configuration config. The names given are the
// launches'; the functions are those the kernel names expand to where
// DENSEBF_TABLE is used (below the renaming, the traced build's).
#define DENSEBF_TABLE(name, config, ns)                                                                                \
	fake::Table name(config, {                                                                                     \
	    fake::kernel("densebf_init_i32", ns::densebf_init_i32),                                                    \
	    fake::kernel("densebf_init_f32", ns::densebf_init_f32),                                                    \
	    fake::kernel("densebf_naive_i32", ns::densebf_naive_i32),                                                  \
	    fake::kernel("densebf_naive_f32", ns::densebf_naive_f32),                                                  \
	    fake::kernel("densebf_reduce_i32", ns::densebf_reduce_i32),                                                \
	    fake::kernel("densebf_reduce_f32", ns::densebf_reduce_f32),                                                \
	    fake::kernel("densebf_coarse_i32", ns::densebf_coarse_i32),                                                \
	    fake::kernel("densebf_coarse_f32", ns::densebf_coarse_f32),                                                \
	    fake::kernel("densebf_coarse_vec_i32", ns::densebf_coarse_vec_i32),                                        \
	    fake::kernel("densebf_coarse_vec_f32", ns::densebf_coarse_vec_f32),                                        \
	})

static DENSEBF_TABLE(untracedTable, "0", untraced_build);

// The traced build.
#include "../../../gpu/launchlog.cuh"

#undef DENSEBF_LOG_PARAMS
#undef DENSEBF_TRACE_PARAMS
#undef DENSEBF_LOG_BEGIN
#undef DENSEBF_LOG_END
#undef DENSEBF_LOWERED
#define DENSEBF_TRACED 1
#define densebf_init_i32 densebf_init_i32_traced
#define densebf_init_f32 densebf_init_f32_traced
#define densebf_naive_i32 densebf_naive_i32_traced
#define densebf_naive_f32 densebf_naive_f32_traced
#define densebf_reduce_i32 densebf_reduce_i32_traced
#define densebf_reduce_f32 densebf_reduce_f32_traced
#define densebf_coarse_i32 densebf_coarse_i32_traced
#define densebf_coarse_f32 densebf_coarse_f32_traced
#define densebf_coarse_vec_i32 densebf_coarse_vec_i32_traced
#define densebf_coarse_vec_f32 densebf_coarse_vec_f32_traced

namespace traced_build {
#include "densebf.cu"
} // namespace traced_build

static DENSEBF_TABLE(tracedTable, "1", traced_build);
