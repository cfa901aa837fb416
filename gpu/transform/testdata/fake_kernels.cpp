// fake_kernels.cpp: transform.cu's kernels for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h): those without barriers or
// warp collectives as plain calls, the others as coroutines. Packages
// whose device code calls package transform link this object too (it
// includes transform.cu by its path relative to this file).
#include "cuda_emu.h"

#include "../transform.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"gt_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Table table({
    fake::kernel("gt_scan_reduce", gt_scan_reduce),
    fake::kernel("gt_scan_down", gt_scan_down),
    fake::maxGrid(fake::kernel("gt_key_diff", gt_key_diff), 2),
    fake::kernel("gt_radix_hist", gt_radix_hist),
    fake::kernel("gt_radix_hist8", gt_radix_hist8),
    fake::kernel("gt_radix_scatter32", gt_radix_scatter32),
    fake::kernel("gt_radix_scatter64", gt_radix_scatter64),
    fake::kernel("gt_copy_words", gt_copy_words, direct),
    fake::kernel("gt_arc_source", gt_arc_source, direct),
    fake::kernel("gt_upper_count", gt_upper_count, direct),
    fake::kernel("gt_upper_scatter", gt_upper_scatter, direct),
    fake::kernel("gt_tile_keys", gt_tile_keys, direct),
    fake::kernel("gt_permute_gather", gt_permute_gather, direct),
});

} // namespace
