// tailcheck.cuh — the tail-stamp check of sssp.cu's logged edge sweeps,
// for a test's build only (tailcheck_test.go): the test compiles this
// text, then sssp.cu, after the launch log's header, with
// -DSSSP_TAIL_CHECK=1 (the fake GPU's build: testdata/fake_tailcheck.cpp).
//
// A logged sweep stamps its end from its blocks stamp_from on only
// (sssp.cu, section 1b), on the assumption that no earlier block ends
// after them. Here every block also reports, by its first thread after
// bf_edge's barrier (where a stamping block stamps), to check words of
// the sweep's own: SSSP_TAIL_WORDS words for sweep iter (from 1) at
// (iter-1)*SSSP_TAIL_WORDS, word 0 the sweep's logged start (block 0's
// copy of what llog_begin wrote), words 1 on the largest end (ns of the
// global timer) of the blocks before stamp_from, block b in word
// 1 + b % (SSSP_TAIL_WORDS-1) (one word for all made a wide grid's
// blocks queue on one address: launchlog.cuh). The stamping blocks report
// nothing here: their ends are the log's. A sweep past the words' room
// (sssp_tail_sweeps) reports nothing.
//
// The words' address is a device variable set by sssp_tail_set, launched
// once before the runs (the logged kernels keep their arguments, so the
// run's own code launches them).
#ifndef SSSP_TAIL_CHECK
#error "tailcheck.cuh is the test's tail-check build: compile it with -DSSSP_TAIL_CHECK=1"
#endif

#define SSSP_TAIL_WORDS 32

__device__ unsigned long long *sssp_tail_words; // NULL: report nothing
__device__ int sssp_tail_sweeps;                // sweeps the words hold

// sssp_tail_set points the check at words, room for sweeps sweeps (NULL
// and 0: off). One thread.
extern "C" __global__ void sssp_tail_set(unsigned long long *words, int sweeps) {
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		sssp_tail_words = words;
		sssp_tail_sweeps = sweeps;
	}
}

// sssp_tail_check is a logged sweep block's report, called by every
// thread after bf_edge's barrier (the block's first thread reports).
__device__ __forceinline__ void sssp_tail_check(unsigned long long *ent, int iter, int stamp_from) {
	unsigned long long *words = sssp_tail_words;
	if (ent == 0 || words == 0 || threadIdx.x != 0 || iter < 1 || iter > sssp_tail_sweeps) {
		return;
	}
	unsigned long long *w = words + (unsigned long long)(iter - 1) * SSSP_TAIL_WORDS;
	if (blockIdx.x == 0) {
		w[0] = llog_entry(ent)[LLOG_START]; // this thread's own write (llog_begin)
	}
	if ((int)blockIdx.x < stamp_from) {
		atomicMax(w + 1 + blockIdx.x % (SSSP_TAIL_WORDS - 1), llog_clock());
	}
}
