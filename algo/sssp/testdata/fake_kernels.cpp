// fake_kernels.cpp: sssp.cu's kernels for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h). They run as OS threads: the
// near-far step's epilogue waits, spinning, for the other blocks of the
// grid. sssp.cu is compiled after gpu/launchlog.cuh, as
// gpu.PrependLaunchLog gives NVRTC (its logged edge sweeps use it). Also
// multi.cu's (RunGroup), compiled as NVRTC compiles them: after csr.cuh
// and check.cuh. A launch runs the table of its module's SSSP_TAIL_CHECK:
// "0" here, "1" the tail-check build's (fake_tailcheck.cpp).
#include "cuda_emu.h"

#include "../../../gpu/launchlog.cuh"
#include "sssp.cu"

#include "../../internal/devcsr/csr.cuh"
#include "../../internal/devcheck/check.cuh"
#include "multi.cu"

#include "fake_launch.h"

namespace {

const emu::Options threads{emu::Mode::threads, 8};

void prepare(fake::Launch &l) { l.oneDimWarps(); }

std::string config(const fake::Launch &l) { return l.define("SSSP_TAIL_CHECK", "0"); }

fake::Package pkg({"sssp_"}, prepare, config);

// The step kernel's loops are grid-stride over whole warps: a smaller
// grid of smaller blocks computes the same (its epilogue waits for the
// blocks there are), and the emulator cannot afford 132×8 blocks of 256
// threads per step: one block of 64 (TestKernelsEmulated runs several).
fake::Kernel step(const fake::Kernel &k) { return fake::shape(k, 1, 64); }

fake::Table table("0", {
    fake::kernel("sssp_edge_init_d64", sssp_edge_init_d64, threads),
    fake::kernel("sssp_edge_init_d32", sssp_edge_init_d32, threads),
    fake::kernel("sssp_edge_d64_w32_plain", sssp_edge_d64_w32_plain, threads),
    fake::kernel("sssp_edge_d64_w64_plain", sssp_edge_d64_w64_plain, threads),
    fake::kernel("sssp_edge_d32_w32_plain", sssp_edge_d32_w32_plain, threads),
    fake::kernel("sssp_edge_d32_w64_plain", sssp_edge_d32_w64_plain, threads),
    fake::kernel("sssp_edge_d64_w32_restrict", sssp_edge_d64_w32_restrict, threads),
    fake::kernel("sssp_edge_d64_w64_restrict", sssp_edge_d64_w64_restrict, threads),
    fake::kernel("sssp_edge_d32_w32_restrict", sssp_edge_d32_w32_restrict, threads),
    fake::kernel("sssp_edge_d32_w64_restrict", sssp_edge_d32_w64_restrict, threads),
    fake::kernel("sssp_edge_init_d64_log", sssp_edge_init_d64_log, threads),
    fake::kernel("sssp_edge_init_d32_log", sssp_edge_init_d32_log, threads),
    fake::kernel("sssp_edge_d64_w32_plain_log", sssp_edge_d64_w32_plain_log, threads),
    fake::kernel("sssp_edge_d64_w64_plain_log", sssp_edge_d64_w64_plain_log, threads),
    fake::kernel("sssp_edge_d32_w32_plain_log", sssp_edge_d32_w32_plain_log, threads),
    fake::kernel("sssp_edge_d32_w64_plain_log", sssp_edge_d32_w64_plain_log, threads),
    fake::kernel("sssp_edge_d64_w32_restrict_log", sssp_edge_d64_w32_restrict_log, threads),
    fake::kernel("sssp_edge_d64_w64_restrict_log", sssp_edge_d64_w64_restrict_log, threads),
    fake::kernel("sssp_edge_d32_w32_restrict_log", sssp_edge_d32_w32_restrict_log, threads),
    fake::kernel("sssp_edge_d32_w64_restrict_log", sssp_edge_d32_w64_restrict_log, threads),
    fake::kernel("sssp_nf_init_d64", sssp_nf_init_d64, threads),
    fake::kernel("sssp_nf_init_d32", sssp_nf_init_d32, threads),
    step(fake::kernel("sssp_nf_step_d64_w32", sssp_nf_step_d64_w32, threads)),
    step(fake::kernel("sssp_nf_step_d64_w64", sssp_nf_step_d64_w64, threads)),
    step(fake::kernel("sssp_nf_step_d32_w32", sssp_nf_step_d32_w32, threads)),
    step(fake::kernel("sssp_nf_step_d32_w64", sssp_nf_step_d32_w64, threads)),
});

// multi.cu: grid-stride kernels without barriers or warp collectives,
// run as plain calls on at most two blocks.
fake::Package multiPkg({"msssp_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Kernel small(const fake::Kernel &k) { return fake::maxGrid(k, 2); }

fake::Table multiTable({
    small(fake::kernel("msssp_init", msssp_init, direct)),
    fake::kernel("msssp_reset", msssp_reset, direct),
    small(fake::kernel("msssp_frontier", msssp_frontier, direct)),
    small(fake::kernel("msssp_relax_w32", msssp_relax_w32, direct)),
    small(fake::kernel("msssp_relax_w64", msssp_relax_w64, direct)),
    small(fake::kernel("msssp_pack", msssp_pack, direct)),
    small(fake::kernel("msssp_apply", msssp_apply, direct)),
    small(fake::kernel("msssp_fill_int", msssp_fill_int, direct)),
    small(fake::kernel("msssp_offer_w32", msssp_offer_w32, direct)),
    small(fake::kernel("msssp_offer_w64", msssp_offer_w64, direct)),
    small(fake::kernel("msssp_take", msssp_take, direct)),
    small(fake::kernel("msssp_ck_vertices", msssp_ck_vertices, direct)),
    small(fake::kernel("msssp_ck_tree", msssp_ck_tree, direct)),
    small(fake::kernel("msssp_ck_arcs_w32", msssp_ck_arcs_w32, direct)),
    small(fake::kernel("msssp_ck_arcs_w64", msssp_ck_arcs_w64, direct)),
    small(fake::kernel("msssp_ck_parent_arcs", msssp_ck_parent_arcs, direct)),
});

} // namespace
