//go:build cgo

package gpu

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- Types of the CUDA driver API, declared by hand (no cuda.h). ----
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUlinkState_st *CUlinkState;
typedef int CUdevice_attribute;
typedef int CUfunction_attribute;
typedef int CUjit_option;
typedef int CUjitInputType;

enum {
	GNB_CU_JIT_ERROR_LOG_BUFFER = 5,
	GNB_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
	GNB_CU_JIT_INFO_LOG_BUFFER = 3,
	GNB_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
};

// ---- Function pointer types, one per exported symbol, named after it. ----
typedef CUresult (*PFN_cuInit)(unsigned int flags);
typedef CUresult (*PFN_cuDriverGetVersion)(int *version);
typedef CUresult (*PFN_cuGetErrorName)(CUresult error, const char **str);
typedef CUresult (*PFN_cuGetErrorString)(CUresult error, const char **str);
typedef CUresult (*PFN_cuDeviceGetCount)(int *count);
typedef CUresult (*PFN_cuDeviceGet)(CUdevice *device, int ordinal);
typedef CUresult (*PFN_cuDeviceGetName)(char *name, int len, CUdevice dev);
typedef CUresult (*PFN_cuDeviceGetAttribute)(int *pi, CUdevice_attribute attrib, CUdevice dev);
typedef CUresult (*PFN_cuDeviceTotalMem_v2)(size_t *bytes, CUdevice dev);
typedef CUresult (*PFN_cuDevicePrimaryCtxRetain)(CUcontext *pctx, CUdevice dev);
typedef CUresult (*PFN_cuDevicePrimaryCtxRelease_v2)(CUdevice dev);
typedef CUresult (*PFN_cuDevicePrimaryCtxReset_v2)(CUdevice dev);
typedef CUresult (*PFN_cuCtxSetCurrent)(CUcontext ctx);
typedef CUresult (*PFN_cuCtxSynchronize)(void);
typedef CUresult (*PFN_cuMemAlloc_v2)(CUdeviceptr *dptr, size_t bytesize);
typedef CUresult (*PFN_cuMemFree_v2)(CUdeviceptr dptr);
typedef CUresult (*PFN_cuMemcpyHtoD_v2)(CUdeviceptr dst, const void *src, size_t n);
typedef CUresult (*PFN_cuMemcpyDtoH_v2)(void *dst, CUdeviceptr src, size_t n);
typedef CUresult (*PFN_cuMemcpyDtoD_v2)(CUdeviceptr dst, CUdeviceptr src, size_t n);
typedef CUresult (*PFN_cuMemcpyHtoDAsync_v2)(CUdeviceptr dst, const void *src, size_t n, CUstream s);
typedef CUresult (*PFN_cuMemcpyDtoHAsync_v2)(void *dst, CUdeviceptr src, size_t n, CUstream s);
typedef CUresult (*PFN_cuMemsetD8_v2)(CUdeviceptr dst, unsigned char uc, size_t n);
typedef CUresult (*PFN_cuMemsetD32_v2)(CUdeviceptr dst, unsigned int ui, size_t n);
typedef CUresult (*PFN_cuMemGetInfo_v2)(size_t *free, size_t *total);
typedef CUresult (*PFN_cuMemHostRegister_v2)(void *p, size_t bytesize, unsigned int flags);
typedef CUresult (*PFN_cuMemHostUnregister)(void *p);
typedef CUresult (*PFN_cuStreamCreate)(CUstream *ph, unsigned int flags);
typedef CUresult (*PFN_cuStreamSynchronize)(CUstream h);
typedef CUresult (*PFN_cuStreamDestroy_v2)(CUstream h);
typedef CUresult (*PFN_cuEventCreate)(CUevent *ph, unsigned int flags);
typedef CUresult (*PFN_cuEventRecord)(CUevent h, CUstream s);
typedef CUresult (*PFN_cuEventSynchronize)(CUevent h);
typedef CUresult (*PFN_cuEventQuery)(CUevent h);
typedef CUresult (*PFN_cuEventElapsedTime_v2)(float *ms, CUevent start, CUevent end);
typedef CUresult (*PFN_cuEventElapsedTime)(float *ms, CUevent start, CUevent end);
typedef CUresult (*PFN_cuEventDestroy_v2)(CUevent h);
typedef CUresult (*PFN_cuModuleLoadData)(CUmodule *m, const void *image);
typedef CUresult (*PFN_cuModuleLoadDataEx)(CUmodule *m, const void *image, unsigned int n, CUjit_option *opts, void **vals);
typedef CUresult (*PFN_cuModuleGetFunction)(CUfunction *f, CUmodule m, const char *name);
typedef CUresult (*PFN_cuModuleUnload)(CUmodule m);
typedef CUresult (*PFN_cuLaunchKernel)(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
	unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **params, void **extra);
typedef CUresult (*PFN_cuFuncGetAttribute)(int *pi, CUfunction_attribute attrib, CUfunction f);
typedef CUresult (*PFN_cuFuncSetAttribute)(CUfunction f, CUfunction_attribute attrib, int value);
typedef CUresult (*PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CUfunction f, int blockSize, size_t shared);
typedef CUresult (*PFN_cuLinkCreate_v2)(unsigned int n, CUjit_option *opts, void **vals, CUlinkState *state);
typedef CUresult (*PFN_cuLinkAddData_v2)(CUlinkState state, CUjitInputType type, void *data, size_t size,
	const char *name, unsigned int n, CUjit_option *opts, void **vals);
typedef CUresult (*PFN_cuLinkAddFile_v2)(CUlinkState state, CUjitInputType type, const char *path,
	unsigned int n, CUjit_option *opts, void **vals);
typedef CUresult (*PFN_cuLinkComplete)(CUlinkState state, void **cubin, size_t *size);
typedef CUresult (*PFN_cuLinkDestroy)(CUlinkState state);

// ---- NVRTC ----
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
typedef nvrtcResult (*PFN_nvrtcVersion)(int *major, int *minor);
typedef const char *(*PFN_nvrtcGetErrorString)(nvrtcResult r);
typedef nvrtcResult (*PFN_nvrtcCreateProgram)(nvrtcProgram *prog, const char *src, const char *name,
	int numHeaders, const char *const *headers, const char *const *includeNames);
typedef nvrtcResult (*PFN_nvrtcCompileProgram)(nvrtcProgram prog, int n, const char *const *options);
typedef nvrtcResult (*PFN_nvrtcDestroyProgram)(nvrtcProgram *prog);
typedef nvrtcResult (*PFN_nvrtcGetProgramLogSize)(nvrtcProgram prog, size_t *size);
typedef nvrtcResult (*PFN_nvrtcGetProgramLog)(nvrtcProgram prog, char *log);
typedef nvrtcResult (*PFN_nvrtcGetCUBINSize)(nvrtcProgram prog, size_t *size);
typedef nvrtcResult (*PFN_nvrtcGetCUBIN)(nvrtcProgram prog, char *cubin);
typedef nvrtcResult (*PFN_nvrtcGetPTXSize)(nvrtcProgram prog, size_t *size);
typedef nvrtcResult (*PFN_nvrtcGetPTX)(nvrtcProgram prog, char *ptx);

// X-lists: the symbols each library must export, in load order.
#define GNB_CU_SYMBOLS(X) \
	X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) \
	X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute) \
	X(cuDeviceTotalMem_v2) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease_v2) \
	X(cuDevicePrimaryCtxReset_v2) X(cuCtxSetCurrent) X(cuCtxSynchronize) \
	X(cuMemAlloc_v2) X(cuMemFree_v2) X(cuMemcpyHtoD_v2) X(cuMemcpyDtoH_v2) X(cuMemcpyDtoD_v2) \
	X(cuMemcpyHtoDAsync_v2) X(cuMemcpyDtoHAsync_v2) X(cuMemsetD8_v2) X(cuMemsetD32_v2) \
	X(cuMemGetInfo_v2) X(cuMemHostRegister_v2) X(cuMemHostUnregister) \
	X(cuStreamCreate) X(cuStreamSynchronize) X(cuStreamDestroy_v2) \
	X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize) X(cuEventQuery) X(cuEventDestroy_v2) \
	X(cuModuleLoadData) X(cuModuleLoadDataEx) X(cuModuleGetFunction) X(cuModuleUnload) \
	X(cuLaunchKernel) X(cuFuncGetAttribute) X(cuFuncSetAttribute) \
	X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
	X(cuLinkCreate_v2) X(cuLinkAddData_v2) X(cuLinkAddFile_v2) X(cuLinkComplete) X(cuLinkDestroy)

#define GNB_RTC_SYMBOLS(X) \
	X(nvrtcVersion) X(nvrtcGetErrorString) X(nvrtcCreateProgram) X(nvrtcCompileProgram) \
	X(nvrtcDestroyProgram) X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) \
	X(nvrtcGetPTXSize) X(nvrtcGetPTX)

#define GNB_FIELD(name) PFN_##name name;
#define GNB_ENTRY(name) {#name, (void **)&GNB_TABLE.name},

static struct {
	void *lib;
	GNB_CU_SYMBOLS(GNB_FIELD)
	PFN_cuEventElapsedTime_v2 elapsed; // cuEventElapsedTime_v2, else cuEventElapsedTime
	const char *elapsedName;
} gnb_cu;

static struct {
	void *lib;
	GNB_RTC_SYMBOLS(GNB_FIELD)
	PFN_nvrtcGetCUBINSize nvrtcGetCUBINSize; // optional: NVRTC 11.1+
	PFN_nvrtcGetCUBIN nvrtcGetCUBIN;
} gnb_rtc;

typedef struct { const char *name; void **slot; } gnb_sym;

#define GNB_TABLE gnb_cu
static gnb_sym gnb_cu_syms[] = { GNB_CU_SYMBOLS(GNB_ENTRY) {0, 0} };
#undef GNB_TABLE
#define GNB_TABLE gnb_rtc
static gnb_sym gnb_rtc_syms[] = { GNB_RTC_SYMBOLS(GNB_ENTRY) {0, 0} };
#undef GNB_TABLE

static char gnb_dlerr[1024];

static void gnb_keep_dlerror(void) {
	const char *e = dlerror();
	snprintf(gnb_dlerr, sizeof gnb_dlerr, "%s", e ? e : "unknown dlopen error");
}

static const char *gnb_last_dlerror(void) { return gnb_dlerr; }

// gnb_fill resolves syms from h. It returns 0, or 1+i for the first
// missing symbol i (the slots are then cleared by the caller).
static int gnb_fill(void *h, gnb_sym *syms) {
	for (int i = 0; syms[i].name; i++) {
		void *p = dlsym(h, syms[i].name);
		if (!p) return i + 1;
		*syms[i].slot = p;
	}
	return 0;
}

// gnb_cu_load opens the driver library at path and fills gnb_cu.
// Returns 0; -1 when dlopen fails (see gnb_last_dlerror); 1+i when symbol
// i is missing (gnb_cu_symname); -2 when neither cuEventElapsedTime_v2
// nor cuEventElapsedTime exists.
static int gnb_cu_load(const char *path) {
	if (gnb_cu.lib) return 0;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) { gnb_keep_dlerror(); return -1; }
	int r = gnb_fill(h, gnb_cu_syms);
	if (r == 0) {
		void *p = dlsym(h, "cuEventElapsedTime_v2");
		gnb_cu.elapsedName = "cuEventElapsedTime_v2";
		if (!p) { p = dlsym(h, "cuEventElapsedTime"); gnb_cu.elapsedName = "cuEventElapsedTime"; }
		if (!p) r = -2;
		*(void **)&gnb_cu.elapsed = p;
	}
	if (r != 0) {
		memset(&gnb_cu, 0, sizeof gnb_cu);
		dlclose(h);
		return r;
	}
	gnb_cu.lib = h;
	return 0;
}

static const char *gnb_cu_symname(int i) { return gnb_cu_syms[i].name; }
static const char *gnb_cu_elapsed_name(void) { return gnb_cu.elapsedName ? gnb_cu.elapsedName : ""; }

static int gnb_rtc_load(const char *path) {
	if (gnb_rtc.lib) return 0;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) { gnb_keep_dlerror(); return -1; }
	int r = gnb_fill(h, gnb_rtc_syms);
	if (r != 0) {
		memset(&gnb_rtc, 0, sizeof gnb_rtc);
		dlclose(h);
		return r;
	}
	*(void **)&gnb_rtc.nvrtcGetCUBINSize = dlsym(h, "nvrtcGetCUBINSize");
	*(void **)&gnb_rtc.nvrtcGetCUBIN = dlsym(h, "nvrtcGetCUBIN");
	if (!gnb_rtc.nvrtcGetCUBINSize || !gnb_rtc.nvrtcGetCUBIN) {
		gnb_rtc.nvrtcGetCUBINSize = 0;
		gnb_rtc.nvrtcGetCUBIN = 0;
	}
	gnb_rtc.lib = h;
	return 0;
}

static const char *gnb_rtc_symname(int i) { return gnb_rtc_syms[i].name; }
static int gnb_rtc_has_cubin(void) { return gnb_rtc.nvrtcGetCUBIN != 0; }

static uintptr_t gnb_thread_self(void) { return (uintptr_t)pthread_self(); }

// ---- Trampolines: Go calls these; they call through the table. ----
static int gnb_cuInit(void) { return gnb_cu.cuInit(0); }
static int gnb_cuDriverGetVersion(int *v) { return gnb_cu.cuDriverGetVersion(v); }
static int gnb_cuGetErrorName(int code, const char **s) { *s = 0; return gnb_cu.lib ? gnb_cu.cuGetErrorName(code, s) : 1; }
static int gnb_cuGetErrorString(int code, const char **s) { *s = 0; return gnb_cu.lib ? gnb_cu.cuGetErrorString(code, s) : 1; }
static int gnb_cuDeviceGetCount(int *n) { return gnb_cu.cuDeviceGetCount(n); }
static int gnb_cuDeviceGet(int *dev, int ordinal) { return gnb_cu.cuDeviceGet(dev, ordinal); }
static int gnb_cuDeviceGetName(char *buf, int len, int dev) { return gnb_cu.cuDeviceGetName(buf, len, dev); }
static int gnb_cuDeviceGetAttribute(int *v, int attr, int dev) { return gnb_cu.cuDeviceGetAttribute(v, attr, dev); }
static int gnb_cuDeviceTotalMem(uint64_t *bytes, int dev) {
	size_t b = 0; int r = gnb_cu.cuDeviceTotalMem_v2(&b, dev); *bytes = b; return r;
}
static int gnb_cuDevicePrimaryCtxRetain(uintptr_t *ctx, int dev) {
	CUcontext c = 0; int r = gnb_cu.cuDevicePrimaryCtxRetain(&c, dev); *ctx = (uintptr_t)c; return r;
}
static int gnb_cuDevicePrimaryCtxRelease(int dev) { return gnb_cu.cuDevicePrimaryCtxRelease_v2(dev); }
static int gnb_cuDevicePrimaryCtxReset(int dev) { return gnb_cu.cuDevicePrimaryCtxReset_v2(dev); }
static int gnb_cuCtxSetCurrent(uintptr_t ctx) { return gnb_cu.cuCtxSetCurrent((CUcontext)ctx); }
static int gnb_cuCtxSynchronize(void) { return gnb_cu.cuCtxSynchronize(); }
static int gnb_cuMemAlloc(uint64_t *p, uint64_t n) {
	CUdeviceptr d = 0; int r = gnb_cu.cuMemAlloc_v2(&d, (size_t)n); *p = d; return r;
}
static int gnb_cuMemFree(uint64_t p) { return gnb_cu.cuMemFree_v2(p); }
static int gnb_cuMemcpyHtoD(uint64_t dst, const void *src, uint64_t n) { return gnb_cu.cuMemcpyHtoD_v2(dst, src, (size_t)n); }
static int gnb_cuMemcpyDtoH(void *dst, uint64_t src, uint64_t n) { return gnb_cu.cuMemcpyDtoH_v2(dst, src, (size_t)n); }
static int gnb_cuMemcpyDtoD(uint64_t dst, uint64_t src, uint64_t n) { return gnb_cu.cuMemcpyDtoD_v2(dst, src, (size_t)n); }
static int gnb_cuMemcpyHtoDAsync(uint64_t dst, const void *src, uint64_t n, uintptr_t s) {
	return gnb_cu.cuMemcpyHtoDAsync_v2(dst, src, (size_t)n, (CUstream)s);
}
static int gnb_cuMemcpyDtoHAsync(void *dst, uint64_t src, uint64_t n, uintptr_t s) {
	return gnb_cu.cuMemcpyDtoHAsync_v2(dst, src, (size_t)n, (CUstream)s);
}
static int gnb_cuMemsetD8(uint64_t p, unsigned char v, uint64_t n) { return gnb_cu.cuMemsetD8_v2(p, v, (size_t)n); }
static int gnb_cuMemsetD32(uint64_t p, unsigned int v, uint64_t n) { return gnb_cu.cuMemsetD32_v2(p, v, (size_t)n); }
static int gnb_cuMemGetInfo(uint64_t *free, uint64_t *total) {
	size_t f = 0, t = 0; int r = gnb_cu.cuMemGetInfo_v2(&f, &t); *free = f; *total = t; return r;
}
static int gnb_cuMemHostRegister(void *p, uint64_t n) { return gnb_cu.cuMemHostRegister_v2(p, (size_t)n, 0); }
static int gnb_cuMemHostUnregister(void *p) { return gnb_cu.cuMemHostUnregister(p); }
static int gnb_cuStreamCreate(uintptr_t *s) {
	CUstream h = 0; int r = gnb_cu.cuStreamCreate(&h, 0); *s = (uintptr_t)h; return r;
}
static int gnb_cuStreamSynchronize(uintptr_t s) { return gnb_cu.cuStreamSynchronize((CUstream)s); }
static int gnb_cuStreamDestroy(uintptr_t s) { return gnb_cu.cuStreamDestroy_v2((CUstream)s); }
static int gnb_cuEventCreate(uintptr_t *e) {
	CUevent h = 0; int r = gnb_cu.cuEventCreate(&h, 0); *e = (uintptr_t)h; return r;
}
static int gnb_cuEventRecord(uintptr_t e, uintptr_t s) { return gnb_cu.cuEventRecord((CUevent)e, (CUstream)s); }
static int gnb_cuEventSynchronize(uintptr_t e) { return gnb_cu.cuEventSynchronize((CUevent)e); }
static int gnb_cuEventQuery(uintptr_t e) { return gnb_cu.cuEventQuery((CUevent)e); }
static int gnb_cuEventElapsedTime(float *ms, uintptr_t a, uintptr_t b) { return gnb_cu.elapsed(ms, (CUevent)a, (CUevent)b); }
static int gnb_cuEventDestroy(uintptr_t e) { return gnb_cu.cuEventDestroy_v2((CUevent)e); }
static int gnb_cuModuleLoadData(uintptr_t *m, const void *image) {
	CUmodule h = 0; int r = gnb_cu.cuModuleLoadData(&h, image); *m = (uintptr_t)h; return r;
}
// gnb_cuModuleLoadDataEx loads an image (PTX is JIT-compiled) and leaves
// the JIT error log in log.
static int gnb_cuModuleLoadDataEx(uintptr_t *m, const void *image, char *log, unsigned int logSize) {
	CUjit_option opts[2] = {GNB_CU_JIT_ERROR_LOG_BUFFER, GNB_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *vals[2] = {log, (void *)(uintptr_t)logSize};
	CUmodule h = 0;
	int r = gnb_cu.cuModuleLoadDataEx(&h, image, 2, opts, vals);
	*m = (uintptr_t)h;
	return r;
}
static int gnb_cuModuleGetFunction(uintptr_t *f, uintptr_t m, const char *name) {
	CUfunction h = 0; int r = gnb_cu.cuModuleGetFunction(&h, (CUmodule)m, name); *f = (uintptr_t)h; return r;
}
static int gnb_cuModuleUnload(uintptr_t m) { return gnb_cu.cuModuleUnload((CUmodule)m); }

#define GNB_MAX_ARGS 64

// gnb_cuLaunchKernel builds the kernelParams array: entry i points at the
// 8-byte slot vals[i] holding argument i (little-endian, so a kernel
// parameter of 1, 4 or 8 bytes reads its value from the slot's start).
// The array is NULL-terminated; the driver reads as many entries as the
// kernel has parameters and copies the values before returning.
static int gnb_cuLaunchKernel(uintptr_t f, unsigned int gx, unsigned int gy, unsigned int gz,
		unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared, uintptr_t s,
		uint64_t *vals, int n) {
	void *params[GNB_MAX_ARGS + 1];
	if (n < 0 || n > GNB_MAX_ARGS) return 1;
	for (int i = 0; i < n; i++) params[i] = &vals[i];
	params[n] = 0;
	return gnb_cu.cuLaunchKernel((CUfunction)f, gx, gy, gz, bx, by, bz, shared, (CUstream)s, params, 0);
}
static int gnb_cuFuncGetAttribute(int *v, int attr, uintptr_t f) { return gnb_cu.cuFuncGetAttribute(v, attr, (CUfunction)f); }
static int gnb_cuFuncSetAttribute(uintptr_t f, int attr, int v) { return gnb_cu.cuFuncSetAttribute((CUfunction)f, attr, v); }
static int gnb_cuOccupancy(int *blocks, uintptr_t f, int block, uint64_t shared) {
	return gnb_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, (CUfunction)f, block, (size_t)shared);
}

// A link session owns its log buffers and copies of its inputs, because
// the driver writes the logs during later calls and may read inputs late.
#define GNB_LINK_LOG 16384
#define GNB_LINK_MAX_INPUTS 8
typedef struct {
	CUlinkState state;
	// The driver keeps pointers to the option arrays until cuLinkDestroy
	// (it writes the logs' sizes back into vals), so they live here, not on
	// gnb_link_create's stack.
	CUjit_option opts[4];
	void *vals[4];
	char errlog[GNB_LINK_LOG];
	char infolog[GNB_LINK_LOG];
	void *inputs[GNB_LINK_MAX_INPUTS];
	int ninputs;
} gnb_link;

static int gnb_link_create(uintptr_t *out) {
	gnb_link *l = calloc(1, sizeof *l);
	if (!l) return 2;
	l->opts[0] = GNB_CU_JIT_ERROR_LOG_BUFFER;
	l->opts[1] = GNB_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
	l->opts[2] = GNB_CU_JIT_INFO_LOG_BUFFER;
	l->opts[3] = GNB_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES;
	l->vals[0] = l->errlog;
	l->vals[1] = (void *)(uintptr_t)GNB_LINK_LOG;
	l->vals[2] = l->infolog;
	l->vals[3] = (void *)(uintptr_t)GNB_LINK_LOG;
	int r = gnb_cu.cuLinkCreate_v2(4, l->opts, l->vals, &l->state);
	if (r != 0) { free(l); *out = 0; return r; }
	*out = (uintptr_t)l;
	return 0;
}
static int gnb_link_add_data(uintptr_t lp, int type, const void *data, uint64_t size, const char *name) {
	gnb_link *l = (gnb_link *)lp;
	if (l->ninputs == GNB_LINK_MAX_INPUTS) return 1;
	void *copy = malloc(size ? size : 1);
	if (!copy) return 2;
	memcpy(copy, data, size);
	l->inputs[l->ninputs++] = copy;
	return gnb_cu.cuLinkAddData_v2(l->state, type, copy, (size_t)size, name, 0, 0, 0);
}
static int gnb_link_add_file(uintptr_t lp, int type, const char *path) {
	gnb_link *l = (gnb_link *)lp;
	return gnb_cu.cuLinkAddFile_v2(l->state, type, path, 0, 0, 0);
}
static int gnb_link_complete(uintptr_t lp, void **image, uint64_t *size) {
	gnb_link *l = (gnb_link *)lp;
	size_t n = 0;
	*image = 0;
	int r = gnb_cu.cuLinkComplete(l->state, image, &n);
	*size = n;
	return r;
}
static const char *gnb_link_errlog(uintptr_t lp) { return ((gnb_link *)lp)->errlog; }
static const char *gnb_link_infolog(uintptr_t lp) { return ((gnb_link *)lp)->infolog; }
static void gnb_link_destroy(uintptr_t lp) {
	gnb_link *l = (gnb_link *)lp;
	if (!l) return;
	if (l->state) gnb_cu.cuLinkDestroy(l->state);
	for (int i = 0; i < l->ninputs; i++) free(l->inputs[i]);
	free(l);
}

// ---- NVRTC trampolines ----
static int gnb_nvrtcVersion(int *major, int *minor) { return gnb_rtc.nvrtcVersion(major, minor); }
static const char *gnb_nvrtcGetErrorString(int r) { return gnb_rtc.lib ? gnb_rtc.nvrtcGetErrorString(r) : 0; }
static int gnb_nvrtcCreateProgram(uintptr_t *p, const char *src, const char *name) {
	nvrtcProgram h = 0; int r = gnb_rtc.nvrtcCreateProgram(&h, src, name, 0, 0, 0); *p = (uintptr_t)h; return r;
}
static int gnb_nvrtcCompileProgram(uintptr_t p, int n, char **opts) {
	return gnb_rtc.nvrtcCompileProgram((nvrtcProgram)p, n, (const char *const *)opts);
}
static int gnb_nvrtcDestroyProgram(uintptr_t p) { nvrtcProgram h = (nvrtcProgram)p; return gnb_rtc.nvrtcDestroyProgram(&h); }
static int gnb_nvrtcGetProgramLogSize(uintptr_t p, uint64_t *n) {
	size_t s = 0; int r = gnb_rtc.nvrtcGetProgramLogSize((nvrtcProgram)p, &s); *n = s; return r;
}
static int gnb_nvrtcGetProgramLog(uintptr_t p, char *buf) { return gnb_rtc.nvrtcGetProgramLog((nvrtcProgram)p, buf); }
static int gnb_nvrtcGetCUBINSize(uintptr_t p, uint64_t *n) {
	size_t s = 0; int r = gnb_rtc.nvrtcGetCUBINSize((nvrtcProgram)p, &s); *n = s; return r;
}
static int gnb_nvrtcGetCUBIN(uintptr_t p, char *buf) { return gnb_rtc.nvrtcGetCUBIN((nvrtcProgram)p, buf); }
static int gnb_nvrtcGetPTXSize(uintptr_t p, uint64_t *n) {
	size_t s = 0; int r = gnb_rtc.nvrtcGetPTXSize((nvrtcProgram)p, &s); *n = s; return r;
}
static int gnb_nvrtcGetPTX(uintptr_t p, char *buf) { return gnb_rtc.nvrtcGetPTX((nvrtcProgram)p, buf); }

// Page-aligned host memory for the staged copy path.
static void *gnb_aligned_alloc(uint64_t n) {
	void *p = 0;
	if (posix_memalign(&p, 4096, (size_t)n) != 0) return 0;
	return p;
}
*/
import "C"

import (
	"strings"
	"sync"
	"unsafe"
)

// cgoEnabled reports whether this build can reach a GPU.
const cgoEnabled = true

// maxArgs is the most kernel arguments one launch can pass.
const maxArgs = C.GNB_MAX_ARGS

var loadMu sync.Mutex

// drvLoad dlopens the driver library at path and resolves every symbol.
func drvLoad(path string) error {
	loadMu.Lock()
	defer loadMu.Unlock()
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	r := int(C.gnb_cu_load(cpath))
	switch {
	case r == 0:
		drvLoadedFlag.Store(true)
		return nil
	case r == -1:
		return &loadError{what: path, reason: trimDlerror(path, C.GoString(C.gnb_last_dlerror())), sentinel: ErrNoDriver}
	case r == -2:
		return &loadError{what: path, symbol: "cuEventElapsedTime_v2 (nor cuEventElapsedTime)", reason: "driver too old?", sentinel: ErrNoDriver}
	default:
		return &loadError{what: path, symbol: C.GoString(C.gnb_cu_symname(C.int(r - 1))), reason: "driver too old?", sentinel: ErrNoDriver}
	}
}

// drvElapsedSymbol names the symbol that serves event timing.
func drvElapsedSymbol() string { return C.GoString(C.gnb_cu_elapsed_name()) }

// rtcLoad dlopens NVRTC at path and resolves its symbols.
func rtcLoad(path string) error {
	loadMu.Lock()
	defer loadMu.Unlock()
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	r := int(C.gnb_rtc_load(cpath))
	switch {
	case r == 0:
		return nil
	case r == -1:
		return &loadError{what: path, reason: trimDlerror(path, C.GoString(C.gnb_last_dlerror())), sentinel: ErrNoNVRTC}
	default:
		return &loadError{what: path, symbol: C.GoString(C.gnb_rtc_symname(C.int(r - 1))), sentinel: ErrNoNVRTC}
	}
}

func rtcHasCUBIN() bool { return C.gnb_rtc_has_cubin() != 0 }

// threadSelf identifies the calling OS thread.
func threadSelf() uintptr { return uintptr(C.gnb_thread_self()) }

func cuInit() int { return int(C.gnb_cuInit()) }

func cuDriverVersion() (int, int) {
	var v C.int
	r := C.gnb_cuDriverGetVersion(&v)
	return int(v), int(r)
}

func cuErrName(code int) (string, bool) {
	var s *C.char
	if C.gnb_cuGetErrorName(C.int(code), &s) != 0 || s == nil {
		return "", false
	}
	return C.GoString(s), true
}

func cuErrString(code int) (string, bool) {
	var s *C.char
	if C.gnb_cuGetErrorString(C.int(code), &s) != 0 || s == nil {
		return "", false
	}
	return C.GoString(s), true
}

func cuDeviceCount() (int, int) {
	var n C.int
	r := C.gnb_cuDeviceGetCount(&n)
	return int(n), int(r)
}

func cuDeviceGet(ordinal int) (int32, int) {
	var d C.int
	r := C.gnb_cuDeviceGet(&d, C.int(ordinal))
	return int32(d), int(r)
}

func cuDeviceName(dev int32) (string, int) {
	var buf [256]C.char
	r := C.gnb_cuDeviceGetName(&buf[0], C.int(len(buf)-1), C.int(dev))
	if r != 0 {
		return "", int(r)
	}
	return C.GoString(&buf[0]), 0
}

func cuDeviceAttr(attr int, dev int32) (int, int) {
	var v C.int
	r := C.gnb_cuDeviceGetAttribute(&v, C.int(attr), C.int(dev))
	return int(v), int(r)
}

func cuDeviceTotalMem(dev int32) (int64, int) {
	var n C.uint64_t
	r := C.gnb_cuDeviceTotalMem(&n, C.int(dev))
	return int64(n), int(r)
}

func cuCtxRetain(dev int32) (uintptr, int) {
	var c C.uintptr_t
	r := C.gnb_cuDevicePrimaryCtxRetain(&c, C.int(dev))
	return uintptr(c), int(r)
}

func cuCtxRelease(dev int32) int            { return int(C.gnb_cuDevicePrimaryCtxRelease(C.int(dev))) }
func cuCtxReset(dev int32) int              { return int(C.gnb_cuDevicePrimaryCtxReset(C.int(dev))) }
func cuCtxSetCurrent(ctx uintptr) int       { return int(C.gnb_cuCtxSetCurrent(C.uintptr_t(ctx))) }
func cuCtxSync() int                        { return int(C.gnb_cuCtxSynchronize()) }
func cuMemFree(p uint64) int                { return int(C.gnb_cuMemFree(C.uint64_t(p))) }
func cuStreamSync(s uintptr) int            { return int(C.gnb_cuStreamSynchronize(C.uintptr_t(s))) }
func cuStreamDestroy(s uintptr) int         { return int(C.gnb_cuStreamDestroy(C.uintptr_t(s))) }
func cuEventRecord(e, s uintptr) int        { return int(C.gnb_cuEventRecord(C.uintptr_t(e), C.uintptr_t(s))) }
func cuEventSync(e uintptr) int             { return int(C.gnb_cuEventSynchronize(C.uintptr_t(e))) }
func cuEventQuery(e uintptr) int            { return int(C.gnb_cuEventQuery(C.uintptr_t(e))) }
func cuEventDestroy(e uintptr) int          { return int(C.gnb_cuEventDestroy(C.uintptr_t(e))) }
func cuModuleUnload(m uintptr) int          { return int(C.gnb_cuModuleUnload(C.uintptr_t(m))) }
func cuHostUnregister(p unsafe.Pointer) int { return int(C.gnb_cuMemHostUnregister(p)) }

func cuMemAlloc(n int64) (uint64, int) {
	var p C.uint64_t
	r := C.gnb_cuMemAlloc(&p, C.uint64_t(n))
	return uint64(p), int(r)
}

func cuMemcpyHtoD(dst uint64, src unsafe.Pointer, n int64) int {
	return int(C.gnb_cuMemcpyHtoD(C.uint64_t(dst), src, C.uint64_t(n)))
}

func cuMemcpyDtoH(dst unsafe.Pointer, src uint64, n int64) int {
	return int(C.gnb_cuMemcpyDtoH(dst, C.uint64_t(src), C.uint64_t(n)))
}

func cuMemcpyDtoD(dst, src uint64, n int64) int {
	return int(C.gnb_cuMemcpyDtoD(C.uint64_t(dst), C.uint64_t(src), C.uint64_t(n)))
}

func cuMemcpyHtoDAsync(dst uint64, src unsafe.Pointer, n int64, s uintptr) int {
	return int(C.gnb_cuMemcpyHtoDAsync(C.uint64_t(dst), src, C.uint64_t(n), C.uintptr_t(s)))
}

func cuMemcpyDtoHAsync(dst unsafe.Pointer, src uint64, n int64, s uintptr) int {
	return int(C.gnb_cuMemcpyDtoHAsync(dst, C.uint64_t(src), C.uint64_t(n), C.uintptr_t(s)))
}

func cuMemsetD8(p uint64, v uint8, n int64) int {
	return int(C.gnb_cuMemsetD8(C.uint64_t(p), C.uchar(v), C.uint64_t(n)))
}

func cuMemsetD32(p uint64, v uint32, n int64) int {
	return int(C.gnb_cuMemsetD32(C.uint64_t(p), C.uint(v), C.uint64_t(n)))
}

func cuMemInfo() (free, total int64, code int) {
	var f, t C.uint64_t
	r := C.gnb_cuMemGetInfo(&f, &t)
	return int64(f), int64(t), int(r)
}

func cuHostRegister(p unsafe.Pointer, n int64) int {
	return int(C.gnb_cuMemHostRegister(p, C.uint64_t(n)))
}

func cuStreamCreate() (uintptr, int) {
	var s C.uintptr_t
	r := C.gnb_cuStreamCreate(&s)
	return uintptr(s), int(r)
}

func cuEventCreate() (uintptr, int) {
	var e C.uintptr_t
	r := C.gnb_cuEventCreate(&e)
	return uintptr(e), int(r)
}

func cuEventElapsed(a, b uintptr) (float32, int) {
	var ms C.float
	r := C.gnb_cuEventElapsedTime(&ms, C.uintptr_t(a), C.uintptr_t(b))
	return float32(ms), int(r)
}

// cuModuleLoad loads a CUBIN image (or NUL-terminated PTX).
func cuModuleLoad(image []byte) (uintptr, int) {
	var m C.uintptr_t
	r := C.gnb_cuModuleLoadData(&m, unsafe.Pointer(&image[0]))
	return uintptr(m), int(r)
}

// cuModuleLoadEx loads an image with a JIT error log (for PTX).
func cuModuleLoadEx(image []byte) (uintptr, string, int) {
	var m C.uintptr_t
	log := make([]byte, 16384)
	r := C.gnb_cuModuleLoadDataEx(&m, unsafe.Pointer(&image[0]), (*C.char)(unsafe.Pointer(&log[0])), C.uint(len(log)))
	return uintptr(m), cString(log), int(r)
}

// cString returns the NUL-terminated string at the start of b.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func cuModuleFunction(m uintptr, name string) (uintptr, int) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var f C.uintptr_t
	r := C.gnb_cuModuleGetFunction(&f, C.uintptr_t(m), cname)
	return uintptr(f), int(r)
}

// cuLaunch launches f with the argument slots vals[:n].
func cuLaunch(f uintptr, grid, block [3]uint32, shared uint32, s uintptr, vals *uint64, n int) int {
	return int(C.gnb_cuLaunchKernel(C.uintptr_t(f),
		C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
		C.uint(block[0]), C.uint(block[1]), C.uint(block[2]),
		C.uint(shared), C.uintptr_t(s), (*C.uint64_t)(unsafe.Pointer(vals)), C.int(n)))
}

func cuFuncAttr(attr int, f uintptr) (int, int) {
	var v C.int
	r := C.gnb_cuFuncGetAttribute(&v, C.int(attr), C.uintptr_t(f))
	return int(v), int(r)
}

func cuFuncSetAttr(f uintptr, attr, v int) int {
	return int(C.gnb_cuFuncSetAttribute(C.uintptr_t(f), C.int(attr), C.int(v)))
}

func cuOccupancy(f uintptr, block, shared int) (int, int) {
	var n C.int
	r := C.gnb_cuOccupancy(&n, C.uintptr_t(f), C.int(block), C.uint64_t(shared))
	return int(n), int(r)
}

// linkInput is one input of a driver link.
type linkInput struct {
	kind int // CU_JIT_INPUT_*
	name string
	data []byte // for AddData
	path string // for AddFile, when data is nil
}

// CUjitInputType values.
const (
	jitInputCUBIN   = 0
	jitInputPTX     = 1
	jitInputLibrary = 4
)

// cuLinkImage links inputs with the driver's linker and returns the
// CUBIN. On failure it returns the failing call's name, the code and the
// linker's error log.
func cuLinkImage(inputs []linkInput) (image []byte, op, log string, code int) {
	var l C.uintptr_t
	if r := C.gnb_link_create(&l); r != 0 {
		return nil, "cuLinkCreate_v2", "", int(r)
	}
	defer C.gnb_link_destroy(l)
	logs := func() string {
		s := strings.TrimSpace(C.GoString(C.gnb_link_errlog(l)))
		if info := strings.TrimSpace(C.GoString(C.gnb_link_infolog(l))); info != "" && s == "" {
			s = info
		}
		return s
	}
	for _, in := range inputs {
		cname := C.CString(in.name)
		var r C.int
		if in.data != nil {
			r = C.gnb_link_add_data(l, C.int(in.kind), unsafe.Pointer(&in.data[0]), C.uint64_t(len(in.data)), cname)
			op = "cuLinkAddData_v2(" + in.name + ")"
		} else {
			cpath := C.CString(in.path)
			r = C.gnb_link_add_file(l, C.int(in.kind), cpath)
			C.free(unsafe.Pointer(cpath))
			op = "cuLinkAddFile_v2(" + in.path + ")"
		}
		C.free(unsafe.Pointer(cname))
		if r != 0 {
			return nil, op, logs(), int(r)
		}
	}
	var p unsafe.Pointer
	var n C.uint64_t
	if r := C.gnb_link_complete(l, &p, &n); r != 0 {
		return nil, "cuLinkComplete", logs(), int(r)
	}
	return C.GoBytes(p, C.int(n)), "", logs(), 0
}

func rtcVersion() (major, minor, code int) {
	var a, b C.int
	r := C.gnb_nvrtcVersion(&a, &b)
	return int(a), int(b), int(r)
}

func rtcErrString(code int) string {
	s := C.gnb_nvrtcGetErrorString(C.int(code))
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// rtcCompile runs one NVRTC compilation. It returns the CUBIN (when asked
// and available), the PTX, the log, and on failure the failing call and
// its code.
func rtcCompile(src, name string, opts []string, wantCUBIN bool) (cubin, ptx []byte, log, op string, code int) {
	csrc := C.CString(src)
	defer C.free(unsafe.Pointer(csrc))
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var p C.uintptr_t
	if r := C.gnb_nvrtcCreateProgram(&p, csrc, cname); r != 0 {
		return nil, nil, "", "nvrtcCreateProgram", int(r)
	}
	defer C.gnb_nvrtcDestroyProgram(p)

	n := len(opts)
	arr := (**C.char)(C.malloc(C.size_t(max(n, 1)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
	defer C.free(unsafe.Pointer(arr))
	cs := unsafe.Slice(arr, max(n, 1))
	for i, o := range opts {
		cs[i] = C.CString(o)
	}
	defer func() {
		for i := range opts {
			C.free(unsafe.Pointer(cs[i]))
		}
	}()
	cr := int(C.gnb_nvrtcCompileProgram(p, C.int(n), arr))

	var ls C.uint64_t
	if C.gnb_nvrtcGetProgramLogSize(p, &ls) == 0 && ls > 1 {
		buf := make([]byte, int(ls))
		if C.gnb_nvrtcGetProgramLog(p, (*C.char)(unsafe.Pointer(&buf[0]))) == 0 {
			log = cString(buf)
		}
	}
	if cr != 0 {
		return nil, nil, log, "nvrtcCompileProgram", cr
	}
	if wantCUBIN && rtcHasCUBIN() {
		var sz C.uint64_t
		if r := C.gnb_nvrtcGetCUBINSize(p, &sz); r != 0 {
			return nil, nil, log, "nvrtcGetCUBINSize", int(r)
		}
		if sz > 0 {
			cubin = make([]byte, int(sz))
			if r := C.gnb_nvrtcGetCUBIN(p, (*C.char)(unsafe.Pointer(&cubin[0]))); r != 0 {
				return nil, nil, log, "nvrtcGetCUBIN", int(r)
			}
		}
	}
	var sz C.uint64_t
	if r := C.gnb_nvrtcGetPTXSize(p, &sz); r == 0 && sz > 0 {
		ptx = make([]byte, int(sz))
		if r := C.gnb_nvrtcGetPTX(p, (*C.char)(unsafe.Pointer(&ptx[0]))); r != 0 {
			ptx = nil
		}
	}
	if cubin == nil && ptx == nil {
		return nil, nil, log, "nvrtcGetPTX", codeInvalidValue
	}
	return cubin, ptx, log, "", 0
}

// hostAlloc returns page-aligned C memory of n bytes (nil on failure);
// hostFree releases it.
func hostAlloc(n int64) unsafe.Pointer { return C.gnb_aligned_alloc(C.uint64_t(n)) }
func hostFree(p unsafe.Pointer)        { C.free(p) }
