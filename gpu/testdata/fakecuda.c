/*
 * A fake CUDA driver (libcuda.so.1) for the gpu package's tests on
 * machines without a GPU. It exports the symbols the package uses, keeps
 * "device memory" in host memory (so copies round-trip), and is driven
 * and observed through the environment:
 *
 *   FAKE_CUDA_LOG     file every call appends a line to ("name key=value…")
 *   FAKE_CUDA_FAIL    "sym=code[:count],…": sym returns code (count times,
 *                     default always). A sticky code (700, 719, …) poisons
 *                     the context until cuDevicePrimaryCtxReset_v2.
 *   FAKE_CUDA_DEVICES number of devices (default 1)
 *   FAKE_CUDA_TOTAL   device memory in bytes (default 80 GiB)
 *   FAKE_CUDA_FREE    free memory before any allocation (default 79 GiB)
 *   FAKE_LINK_REJECT_CUBIN  cuLinkAddData_v2 rejects CUBIN input (218)
 *
 * Kernels it "runs": fake_fault* poisons the context with 700 (reported at
 * the next call, like an asynchronous fault); fake_iota(int *out, int n)
 * writes out[i] = i. Every launch logs the 8 bytes behind each
 * kernelParams entry (the array is NULL-terminated by the package).
 *
 * Build variants: -DOMIT_MEMALLOC drops cuMemAlloc_v2; -DNO_ELAPSED_V2
 * drops cuEventElapsedTime_v2 (cuEventElapsedTime returns 1.5 ms, the _v2
 * one 2.5 ms).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void flog(const char *fmt, ...) {
	const char *path = getenv("FAKE_CUDA_LOG");
	if (!path) return;
	char buf[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
	va_end(ap);
	if (n < 0) return;
	if (n > (int)sizeof buf - 2) n = sizeof buf - 2;
	buf[n++] = '\n';
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0) return;
	if (write(fd, buf, n) < 0) { }
	close(fd);
}

/* ---- failure injection ---- */
struct failure { char sym[64]; int code; int left; };
static struct failure fails[32];
static int nfails;
static char lastFail[1024];
static int poisoned;

static int sticky(int c) {
	return c == 214 || c == 700 || c == 702 || c == 710 || (c >= 714 && c <= 719);
}

static int injected(const char *sym) {
	const char *env = getenv("FAKE_CUDA_FAIL");
	int r = 0;
	pthread_mutex_lock(&mu);
	if (!env) env = "";
	if (strcmp(env, lastFail) != 0) {
		snprintf(lastFail, sizeof lastFail, "%s", env);
		nfails = 0;
		char tmp[1024];
		snprintf(tmp, sizeof tmp, "%s", env);
		for (char *save = 0, *tok = strtok_r(tmp, ",", &save); tok && nfails < 32; tok = strtok_r(0, ",", &save)) {
			char *eq = strchr(tok, '=');
			if (!eq) continue;
			*eq = 0;
			struct failure *f = &fails[nfails++];
			snprintf(f->sym, sizeof f->sym, "%s", tok);
			f->code = atoi(eq + 1);
			char *colon = strchr(eq + 1, ':');
			f->left = colon ? atoi(colon + 1) : -1;
		}
	}
	for (int i = 0; i < nfails; i++) {
		if (strcmp(fails[i].sym, sym) == 0 && fails[i].left != 0) {
			if (fails[i].left > 0) fails[i].left--;
			r = fails[i].code;
			break;
		}
	}
	pthread_mutex_unlock(&mu);
	return r;
}

/* enter: a poisoned context fails every call; else injected failures. */
static int enter(const char *sym) {
	if (poisoned) return poisoned;
	int r = injected(sym);
	if (r && sticky(r)) poisoned = r;
	return r;
}
#define ENTER(sym) do { int _r = enter(sym); if (_r) { flog("%s fail=%d", sym, _r); return _r; } } while (0)

/* nccl_drain completes the collectives this thread queued on the fake
 * NCCL (GRAPHNB_NCCL, once loaded; its fakeNcclDrain), as a GPU runs a
 * stream's work in order: a kernel or a copy queued after a collective
 * sees its result. Without the fake NCCL it does nothing. */
static void nccl_drain(void) {
	static void (*drain)(void);
	void (*d)(void) = __atomic_load_n(&drain, __ATOMIC_ACQUIRE);
	if (!d) {
		const char *p = getenv("GRAPHNB_NCCL");
		void *h = p ? dlopen(p, RTLD_NOW | RTLD_NOLOAD) : 0;
		if (!h) return; /* not loaded (yet): nothing queued on it */
		d = (void (*)(void))dlsym(h, "fakeNcclDrain");
		dlclose(h);
		if (!d) return;
		__atomic_store_n(&drain, d, __ATOMIC_RELEASE);
	}
	d();
}

/* ---- contexts ---- */
struct ctx { int dev; int retains; };
static struct ctx ctxs[8];
static __thread struct ctx *current;

#define NEEDCTX(sym) do { if (!current) { flog("%s no-context", sym); return 201; } } while (0)

static long long envll(const char *name, long long def) {
	const char *v = getenv(name);
	return v ? atoll(v) : def;
}

static long long allocated;

CUresult cuInit(unsigned int flags) {
	flog("cuInit flags=%u", flags);
	int r = injected("cuInit");
	return r ? r : (flags ? 1 : 0);
}

CUresult cuDriverGetVersion(int *v) { *v = (int)envll("FAKE_CUDA_VERSION", 13000); return 0; }

static const char *errname(int code, int msg) {
	switch (code) {
	case 0: return msg ? "no error (fake driver)" : "CUDA_SUCCESS";
	case 1: return msg ? "invalid argument (fake driver)" : "CUDA_ERROR_INVALID_VALUE";
	case 2: return msg ? "out of memory (fake driver)" : "CUDA_ERROR_OUT_OF_MEMORY";
	case 100: return msg ? "no CUDA-capable device is detected (fake driver)" : "CUDA_ERROR_NO_DEVICE";
	case 200: return msg ? "device kernel image is invalid (fake driver)" : "CUDA_ERROR_INVALID_IMAGE";
	case 201: return msg ? "invalid device context (fake driver)" : "CUDA_ERROR_INVALID_CONTEXT";
	case 218: return msg ? "a PTX JIT compilation failed (fake driver)" : "CUDA_ERROR_INVALID_PTX";
	case 301: return msg ? "file not found (fake driver)" : "CUDA_ERROR_FILE_NOT_FOUND";
	case 500: return msg ? "named symbol not found (fake driver)" : "CUDA_ERROR_NOT_FOUND";
	case 700: return msg ? "an illegal memory access was encountered (fake driver)" : "CUDA_ERROR_ILLEGAL_ADDRESS";
	case 712: return msg ? "already registered (fake driver)" : "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED";
	case 719: return msg ? "unspecified launch failure (fake driver)" : "CUDA_ERROR_LAUNCH_FAILED";
	}
	return 0;
}

CUresult cuGetErrorName(CUresult code, const char **s) { *s = errname(code, 0); return *s ? 0 : 1; }
CUresult cuGetErrorString(CUresult code, const char **s) { *s = errname(code, 1); return *s ? 0 : 1; }

CUresult cuDeviceGetCount(int *n) {
	ENTER("cuDeviceGetCount");
	*n = (int)envll("FAKE_CUDA_DEVICES", 1);
	return 0;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal) {
	ENTER("cuDeviceGet");
	if (ordinal < 0 || ordinal >= envll("FAKE_CUDA_DEVICES", 1) || ordinal >= 8) return 101;
	*d = ordinal;
	return 0;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
	ENTER("cuDeviceGetName");
	if (d == 0) snprintf(name, len, "Fake H100 80GB HBM3");
	else snprintf(name, len, "Fake H100 80GB HBM3 #%d", d);
	return 0;
}

CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
	ENTER("cuDeviceGetAttribute");
	switch (attr) {
	case 1: *v = 1024; break;       /* max threads per block */
	case 10: *v = 32; break;        /* warp */
	case 13: *v = 1980000; break;   /* clock kHz */
	case 16: *v = 132; break;       /* SMs */
	case 36: *v = 2619000; break;   /* memory clock kHz */
	case 37: *v = 5120; break;      /* bus width */
	case 38: *v = 50 << 20; break;  /* L2 */
	case 75: *v = 9; break;
	case 76: *v = 0; break;
	case 97: *v = 232448; break;
	default: return 1;
	}
	return 0;
}

CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) {
	ENTER("cuDeviceTotalMem_v2");
	*b = (size_t)envll("FAKE_CUDA_TOTAL", 80LL << 30);
	return 0;
}

CUresult cuDevicePrimaryCtxRetain(void **pctx, CUdevice d) {
	ENTER("cuDevicePrimaryCtxRetain");
	ctxs[d].dev = d;
	ctxs[d].retains++;
	*pctx = &ctxs[d];
	flog("cuDevicePrimaryCtxRetain dev=%d retains=%d", d, ctxs[d].retains);
	return 0;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
	ctxs[d].retains--;
	flog("cuDevicePrimaryCtxRelease_v2 dev=%d retains=%d", d, ctxs[d].retains);
	return 0;
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice d) {
	poisoned = 0;
	pthread_mutex_lock(&mu);
	allocated = 0;
	pthread_mutex_unlock(&mu);
	flog("cuDevicePrimaryCtxReset_v2 dev=%d", d);
	return 0;
}

CUresult cuCtxSetCurrent(void *ctx) {
	ENTER("cuCtxSetCurrent");
	current = ctx;
	flog("cuCtxSetCurrent");
	return 0;
}

CUresult cuCtxSynchronize(void) {
	NEEDCTX("cuCtxSynchronize");
	ENTER("cuCtxSynchronize");
	flog("cuCtxSynchronize");
	return 0;
}

/* ---- memory: device pointers are host blocks with a size header ---- */
#ifndef OMIT_MEMALLOC
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
	NEEDCTX("cuMemAlloc_v2");
	ENTER("cuMemAlloc_v2");
	if (n == 0) return 1;
	long long free = envll("FAKE_CUDA_FREE", 79LL << 30) - allocated;
	if ((long long)n > free) { flog("cuMemAlloc_v2 bytes=%zu oom", n); return 2; }
	char *b = malloc(n + 16);
	if (!b) return 2;
	*(size_t *)b = n;
	pthread_mutex_lock(&mu);
	allocated += n;
	pthread_mutex_unlock(&mu);
	*p = (CUdeviceptr)(uintptr_t)(b + 16);
	flog("cuMemAlloc_v2 bytes=%zu ptr=%llx", n, *p);
	return 0;
}
#endif

CUresult cuMemFree_v2(CUdeviceptr p) {
	NEEDCTX("cuMemFree_v2");
	ENTER("cuMemFree_v2");
	char *b = (char *)(uintptr_t)p - 16;
	pthread_mutex_lock(&mu);
	allocated -= *(size_t *)b;
	pthread_mutex_unlock(&mu);
	flog("cuMemFree_v2 ptr=%llx bytes=%zu", p, *(size_t *)b);
	free(b);
	return 0;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
	NEEDCTX("cuMemcpyHtoD_v2");
	ENTER("cuMemcpyHtoD_v2");
	nccl_drain();
	memcpy((void *)(uintptr_t)dst, src, n);
	flog("cuMemcpyHtoD_v2 bytes=%zu", n);
	return 0;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
	NEEDCTX("cuMemcpyDtoH_v2");
	ENTER("cuMemcpyDtoH_v2");
	nccl_drain();
	memcpy(dst, (void *)(uintptr_t)src, n);
	flog("cuMemcpyDtoH_v2 bytes=%zu", n);
	return 0;
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
	NEEDCTX("cuMemcpyDtoD_v2");
	ENTER("cuMemcpyDtoD_v2");
	nccl_drain();
	memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
	flog("cuMemcpyDtoD_v2 bytes=%zu", n);
	return 0;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *s) {
	NEEDCTX("cuMemcpyHtoDAsync_v2");
	ENTER("cuMemcpyHtoDAsync_v2");
	nccl_drain();
	memcpy((void *)(uintptr_t)dst, src, n);
	flog("cuMemcpyHtoDAsync_v2 bytes=%zu", n);
	return 0;
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *s) {
	NEEDCTX("cuMemcpyDtoHAsync_v2");
	ENTER("cuMemcpyDtoHAsync_v2");
	nccl_drain();
	memcpy(dst, (void *)(uintptr_t)src, n);
	flog("cuMemcpyDtoHAsync_v2 bytes=%zu", n);
	return 0;
}

CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) {
	NEEDCTX("cuMemsetD8_v2");
	ENTER("cuMemsetD8_v2");
	nccl_drain();
	memset((void *)(uintptr_t)p, v, n);
	flog("cuMemsetD8_v2 n=%zu", n);
	return 0;
}

CUresult cuMemsetD32_v2(CUdeviceptr p, unsigned int v, size_t n) {
	NEEDCTX("cuMemsetD32_v2");
	ENTER("cuMemsetD32_v2");
	nccl_drain();
	unsigned int *q = (unsigned int *)(uintptr_t)p;
	for (size_t i = 0; i < n; i++) q[i] = v;
	flog("cuMemsetD32_v2 n=%zu value=%u", n, v);
	return 0;
}

CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
	NEEDCTX("cuMemGetInfo_v2");
	ENTER("cuMemGetInfo_v2");
	*free = (size_t)(envll("FAKE_CUDA_FREE", 79LL << 30) - allocated);
	*total = (size_t)envll("FAKE_CUDA_TOTAL", 80LL << 30);
	return 0;
}

CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned int flags) {
	NEEDCTX("cuMemHostRegister_v2");
	ENTER("cuMemHostRegister_v2");
	flog("cuMemHostRegister_v2 bytes=%zu flags=%u", n, flags);
	return 0;
}

CUresult cuMemHostUnregister(void *p) {
	NEEDCTX("cuMemHostUnregister");
	ENTER("cuMemHostUnregister");
	flog("cuMemHostUnregister");
	return 0;
}

/* ---- streams and events ---- */
CUresult cuStreamCreate(void **s, unsigned int flags) {
	NEEDCTX("cuStreamCreate");
	ENTER("cuStreamCreate");
	*s = malloc(8);
	flog("cuStreamCreate stream=%p", *s);
	return 0;
}

CUresult cuStreamSynchronize(void *s) {
	NEEDCTX("cuStreamSynchronize");
	ENTER("cuStreamSynchronize");
	flog("cuStreamSynchronize stream=%p", s);
	return 0;
}

CUresult cuStreamDestroy_v2(void *s) {
	ENTER("cuStreamDestroy_v2");
	flog("cuStreamDestroy_v2 stream=%p", s);
	free(s);
	return 0;
}

CUresult cuEventCreate(void **e, unsigned int flags) {
	NEEDCTX("cuEventCreate");
	ENTER("cuEventCreate");
	*e = calloc(1, 8);
	flog("cuEventCreate");
	return 0;
}

CUresult cuEventRecord(void *e, void *s) {
	NEEDCTX("cuEventRecord");
	ENTER("cuEventRecord");
	*(int *)e = 1;
	flog("cuEventRecord stream=%p", s);
	return 0;
}

CUresult cuEventSynchronize(void *e) {
	NEEDCTX("cuEventSynchronize");
	ENTER("cuEventSynchronize");
	flog("cuEventSynchronize");
	return 0;
}

/* Work runs at once here, so a recorded event has always been reached. */
CUresult cuEventQuery(void *e) {
	NEEDCTX("cuEventQuery");
	ENTER("cuEventQuery");
	return 0;
}

#ifndef NO_ELAPSED_V2
CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b) {
	NEEDCTX("cuEventElapsedTime_v2");
	ENTER("cuEventElapsedTime_v2");
	if (!*(int *)a || !*(int *)b) return 600;
	*ms = 2.5f;
	flog("cuEventElapsedTime_v2");
	return 0;
}
#endif

CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
	NEEDCTX("cuEventElapsedTime");
	ENTER("cuEventElapsedTime");
	if (!*(int *)a || !*(int *)b) return 600;
	*ms = 1.5f;
	flog("cuEventElapsedTime");
	return 0;
}

CUresult cuEventDestroy_v2(void *e) {
	ENTER("cuEventDestroy_v2");
	flog("cuEventDestroy_v2");
	free(e);
	return 0;
}

/* ---- modules ---- */
struct module { char *text; };
struct function { char name[128]; struct module *m; int dynShared; };

static CUresult load(void **m, const void *image, const char *sym) {
	NEEDCTX(sym);
	ENTER(sym);
	const char *s = image;
	if (strncmp(s, "FAKECUBIN", 9) != 0 && strncmp(s, "//FAKEPTX", 9) != 0) {
		flog("%s invalid-image", sym);
		return 200;
	}
	struct module *mod = calloc(1, sizeof *mod);
	mod->text = strdup(s);
	*m = mod;
	flog("%s kind=%s", sym, s[0] == 'F' ? "cubin" : "ptx");
	return 0;
}

CUresult cuModuleLoadData(void **m, const void *image) { return load(m, image, "cuModuleLoadData"); }

CUresult cuModuleLoadDataEx(void **m, const void *image, unsigned int n, int *opts, void **vals) {
	if (strstr((const char *)image, "JIT_FAIL")) {
		for (unsigned int i = 0; i < n; i++)
			if (opts[i] == 5) snprintf((char *)vals[i], 64, "ptxas fatal: fake JIT failure");
		flog("cuModuleLoadDataEx jit-fail");
		return 218;
	}
	return load(m, image, "cuModuleLoadDataEx");
}

/* A kernel is found when "void NAME(" appears on a line with extern "C". */
static int exported(const char *text, const char *name) {
	char pat[160];
	snprintf(pat, sizeof pat, "void %s(", name);
	for (const char *p = strstr(text, pat); p; p = strstr(p + 1, pat)) {
		const char *line = p;
		while (line > text && line[-1] != '\n') line--;
		char buf[512];
		size_t len = (size_t)(p - line) < sizeof buf - 1 ? (size_t)(p - line) : sizeof buf - 1;
		memcpy(buf, line, len);
		buf[len] = 0;
		if (strstr(buf, "extern \"C\"")) return 1;
	}
	return 0;
}

CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
	NEEDCTX("cuModuleGetFunction");
	ENTER("cuModuleGetFunction");
	struct module *mod = m;
	if (!exported(mod->text, name)) return 500;
	struct function *fn = calloc(1, sizeof *fn);
	snprintf(fn->name, sizeof fn->name, "%s", name);
	fn->m = mod;
	*f = fn;
	return 0;
}

CUresult cuModuleUnload(void *m) {
	ENTER("cuModuleUnload");
	flog("cuModuleUnload");
	return 0;
}

CUresult cuLaunchKernel(void *f, unsigned int gx, unsigned int gy, unsigned int gz,
		unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared, void *s,
		void **params, void **extra) {
	NEEDCTX("cuLaunchKernel");
	ENTER("cuLaunchKernel");
	nccl_drain();
	struct function *fn = f;
	char args[4096] = "";
	size_t used = 0;
	int n = 0;
	for (; params && params[n]; n++) {
		const unsigned char *b = params[n];
		for (int k = 0; k < 8 && used + 3 < sizeof args; k++) used += snprintf(args + used, sizeof args - used, "%02x", b[k]);
		if (used + 2 < sizeof args) args[used++] = ',', args[used] = 0;
	}
	if (used) args[used - 1] = 0;
	flog("cuLaunchKernel name=%s grid=%u,%u,%u block=%u,%u,%u shared=%u stream=%p nargs=%d args=%s",
		fn->name, gx, gy, gz, bx, by, bz, shared, s, n, args);
	if (strncmp(fn->name, "fake_fault", 10) == 0) poisoned = 700;
	if (strcmp(fn->name, "fake_iota") == 0 && n >= 2) {
		int *out = (int *)(uintptr_t)*(unsigned long long *)params[0];
		int cnt = *(int *)params[1];
		for (int i = 0; i < cnt; i++) out[i] = i;
	}
	return 0;
}

CUresult cuFuncGetAttribute(int *v, int attr, void *f) {
	NEEDCTX("cuFuncGetAttribute");
	ENTER("cuFuncGetAttribute");
	struct function *fn = f;
	switch (attr) {
	case 0: *v = strstr(fn->name, "big_regs") ? 640 : 1024; break;
	case 4: *v = 32; break;
	case 8: *v = fn->dynShared ? fn->dynShared : 49152; break;
	default: *v = 0;
	}
	return 0;
}

CUresult cuFuncSetAttribute(void *f, int attr, int v) {
	NEEDCTX("cuFuncSetAttribute");
	ENTER("cuFuncSetAttribute");
	struct function *fn = f;
	if (attr == 8) fn->dynShared = v;
	flog("cuFuncSetAttribute name=%s attr=%d value=%d", fn->name, attr, v);
	return 0;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *f, int block, size_t shared) {
	NEEDCTX("cuOccupancyMaxActiveBlocksPerMultiprocessor");
	ENTER("cuOccupancyMaxActiveBlocksPerMultiprocessor");
	int n = 2048 / block;
	if (n > 32) n = 32;
	if (shared > 0) {
		long long bySmem = (228LL * 1024) / (long long)shared;
		if (bySmem < n) n = (int)bySmem;
	}
	*blocks = n;
	return 0;
}

/* ---- the linker ---- */
struct link {
	char *image;
	size_t len;
	char *errlog;
	size_t errsize;
};

static void appendImage(struct link *l, const char *s, size_t n) {
	l->image = realloc(l->image, l->len + n + 1);
	memcpy(l->image + l->len, s, n);
	l->len += n;
	l->image[l->len] = 0;
}

CUresult cuLinkCreate_v2(unsigned int n, int *opts, void **vals, void **state) {
	NEEDCTX("cuLinkCreate_v2");
	ENTER("cuLinkCreate_v2");
	struct link *l = calloc(1, sizeof *l);
	for (unsigned int i = 0; i < n; i++) {
		if (opts[i] == 5) l->errlog = vals[i];
		if (opts[i] == 6) l->errsize = (size_t)(uintptr_t)vals[i];
	}
	appendImage(l, "FAKECUBIN linked\n", 17);
	*state = l;
	flog("cuLinkCreate_v2 nopts=%u", n);
	return 0;
}

CUresult cuLinkAddData_v2(void *state, int type, void *data, size_t size, const char *name,
		unsigned int n, int *opts, void **vals) {
	NEEDCTX("cuLinkAddData_v2");
	ENTER("cuLinkAddData_v2");
	struct link *l = state;
	flog("cuLinkAddData_v2 type=%d name=%s bytes=%zu", type, name, size);
	if (type == 0 && getenv("FAKE_LINK_REJECT_CUBIN")) {
		if (l->errlog && l->errsize) snprintf(l->errlog, l->errsize, "nvlink error: fake rejects cubin input");
		return 218;
	}
	size_t len = strnlen(data, size);
	appendImage(l, data, len);
	return 0;
}

CUresult cuLinkAddFile_v2(void *state, int type, const char *path, unsigned int n, int *opts, void **vals) {
	NEEDCTX("cuLinkAddFile_v2");
	ENTER("cuLinkAddFile_v2");
	flog("cuLinkAddFile_v2 type=%d path=%s", type, path);
	FILE *f = fopen(path, "rb");
	if (!f) return 301;
	fclose(f);
	return 0;
}

CUresult cuLinkComplete(void *state, void **cubin, size_t *size) {
	NEEDCTX("cuLinkComplete");
	ENTER("cuLinkComplete");
	struct link *l = state;
	*cubin = l->image;
	*size = l->len + 1;
	flog("cuLinkComplete bytes=%zu", l->len + 1);
	return 0;
}

CUresult cuLinkDestroy(void *state) {
	struct link *l = state;
	free(l->image);
	free(l);
	flog("cuLinkDestroy");
	return 0;
}
