// fake_kernels.cpp: reorder.cu's kernels for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h): plain calls, except those
// with warp collectives, run as coroutines, and the hooking, on threads.
// The kernels over chunks are grid-stride loops: two blocks make the loop
// wrap. The tests link gpu/transform's fake kernels beside it.
#include "cuda_emu.h"

#include "../reorder.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"rcm_"}, prepare);

const emu::Options direct{emu::Mode::direct};
// The hooking and flattening race on the component trees: real threads,
// two blocks at a time, so that the compare-and-swap retries run.
const emu::Options threads{emu::Mode::threads, 2};

fake::Table table({
    fake::kernel("rcm_check", rcm_check, direct),
    fake::kernel("rcm_degree_keys", rcm_degree_keys, direct),
    fake::kernel("rcm_rank", rcm_rank, direct),
    fake::kernel("rcm_chunks", rcm_chunks),
    fake::maxGrid(fake::kernel("rcm_hook", rcm_hook, threads), 2),
    fake::kernel("rcm_flatten", rcm_flatten, threads),
    fake::kernel("rcm_label", rcm_label, direct),
    fake::kernel("rcm_seed", rcm_seed),
    fake::maxGrid(fake::kernel("rcm_search_level", rcm_search_level), 2),
    fake::kernel("rcm_ecc", rcm_ecc, direct),
    fake::kernel("rcm_last", rcm_last, direct),
    fake::kernel("rcm_move", rcm_move, direct),
    fake::kernel("rcm_place_roots", rcm_place_roots, direct),
    fake::maxGrid(fake::kernel("rcm_parent", rcm_parent, direct), 2),
    fake::kernel("rcm_count", rcm_count),
    fake::kernel("rcm_level_keys", rcm_level_keys),
    fake::kernel("rcm_place", rcm_place, direct),
    fake::kernel("rcm_comp_keys", rcm_comp_keys, direct),
    fake::kernel("rcm_reverse", rcm_reverse, direct),
});

} // namespace
