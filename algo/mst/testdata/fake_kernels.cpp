// fake_kernels.cpp: boruvka.cu's kernels for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h), run as coroutines.
#include "cuda_emu.h"

#include "../../../gpu/launchlog.cuh"
#include "boruvka.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"mst_"}, prepare);

// The scans are grid-stride loops: two blocks compute the same as the
// full grid and make the loop wrap.
fake::Table table({
    fake::kernel("mst_init", mst_init),
    fake::kernel("mst_reset", mst_reset),
    fake::kernel("mst_probe_plain", mst_probe_plain),
    fake::kernel("mst_probe_comp", mst_probe_comp),
    fake::maxGrid(fake::kernel("mst_scan_plain", mst_scan_plain), 2),
    fake::maxGrid(fake::kernel("mst_scan_comp", mst_scan_comp), 2),
    fake::kernel("mst_merge_host", mst_merge_host),
    fake::kernel("mst_min_edge", mst_min_edge),
    fake::kernel("mst_hook", mst_hook),
    fake::kernel("mst_cycles", mst_cycles),
    fake::kernel("mst_jump", mst_jump),
    fake::kernel("mst_renumber", mst_renumber),
    fake::kernel("mst_relabel", mst_relabel),
});

} // namespace
