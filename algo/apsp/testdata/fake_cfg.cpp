// fake_cfg.cpp: fw.cu's kernels for one configuration, in their own
// namespace, as the fake GPU's table for that configuration (see
// fake_kernels.cpp). TestFakeGPU compiles it once per configuration with
//   -DFW_TILE=… -DFW_PRED=… -DFW_HOPS=… -DFW_NEG=… -DFW_DPX=… -DFW_TRACED=… -DCFG_NS=cfg_… -DCFG_KEY="…"
// from a copy of fw.cu without its extern "C" (fw_noextern.cu), so that
// the configurations' kernels do not collide. The kernels with barriers
// run as coroutines, the others as plain calls (untraced only: the
// traced build's llog_end synchronises the block, so every kernel of it
// runs as a coroutine). The traced build (FW_TRACED=1) has
// gpu/launchlog.cuh before fw.cu, as gpu.PrependLaunchLog gives NVRTC;
// the untraced build has not, so that trace code outside #if FW_TRACED
// fails to compile here as under NVRTC. The staged rebuild kernels'
// dynamic shared memory is the emulator's (FW_EMULATED).
#include "cuda_emu.h"

#include "fake_launch.h"

#if FW_TRACED
#include "../../../gpu/launchlog.cuh"
#endif

namespace CFG_NS {
#define FW_EMULATED 1
inline unsigned char *rebuild_smem() { return emu::dyn_shared(); }
#include "fw_noextern.cu"

const emu::Options direct{FW_TRACED ? emu::Mode::cooperative : emu::Mode::direct};

fake::Table table(CFG_KEY, {
    fake::kernel("fw_init_i32", fw_init_i32, direct),
    fake::kernel("fw_init_f32", fw_init_f32, direct),
    fake::kernel("fw_compact", fw_compact, direct),
    fake::kernel("fw_copy", fw_copy, direct),
    fake::kernel("fw_plain_i32", fw_plain_i32, direct),
    fake::kernel("fw_plain_f32", fw_plain_f32, direct),
    fake::kernel("fw_phase1_i32", fw_phase1_i32),
    fake::kernel("fw_phase1_f32", fw_phase1_f32),
    fake::kernel("fw_phase2_i32", fw_phase2_i32),
    fake::kernel("fw_phase2_f32", fw_phase2_f32),
    fake::kernel("fw_phase3_i32", fw_phase3_i32),
    fake::kernel("fw_phase3_f32", fw_phase3_f32),
    fake::kernel("fw_mp_i32", fw_mp_i32),
    fake::kernel("fw_mp_f32", fw_mp_f32),
    fake::kernel("fw_csr_count_i32", fw_csr_count_i32, direct),
    fake::kernel("fw_csr_count_f32", fw_csr_count_f32, direct),
    fake::kernel("fw_csr_scan", fw_csr_scan),
    fake::kernel("fw_csr_fill_i32", fw_csr_fill_i32, direct),
    fake::kernel("fw_csr_fill_f32", fw_csr_fill_f32, direct),
    fake::kernel("fw_rebuild_i32", fw_rebuild_i32, direct),
    fake::kernel("fw_rebuild_f32", fw_rebuild_f32, direct),
    fake::kernel("fw_rebuild_rows_i32", fw_rebuild_rows_i32),
    fake::kernel("fw_rebuild_rows_f32", fw_rebuild_rows_f32),
    fake::kernel("fw_rebuild_warp_i32", fw_rebuild_warp_i32),
    fake::kernel("fw_rebuild_warp_f32", fw_rebuild_warp_f32),
});
} // namespace CFG_NS
