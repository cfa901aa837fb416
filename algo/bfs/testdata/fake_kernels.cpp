// fake_kernels.cpp: bfs.cu's kernels for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h): those without barriers or
// warp collectives as plain calls, the others as coroutines. The
// grid-stride kernels run on at most two blocks, which compute the same
// as the full grid and make the loops wrap. fake_dp.cpp adds dp.cu's.
#include "cuda_emu.h"

#include "../../../gpu/launchlog.cuh"
#include "bfs.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"bfs_", "do_", "dp_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Table table({
    fake::kernel("bfs_init_u8", bfs_init_u8, direct),
    fake::kernel("bfs_scan_u8", bfs_scan_u8),
    fake::kernel("bfs_scan_u8_ro", bfs_scan_u8_ro),
    fake::kernel("bfs_scan_i32", bfs_scan_i32),
    fake::kernel("bfs_scan_i32_ro", bfs_scan_i32_ro),
    fake::kernel("bfs_widen", bfs_widen, direct),
    fake::maxGrid(fake::kernel("bfs_count_u8", bfs_count_u8), 2),
    fake::maxGrid(fake::kernel("bfs_count_i32", bfs_count_i32), 2),
    fake::maxGrid(fake::kernel("bfs_finish_u8", bfs_finish_u8), 2),
    fake::maxGrid(fake::kernel("bfs_finish_i32", bfs_finish_i32), 2),
    fake::maxGrid(fake::kernel("bfs_parents_init", bfs_parents_init, direct), 2),
    fake::maxGrid(fake::kernel("bfs_parents_coo", bfs_parents_coo, direct), 2),
    fake::kernel("do_degree", do_degree, direct),
    fake::kernel("do_init", do_init, direct),
    fake::kernel("do_td", do_td),
    fake::maxGrid(fake::kernel("do_td_big", do_td_big), 2),
    fake::maxGrid(fake::kernel("do_bu", do_bu), 2),
    fake::kernel("do_q2bm", do_q2bm), // cooperative: its llog_end synchronises the block
    fake::kernel("do_bm2q", do_bm2q),
});

} // namespace
