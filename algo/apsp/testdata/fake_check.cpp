// fake_check.cpp: check.cu's kernels (the device check) for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h). Every kernel is grid-stride:
// at most two blocks compute the same as the full grid and make the loops
// wrap. None uses a barrier or a warp collective, so all run as plain
// calls.
#include "cuda_emu.h"

#include "../../internal/devcsr/csr.cuh"
#include "../../internal/devcheck/check.cuh"
#include "check.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"apspck_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Kernel small(const fake::Kernel &k) { return fake::maxGrid(k, 2); }

fake::Table table({
    small(fake::kernel("apspck_maxabs_f32", apspck_maxabs_f32, direct)),
    small(fake::kernel("apspck_ref_init", apspck_ref_init, direct)),
    small(fake::kernel("apspck_relax_i32", apspck_relax_i32, direct)),
    small(fake::kernel("apspck_relax_f32", apspck_relax_f32, direct)),
    small(fake::kernel("apspck_rows_i32", apspck_rows_i32, direct)),
    small(fake::kernel("apspck_rows_f32", apspck_rows_f32, direct)),
    small(fake::kernel("apspck_jump", apspck_jump, direct)),
    small(fake::kernel("apspck_final", apspck_final, direct)),
});

} // namespace
