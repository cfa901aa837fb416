// emulate.cpp runs the kernels of sssp.cu on the CPU (the shared emulator,
// internal/fakegpu/testdata/cuda_emu.h, in threads mode), with host loops
// that mirror gpu.go's, for TestKernelsEmulated. Built with
//   g++ -std=c++17 -O1 -pthread -I<sssp dir> -I<emulator dir> testdata/emulate.cpp
// Input (stdin, whitespace separated; floats in any strtod syntax, hex
// included):
//   n arcs wkind(0 unweighted, 1 float, 2 double) directed
//   offsets[n+1] adj[arcs] weights[arcs] (if wkind > 0)
//   m (COO edges, -1 when the graph is directed) st[m] en[m] w[m] (if wkind > 0)
//   src minSlots
//   delta lend[n] adj'[arcs] weights'[arcs] (if wkind > 0): the near-far
//     layout (each vertex's arcs light first; lend ends the light ones)
// Output, per variant: "variant NAME ITERATIONS ARCS_SCANNED" and a line
// of n distances as %a (inf for unreached). Variants: the edge sweep's
// four (undirected graphs only), frontier_d64/d32 (the near-far kernels
// with delta +Inf on the CSR as given) and nearfar_d64/d32 (with delta on
// the near-far layout).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cuda_emu.h"

#include "../../../gpu/launchlog.cuh" // as gpu.PrependLaunchLog gives NVRTC

#include "sssp.cu"

static const unsigned BLOCK = 64;
static const int BATCH = 4; // steps per read of the control words (gpu.go: nearFarBatch)

static double readd() {
	char buf[128];
	if (scanf("%127s", buf) != 1) {
		fprintf(stderr, "emulate: short input\n");
		exit(2);
	}
	return strtod(buf, nullptr);
}

static long long readi() {
	long long x;
	if (scanf("%lld", &x) != 1) {
		fprintf(stderr, "emulate: short input\n");
		exit(2);
	}
	return x;
}

struct Graph {
	int n = 0;
	long long arcs = 0;
	int wkind = 0;
	bool directed = false;
	std::vector<i64> off;
	std::vector<int> adj;
	std::vector<float> w32;
	std::vector<double> w64;
	long long m = -1;
	std::vector<int> st, en;
	std::vector<float> cw32;
	std::vector<double> cw64;
	double delta = 0;
	std::vector<i64> lend;
	std::vector<int> nadj;
	std::vector<float> nw32;
	std::vector<double> nw64;
};

template <typename D> static void print(const char *name, int iters, unsigned long long scanned, const std::vector<D> &d) {
	printf("variant %s %d %llu\n", name, iters, scanned);
	for (size_t i = 0; i < d.size(); i++) {
		printf("%s%a", i ? " " : "", (double)d[i]);
	}
	printf("\n");
}

static unsigned blocks(long long n) { return (unsigned)((n + BLOCK - 1) / BLOCK); }

// launch runs kernel() on grid blocks of BLOCK OS threads, 8 blocks at a
// time, and exits on an emulation error.
template <typename F> static void launch(unsigned grid, F kernel) {
	std::string err = emu::launch(grid, BLOCK, emu::Options{emu::Mode::threads, 8}, kernel);
	if (!err.empty()) {
		fprintf(stderr, "emulate: %s\n", err.c_str());
		exit(3);
	}
}

// The extern "C" kernels per distance and weight type, called with the
// arguments in gpu.go's order.
template <typename D, typename W> struct K;
template <> struct K<double, float> {
	static constexpr auto plain = sssp_edge_d64_w32_plain;
	static constexpr auto restr = sssp_edge_d64_w32_restrict;
	static constexpr auto step = sssp_nf_step_d64_w32;
};
template <> struct K<double, double> {
	static constexpr auto plain = sssp_edge_d64_w64_plain;
	static constexpr auto restr = sssp_edge_d64_w64_restrict;
	static constexpr auto step = sssp_nf_step_d64_w64;
};
template <> struct K<float, float> {
	static constexpr auto plain = sssp_edge_d32_w32_plain;
	static constexpr auto restr = sssp_edge_d32_w32_restrict;
	static constexpr auto step = sssp_nf_step_d32_w32;
};
template <> struct K<float, double> {
	static constexpr auto plain = sssp_edge_d32_w64_plain;
	static constexpr auto restr = sssp_edge_d32_w64_restrict;
	static constexpr auto step = sssp_nf_step_d32_w64;
};
template <typename D> struct KI;
template <> struct KI<double> {
	static constexpr auto edge = sssp_edge_init_d64;
	static constexpr auto nf = sssp_nf_init_d64;
};
template <> struct KI<float> {
	static constexpr auto edge = sssp_edge_init_d32;
	static constexpr auto nf = sssp_nf_init_d32;
};

// runEdge mirrors Prepared.runEdge.
template <typename D, typename W> static void runEdge(const Graph &g, const W *w, int src, bool restrict_, const char *name) {
	std::vector<D> dist(g.n);
	int modif = -1;
	D inf = (D)INFINITY;
	launch(blocks(g.n), [&] { KI<D>::edge(dist.data(), g.n, src, inf, &modif); });
	int m = (int)g.m;
	int iters = 0;
	for (int iter = 1;; iter++) {
		if (iter > 4 * g.n + 64) {
			fprintf(stderr, "emulate: %s: no convergence\n", name);
			exit(3);
		}
		if (m > 0) {
			launch(blocks(m), [&] {
				if (restrict_) {
					K<D, W>::restr(g.st.data(), g.en.data(), w, dist.data(), dist.data(), &modif, nullptr, m, iter);
				} else {
					K<D, W>::plain(g.st.data(), g.en.data(), w, dist.data(), &modif, nullptr, m, iter);
				}
			});
		}
		if (modif != iter) {
			iters = iter;
			break;
		}
	}
	print(name, iters, 2ull * m * iters, dist);
}

// nearSlots mirrors sssp.cu's near_slots (and gpu.go's).
static unsigned nearSlots(const std::vector<i64> &off, const i64 *lend, int v) {
	i64 o0 = off[v], o1 = off[v + 1];
	if (o1 == o0) {
		return 0;
	}
	i64 le = lend ? lend[v] : o1;
	return le > o0 ? (unsigned)(le - o0) : 1;
}

// runNearFar mirrors Prepared.runNearFar, with a small grid: the CSR
// (off, adj, w), lend (NULL: every arc light) and delta (+Inf: the
// frontier method, without settle list or far piles); minSlots is the
// least number of slots a warp takes.
template <typename D, typename W>
static void runNearFar(const Graph &g, const int *adj, const W *w, const i64 *lend, double delta, int src,
                       int minSlots, const char *name) {
	typedef typename Dist<D>::Bits B;
	const bool nf = lend != nullptr;
	std::vector<B> dist(g.n);
	std::vector<int> stamp(g.n), sst(g.n, -1), fstamp(g.n, -1);
	std::vector<u64> q0(g.n), q1(g.n), sq(nf ? g.n : 0);
	std::vector<int> far0(nf ? g.n : 0), far1(nf ? g.n : 0);
	u64 *queue[2] = {q0.data(), q1.data()};
	std::vector<u64> ctl(NF_CTL, 12345);
	unsigned slots = std::max(1u, nearSlots(g.off, lend, src));
	D dd = (D)delta;
	launch(blocks(std::max<long long>(g.n, NF_CTL)), [&] {
		KI<D>::nf(dist.data(), stamp.data(), nf ? sst.data() : nullptr, nf ? fstamp.data() : nullptr, g.n, src, dd,
		          queue[1], slots, ctl.data(), nullptr);
	});
	const unsigned grid = 3; // a grid-stride grid smaller than most queues
	for (int step = 1;;) {
		for (int b = 0; b < BATCH; b++) {
			launch(grid, [&] {
				K<D, W>::step(g.off.data(), lend, adj, w, dist.data(), stamp.data(), nf ? sst.data() : nullptr,
				              nf ? fstamp.data() : nullptr, queue[step % 2], queue[(step + 1) % 2],
				              nf ? sq.data() : nullptr, nf ? far0.data() : nullptr, nf ? far1.data() : nullptr,
				              ctl.data(), step, minSlots, dd, nullptr, 0);
			});
			step++;
		}
		if (ctl[NF_Q0 + step % 3] == 0 && ctl[NF_SCNT] == 0 && ctl[NF_FCNT] + ctl[NF_FCNT + 1] == 0) {
			break;
		}
		if (step > 8 * g.n + 1024) {
			fprintf(stderr, "emulate: %s: the queues never empty\n", name);
			exit(3);
		}
	}
	if (ctl[NF_DONE] != 0) {
		fprintf(stderr, "emulate: %s: epilogue counter left at %llu\n", name, (unsigned long long)ctl[NF_DONE]);
		exit(3);
	}
	std::vector<D> out(g.n);
	for (int i = 0; i < g.n; i++) {
		out[i] = Dist<D>::val(dist[i]);
	}
	int iters = (int)(ctl[NF_ROUNDS] + ctl[NF_PHASE] - 1 + ctl[NF_EPOCH] - 1);
	const unsigned long long scanned = ctl[NF_SCANNED] + ctl[NF_SCANNED + 1]; // both parities
	const unsigned long long lowered = ctl[NF_LOWERED] + ctl[NF_LOWERED + 1];
	fprintf(stderr, "%s: rounds %llu settle steps %llu splits %llu scanned %llu lowered %llu\n", name,
	        (unsigned long long)ctl[NF_ROUNDS], (unsigned long long)ctl[NF_EPOCH] - 1,
	        (unsigned long long)ctl[NF_PHASE] - 1, scanned, lowered);
	print(name, iters, scanned, out);
}

template <typename W>
static void runAll(const Graph &g, const W *w, const W *cw, const W *nw, int src, int minSlots) {
	if (!g.directed) {
		runEdge<double, W>(g, cw, src, false, "edge_d64_plain");
		runEdge<double, W>(g, cw, src, true, "edge_d64_restrict");
		runEdge<float, W>(g, cw, src, false, "edge_d32_plain");
		runEdge<float, W>(g, cw, src, true, "edge_d32_restrict");
	}
	runNearFar<double, W>(g, g.adj.data(), w, nullptr, INFINITY, src, minSlots, "frontier_d64");
	runNearFar<float, W>(g, g.adj.data(), w, nullptr, INFINITY, src, minSlots, "frontier_d32");
	runNearFar<double, W>(g, g.nadj.data(), nw, g.lend.data(), g.delta, src, minSlots, "nearfar_d64");
	runNearFar<float, W>(g, g.nadj.data(), nw, g.lend.data(), g.delta, src, minSlots, "nearfar_d32");
}

int main() {
	Graph g;
	g.n = (int)readi();
	g.arcs = readi();
	g.wkind = (int)readi();
	g.directed = readi() != 0;
	g.off.resize(g.n + 1);
	for (auto &x : g.off) {
		x = readi();
	}
	g.adj.resize(g.arcs);
	for (auto &x : g.adj) {
		x = (int)readi();
	}
	for (long long k = 0; g.wkind > 0 && k < g.arcs; k++) {
		double x = readd();
		if (g.wkind == 1) {
			g.w32.push_back((float)x);
		} else {
			g.w64.push_back(x);
		}
	}
	g.m = readi();
	if (g.m >= 0) {
		g.st.resize(g.m);
		g.en.resize(g.m);
		for (auto &x : g.st) {
			x = (int)readi();
		}
		for (auto &x : g.en) {
			x = (int)readi();
		}
		for (long long k = 0; g.wkind > 0 && k < g.m; k++) {
			double x = readd();
			if (g.wkind == 1) {
				g.cw32.push_back((float)x);
			} else {
				g.cw64.push_back(x);
			}
		}
	}
	int src = (int)readi();
	int minSlots = (int)readi();
	g.delta = readd();
	g.lend.resize(g.n);
	for (auto &x : g.lend) {
		x = readi();
	}
	g.nadj.resize(g.arcs);
	for (auto &x : g.nadj) {
		x = (int)readi();
	}
	for (long long k = 0; g.wkind > 0 && k < g.arcs; k++) {
		double x = readd();
		if (g.wkind == 1) {
			g.nw32.push_back((float)x);
		} else {
			g.nw64.push_back(x);
		}
	}
	switch (g.wkind) {
	case 0:
		runAll<float>(g, nullptr, nullptr, nullptr, src, minSlots);
		break;
	case 1:
		runAll<float>(g, g.w32.data(), g.cw32.data(), g.nw32.data(), src, minSlots);
		break;
	default:
		runAll<double>(g, g.w64.data(), g.cw64.data(), g.nw64.data(), src, minSlots);
	}
	return 0;
}
