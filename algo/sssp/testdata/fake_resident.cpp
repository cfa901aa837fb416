// fake_resident.cpp: resident.cu's kernels (the device work around the
// searches: PrepareResident's weight scan and light-first split, the
// parents, widening and counts of RunOnDevice) for the fake GPU
// (internal/fakegpu/testdata/fake_launch.h). Every kernel is grid-stride
// (or one thread): at most two blocks compute the same as the full grid
// and make the loops wrap. Those without barriers or warp collectives run
// as plain calls.
#include "cuda_emu.h"

#include "../../internal/devcsr/csr.cuh"
#include "resident.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) { l.oneDimWarps(); }

fake::Package pkg({"sssprs_"}, prepare);

const emu::Options direct{emu::Mode::direct};

fake::Kernel small(const fake::Kernel &k) { return fake::maxGrid(k, 2); }

fake::Table table({
    small(fake::kernel("sssprs_wstats_w32", sssprs_wstats_w32, direct)),
    small(fake::kernel("sssprs_wstats_w64", sssprs_wstats_w64, direct)),
    fake::kernel("sssprs_wstats_total", sssprs_wstats_total),
    small(fake::kernel("sssprs_split_w32", sssprs_split_w32)),
    small(fake::kernel("sssprs_split_w64", sssprs_split_w64)),
    small(fake::kernel("sssprs_split_big_w32", sssprs_split_big_w32)),
    small(fake::kernel("sssprs_split_big_w64", sssprs_split_big_w64)),
    small(fake::kernel("sssprs_lend_unit", sssprs_lend_unit, direct)),
    fake::kernel("sssprs_slots", sssprs_slots, direct),
    small(fake::kernel("sssprs_widen", sssprs_widen, direct)),
    fake::kernel("sssprs_reset", sssprs_reset, direct),
    small(fake::kernel("sssprs_collect_d64", sssprs_collect_d64)),
    small(fake::kernel("sssprs_collect_d32", sssprs_collect_d32)),
    small(fake::kernel("sssprs_parents_init_d64", sssprs_parents_init_d64, direct)),
    small(fake::kernel("sssprs_parents_init_d32", sssprs_parents_init_d32, direct)),
    small(fake::kernel("sssprs_parents_d64_w32", sssprs_parents_d64_w32, direct)),
    small(fake::kernel("sssprs_parents_d64_w64", sssprs_parents_d64_w64, direct)),
    small(fake::kernel("sssprs_parents_d32_w32", sssprs_parents_d32_w32, direct)),
    small(fake::kernel("sssprs_parents_d32_w64", sssprs_parents_d32_w64, direct)),
    small(fake::kernel("sssprs_parents_undirected_d64_w32", sssprs_parents_undirected_d64_w32)),
    small(fake::kernel("sssprs_parents_undirected_d64_w64", sssprs_parents_undirected_d64_w64)),
    small(fake::kernel("sssprs_parents_undirected_d32_w32", sssprs_parents_undirected_d32_w32)),
    small(fake::kernel("sssprs_parents_undirected_d32_w64", sssprs_parents_undirected_d32_w64)),
    small(fake::kernel("sssprs_parents_coo_d64_w32", sssprs_parents_coo_d64_w32, direct)),
    small(fake::kernel("sssprs_parents_coo_d64_w64", sssprs_parents_coo_d64_w64, direct)),
    small(fake::kernel("sssprs_parents_coo_d32_w32", sssprs_parents_coo_d32_w32, direct)),
    small(fake::kernel("sssprs_parents_coo_d32_w64", sssprs_parents_coo_d32_w64, direct)),
    small(fake::kernel("sssprs_adopt_pull_d64_w32", sssprs_adopt_pull_d64_w32)),
    small(fake::kernel("sssprs_adopt_pull_d64_w64", sssprs_adopt_pull_d64_w64)),
    small(fake::kernel("sssprs_adopt_pull_d32_w32", sssprs_adopt_pull_d32_w32)),
    small(fake::kernel("sssprs_adopt_pull_d32_w64", sssprs_adopt_pull_d32_w64)),
    small(fake::kernel("sssprs_commit", sssprs_commit)),
});

} // namespace
