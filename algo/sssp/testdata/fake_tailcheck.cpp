// fake_tailcheck.cpp: the tail-stamp check build of sssp.cu's logged
// edge sweeps for the fake GPU (tailcheck_test.go): testdata/tailcheck.cuh
// and sssp.cu after gpu/launchlog.cuh, with SSSP_TAIL_CHECK defined, as
// the test has NVRTC compile them; registered as table "1" of the sssp_
// kernels (fake_kernels.cpp picks it for a module compiled with
// -DSSSP_TAIL_CHECK=1). The build is in a namespace of its own (its
// templates differ from fake_kernels.cpp's build of the same names), and
// TestFakeGPU compiles this file with -D options renaming every kernel
// of sssp.cu (kernelNames) so that the two builds' extern "C" names do
// not collide; the table's names are the launches'.
#include "cuda_emu.h"

#include "../../../gpu/launchlog.cuh"

#include "fake_launch.h"

#define SSSP_TAIL_CHECK 1

namespace tail_build {
#include "tailcheck.cuh"

#include "sssp.cu"
} // namespace tail_build

namespace {

const emu::Options threads{emu::Mode::threads, 8};
const emu::Options direct{emu::Mode::direct};

fake::Table table("1", {
    fake::kernel("sssp_tail_set", tail_build::sssp_tail_set, direct),
    fake::kernel("sssp_edge_init_d64_log", tail_build::sssp_edge_init_d64_log, threads),
    fake::kernel("sssp_edge_init_d32_log", tail_build::sssp_edge_init_d32_log, threads),
    fake::kernel("sssp_edge_d64_w32_plain_log", tail_build::sssp_edge_d64_w32_plain_log, threads),
    fake::kernel("sssp_edge_d64_w64_plain_log", tail_build::sssp_edge_d64_w64_plain_log, threads),
    fake::kernel("sssp_edge_d32_w32_plain_log", tail_build::sssp_edge_d32_w32_plain_log, threads),
    fake::kernel("sssp_edge_d32_w64_plain_log", tail_build::sssp_edge_d32_w64_plain_log, threads),
    fake::kernel("sssp_edge_d64_w32_restrict_log", tail_build::sssp_edge_d64_w32_restrict_log, threads),
    fake::kernel("sssp_edge_d64_w64_restrict_log", tail_build::sssp_edge_d64_w64_restrict_log, threads),
    fake::kernel("sssp_edge_d32_w32_restrict_log", tail_build::sssp_edge_d32_w32_restrict_log, threads),
    fake::kernel("sssp_edge_d32_w64_restrict_log", tail_build::sssp_edge_d32_w64_restrict_log, threads),
});

} // namespace
