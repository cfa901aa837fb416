// fake_kernels.cpp: bfs.cu's kernels for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h): those without barriers or
// warp collectives as plain calls, the others as coroutines. The
// grid-stride kernels run on at most two blocks, which compute the same
// as the full grid and make the loops wrap. fake_dp.cpp adds dp.cu's.
// Both of gpu.go's builds are here: the untraced one (table "0"), and
// the traced one (-DBFS_STUDY_TRACED=1, table "1": the study's kernels,
// which take the launch log's arguments and log) in a namespace of its
// own, its kernels renamed so that the two builds' extern "C" names do
// not collide (the untraced build has a namespace of its own too, so that
// a call with an argument of a global type, int4, finds one build's
// helpers only). A launch runs the table of its module's BFS_STUDY_TRACED.
#include "cuda_emu.h"

#include "../../../gpu/launchlog.cuh"
#include "chunks.cuh"
namespace untraced_build {
#include "bfs.cu"
} // namespace untraced_build

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

std::string config(const fake::Launch &l) { return l.define("BFS_STUDY_TRACED", "0"); }

fake::Package pkg({"bfs_", "do_", "dp_"}, prepare, config);

const emu::Options direct{emu::Mode::direct};

fake::Table table("0", {
    fake::kernel("bfs_init_u8", untraced_build::bfs_init_u8, direct),
    fake::kernel("bfs_scan_u8", untraced_build::bfs_scan_u8),
    fake::kernel("bfs_scan_u8_ro", untraced_build::bfs_scan_u8_ro),
    fake::kernel("bfs_scan_i32", untraced_build::bfs_scan_i32),
    fake::kernel("bfs_scan_i32_ro", untraced_build::bfs_scan_i32_ro),
    fake::kernel("bfs_widen", untraced_build::bfs_widen, direct),
    fake::maxGrid(fake::kernel("bfs_count_u8", untraced_build::bfs_count_u8), 2),
    fake::maxGrid(fake::kernel("bfs_count_i32", untraced_build::bfs_count_i32), 2),
    fake::maxGrid(fake::kernel("bfs_finish_u8", untraced_build::bfs_finish_u8), 2),
    fake::maxGrid(fake::kernel("bfs_finish_i32", untraced_build::bfs_finish_i32), 2),
    fake::maxGrid(fake::kernel("bfs_parents_init", untraced_build::bfs_parents_init, direct), 2),
    fake::maxGrid(fake::kernel("bfs_parents_coo", untraced_build::bfs_parents_coo, direct), 2),
    fake::kernel("do_init", untraced_build::do_init, direct),
    fake::kernel("do_plan", untraced_build::do_plan, direct),
    fake::maxGrid(fake::kernel("do_td", untraced_build::do_td), 2),
    fake::maxGrid(fake::kernel("do_td_big", untraced_build::do_td_big), 2),
    fake::maxGrid(fake::kernel("do_bu", untraced_build::do_bu), 2),
    fake::maxGrid(fake::kernel("do_convert", untraced_build::do_convert), 2),
});

} // namespace

// The traced build: every extern "C" kernel of bfs.cu renamed.
#undef STUDY_LOG_ARGS
#undef STUDY_LOG_BEGIN
#undef STUDY_LOG_END
#undef STUDY_LOG_END_SYNCED
#define BFS_STUDY_TRACED 1
#define bfs_init_u8 bfs_init_u8_traced
#define bfs_scan_u8 bfs_scan_u8_traced
#define bfs_scan_u8_ro bfs_scan_u8_ro_traced
#define bfs_scan_i32 bfs_scan_i32_traced
#define bfs_scan_i32_ro bfs_scan_i32_ro_traced
#define bfs_widen bfs_widen_traced
#define bfs_count_u8 bfs_count_u8_traced
#define bfs_count_i32 bfs_count_i32_traced
#define bfs_finish_u8 bfs_finish_u8_traced
#define bfs_finish_i32 bfs_finish_i32_traced
#define bfs_parents_init bfs_parents_init_traced
#define bfs_parents_coo bfs_parents_coo_traced
#define do_init do_init_traced
#define do_plan do_plan_traced
#define do_td do_td_traced
#define do_td_big do_td_big_traced
#define do_bu do_bu_traced
#define do_convert do_convert_traced

namespace traced_build {
#include "bfs.cu"
} // namespace traced_build

namespace {

// The study's kernels of the traced build (gpu.go's studyKernelNames),
// as coroutines: their llog_end synchronises the block.
fake::Table tracedTable("1", {
    fake::kernel("bfs_init_u8", traced_build::bfs_init_u8),
    fake::kernel("bfs_scan_u8", traced_build::bfs_scan_u8),
    fake::kernel("bfs_scan_u8_ro", traced_build::bfs_scan_u8_ro),
    fake::kernel("bfs_scan_i32", traced_build::bfs_scan_i32),
    fake::kernel("bfs_scan_i32_ro", traced_build::bfs_scan_i32_ro),
    fake::kernel("bfs_widen", traced_build::bfs_widen),
    fake::maxGrid(fake::kernel("bfs_count_u8", traced_build::bfs_count_u8), 2),
    fake::maxGrid(fake::kernel("bfs_count_i32", traced_build::bfs_count_i32), 2),
});

} // namespace
