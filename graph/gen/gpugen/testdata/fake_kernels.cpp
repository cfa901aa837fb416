// fake_kernels.cpp: gen.cu's kernels for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h): those with barriers or warp
// ballots as coroutines, the others as plain calls. The sort's kernels
// are package gpu/transform's (its testdata/fake_kernels.cpp, linked too).
#include "cuda_emu.h"

#include "gen.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"gg_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Table table({
    fake::kernel("gg_states", gg_states, direct),
    fake::kernel("gg_edges_f32", gg_edges_f32),
    fake::kernel("gg_edges_f64", gg_edges_f64),
    fake::kernel("gg_ssca2_count", gg_ssca2_count, direct),
    fake::kernel("gg_ssca2_emit", gg_ssca2_emit, direct),
    fake::kernel("gg_weights_f32", gg_weights_f32, direct),
    fake::kernel("gg_weights_f64", gg_weights_f64, direct),
    fake::kernel("gg_keep_scan", gg_keep_scan),
    fake::kernel("gg_compact_f32", gg_compact_f32, direct),
    fake::kernel("gg_compact_f64", gg_compact_f64, direct),
    fake::kernel("gg_owner_bounds", gg_owner_bounds, direct),
});

} // namespace
