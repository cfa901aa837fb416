// fake_cfg.cpp: fw.cu's kernels for one configuration, in their own
// namespace, registered with fake_launch.cpp. TestFakeGPU compiles it once
// per configuration with
//   -DFW_TILE=… -DFW_PRED=… -DFW_HOPS=… -DFW_NEG=… -DCFG_NS=cfg_… -DCFG_KEY="…"
// from a copy of fw.cu without its extern "C" (fw_noextern.cu), so that
// the configurations' kernels do not collide.
#include "fw_emu.h"

typedef int (*fw_dispatch_fn)(const char *, emu_dim3, emu_dim3, void **);
void fw_register(const char *key, fw_dispatch_fn f);

namespace CFG_NS {
#include "fw_noextern.cu"
#include "fw_dispatch.h"
} // namespace CFG_NS

namespace {
struct Registration {
	Registration() { fw_register(CFG_KEY, &CFG_NS::dispatch); }
} registration;
} // namespace
