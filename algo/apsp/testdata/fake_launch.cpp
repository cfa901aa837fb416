// fake_launch.cpp turns package gpu's fake CUDA driver
// (gpu/testdata/fakecuda.c, whose "device memory" is host memory) into a
// slow CPU GPU for fw.cu: linked with fakecuda.c compiled with
// -DcuLaunchKernel=fake_orig_cuLaunchKernel and with fake_cfg.cpp built
// for each configuration, it defines cuLaunchKernel, lets the fake do its
// checks, reads the module's -D options from the fake image ("opts:"
// line, see gpu/testdata/fakenvrtc.c), and runs the kernel of that name
// and configuration on the emulator (fw_emu.h). TestFakeGPU builds it as
// libcuda.so.1 and runs the GPU tests' checks through the real Go code.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "fw_emu.h"

typedef int (*fw_dispatch_fn)(const char *, emu_dim3, emu_dim3, void **);

static std::map<std::string, fw_dispatch_fn> &configs() {
	static std::map<std::string, fw_dispatch_fn> m;
	return m;
}

void fw_register(const char *key, fw_dispatch_fn f) { configs()[key] = f; }

// The fake driver's handles (gpu/testdata/fakecuda.c).
struct fake_module {
	char *text;
};
struct fake_function {
	char name[128];
	fake_module *m;
	int dynShared;
};

extern "C" int fake_orig_cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                        unsigned bz, unsigned shared, void *s, void **params, void **extra);

// define returns the value of -DNAME=value in the image's option line,
// def when absent.
static std::string define(const char *text, const char *name, const char *def) {
	const char *opts = std::strstr(text, "opts: ");
	if (!opts) {
		return def;
	}
	const char *end = std::strchr(opts, '\n');
	std::string line(opts, end ? (size_t)(end - opts) : std::strlen(opts));
	std::string pat = std::string("-D") + name + "=";
	size_t at = line.find(pat);
	if (at == std::string::npos) {
		return def;
	}
	at += pat.size();
	size_t stop = line.find('|', at);
	return line.substr(at, stop == std::string::npos ? std::string::npos : stop - at);
}

extern "C" int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                              unsigned shared, void *s, void **params, void **extra) {
	int r = fake_orig_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
	if (r != 0) {
		return r;
	}
	fake_function *fn = (fake_function *)f;
	if (std::strncmp(fn->name, "fw_", 3) != 0) {
		return 0;
	}
	const char *text = fn->m->text;
	std::string key = define(text, "FW_TILE", "64") + "_" + define(text, "FW_PRED", "1") + "_" +
	                  define(text, "FW_HOPS", "0") + "_" + define(text, "FW_NEG", "0");
	auto it = configs().find(key);
	if (it == configs().end()) {
		fprintf(stderr, "fw emulator: configuration %s (tile_pred_hops_neg) was not built; %s cannot run\n", key.c_str(),
		        fn->name);
		return 500;
	}
	emu_dim3 g, b;
	g.x = gx, g.y = gy, g.z = gz;
	b.x = bx, b.y = by, b.z = bz;
	if (it->second(fn->name, g, b, params) != 0) {
		fprintf(stderr, "fw emulator: no kernel %s\n", fn->name);
		return 500;
	}
	return 0;
}
