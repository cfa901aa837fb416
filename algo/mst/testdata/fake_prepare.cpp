// fake_prepare.cpp: prepare.cu's kernels (PrepareResident) for the fake
// GPU, all plain calls except mprep_eidx (a warp vote),
// mprep_bounds (warp shuffles), mprep_distinct_count and mprep_rank (block counts). The tests link
// gpu/transform's fake kernels beside it.
#include "cuda_emu.h"

#include "prepare.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"mprep_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Table table({
    fake::kernel("mprep_upper", mprep_upper, direct),
    fake::kernel("mprep_eidx", mprep_eidx),
    fake::kernel("mprep_first_order", mprep_first_order, direct),
    fake::kernel("mprep_distinct_count", mprep_distinct_count),
    fake::kernel("mprep_rank", mprep_rank),
    fake::kernel("mprep_vertex_keys", mprep_vertex_keys, direct),
    fake::kernel("mprep_degree", mprep_degree, direct),
    fake::kernel("mprep_gather", mprep_gather, direct),
    fake::kernel("mprep_bounds_sorted", mprep_bounds_sorted, direct),
    fake::kernel("mprep_bounds", mprep_bounds),
    fake::kernel("mprep_base", mprep_base, direct),
    fake::kernel("mprep_pack", mprep_pack, direct),
    fake::kernel("mprep_forest_count", mprep_forest_count, direct),
    fake::kernel("mprep_forest_edges", mprep_forest_edges, direct),
    fake::kernel("mprep_edge_keys", mprep_edge_keys, direct),
    fake::kernel("mprep_edge_gather", mprep_edge_gather, direct),
});

} // namespace
