// fake_dp.cpp: dp.cu's parent kernels for the fake GPU, from the copy
// TestFakeGPU writes with each device-side launch K<<<g, b>>>(args)
// rewritten to emu::child(g, b, [=] { K(args); }): the emulator runs the
// child grids once the parent grid has finished.
#include "cuda_emu.h"

#include "dp_emu.cu"

#include "fake_launch.h"

namespace {

const emu::Options direct{emu::Mode::direct};

fake::Table table({
    fake::kernel("dp_parent_u8", dp_parent_u8, direct),
    fake::kernel("dp_parent_i32", dp_parent_i32, direct),
});

} // namespace
