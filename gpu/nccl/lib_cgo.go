//go:build cgo

package nccl

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- NCCL's types, declared by hand (no nccl.h where graphnb builds). ----
typedef int ncclResult_t;
typedef struct ncclComm *ncclComm_t;
typedef struct { char internal[128]; } ncclUniqueId;
typedef void *cudaStream_t;

typedef ncclResult_t (*PFN_ncclGetVersion)(int *version);
typedef ncclResult_t (*PFN_ncclGetUniqueId)(ncclUniqueId *id);
// ncclConfig_t as NCCL 2.18's nccl.h declares it (ncclConfig_v21700):
// NCCL reads a config by its size and version fields, so a program built
// against an older header keeps working with a newer library, which fills
// the fields it lacks with their defaults.
typedef struct {
	size_t size;
	unsigned int magic;
	unsigned int version;
	int blocking;
	int cgaClusterSize;
	int minCTAs;
	int maxCTAs;
	const char *netName;
	int splitShare;
} gnb_ncclConfig;
#define GNB_NCCL_CONFIG_MAGIC 0xcafebeef
#define GNB_NCCL_CONFIG_VERSION 21800 // NCCL_VERSION(2, 18, 0)
#define GNB_NCCL_UNDEF_INT (-2147483647 - 1) // NCCL_CONFIG_UNDEF_INT (INT_MIN)

// gnb_nccl_config is NCCL_CONFIG_INITIALIZER with blocking set.
static gnb_ncclConfig gnb_nccl_config(int blocking) {
	gnb_ncclConfig c = {sizeof(gnb_ncclConfig), GNB_NCCL_CONFIG_MAGIC, GNB_NCCL_CONFIG_VERSION, blocking,
		GNB_NCCL_UNDEF_INT, GNB_NCCL_UNDEF_INT, GNB_NCCL_UNDEF_INT, 0, GNB_NCCL_UNDEF_INT};
	return c;
}

typedef ncclResult_t (*PFN_ncclCommInitRankConfig)(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank, gnb_ncclConfig *config);
typedef ncclResult_t (*PFN_ncclCommSplit)(ncclComm_t comm, int color, int key, ncclComm_t *newcomm, gnb_ncclConfig *config);
typedef ncclResult_t (*PFN_ncclCommGetAsyncError)(ncclComm_t comm, ncclResult_t *err);
typedef ncclResult_t (*PFN_ncclCommAbort)(ncclComm_t comm);
typedef ncclResult_t (*PFN_ncclCommFinalize)(ncclComm_t comm);
typedef ncclResult_t (*PFN_ncclCommDestroy)(ncclComm_t comm);
typedef ncclResult_t (*PFN_ncclAllReduce)(const void *send, void *recv, size_t count, int type, int op, ncclComm_t comm, cudaStream_t s);
typedef ncclResult_t (*PFN_ncclAllGather)(const void *send, void *recv, size_t count, int type, ncclComm_t comm, cudaStream_t s);
typedef ncclResult_t (*PFN_ncclBroadcast)(const void *send, void *recv, size_t count, int type, int root, ncclComm_t comm, cudaStream_t s);
typedef ncclResult_t (*PFN_ncclSend)(const void *send, size_t count, int type, int peer, ncclComm_t comm, cudaStream_t s);
typedef ncclResult_t (*PFN_ncclRecv)(void *recv, size_t count, int type, int peer, ncclComm_t comm, cudaStream_t s);
typedef ncclResult_t (*PFN_ncclGroupStart)(void);
typedef ncclResult_t (*PFN_ncclGroupEnd)(void);
typedef const char *(*PFN_ncclGetErrorString)(ncclResult_t r);
typedef const char *(*PFN_ncclGetLastError)(ncclComm_t comm);

// The symbols graphnb needs, in load order (all exist since NCCL 2.14,
// the first with non-blocking communicators), then the optional ones
// (ncclCommSplit: 2.18), NULL when the library lacks them. Nothing of the
// multicast API is here, on purpose.
#define GNB_NCCL_SYMBOLS(X) \
	X(ncclGetVersion) X(ncclGetUniqueId) X(ncclCommInitRankConfig) X(ncclCommGetAsyncError) \
	X(ncclCommAbort) X(ncclCommFinalize) X(ncclCommDestroy) \
	X(ncclAllReduce) X(ncclAllGather) X(ncclBroadcast) X(ncclSend) X(ncclRecv) \
	X(ncclGroupStart) X(ncclGroupEnd) X(ncclGetErrorString) X(ncclGetLastError)
#define GNB_NCCL_OPTIONAL(X) X(ncclCommSplit)

#define GNB_FIELD(name) PFN_##name name;
#define GNB_ENTRY(name) {#name, (void **)&gnb_nccl.name},

static struct {
	void *lib;
	GNB_NCCL_SYMBOLS(GNB_FIELD)
	GNB_NCCL_OPTIONAL(GNB_FIELD)
} gnb_nccl;

typedef struct { const char *name; void **slot; } gnb_nccl_sym;
static gnb_nccl_sym gnb_nccl_syms[] = { GNB_NCCL_SYMBOLS(GNB_ENTRY) {0, 0} };
#define GNB_OPTIONAL_LOAD(name) gnb_nccl.name = (PFN_##name)dlsym(h, #name);

static char gnb_nccl_dlerr[1024];

// gnb_nccl_load opens path and checks its symbols: 0; -1 when dlopen
// fails (gnb_nccl_dlerror says why); 1+i when symbol i is missing. The
// first library that loads fills the table; later ones are only checked.
static int gnb_nccl_load(const char *path) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(gnb_nccl_dlerr, sizeof gnb_nccl_dlerr, "%s", e ? e : "unknown dlopen error");
		return -1;
	}
	void *found[sizeof gnb_nccl_syms / sizeof gnb_nccl_syms[0]];
	for (int i = 0; gnb_nccl_syms[i].name; i++) {
		found[i] = dlsym(h, gnb_nccl_syms[i].name);
		if (!found[i]) {
			dlclose(h);
			return i + 1;
		}
	}
	if (gnb_nccl.lib) {
		dlclose(h);
		return 0;
	}
	for (int i = 0; gnb_nccl_syms[i].name; i++) *gnb_nccl_syms[i].slot = found[i];
	GNB_NCCL_OPTIONAL(GNB_OPTIONAL_LOAD)
	gnb_nccl.lib = h;
	return 0;
}

static const char *gnb_nccl_dlerror(void) { return gnb_nccl_dlerr; }
static const char *gnb_nccl_symname(int i) { return gnb_nccl_syms[i].name; }

// ---- Trampolines (cgo cannot call C function pointers). ----
static int gnb_ncclGetVersion(int *v) { return gnb_nccl.ncclGetVersion(v); }
static int gnb_ncclGetUniqueId(void *id) { return gnb_nccl.ncclGetUniqueId((ncclUniqueId *)id); }
static int gnb_ncclCommInitRankConfig(uintptr_t *comm, int nranks, const void *id, int rank, int blocking) {
	ncclComm_t c = 0;
	ncclUniqueId u;
	memcpy(&u, id, sizeof u);
	gnb_ncclConfig config = gnb_nccl_config(blocking);
	int r = gnb_nccl.ncclCommInitRankConfig(&c, nranks, u, rank, &config);
	*comm = (uintptr_t)c;
	return r;
}
static int gnb_nccl_hasSplit(void) { return gnb_nccl.ncclCommSplit != 0; }
// gnb_ncclCommSplit splits comm into *slot, which must stay valid until
// the split has settled: with a non-blocking parent NCCL writes it from
// its own thread when the new communicator is ready.
static int gnb_ncclCommSplit(uintptr_t comm, int color, int key, uintptr_t *slot, int blocking) {
	gnb_ncclConfig config = gnb_nccl_config(blocking);
	return gnb_nccl.ncclCommSplit((ncclComm_t)comm, color, key, (ncclComm_t *)slot, &config);
}
static uintptr_t *gnb_nccl_newSlot(void) { return calloc(1, sizeof(uintptr_t)); }
static uintptr_t gnb_nccl_loadSlot(uintptr_t *slot) { return __atomic_load_n(slot, __ATOMIC_ACQUIRE); }
static int gnb_ncclCommGetAsyncError(uintptr_t c, int *err) {
	ncclResult_t e = 0;
	int r = gnb_nccl.ncclCommGetAsyncError((ncclComm_t)c, &e);
	*err = e;
	return r;
}
static int gnb_ncclCommAbort(uintptr_t c) { return gnb_nccl.ncclCommAbort((ncclComm_t)c); }
static int gnb_ncclCommFinalize(uintptr_t c) { return gnb_nccl.ncclCommFinalize((ncclComm_t)c); }
static int gnb_ncclCommDestroy(uintptr_t c) { return gnb_nccl.ncclCommDestroy((ncclComm_t)c); }
static int gnb_ncclAllReduce(uint64_t send, uint64_t recv, uint64_t count, int type, int op, uintptr_t c, uintptr_t s) {
	return gnb_nccl.ncclAllReduce((const void *)(uintptr_t)send, (void *)(uintptr_t)recv, (size_t)count, type, op, (ncclComm_t)c, (cudaStream_t)s);
}
static int gnb_ncclAllGather(uint64_t send, uint64_t recv, uint64_t count, int type, uintptr_t c, uintptr_t s) {
	return gnb_nccl.ncclAllGather((const void *)(uintptr_t)send, (void *)(uintptr_t)recv, (size_t)count, type, (ncclComm_t)c, (cudaStream_t)s);
}
static int gnb_ncclBroadcast(uint64_t send, uint64_t recv, uint64_t count, int type, int root, uintptr_t c, uintptr_t s) {
	return gnb_nccl.ncclBroadcast((const void *)(uintptr_t)send, (void *)(uintptr_t)recv, (size_t)count, type, root, (ncclComm_t)c, (cudaStream_t)s);
}
static int gnb_ncclSend(uint64_t send, uint64_t count, int type, int peer, uintptr_t c, uintptr_t s) {
	return gnb_nccl.ncclSend((const void *)(uintptr_t)send, (size_t)count, type, peer, (ncclComm_t)c, (cudaStream_t)s);
}
static int gnb_ncclRecv(uint64_t recv, uint64_t count, int type, int peer, uintptr_t c, uintptr_t s) {
	return gnb_nccl.ncclRecv((void *)(uintptr_t)recv, (size_t)count, type, peer, (ncclComm_t)c, (cudaStream_t)s);
}
static int gnb_ncclGroupStart(void) { return gnb_nccl.ncclGroupStart(); }
static int gnb_ncclGroupEnd(void) { return gnb_nccl.ncclGroupEnd(); }
static const char *gnb_ncclGetErrorString(int r) { return gnb_nccl.lib ? gnb_nccl.ncclGetErrorString(r) : 0; }
static const char *gnb_ncclGetLastError(uintptr_t c) { return gnb_nccl.lib ? gnb_nccl.ncclGetLastError((ncclComm_t)c) : 0; }
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// libOpen dlopens the library at path and resolves every symbol; the
// error says which symbol is missing or why dlopen failed.
func libOpen(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	switch r := int(C.gnb_nccl_load(cpath)); {
	case r == 0:
		return nil
	case r == -1:
		return fmt.Errorf("%s", C.GoString(C.gnb_nccl_dlerror()))
	default:
		return fmt.Errorf("%s lacks the symbol %s (NCCL older than 2.14? graphnb needs non-blocking communicators)", path, C.GoString(C.gnb_nccl_symname(C.int(r-1))))
	}
}

func cGetVersion() (int, int) {
	var v C.int
	r := C.gnb_ncclGetVersion(&v)
	return int(v), int(r)
}

func cGetUniqueID(id *UniqueID) int { return int(C.gnb_ncclGetUniqueId(unsafe.Pointer(&id[0]))) }

func cCommInitRank(size int, id *UniqueID, rank int, blocking bool) (uintptr, int) {
	var h C.uintptr_t
	r := C.gnb_ncclCommInitRankConfig(&h, C.int(size), unsafe.Pointer(&id[0]), C.int(rank), cBool(blocking))
	return uintptr(h), int(r)
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func cHasSplit() bool { return C.gnb_nccl_hasSplit() != 0 }

// splitSlot is C memory for the handle ncclCommSplit writes.
type splitSlot = *C.uintptr_t

func cNewSplitSlot() splitSlot           { return C.gnb_nccl_newSlot() }
func cFreeSplitSlot(s splitSlot)         { C.free(unsafe.Pointer(s)) }
func cLoadSplitSlot(s splitSlot) uintptr { return uintptr(C.gnb_nccl_loadSlot(s)) }

func cCommSplit(h uintptr, color, key int, slot splitSlot, blocking bool) int {
	return int(C.gnb_ncclCommSplit(C.uintptr_t(h), C.int(color), C.int(key), slot, cBool(blocking)))
}

func cCommGetAsyncError(h uintptr) (async, r int) {
	var e C.int
	r = int(C.gnb_ncclCommGetAsyncError(C.uintptr_t(h), &e))
	return int(e), r
}

func cCommAbort(h uintptr) int    { return int(C.gnb_ncclCommAbort(C.uintptr_t(h))) }
func cCommFinalize(h uintptr) int { return int(C.gnb_ncclCommFinalize(C.uintptr_t(h))) }
func cCommDestroy(h uintptr) int  { return int(C.gnb_ncclCommDestroy(C.uintptr_t(h))) }

func cAllReduce(send, recv uint64, count int, t DataType, op Op, h, s uintptr) int {
	return int(C.gnb_ncclAllReduce(C.uint64_t(send), C.uint64_t(recv), C.uint64_t(count), C.int(t), C.int(op), C.uintptr_t(h), C.uintptr_t(s)))
}

func cAllGather(send, recv uint64, count int, t DataType, h, s uintptr) int {
	return int(C.gnb_ncclAllGather(C.uint64_t(send), C.uint64_t(recv), C.uint64_t(count), C.int(t), C.uintptr_t(h), C.uintptr_t(s)))
}

func cBroadcast(send, recv uint64, count int, t DataType, root int, h, s uintptr) int {
	return int(C.gnb_ncclBroadcast(C.uint64_t(send), C.uint64_t(recv), C.uint64_t(count), C.int(t), C.int(root), C.uintptr_t(h), C.uintptr_t(s)))
}

func cSend(send uint64, count int, t DataType, peer int, h, s uintptr) int {
	return int(C.gnb_ncclSend(C.uint64_t(send), C.uint64_t(count), C.int(t), C.int(peer), C.uintptr_t(h), C.uintptr_t(s)))
}

func cRecv(recv uint64, count int, t DataType, peer int, h, s uintptr) int {
	return int(C.gnb_ncclRecv(C.uint64_t(recv), C.uint64_t(count), C.int(t), C.int(peer), C.uintptr_t(h), C.uintptr_t(s)))
}

func cGroupStart() int { return int(C.gnb_ncclGroupStart()) }
func cGroupEnd() int   { return int(C.gnb_ncclGroupEnd()) }

func cErrorString(r int) string { return C.GoString(C.gnb_ncclGetErrorString(C.int(r))) }
func cLastError(h uintptr) string {
	return C.GoString(C.gnb_ncclGetLastError(C.uintptr_t(h)))
}

// cgoBuilt reports whether this build can load NCCL.
const cgoBuilt = true
