// fake_launch.cpp turns package gpu's fake CUDA driver
// (gpu/testdata/fakecuda.c, whose "device memory" is host memory) into a
// slow CPU GPU: linked with fakecuda.c compiled with
// -DcuLaunchKernel=fake_orig_cuLaunchKernel and with a package's
// fake_kernels.cpp (see fake_launch.h), it defines cuLaunchKernel, lets
// the fake do its checks and log the launch, then runs the kernel of that
// name on the emulator (cuda_emu.h). internal/fakegpu builds it into
// libcuda.so.1 for a package's TestFakeGPU.
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "fake_launch.h"

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

namespace fake {
namespace {

struct Registry {
	// prefixes and the hooks of the package that registered each:
	// several packages (a package's kernels and its device check) may
	// link.
	struct Prefix {
		std::string prefix;
		void (*prepare)(Launch &);
		std::string (*config)(const Launch &);
	};
	std::vector<Prefix> prefixes;
	std::map<std::string, std::map<std::string, Kernel>> tables; // config → name → kernel
};

Registry &registry() {
	static Registry *r = new Registry;
	return *r;
}

// allocSize is the size the fake driver recorded for the allocation at
// p: it keeps it in the 8 bytes 16 bytes before the pointer it returns.
size_t allocSize(const void *p) { return *(const size_t *)((const char *)p - 16); }

} // namespace

Table::Table(const char *config, std::initializer_list<Kernel> ks) {
	for (const Kernel &k : ks) {
		registry().tables[config][k.name] = k;
	}
}

Package::Package(std::initializer_list<const char *> prefixes, void (*prepare)(Launch &),
                 std::string (*config)(const Launch &)) {
	for (const char *p : prefixes) {
		registry().prefixes.push_back({p, prepare, config});
	}
}

void Launch::buffer(int i, unsigned long long bytes, const char *what) {
	const void *p = ptr<const void>(i);
	if (p == nullptr) {
		need(false, std::string(what) + " is NULL");
		return;
	}
	need(allocSize(p) >= bytes, std::string(what) + ": buffer of " + std::to_string(allocSize(p)) +
	                                " bytes, the kernel reads " + std::to_string(bytes));
	emu::readable.push_back({(uintptr_t)p, (uintptr_t)p + allocSize(p)});
}

void Launch::oneDimWarps() {
	need(grid.y == 1 && grid.z == 1 && block.y == 1 && block.z == 1 && block.x % 32 == 0 && shared == 0,
	     "grid " + std::to_string(grid.x) + "×" + std::to_string(grid.y) + "×" + std::to_string(grid.z) + " block " +
	         std::to_string(block.x) + "×" + std::to_string(block.y) + "×" + std::to_string(block.z) + " shared " +
	         std::to_string(shared) + ": want 1-D grids of 1-D blocks of whole warps, no dynamic shared memory");
}

std::string Launch::define(const char *macro, const char *def) const {
	const char *opts = std::strstr(image, "opts: ");
	if (!opts) {
		return def;
	}
	const char *end = std::strchr(opts, '\n');
	std::string line(opts, end ? (size_t)(end - opts) : std::strlen(opts));
	std::string pat = std::string("-D") + macro + "=";
	size_t at = line.find(pat);
	if (at == std::string::npos) {
		return def;
	}
	at += pat.size();
	size_t stop = line.find('|', at);
	return line.substr(at, stop == std::string::npos ? std::string::npos : stop - at);
}

} // namespace fake

extern "C" int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                              unsigned shared, void *s, void **params, void **extra) {
	int r = fake_orig_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
	if (r != 0) {
		return r;
	}
	fake::Registry &reg = fake::registry();
	const fake_function *fn = (const fake_function *)f;
	fake::Launch l;
	l.name = fn->name;
	bool ours = false;
	void (*prepare)(fake::Launch &) = nullptr;
	std::string (*config)(const fake::Launch &) = nullptr;
	for (const auto &p : reg.prefixes) {
		if (!ours && l.name.rfind(p.prefix, 0) == 0) {
			ours = true;
			prepare = p.prepare;
			config = p.config;
		}
	}
	if (!ours) {
		// No package linked into this test claims the kernel: running
		// nothing and answering success would let a test pass without
		// the kernel (link the package's fake_*.cpp).
		fprintf(stderr, "fake_launch: no package claims kernel %s (link its testdata/fake_*.cpp into the test)\n",
		        l.name.c_str());
		return 500; // CUDA_ERROR_NOT_FOUND
	}
	// One emulated launch at a time: the emulator's per-launch state
	// (emu::readable, emu::error, emu::children, __shared__ statics) is
	// global, and the ranks of a device group launch from several threads
	// at once.
	static std::mutex launchMu;
	std::lock_guard<std::mutex> serial(launchMu);
	l.grid.x = gx, l.grid.y = gy, l.grid.z = gz;
	l.block.x = bx, l.block.y = by, l.block.z = bz;
	l.shared = shared;
	l.params = params;
	while (params && params[l.nargs]) {
		l.nargs++;
	}
	l.image = fn->m && fn->m->text ? fn->m->text : "";
	emu::readable.clear();
	if (config) {
		l.config = config(l);
	}
	auto t = reg.tables.find(l.config);
	if (t == reg.tables.end()) {
		fprintf(stderr, "fake_launch: %s: no kernels were built for configuration %s\n", l.name.c_str(), l.config.c_str());
		return 500; // CUDA_ERROR_NOT_FOUND
	}
	auto k = t->second.find(l.name);
	if (k == t->second.end()) {
		fprintf(stderr, "fake_launch: no emulation of kernel %s\n", l.name.c_str());
		return 500;
	}
	const fake::Kernel &kn = k->second;
	l.need(l.nargs == kn.nargs,
	       "takes " + std::to_string(kn.nargs) + " arguments, the launch passed " + std::to_string(l.nargs));
	if (l.problem.empty() && prepare) {
		prepare(l);
	}
	if (!l.problem.empty()) {
		fprintf(stderr, "fake_launch: %s (grid %u, block %u, shared %u): %s\n", l.name.c_str(), gx, bx, shared,
		        l.problem.c_str());
		return 1; // CUDA_ERROR_INVALID_VALUE
	}
	const std::string err = kn.run(l, kn.grid ? kn.grid(l) : l.grid, kn.block ? kn.block(l) : l.block);
	emu::readable.clear();
	if (!err.empty()) {
		fprintf(stderr, "fake_launch: %s: emulation failed: %s\n", l.name.c_str(), err.c_str());
		return 719; // CUDA_ERROR_LAUNCH_FAILED
	}
	return 0;
}
