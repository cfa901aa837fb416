// fake_check.cpp: check.cu's kernels (the device check) for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h). Every kernel is grid-stride:
// at most two blocks compute the same as the full grid and make the loops
// wrap (bfsck_clear runs on one block). Those without barriers or warp collectives run as plain calls.
#include "cuda_emu.h"

#include "../../internal/devcsr/csr.cuh"
#include "../../internal/devcheck/check.cuh"
#include "check.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"bfsck_", "bfscsr_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Kernel small(const fake::Kernel &k) { return fake::maxGrid(k, 2); }

fake::Table table({
    fake::kernel("bfsck_clear", bfsck_clear, direct),
    small(fake::kernel("bfsck_vertices", bfsck_vertices)),
    small(fake::kernel("bfsck_anc", bfsck_anc, direct)),
    small(fake::kernel("bfsck_jump", bfsck_jump, direct)),
    small(fake::kernel("bfscsr_tails", bfscsr_tails, direct)),
    small(fake::kernel("bfsck_coo", bfsck_coo)),
    small(fake::kernel("bfsck_csr", bfsck_csr)),
    small(fake::kernel("bfsck_treearc", bfsck_treearc, direct)),
    small(fake::kernel("bfsck_cycle", bfsck_cycle, direct)),
    fake::kernel("bfsck_explain", bfsck_explain, direct),
});

} // namespace
