// fake_kernels.cpp: boruvka.cu's kernels for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h), run as coroutines, in both
// of gpu.go's builds: the untraced one (table "0") compiled first, before
// gpu/launchlog.cuh, so that trace code outside #ifdef MST_TRACED fails
// to compile here as under NVRTC, and the traced one (-DMST_TRACED=1,
// table "1") in a namespace of its own, its kernels renamed so that the
// two builds' extern "C" names do not collide. A launch runs the table
// of its module's MST_TRACED.
#include "cuda_emu.h"

#include "boruvka.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

std::string config(const fake::Launch &l) { return l.define("MST_TRACED", "0"); }

fake::Package pkg({"mst_"}, prepare, config);

} // namespace

// MST_TABLE registers the kernels of namespace ns (empty: the global one)
// as table name for configuration config. The names given are the
// launches'; the functions are those the kernel names expand to where
// MST_TABLE is used (below the renaming, the traced build's). The scans
// are grid-stride loops: two blocks compute the same as the full grid
// and make the loop wrap.
#define MST_TABLE(name, config, ns)                                                                                    \
	fake::Table name(config, {                                                                                     \
	    fake::kernel("mst_init", ns::mst_init),                                                                    \
	    fake::kernel("mst_reset", ns::mst_reset),                                                                  \
	    fake::kernel("mst_probe_plain", ns::mst_probe_plain),                                                      \
	    fake::kernel("mst_probe_comp", ns::mst_probe_comp),                                                        \
	    fake::maxGrid(fake::kernel("mst_scan_plain", ns::mst_scan_plain), 2),                                      \
	    fake::maxGrid(fake::kernel("mst_scan_comp", ns::mst_scan_comp), 2),                                        \
	    fake::kernel("mst_merge_host", ns::mst_merge_host),                                                        \
	    fake::kernel("mst_min_edge", ns::mst_min_edge),                                                            \
	    fake::kernel("mst_hook", ns::mst_hook),                                                                    \
	    fake::kernel("mst_cycles", ns::mst_cycles),                                                                \
	    fake::kernel("mst_jump", ns::mst_jump),                                                                    \
	    fake::kernel("mst_renumber", ns::mst_renumber),                                                            \
	    fake::kernel("mst_relabel", ns::mst_relabel),                                                              \
	})

static MST_TABLE(untracedTable, "0", );

// The traced build.
#include "../../../gpu/launchlog.cuh"

#undef MST_LOG_BEGIN
#undef MST_LOG_END
#define MST_TRACED 1
#define mst_init mst_init_traced
#define mst_reset mst_reset_traced
#define mst_probe_plain mst_probe_plain_traced
#define mst_probe_comp mst_probe_comp_traced
#define mst_scan_plain mst_scan_plain_traced
#define mst_scan_comp mst_scan_comp_traced
#define mst_merge_host mst_merge_host_traced
#define mst_min_edge mst_min_edge_traced
#define mst_hook mst_hook_traced
#define mst_cycles mst_cycles_traced
#define mst_jump mst_jump_traced
#define mst_renumber mst_renumber_traced
#define mst_relabel mst_relabel_traced

namespace traced_build {
#include "boruvka.cu"
} // namespace traced_build

static MST_TABLE(tracedTable, "1", traced_build);
