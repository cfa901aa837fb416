// fake_check.cpp: check.cu's kernels (the device check) for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h). The grid-stride kernels run
// on at most two blocks, which compute the same as the full grid and make
// the loops wrap; the scan kernels need their whole grid (a block per
// CK_BLOCK entries) and barriers, so they run as coroutines, as does the
// root count (a warp shuffle). The union-find's atomicCAS loops run
// sequentially in direct mode. Also multi.cu's kernels (RunGroup and its
// check), compiled as NVRTC compiles them: after check.cu.
#include "cuda_emu.h"

#include "../../internal/devcsr/csr.cuh"
#include "../../internal/devcheck/check.cuh"
#include "check.cu"
#include "multi.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"mstck_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Kernel small(const fake::Kernel &k) { return fake::maxGrid(k, 2); }

fake::Table table({
    small(fake::kernel("mstck_edges_w32", mstck_edges_w32, direct)),
    small(fake::kernel("mstck_edges_w64", mstck_edges_w64, direct)),
    small(fake::kernel("mstck_uf_init", mstck_uf_init, direct)),
    small(fake::kernel("mstck_uf_union", mstck_uf_union, direct)),
    small(fake::kernel("mstck_uf_flatten", mstck_uf_flatten)),
    small(fake::kernel("mstck_span", mstck_span, direct)),
    small(fake::kernel("mstck_degree", mstck_degree, direct)),
    fake::kernel("mstck_scan_local", mstck_scan_local),
    fake::kernel("mstck_scan_sums", mstck_scan_sums),
    fake::kernel("mstck_scan_add", mstck_scan_add, direct),
    small(fake::kernel("mstck_fill", mstck_fill, direct)),
    small(fake::kernel("mstck_tour", mstck_tour, direct)),
    small(fake::kernel("mstck_rank", mstck_rank, direct)),
    small(fake::kernel("mstck_root_init_w32", mstck_root_init_w32, direct)),
    small(fake::kernel("mstck_root_init_w64", mstck_root_init_w64, direct)),
    small(fake::kernel("mstck_orient_w32", mstck_orient_w32, direct)),
    small(fake::kernel("mstck_orient_w64", mstck_orient_w64, direct)),
    small(fake::kernel("mstck_deep", mstck_deep, direct)),
    small(fake::kernel("mstck_lift_w32", mstck_lift_w32, direct)),
    small(fake::kernel("mstck_lift_w64", mstck_lift_w64, direct)),
    small(fake::kernel("mstck_minimal_w32", mstck_minimal_w32, direct)),
    small(fake::kernel("mstck_minimal_w64", mstck_minimal_w64, direct)),
    fake::kernel("mstck_explain_w32", mstck_explain_w32, direct),
    fake::kernel("mstck_explain_w64", mstck_explain_w64, direct),
});

// multi.cu: grid-stride kernels without barriers or warp collectives,
// run as plain calls on at most two blocks.
fake::Package multiPkg({"mmst_"}, prepare);

fake::Table multiTable({
    small(fake::kernel("mmst_init", mmst_init, direct)),
    small(fake::kernel("mmst_min_w32", mmst_min_w32, direct)),
    small(fake::kernel("mmst_min_w64", mmst_min_w64, direct)),
    small(fake::kernel("mmst_hook", mmst_hook, direct)),
    small(fake::kernel("mmst_choose", mmst_choose, direct)),
    small(fake::kernel("mmst_jump", mmst_jump, direct)),
    small(fake::kernel("mmst_relabel", mmst_relabel, direct)),
    small(fake::kernel("mmst_ck_edges_w32", mmst_ck_edges_w32, direct)),
    small(fake::kernel("mmst_ck_edges_w64", mmst_ck_edges_w64, direct)),
    small(fake::kernel("mmst_ck_span", mmst_ck_span, direct)),
    small(fake::kernel("mmst_ck_minimal_w32", mmst_ck_minimal_w32, direct)),
    small(fake::kernel("mmst_ck_minimal_w64", mmst_ck_minimal_w64, direct)),
    fake::kernel("mmst_ck_explain_w32", mmst_ck_explain_w32, direct),
    fake::kernel("mmst_ck_explain_w64", mmst_ck_explain_w64, direct),
});

} // namespace
