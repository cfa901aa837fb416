// fake_dp.cpp: dp.cu's parent kernels for the fake GPU, from the copy
// TestFakeGPU writes with each device-side launch K<<<g, b>>>(args)
// rewritten to emu::child(g, b, [=] { K(args); }): the emulator runs the
// child grids once the parent grid has finished. Both of gpu.go's builds
// (fake_kernels.cpp says how): the untraced one in table "0", the traced
// one (-DBFS_STUDY_TRACED=1, after gpu/launchlog.cuh) renamed in table "1".
#include "cuda_emu.h"

#include "dp_emu.cu"

#include "fake_launch.h"

namespace {

const emu::Options direct{emu::Mode::direct};

fake::Table table("0", {
    fake::kernel("dp_parent_u8", dp_parent_u8, direct),
    fake::kernel("dp_parent_i32", dp_parent_i32, direct),
});

} // namespace

// The traced build.
#include "../../../gpu/launchlog.cuh"

#undef DP_LOG_ARGS
#undef DP_LOG_BEGIN
#define BFS_STUDY_TRACED 1
#define dp_parent_u8 dp_parent_u8_traced
#define dp_parent_i32 dp_parent_i32_traced
#define dp_child_u8 dp_child_u8_traced
#define dp_child_i32 dp_child_i32_traced

namespace traced_build {
#include "dp_emu.cu"
} // namespace traced_build

namespace {

fake::Table tracedTable("1", {
    fake::kernel("dp_parent_u8", traced_build::dp_parent_u8, direct),
    fake::kernel("dp_parent_i32", traced_build::dp_parent_i32, direct),
});

} // namespace
