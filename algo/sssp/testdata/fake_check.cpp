// fake_check.cpp: check.cu's kernels (the device check) for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h). Every kernel is grid-stride:
// at most two blocks compute the same as the full grid and make the loops
// wrap. Those without barriers or warp collectives run as plain calls.
#include "cuda_emu.h"

#include "../../internal/devcsr/csr.cuh"
#include "../../internal/devcheck/check.cuh"
#include "check.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"ssspck_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Kernel small(const fake::Kernel &k) { return fake::maxGrid(k, 2); }

fake::Table table({
    small(fake::kernel("ssspck_vertices", ssspck_vertices)),
    small(fake::kernel("ssspck_chase", ssspck_chase, direct)),
    small(fake::kernel("ssspck_jump", ssspck_jump, direct)),
    small(fake::kernel("ssspck_coo_w32", ssspck_coo_w32, direct)),
    small(fake::kernel("ssspck_coo_w64", ssspck_coo_w64, direct)),
    small(fake::kernel("ssspck_csr_w32", ssspck_csr_w32)),
    small(fake::kernel("ssspck_csr_w64", ssspck_csr_w64)),
    small(fake::kernel("ssspck_undirected_w32", ssspck_undirected_w32)),
    small(fake::kernel("ssspck_undirected_w64", ssspck_undirected_w64)),
    small(fake::kernel("ssspck_final", ssspck_final, direct)),
    fake::kernel("ssspck_explain", ssspck_explain, direct),
});

} // namespace
