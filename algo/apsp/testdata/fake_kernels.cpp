// fake_kernels.cpp: registers fw.cu with the fake GPU
// (internal/fakegpu/testdata/fake_launch.h). The kernels differ per
// configuration (the module's -D options): fake_cfg.cpp builds a table
// of them for each configuration TestFakeGPU compiles, and a launch runs
// the table its module's options name.
#include "fake_launch.h"

namespace {

std::string config(const fake::Launch &l) {
	return l.define("FW_TILE", "64") + "_" + l.define("FW_PRED", "1") + "_" + l.define("FW_HOPS", "0") + "_" +
	       l.define("FW_NEG", "0") + "_" + l.define("FW_DPX", "0");
}

fake::Package pkg({"fw_"}, nullptr, config);

} // namespace
