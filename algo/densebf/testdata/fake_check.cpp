// fake_check.cpp: check.cu's kernels (the device check) for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h). Every kernel is grid-stride
// (over vertices, or over the bound kernel's tiles): at most two blocks
// compute the same as the full grid and make the loops wrap. None uses a
// barrier or a warp collective, so all run as plain calls.
#include "cuda_emu.h"

#include "../../internal/devcsr/csr.cuh"
#include "../../internal/devcheck/check.cuh"
#include "check.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"dbfck_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Kernel small(const fake::Kernel &k) { return fake::maxGrid(k, 2); }

fake::Table table({
    small(fake::kernel("dbfck_vertices_i32", dbfck_vertices_i32, direct)),
    small(fake::kernel("dbfck_vertices_f32", dbfck_vertices_f32, direct)),
    small(fake::kernel("dbfck_jump", dbfck_jump, direct)),
    small(fake::kernel("dbfck_final", dbfck_final, direct)),
    small(fake::kernel("dbfck_bound_i32", dbfck_bound_i32, direct)),
    small(fake::kernel("dbfck_bound_f32", dbfck_bound_f32, direct)),
});

} // namespace
