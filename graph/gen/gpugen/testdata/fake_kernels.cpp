// fake_kernels.cpp: rmat.cu's kernels for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h): those with barriers or warp
// ballots as coroutines, the others as plain calls.
#include "cuda_emu.h"

#include "rmat.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"gg_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Table table({
    fake::kernel("gg_states", gg_states, direct),
    fake::kernel("gg_edges_f32", gg_edges_f32),
    fake::kernel("gg_edges_f64", gg_edges_f64),
    fake::kernel("gg_hist", gg_hist),
    fake::kernel("gg_scatter_f32", gg_scatter_f32),
    fake::kernel("gg_scatter_f64", gg_scatter_f64),
    fake::kernel("gg_scan_tiles", gg_scan_tiles),
    fake::kernel("gg_scan_add", gg_scan_add, direct),
    fake::kernel("gg_take", gg_take, direct),
    fake::kernel("gg_mark", gg_mark, direct),
    fake::kernel("gg_compact_f32", gg_compact_f32, direct),
    fake::kernel("gg_compact_f64", gg_compact_f64, direct),
});

} // namespace
