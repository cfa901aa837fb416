// fake_launch.h: how a package tells fake_launch.cpp which kernels to
// emulate. A package's testdata/fake_kernels.cpp includes cuda_emu.h, its
// .cu file and this header, and registers its kernels:
//
//	static fake::Package pkg({"sssp_"}, prepare);          // prefixes, optional hook
//	static fake::Table table({
//		fake::kernel("sssp_edge_init_d64", sssp_edge_init_d64, threads),
//		...
//	});
//
// fake_launch.cpp's cuLaunchKernel then runs every launch of a kernel whose
// name starts with a registered prefix on the emulator, its arguments
// unpacked from the 8-byte slots package gpu passes into the kernel's
// parameter types. A launch fails with CUDA_ERROR_NOT_FOUND (500) for a
// kernel whose name no linked package's prefix claims (a test cannot pass
// without running its kernels) or that no table holds,
// CUDA_ERROR_INVALID_VALUE (1) for a wrong number
// of arguments or a problem the package's hook found, and
// CUDA_ERROR_LAUNCH_FAILED (719) when the emulation fails.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cuda_emu.h"

namespace fake {

// Launch is one cuLaunchKernel call.
struct Launch {
	std::string name;
	dim3 grid, block;
	unsigned shared = 0;
	void **params = nullptr;
	int nargs = 0;
	const char *image = ""; // the module's text (fakenvrtc.c's "image")
	// config picks the table (Table's config): Package's config hook.
	std::string config;
	// problem is the first problem need or buffer found.
	std::string problem;

	template <typename T> T arg(int i) const {
		T v;
		std::memcpy(&v, params[i], sizeof(T));
		return v;
	}
	template <typename T> T *ptr(int i) const { return (T *)(uintptr_t)arg<unsigned long long>(i); }

	// need records what as the problem (the first one) unless ok.
	void need(bool ok, const std::string &what) {
		if (!ok && problem.empty()) {
			problem = what;
		}
	}
	// buffer checks that argument i points at an allocation of the fake
	// driver of at least bytes bytes, and lets __ldg read it.
	void buffer(int i, unsigned long long bytes, const char *what);
	// oneDimWarps needs a 1-D grid of 1-D blocks of whole warps and no
	// dynamic shared memory.
	void oneDimWarps();
	// define returns the value of -Dmacro=value in the module's compile
	// options, def when absent.
	std::string define(const char *macro, const char *def) const;
};

// Kernel is one emulated kernel: its name, parameter count, how to run it.
struct Kernel {
	const char *name;
	int nargs;
	emu::Options opts;
	// run launches the kernel with l's arguments on grid × block.
	std::function<std::string(const Launch &l, dim3 grid, dim3 block)> run;
	// grid, when set, replaces the launch's grid (grid-stride kernels
	// compute the same on a smaller grid, which the emulator can afford).
	std::function<dim3(const Launch &)> grid;
	std::function<dim3(const Launch &)> block;
};

template <typename... A, size_t... I>
std::tuple<A...> unpack(const Launch &l, std::index_sequence<I...>) {
	return std::tuple<A...>(l.arg<A>((int)I)...);
}

// kernel describes f, run in mode o.
template <typename... A> Kernel kernel(const char *name, void (*f)(A...), emu::Options o = {}) {
	Kernel k{name, (int)sizeof...(A), o, nullptr, nullptr, nullptr};
	k.run = [f, o](const Launch &l, dim3 g, dim3 b) {
		const std::tuple<A...> args = unpack<A...>(l, std::index_sequence_for<A...>{});
		return emu::launch(g, b, l.shared, o, [&] { std::apply(f, args); });
	};
	return k;
}

// maxGrid caps k's grid at n blocks (x).
inline Kernel maxGrid(Kernel k, unsigned n) {
	k.grid = [n](const Launch &l) {
		dim3 g = l.grid;
		g.x = g.x < n ? g.x : n;
		return g;
	};
	return k;
}

// shape runs k on grid × block threads (1-D) whatever the launch asked.
inline Kernel shape(Kernel k, unsigned grid, unsigned block) {
	k.grid = [grid](const Launch &) {
		dim3 g;
		g.x = grid;
		return g;
	};
	k.block = [block](const Launch &) {
		dim3 b;
		b.x = block;
		return b;
	};
	return k;
}

// Table registers kernels for launches whose Launch.config is config.
struct Table {
	Table(std::initializer_list<Kernel> ks) : Table("", ks) {}
	Table(const char *config, std::initializer_list<Kernel> ks);
};

// Package registers the kernel-name prefixes to emulate, a hook run
// before each such launch once the argument count is right (checks with
// need and buffer, sets emu::order), and one that picks the launch's
// table (Launch.config; none: ""). Several packages may link (a
// package's kernels and its device check): each launch runs the hooks
// of the package whose prefix its name starts with.
struct Package {
	Package(std::initializer_list<const char *> prefixes, void (*prepare)(Launch &) = nullptr,
	        std::string (*config)(const Launch &) = nullptr);
};

} // namespace fake
