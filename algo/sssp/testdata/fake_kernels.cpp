// fake_kernels.cpp: sssp.cu's kernels for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h). They run as OS threads: the
// near-far step's epilogue waits, spinning, for the other blocks of the
// grid.
#include "cuda_emu.h"

#include "sssp.cu"

#include "fake_launch.h"

namespace {

const emu::Options threads{emu::Mode::threads, 8};

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"sssp_"}, prepare);

// The step kernel's loops are grid-stride over whole warps: a smaller
// grid of smaller blocks computes the same (its epilogue waits for the
// blocks there are), and the emulator cannot afford 132×8 blocks of 256
// threads per step: one block of 64 (TestKernelsEmulated runs several).
fake::Kernel step(const fake::Kernel &k) { return fake::shape(k, 1, 64); }

fake::Table table({
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
    fake::kernel("sssp_nf_init_d64", sssp_nf_init_d64, threads),
    fake::kernel("sssp_nf_init_d32", sssp_nf_init_d32, threads),
    step(fake::kernel("sssp_nf_step_d64_w32", sssp_nf_step_d64_w32, threads)),
    step(fake::kernel("sssp_nf_step_d64_w64", sssp_nf_step_d64_w64, threads)),
    step(fake::kernel("sssp_nf_step_d32_w32", sssp_nf_step_d32_w32, threads)),
    step(fake::kernel("sssp_nf_step_d32_w64", sssp_nf_step_d32_w64, threads)),
});

} // namespace
