/*
 * A fake NCCL (libnccl.so.2) for graphnb's tests on machines without GPUs.
 * It exports the symbols package nccl uses, with NCCL's semantics as far
 * as graphnb can observe them, on buffers in host memory (the fake CUDA
 * driver's device pointers are host pointers, and so are pinned Go
 * slices). Ranks may be threads of one process or several processes:
 *
 *   - ncclGetUniqueId makes a fresh directory under $TMPDIR (default /tmp)
 *     whose path is the id.
 *   - ncclCommInitRank writes the file join.R and returns ncclInProgress;
 *     the communicator is ready once every rank's join file exists.
 *   - Each collective (and each ncclGroupStart/End group of sends and
 *     receives) is the communicator's next operation k = 1, 2, …; at call
 *     time the rank writes what it sends to files (opK.R for collectives,
 *     opK.RtoP for a send to P), atomically (write, then rename). An
 *     operation completes, in order, once the files it needs exist: then
 *     its receive buffers are filled.
 *   - Progress happens when a call or ncclCommGetAsyncError polls;
 *     ncclCommGetAsyncError returns ncclInProgress while the communicator
 *     is joining or has an operation pending (stricter than NCCL, which
 *     reports success once the work is enqueued), ncclRemoteError once a
 *     peer has left an abort marker (abort.P), and the communicator's own
 *     error after one.
 *   - ncclGroupEnd returns ncclInProgress while the group is pending; the
 *     collectives return ncclSuccess.
 *   - ncclCommAbort leaves an abort marker; ncclCommAbort and
 *     ncclCommDestroy leave gone.R, and the last rank gone removes the
 *     directory. The communicator's memory is never freed (a call on it
 *     after that fails, and a thread that queued work on it skips it).
 *   - ncclCommSplit (color 0, key = rank: the same ranks) makes a child
 *     communicator in the subdirectory splitN of the parent's; it joins as
 *     ncclCommInitRank does. With a non-blocking parent the split returns
 *     ncclInProgress, the parent's ncclCommGetAsyncError reports
 *     ncclInProgress until every rank has split, and only then is
 *     *newcomm set, as NCCL does. Built with -DFAKE_NCCL_NO_SPLIT, the
 *     library has no ncclCommSplit (as NCCL before 2.18);
 *     FAKE_NCCL_SPLIT=invalid makes it return ncclInvalidArgument (a
 *     refused config) at once.
 *
 * Blocking mode: a communicator is blocking unless its config
 * (ncclCommInitRankConfig, ncclCommSplit; checked for NCCL's magic) says
 * blocking = 0; NCCL_COMM_BLOCKING=0 or 1 overrides the config, as in
 * NCCL (empty: unset). A blocking communicator's calls never return
 * ncclInProgress: a collective, a group of sends and receives and
 * ncclCommFinalize block until complete, so a stalled or failed peer
 * blocks them until ncclCommAbort is called on the communicator from
 * another thread; the blocked call then returns ncclSuccess (NCCL does
 * not promise an error either), and ncclCommAbort returns once it has.
 *
 * Failure injection: FAKE_NCCL_FAIL="rank=R,op=K,mode=M[;…]", read at
 * ncclCommInitRank and ncclCommSplit: on rank R, operation K of every
 * communicator (0 = ncclCommInitRank itself; op=split: the join of a
 * split's child):
 *   error  the call returns ncclSystemError, the communicator is broken
 *          and leaves an abort marker (peers get ncclRemoteError);
 *   stall  the rank never contributes to K (nor completes it): everyone
 *          must time out;
 *   exit   the process calls _exit(3) inside the call.
 * FAKE_NCCL_LOG names a file every call appends a line to.
 * FAKE_NCCL_VERSION is the version code (default 22803, 2.28.3).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef int ncclResult_t;
enum {
	ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2, ncclInternalError = 3,
	ncclInvalidArgument = 4, ncclInvalidUsage = 5, ncclRemoteError = 6, ncclInProgress = 7,
};
typedef struct { char internal[128]; } ncclUniqueId;

enum { OP_ALLREDUCE, OP_ALLGATHER, OP_BROADCAST, OP_P2P };
enum { FAIL_NONE, FAIL_ERROR, FAIL_STALL, FAIL_EXIT };

/* One send or receive of a point-to-point group. */
struct p2p { int send; int peer; char *buf; size_t bytes; long seq; };

struct op {
	int kind;
	long k;    /* this rank's operation number (logs, failure injection) */
	long key;  /* a collective's number, the same on every rank (file names) */
	int stalled;
	/* put: the rank's contribution is still to be written; it is written
	 * when the op reaches the head of the comm's queue, after the ops
	 * before it completed, so a collective reads its send buffer in
	 * stream order (one that reads what an earlier one wrote sees it). */
	int put;
	const char *send;
	char *recv;
	size_t count;
	int type, redop, root;
	struct p2p *parts;
	int nparts, cap;
	struct op *next;
};

typedef struct ncclComm {
	char dir[192];
	int rank, size;
	int joined;        /* every join file seen */
	int err;           /* sticky error (ncclSuccess while healthy) */
	int gone;
	long nextop;       /* number of the last operation issued */
	long nextcoll;     /* number of the last collective issued */
	/* Point-to-point operations are matched per pair of ranks, as NCCL
	 * does: the n-th send from a to b meets the n-th receive of b from a,
	 * whatever other operations a and b issue (a rank with nothing to
	 * send or receive issues no group at all). */
	long sendSeq[256], recvSeq[256];
	struct op *head, *tail;
	struct op *group;  /* the point-to-point op of the open group, if any */
	int failop, failmode;
	int stalledInit;
	int blocking;
	int dead;          /* aborted or destroyed (the memory stays) */
	int abortReq;      /* ncclCommAbort was called (atomic) */
	int inCall;        /* threads blocked in a call on it (atomic) */
	int nsplits;       /* children made, for their directories */
	struct ncclComm *child;      /* a split in progress */
	struct ncclComm **childOut;  /* where the split's handle goes */
} *ncclComm_t;

/* ncclConfig_t's head, as every NCCL since 2.14 lays it out. */
typedef struct { size_t size; unsigned int magic; unsigned int version; int blocking; } fakeConfig;
#define FAKE_CONFIG_MAGIC 0xcafebeef
#define FAKE_UNDEF_INT (-2147483647 - 1)

static __thread char lastError[512];
static __thread int groupDepth;
static __thread ncclComm_t groupComms[64];
static __thread int ngroupComms;

static void flog(const char *fmt, ...) {
	const char *path = getenv("FAKE_NCCL_LOG");
	if (!path) return;
	char buf[1024];
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

static void seterr(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(lastError, sizeof lastError, fmt, ap);
	va_end(ap);
}

/* blockingMode is a config's mode (dflt when unset), overridden by
 * NCCL_COMM_BLOCKING=0 or 1; -1 for a config without NCCL's magic. */
static int blockingMode(const fakeConfig *config, int dflt) {
	int b = dflt;
	if (config) {
		if (config->magic != FAKE_CONFIG_MAGIC || config->size < sizeof *config) {
			seterr("fake NCCL: ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER");
			return -1;
		}
		if (config->blocking != FAKE_UNDEF_INT) b = config->blocking != 0;
	}
	const char *v = getenv("NCCL_COMM_BLOCKING");
	if (v && strcmp(v, "0") == 0) b = 0;
	if (v && strcmp(v, "1") == 0) b = 1;
	return b;
}

static size_t typesize(int t) {
	switch (t) {
	case 0: case 1: return 1;
	case 2: case 3: case 7: return 4;
	case 4: case 5: case 8: return 8;
	}
	return 0;
}

/* ---- files ---- */

static void path(char *out, size_t n, ncclComm_t c, const char *fmt, ...) {
	char name[96];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	snprintf(out, n, "%s/%s", c->dir, name);
}

static int exists(const char *p) {
	struct stat st;
	return stat(p, &st) == 0;
}

/* put writes data to p atomically: a temporary file, then rename. */
static int put(const char *p, const void *data, size_t n) {
	char tmp[300];
	snprintf(tmp, sizeof tmp, "%s.tmp%d.%lx", p, (int)getpid(), (unsigned long)pthread_self());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) return -1;
	const char *b = data;
	while (n > 0) {
		ssize_t w = write(fd, b, n);
		if (w < 0) { if (errno == EINTR) continue; close(fd); unlink(tmp); return -1; }
		b += w;
		n -= (size_t)w;
	}
	close(fd);
	return rename(tmp, p);
}

/* get reads exactly n bytes of p into data: 0, or -1 when p is missing or
 * of another size. */
static int get(const char *p, void *data, size_t n) {
	int fd = open(p, O_RDONLY);
	if (fd < 0) return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size != n) { close(fd); return -1; }
	char *b = data;
	while (n > 0) {
		ssize_t r = read(fd, b, n);
		if (r <= 0) { if (r < 0 && errno == EINTR) continue; close(fd); return -1; }
		b += r;
		n -= (size_t)r;
	}
	close(fd);
	return 0;
}

static void marker(ncclComm_t c, const char *what) {
	char p[256];
	path(p, sizeof p, c, "%s.%d", what, c->rank);
	put(p, "", 0);
}

/* ---- failure injection ---- */

/* OP_SPLIT in a spec is the join of a split's child. */
#define OP_SPLIT (-2)

/* parsefail reads the failure planned for c (split: a split's child,
 * whose operation 0 is its join, planned by op=split). */
static void parsefail(ncclComm_t c, int split) {
	const char *env = getenv("FAKE_NCCL_FAIL");
	c->failop = -1;
	c->failmode = FAIL_NONE;
	if (!env) return;
	char tmp[512];
	snprintf(tmp, sizeof tmp, "%s", env);
	for (char *s1 = 0, *spec = strtok_r(tmp, ";", &s1); spec; spec = strtok_r(0, ";", &s1)) {
		int rank = -1;
		long op = -1;
		int mode = FAIL_NONE;
		for (char *s2 = 0, *kv = strtok_r(spec, ",", &s2); kv; kv = strtok_r(0, ",", &s2)) {
			if (strncmp(kv, "rank=", 5) == 0) rank = atoi(kv + 5);
			else if (strcmp(kv, "op=split") == 0) op = OP_SPLIT;
			else if (strncmp(kv, "op=", 3) == 0) op = atol(kv + 3);
			else if (strcmp(kv, "mode=error") == 0) mode = FAIL_ERROR;
			else if (strcmp(kv, "mode=stall") == 0) mode = FAIL_STALL;
			else if (strcmp(kv, "mode=exit") == 0) mode = FAIL_EXIT;
		}
		if (split && op == 0) continue;
		if (split && op == OP_SPLIT) op = 0;
		if (rank == c->rank && op >= 0 && mode != FAIL_NONE) {
			c->failop = op;
			c->failmode = mode;
		}
	}
}

/* inject applies the failure planned for operation k: 1 when the call must
 * fail (ncclSystemError), 2 when the rank stalls, else 0. */
static int inject(ncclComm_t c, long k, const char *call) {
	if (k != c->failop) return 0;
	switch (c->failmode) {
	case FAIL_EXIT:
		flog("%s rank=%d op=%ld injected exit", call, c->rank, k);
		_exit(3);
	case FAIL_ERROR:
		flog("%s rank=%d op=%ld injected error", call, c->rank, k);
		c->err = ncclSystemError;
		seterr("fake NCCL: injected failure of %s (operation %ld) on rank %d", call, k, c->rank);
		marker(c, "abort");
		return 1;
	case FAIL_STALL:
		flog("%s rank=%d op=%ld injected stall", call, c->rank, k);
		return 2;
	}
	return 0;
}

/* ---- progress ---- */

static void reduce(char *acc, const char *x, size_t count, int type, int op) {
#define RED(T) do { \
		T *a = (T *)acc; const T *b = (const T *)x; \
		for (size_t i = 0; i < count; i++) { \
			switch (op) { \
			case 0: a[i] = a[i] + b[i]; break; \
			case 1: a[i] = a[i] * b[i]; break; \
			case 2: if (b[i] > a[i]) a[i] = b[i]; break; \
			case 3: if (b[i] < a[i]) a[i] = b[i]; break; \
			} \
		} \
	} while (0)
	switch (type) {
	case 0: RED(int8_t); break;
	case 1: RED(uint8_t); break;
	case 2: RED(int32_t); break;
	case 3: RED(uint32_t); break;
	case 4: RED(int64_t); break;
	case 5: RED(uint64_t); break;
	case 7: RED(float); break;
	case 8: RED(double); break;
	}
#undef RED
}

/* complete tries to finish o: 1 when done (receive buffers filled), 0 while
 * a peer's data is missing, -1 on a malformed peer file. */
static int complete(ncclComm_t c, struct op *o) {
	char p[256];
	if (o->stalled) return 0;
	size_t es = typesize(o->type), bytes = o->count * es;
	switch (o->kind) {
	case OP_ALLREDUCE:
	case OP_ALLGATHER:
		for (int r = 0; r < c->size; r++) {
			path(p, sizeof p, c, "op%ld.%d", o->key, r);
			if (!exists(p)) return 0;
		}
		if (bytes == 0) return 1;
		if (o->kind == OP_ALLGATHER) {
			for (int r = 0; r < c->size; r++) {
				path(p, sizeof p, c, "op%ld.%d", o->key, r);
				if (get(p, o->recv + (size_t)r * bytes, bytes) != 0) return -1;
			}
			return 1;
		}
		{
			char *acc = malloc(bytes), *x = malloc(bytes);
			int bad = 0;
			for (int r = 0; r < c->size && !bad; r++) {
				path(p, sizeof p, c, "op%ld.%d", o->key, r);
				if (get(p, r == 0 ? acc : x, bytes) != 0) bad = 1;
				else if (r > 0) reduce(acc, x, o->count, o->type, o->redop);
			}
			if (!bad) memcpy(o->recv, acc, bytes);
			free(acc);
			free(x);
			return bad ? -1 : 1;
		}
	case OP_BROADCAST:
		path(p, sizeof p, c, "op%ld.%d", o->key, o->root);
		if (!exists(p)) return 0;
		if (bytes == 0) return 1;
		return get(p, o->recv, bytes) == 0 ? 1 : -1;
	case OP_P2P:
		for (int i = 0; i < o->nparts; i++) {
			if (o->parts[i].send) continue;
			path(p, sizeof p, c, "p2p%ld.%dto%d", o->parts[i].seq, o->parts[i].peer, c->rank);
			if (!exists(p)) return 0;
		}
		for (int i = 0; i < o->nparts; i++) {
			struct p2p *q = &o->parts[i];
			if (q->send) continue;
			path(p, sizeof p, c, "p2p%ld.%dto%d", q->seq, q->peer, c->rank);
			if (get(p, q->buf, q->bytes) != 0) return -1;
		}
		return 1;
	}
	return -1;
}

static void freeop(struct op *o) {
	free(o->parts);
	free(o);
}

/* progress completes what can be completed and checks the peers' abort
 * markers; it returns the state ncclCommGetAsyncError reports. */
static int progress(ncclComm_t c) {
	char p[256];
	if (c->dead) { seterr("fake NCCL: the communicator was aborted or destroyed"); return ncclInvalidUsage; }
	if (c->err) return c->err;
	if (c->child) {
		int r = progress(c->child);
		if (r == ncclInProgress) return ncclInProgress;
		*c->childOut = c->child; /* as NCCL: set once the split is done */
		c->child = 0;
		if (r != ncclSuccess) return r;
	}
	for (int r = 0; r < c->size; r++) {
		if (r == c->rank) continue;
		path(p, sizeof p, c, "abort.%d", r);
		if (exists(p)) {
			c->err = ncclRemoteError;
			seterr("fake NCCL: rank %d aborted its communicator (seen by rank %d)", r, c->rank);
			flog("progress rank=%d remote-error from=%d", c->rank, r);
			return c->err;
		}
	}
	if (!c->joined) {
		if (c->stalledInit) return ncclInProgress;
		for (int r = 0; r < c->size; r++) {
			path(p, sizeof p, c, "join.%d", r);
			if (!exists(p)) return ncclInProgress;
		}
		c->joined = 1;
		flog("ncclCommInitRank rank=%d joined", c->rank);
	}
	while (c->head && c->head != c->group) {
		struct op *o = c->head;
		if (o->put) {
			char q[256];
			path(q, sizeof q, c, "op%ld.%d", o->key, c->rank);
			size_t bytes = o->count * typesize(o->type);
			if (put(q, bytes ? o->send : "", bytes) != 0) {
				c->err = ncclSystemError;
				seterr("fake NCCL: writing %s: %s", q, strerror(errno));
				return c->err;
			}
			o->put = 0;
		}
		int done = complete(c, o);
		if (done == 0) return ncclInProgress;
		if (done < 0) {
			c->err = ncclInternalError;
			seterr("fake NCCL: a peer's data for operation %ld has the wrong size (mismatched calls?)", o->k);
			return c->err;
		}
		flog("complete rank=%d op=%ld", c->rank, o->k);
		c->head = o->next;
		if (!c->head) c->tail = 0;
		freeop(o);
	}
	return c->head ? ncclInProgress : ncclSuccess;
}

/* settle is how a blocking call waits: progress until not in progress,
 * or until another thread calls ncclCommAbort (then ncclSuccess). */
static int settle(ncclComm_t c) {
	int r;
	while ((r = progress(c)) == ncclInProgress) {
		if (__atomic_load_n(&c->abortReq, __ATOMIC_ACQUIRE)) {
			flog("blocking call interrupted rank=%d", c->rank);
			return ncclSuccess;
		}
		usleep(200);
	}
	return r;
}

/* blocked runs settle as a blocking call that ncclCommAbort waits for. */
static int blocked(ncclComm_t c) {
	__atomic_add_fetch(&c->inCall, 1, __ATOMIC_ACQ_REL);
	int r = __atomic_load_n(&c->abortReq, __ATOMIC_ACQUIRE) ? ncclSuccess : settle(c);
	__atomic_sub_fetch(&c->inCall, 1, __ATOMIC_ACQ_REL);
	return r;
}

/* ---- API ---- */

ncclResult_t ncclGetVersion(int *v) {
	const char *e = getenv("FAKE_NCCL_VERSION");
	*v = e ? atoi(e) : 22803;
	return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t r) {
	switch (r) {
	case ncclSuccess: return "no error";
	case ncclUnhandledCudaError: return "unhandled cuda error (fake NCCL)";
	case ncclSystemError: return "unhandled system error (fake NCCL)";
	case ncclInternalError: return "internal error (fake NCCL)";
	case ncclInvalidArgument: return "invalid argument (fake NCCL)";
	case ncclInvalidUsage: return "invalid usage (fake NCCL)";
	case ncclRemoteError: return "remote process exited or there was a network error (fake NCCL)";
	case ncclInProgress: return "NCCL operation in progress (fake NCCL)";
	}
	return "unknown result code (fake NCCL)";
}

const char *ncclGetLastError(ncclComm_t comm) {
	(void)comm;
	return lastError;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) > 100) tmp = "/tmp";
	memset(id, 0, sizeof *id);
	snprintf(id->internal, sizeof id->internal, "%s/fakenccl-XXXXXX", tmp);
	if (!mkdtemp(id->internal)) {
		seterr("fake NCCL: mkdtemp %s: %s", id->internal, strerror(errno));
		return ncclSystemError;
	}
	flog("ncclGetUniqueId dir=%s", id->internal);
	return ncclSuccess;
}

static ncclResult_t initRank(ncclComm_t *out, int nranks, ncclUniqueId id, int rank, const fakeConfig *config) {
	*out = 0;
	int blocking = blockingMode(config, 1);
	if (blocking < 0) return ncclInvalidArgument;
	if (nranks < 1 || nranks > 256 || rank < 0 || rank >= nranks) {
		seterr("fake NCCL: rank %d of %d (the fake holds 1 to 256 ranks)", rank, nranks);
		return ncclInvalidArgument;
	}
	id.internal[sizeof id.internal - 1] = 0;
	struct stat st;
	if (stat(id.internal, &st) != 0 || !S_ISDIR(st.st_mode)) {
		seterr("fake NCCL: the unique id names no directory (%.60s)", id.internal);
		return ncclInvalidArgument;
	}
	ncclComm_t c = calloc(1, sizeof *c);
	snprintf(c->dir, sizeof c->dir, "%s", id.internal);
	c->rank = rank;
	c->size = nranks;
	c->blocking = blocking;
	parsefail(c, 0);
	char p[256];
	path(p, sizeof p, c, "join.%d", rank);
	if (exists(p)) {
		seterr("fake NCCL: rank %d joined twice", rank);
		free(c);
		return ncclInvalidUsage;
	}
	flog("ncclCommInitRank rank=%d size=%d dir=%s", rank, nranks, c->dir);
	*out = c;
	switch (inject(c, 0, "ncclCommInitRank")) {
	case 1: return ncclSystemError;
	case 2: c->stalledInit = 1; break;
	default: put(p, &nranks, sizeof nranks);
	}
	if (c->blocking) return settle(c);
	return progress(c) == ncclInProgress ? ncclInProgress : c->err;
}

ncclResult_t ncclCommInitRank(ncclComm_t *out, int nranks, ncclUniqueId id, int rank) {
	return initRank(out, nranks, id, rank, 0);
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *out, int nranks, ncclUniqueId id, int rank, fakeConfig *config) {
	return initRank(out, nranks, id, rank, config);
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *err) {
	if (!c || c->dead) return ncclInvalidArgument;
	*err = progress(c);
	return ncclSuccess;
}

/* The comms this thread queued work on, for fakeNcclDrain. */
static __thread ncclComm_t queuedComms[64];
static __thread int nqueuedComms;

static void track(ncclComm_t c) {
	for (int i = 0; i < nqueuedComms; i++)
		if (queuedComms[i] == c) return;
	if (nqueuedComms < 64) queuedComms[nqueuedComms++] = c;
}

/* untrack forgets c (destroyed or aborted) on this thread. */
static void untrack(ncclComm_t c) {
	for (int i = 0; i < nqueuedComms; i++)
		if (queuedComms[i] == c) queuedComms[i] = queuedComms[--nqueuedComms];
}

/* cleanup leaves gone.R and removes the directory when every rank is gone. */
static void cleanup(ncclComm_t c) {
	char p[512];
	marker(c, "gone");
	for (int r = 0; r < c->size; r++) {
		path(p, sizeof p, c, "gone.%d", r);
		if (!exists(p)) goto out;
	}
	DIR *d = opendir(c->dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
			snprintf(p, sizeof p, "%s/%s", c->dir, e->d_name);
			if (unlink(p) != 0) rmdir(p); /* a split's directory, once empty */
		}
		closedir(d);
		rmdir(c->dir);
	}
out:
	while (c->head) {
		struct op *o = c->head;
		c->head = o->next;
		freeop(o);
	}
	c->tail = 0;
	c->group = 0;
	c->dead = 1;
}

ncclResult_t ncclCommAbort(ncclComm_t c) {
	if (!c) return ncclSuccess;
	if (c->dead) { seterr("fake NCCL: ncclCommAbort of a communicator already aborted or destroyed"); return ncclInvalidUsage; }
	flog("ncclCommAbort rank=%d", c->rank);
	/* A blocking call of another thread returns first. */
	__atomic_store_n(&c->abortReq, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&c->inCall, __ATOMIC_ACQUIRE) > 0) usleep(100);
	marker(c, "abort");
	untrack(c);
	if (c->child) { /* NCCL aborts a split in progress with its parent */
		ncclComm_t child = c->child;
		c->child = 0;
		ncclCommAbort(child);
	}
	cleanup(c);
	return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t c) {
	if (!c) return ncclInvalidArgument;
	flog("ncclCommFinalize rank=%d", c->rank);
	int r = c->blocking ? blocked(c) : progress(c);
	return r;
}

ncclResult_t ncclCommDestroy(ncclComm_t c) {
	if (!c) return ncclSuccess;
	if (c->dead) { seterr("fake NCCL: ncclCommDestroy of a communicator already aborted or destroyed"); return ncclInvalidUsage; }
	flog("ncclCommDestroy rank=%d", c->rank);
	untrack(c);
	cleanup(c);
	return ncclSuccess;
}

/* enqueue appends o as c's operation number k (already counted). */
static void enqueue(ncclComm_t c, struct op *o) {
	if (c->tail) c->tail->next = o;
	else c->head = o;
	c->tail = o;
}

/* start checks a communicator before a new operation. */
static int start(ncclComm_t c, const char *call) {
	if (!c) { seterr("fake NCCL: %s on a NULL communicator", call); return ncclInvalidArgument; }
	if (c->dead) { seterr("fake NCCL: %s on an aborted or destroyed communicator", call); return ncclInvalidUsage; }
	if (c->child) { seterr("fake NCCL: %s during ncclCommSplit", call); return ncclInvalidUsage; }
	if (c->err) { seterr("fake NCCL: %s on a broken communicator", call); return c->err; }
	int r = progress(c);
	if (r != ncclSuccess && r != ncclInProgress) return r;
	if (!c->joined) { seterr("fake NCCL: %s before ncclCommInitRank finished", call); return ncclInvalidUsage; }
	return ncclSuccess;
}

/* finish ends a collective call: inject failures, contribute, maybe block. */
/* fakeNcclDrain completes the calling thread's queued operations, as the
 * GPU would before later work on the same stream: the fake CUDA driver
 * calls it before a kernel launch or a copy, so a kernel queued after a
 * collective reads its result. A peer that never comes (a stalled or
 * failed rank) is waited for at most 3 s; the work then runs on what is
 * there, and the caller's wait reports the failure. */
void fakeNcclDrain(void) {
	for (int i = 0; i < nqueuedComms; i++) {
		ncclComm_t c = queuedComms[i];
		if (c->dead || c->blocking) continue; /* a blocking comm's work is done when its call returns */
		for (int waited = 0; waited < 3000000 && c->head && c->head != c->group; waited += 200) {
			if (progress(c) != ncclInProgress) break;
			usleep(200);
		}
	}
	nqueuedComms = 0;
}

static int collective(ncclComm_t c, struct op *o, const char *call, int contributes) {
	o->k = ++c->nextop;
	o->key = ++c->nextcoll;
	flog("%s rank=%d op=%ld count=%zu type=%d", call, c->rank, o->k, o->count, o->type);
	switch (inject(c, o->k, call)) {
	case 1: freeop(o); return ncclSystemError;
	case 2: o->stalled = 1; contributes = 0; break;
	}
	o->put = contributes; /* written by progress, in order */
	enqueue(c, o);
	track(c);
	if (c->blocking && groupDepth == 0) return blocked(c);
	int r = progress(c);
	return r == ncclInProgress ? ncclSuccess : r;
}

static struct op *newop(int kind, const void *send, void *recv, size_t count, int type) {
	struct op *o = calloc(1, sizeof *o);
	o->kind = kind;
	o->send = send;
	o->recv = recv;
	o->count = count;
	o->type = type;
	return o;
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, int type, int op, ncclComm_t c, void *stream) {
	(void)stream;
	int r = start(c, "ncclAllReduce");
	if (r) return r;
	if (!typesize(type) || op < 0 || op > 3) { seterr("fake NCCL: type %d or op %d unsupported", type, op); return ncclInvalidArgument; }
	struct op *o = newop(OP_ALLREDUCE, send, recv, count, type);
	o->redop = op;
	return collective(c, o, "ncclAllReduce", 1);
}

ncclResult_t ncclAllGather(const void *send, void *recv, size_t count, int type, ncclComm_t c, void *stream) {
	(void)stream;
	int r = start(c, "ncclAllGather");
	if (r) return r;
	if (!typesize(type)) { seterr("fake NCCL: type %d unsupported", type); return ncclInvalidArgument; }
	return collective(c, newop(OP_ALLGATHER, send, recv, count, type), "ncclAllGather", 1);
}

ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, int type, int root, ncclComm_t c, void *stream) {
	(void)stream;
	int r = start(c, "ncclBroadcast");
	if (r) return r;
	if (!typesize(type) || root < 0 || root >= c->size) { seterr("fake NCCL: type %d or root %d invalid", type, root); return ncclInvalidArgument; }
	struct op *o = newop(OP_BROADCAST, send, recv, count, type);
	o->root = root;
	return collective(c, o, "ncclBroadcast", c->rank == root);
}

ncclResult_t ncclGroupStart(void) {
	groupDepth++;
	return ncclSuccess;
}

/* p2p adds a send or receive to c's group operation. */
static int p2p(int send, const void *buf, size_t count, int type, int peer, ncclComm_t c, const char *call) {
	int r = start(c, call);
	if (r) return r;
	if (!typesize(type) || peer < 0 || peer >= c->size) { seterr("fake NCCL: type %d or peer %d invalid", type, peer); return ncclInvalidArgument; }
	if (groupDepth == 0) { seterr("fake NCCL: %s outside ncclGroupStart/End (unsupported by the fake)", call); return ncclInvalidUsage; }
	if (!c->group) {
		c->group = newop(OP_P2P, 0, 0, 0, 0);
		enqueue(c, c->group);
		track(c);
		if (ngroupComms < 64) groupComms[ngroupComms++] = c;
	}
	struct op *o = c->group;
	if (o->nparts == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 8;
		o->parts = realloc(o->parts, (size_t)o->cap * sizeof *o->parts);
	}
	long seq = send ? c->sendSeq[peer]++ : c->recvSeq[peer]++;
	o->parts[o->nparts++] = (struct p2p){send, peer, (char *)buf, count * typesize(type), seq};
	return ncclSuccess;
}

ncclResult_t ncclSend(const void *buf, size_t count, int type, int peer, ncclComm_t c, void *stream) {
	(void)stream;
	return p2p(1, buf, count, type, peer, c, "ncclSend");
}

ncclResult_t ncclRecv(void *buf, size_t count, int type, int peer, ncclComm_t c, void *stream) {
	(void)stream;
	return p2p(0, buf, count, type, peer, c, "ncclRecv");
}

/* closegroup turns c's group into its next operation and writes its sends. */
static int closegroup(ncclComm_t c) {
	struct op *o = c->group;
	c->group = 0;
	o->k = ++c->nextop;
	flog("ncclGroupEnd rank=%d op=%ld parts=%d", c->rank, o->k, o->nparts);
	switch (inject(c, o->k, "ncclGroupEnd")) {
	case 1: return ncclSystemError;
	case 2: o->stalled = 1; return ncclSuccess;
	}
	for (int i = 0; i < o->nparts; i++) {
		struct p2p *q = &o->parts[i];
		if (!q->send) continue;
		char p[256];
		path(p, sizeof p, c, "p2p%ld.%dto%d", q->seq, c->rank, q->peer);
		if (put(p, q->bytes ? q->buf : "", q->bytes) != 0) {
			c->err = ncclSystemError;
			seterr("fake NCCL: writing %s: %s", p, strerror(errno));
			return c->err;
		}
	}
	return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void) {
	if (groupDepth == 0) { seterr("fake NCCL: ncclGroupEnd without ncclGroupStart"); return ncclInvalidUsage; }
	if (--groupDepth > 0) return ncclSuccess;
	int res = ncclSuccess;
	int n = ngroupComms;
	ngroupComms = 0;
	for (int i = 0; i < n; i++) {
		int r = closegroup(groupComms[i]);
		if (r && !res) res = r;
	}
	if (res) return res;
	for (int i = 0; i < n; i++) {
		int r = groupComms[i]->blocking ? blocked(groupComms[i]) : progress(groupComms[i]);
		if (r == ncclInProgress) res = ncclInProgress;
		else if (r != ncclSuccess) return r;
	}
	return res;
}

#ifndef FAKE_NCCL_NO_SPLIT
ncclResult_t ncclCommSplit(ncclComm_t c, int color, int key, ncclComm_t *out, fakeConfig *config) {
	if (!out) { seterr("fake NCCL: ncclCommSplit without newcomm"); return ncclInvalidArgument; }
	*out = 0;
	int r = start(c, "ncclCommSplit");
	if (r) return r;
	if (color == -1) return ncclSuccess; /* NCCL_SPLIT_NOCOLOR */
	if (color != 0 || key != c->rank) {
		seterr("fake NCCL: ncclCommSplit supports only color 0 with key = rank (got %d, %d on rank %d)", color, key, c->rank);
		return ncclInvalidArgument;
	}
	const char *mode = getenv("FAKE_NCCL_SPLIT");
	if (mode && strcmp(mode, "invalid") == 0) {
		seterr("fake NCCL: ncclCommSplit refused (FAKE_NCCL_SPLIT=invalid)");
		return ncclInvalidArgument;
	}
	int blocking = blockingMode(config, c->blocking);
	if (blocking < 0) return ncclInvalidArgument;
	ncclComm_t n = calloc(1, sizeof *n);
	snprintf(n->dir, sizeof n->dir, "%s/split%d", c->dir, ++c->nsplits);
	if (mkdir(n->dir, 0755) != 0 && errno != EEXIST) {
		seterr("fake NCCL: mkdir %s: %s", n->dir, strerror(errno));
		free(n);
		return ncclSystemError;
	}
	n->rank = c->rank;
	n->size = c->size;
	n->blocking = blocking;
	parsefail(n, 1);
	flog("ncclCommSplit rank=%d dir=%s blocking=%d", c->rank, n->dir, blocking);
	char p[256];
	path(p, sizeof p, n, "join.%d", n->rank);
	switch (inject(n, 0, "ncclCommSplit")) {
	case 1: *out = n; return ncclSystemError;
	case 2: n->stalledInit = 1; break;
	default: put(p, &n->size, sizeof n->size);
	}
	/* The split blocks as its parent does (NCCL runs it in the parent's
	 * group). */
	c->child = n;
	c->childOut = out;
	if (c->blocking) return blocked(c);
	r = progress(c);
	return r == ncclSuccess ? ncclSuccess : r == ncclInProgress ? ncclInProgress : r;
}
#endif
