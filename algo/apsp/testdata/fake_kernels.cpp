// fake_kernels.cpp: registers fw.cu with the fake GPU
// (internal/fakegpu/testdata/fake_launch.h). The kernels differ per
// configuration (the module's -D options, FW_TRACED naming the traced
// build): fake_cfg.cpp builds a table of them for each configuration
// TestFakeGPU compiles, and a launch runs the table its module's options
// name. The logged kernels' two last arguments, the launch log's
// entries, must be NULL for the untraced build and set for the traced
// one (checked here before each launch).
#include "fake_launch.h"

namespace {

std::string config(const fake::Launch &l) {
	return l.define("FW_TILE", "64") + "_" + l.define("FW_PRED", "1") + "_" + l.define("FW_HOPS", "0") + "_" +
	       l.define("FW_NEG", "0") + "_" + l.define("FW_DPX", "0") + "_" + l.define("FW_TRACED", "0");
}

// logged reports whether the kernel name (its element type's suffix
// aside) takes the launch log's entries last (fw.cu's FW_LOG_PARAMS).
bool logged(const std::string &name) {
	std::string base = name;
	if (base.size() > 4 && (base.compare(base.size() - 4, 4, "_i32") == 0 || base.compare(base.size() - 4, 4, "_f32") == 0)) {
		base.resize(base.size() - 4);
	}
	for (const char *k : {"fw_init", "fw_plain", "fw_phase1", "fw_phase2", "fw_phase3", "fw_csr_count", "fw_csr_scan",
	                      "fw_csr_fill", "fw_rebuild", "fw_rebuild_rows", "fw_rebuild_warp"}) {
		if (base == k) {
			return true;
		}
	}
	return false;
}

// prepare checks a logged kernel's entries against its build.
void prepare(fake::Launch &l) {
	if (!logged(l.name)) {
		return;
	}
	const bool traced = l.define("FW_TRACED", "0") == "1";
	const int n = l.nargs;
	for (int k = n - 2; k < n; k++) {
		const bool set = l.ptr<void>(k) != nullptr;
		l.need(set == traced, "log entry argument " + std::to_string(k) + (set ? " is set for the untraced build" : " is NULL for the traced build"));
	}
}

fake::Package pkg({"fw_"}, prepare, config);

} // namespace
