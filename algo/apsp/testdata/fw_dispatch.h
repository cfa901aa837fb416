// fw_dispatch.h: included by fake_cfg.cpp inside a namespace right after
// a copy of fw.cu compiled for one configuration; runs the kernel named
// by a launch on the emulator (fw_emu.h), with the arguments unpacked from
// the 8-byte slots package gpu passes (in fw.cu's parameter order).

template <typename T> static T arg(void **p, int i) {
	T v;
	std::memcpy(&v, p[i], sizeof(T));
	return v;
}

template <typename T> static T *ptr(void **p, int i) { return (T *)(uintptr_t)arg<unsigned long long>(p, i); }

static int nargs(void **p) {
	int n = 0;
	while (p && p[n]) {
		n++;
	}
	return n;
}

// dispatch returns 0 when it ran the kernel, 1 for a wrong argument
// count, 2 for an unknown kernel.
static int dispatch(const char *name, emu_dim3 g, emu_dim3 b, void **a) {
	int na = nargs(a);
	auto is = [&](const char *k, int want) {
		if (std::strcmp(name, k) != 0) {
			return false;
		}
		if (na != want) {
			fprintf(stderr, "fw emulator: %s takes %d arguments, got %d\n", k, want, na);
			abort();
		}
		return true;
	};
#define FW_RUN_AS(RUN, NAME, NARGS, CALL)                                                                        \
	if (is(#NAME, NARGS)) {                                                                                      \
		RUN(g, b, [&] { NAME CALL; });                                                                           \
		return 0;                                                                                                \
	}
// kernels with barriers run as coroutines, the others as plain calls.
#define FW_RUN(NAME, NARGS, CALL) FW_RUN_AS(emu_launch, NAME, NARGS, CALL)
#define FW_DIRECT(NAME, NARGS, CALL) FW_RUN_AS(emu_run_direct, NAME, NARGS, CALL)
	FW_DIRECT(fw_init_i32, 6, (ptr<const int>(a, 0), arg<i64>(a, 1), ptr<int>(a, 2), ptr<int>(a, 3), ptr<int>(a, 4), arg<i64>(a, 5)))
	FW_DIRECT(fw_init_f32, 6, (ptr<const float>(a, 0), arg<i64>(a, 1), ptr<float>(a, 2), ptr<int>(a, 3), ptr<int>(a, 4), arg<i64>(a, 5)))
	FW_DIRECT(fw_compact, 4, (ptr<const int>(a, 0), arg<i64>(a, 1), ptr<int>(a, 2), arg<i64>(a, 3)))
	FW_DIRECT(fw_copy, 5, (ptr<int>(a, 0), arg<i64>(a, 1), ptr<const int>(a, 2), arg<i64>(a, 3), arg<i64>(a, 4)))
	FW_DIRECT(fw_plain_i32, 5, (ptr<int>(a, 0), ptr<int>(a, 1), ptr<int>(a, 2), arg<int>(a, 3), arg<int>(a, 4)))
	FW_DIRECT(fw_plain_f32, 5, (ptr<float>(a, 0), ptr<int>(a, 1), ptr<int>(a, 2), arg<int>(a, 3), arg<int>(a, 4)))
#define FW_PHASE(NAME, T) FW_RUN(NAME, 6, (ptr<T>(a, 0), ptr<int>(a, 1), ptr<int>(a, 2), arg<i64>(a, 3), arg<i64>(a, 4), arg<int>(a, 5)))
	FW_PHASE(fw_phase1_i32, int)
	FW_PHASE(fw_phase1_f32, float)
	FW_PHASE(fw_phase2_i32, int)
	FW_PHASE(fw_phase2_f32, float)
	FW_PHASE(fw_phase3_i32, int)
	FW_PHASE(fw_phase3_f32, float)
#undef FW_PHASE
#define FW_MP(NAME, T)                                                                                                 \
	FW_RUN(NAME, 16,                                                                                                   \
	       (ptr<const T>(a, 0), ptr<const int>(a, 1), ptr<const int>(a, 2), arg<i64>(a, 3), ptr<T>(a, 4), ptr<int>(a, 5), \
	        ptr<int>(a, 6), arg<i64>(a, 7), ptr<const T>(a, 8), ptr<const int>(a, 9), arg<i64>(a, 10), ptr<const T>(a, 11), \
	        ptr<const int>(a, 12), ptr<const int>(a, 13), arg<i64>(a, 14), arg<int>(a, 15)))
	FW_MP(fw_mp_i32, int)
	FW_MP(fw_mp_f32, float)
#undef FW_MP
#undef FW_RUN
#undef FW_DIRECT
#undef FW_RUN_AS
	return 2;
}
