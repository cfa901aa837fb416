// fake_multi.cpp: multi.cu's kernels (the BFS over a group of GPUs and its
// check) for the fake GPU (internal/fakegpu/testdata/fake_launch.h). Every
// kernel is grid-stride: at most two blocks compute the same as the full
// grid and make the loops wrap. Those without barriers or warp collectives
// run as plain calls.
#include "cuda_emu.h"
#include "chunks.cuh"

#include "multi.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"mb_", "mbck_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Kernel small(const fake::Kernel &k) { return fake::maxGrid(k, 2); }

fake::Table table({
    small(fake::kernel("mb_init", mb_init, direct)),
    small(fake::kernel("mb_merge", mb_merge)),
    small(fake::kernel("mb_td_walk", mb_td_walk)),
    small(fake::kernel("mb_td_pack", mb_td_pack)),
    small(fake::kernel("mb_td_apply", mb_td_apply, direct)),
    small(fake::kernel("mb_bu", mb_bu)),
    fake::kernel("mbck_clear", mbck_clear, direct),
    small(fake::kernel("mbck_block", mbck_block)),
});

} // namespace
