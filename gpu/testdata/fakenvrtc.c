/*
 * A fake NVRTC for the gpu package's tests. "Compiling" copies the
 * source into an image the fake driver (fakecuda.c) accepts: CUBIN is
 * "FAKECUBIN\n" + options + source, PTX is "//FAKEPTX\n" + source.
 *
 *   - a source containing syntax_error fails with NVRTC_ERROR_COMPILATION
 *     and a log naming its line: "NAME(LINE): error: …";
 *   - a source containing fake_warning compiles with a warning in the log;
 *   - an option starting with --bogus fails with NVRTC_ERROR_INVALID_OPTION.
 *
 * Every compilation appends "nvrtcCompileProgram name=… opts=…" to
 * $FAKE_CUDA_LOG. -DNO_CUBIN builds an NVRTC older than 11.1 (no
 * nvrtcGetCUBIN), so the package must fall back to PTX.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int nvrtcResult;

struct prog {
	char *src, *name, *log;
	char *cubin, *ptx;
	size_t cubinLen, ptxLen;
};

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

nvrtcResult nvrtcVersion(int *major, int *minor) { *major = 13; *minor = 0; return 0; }

const char *nvrtcGetErrorString(nvrtcResult r) {
	switch (r) {
	case 0: return "NVRTC_SUCCESS";
	case 3: return "NVRTC_ERROR_INVALID_INPUT";
	case 5: return "NVRTC_ERROR_INVALID_OPTION";
	case 6: return "NVRTC_ERROR_COMPILATION";
	}
	return "NVRTC_ERROR unknown";
}

nvrtcResult nvrtcCreateProgram(struct prog **p, const char *src, const char *name, int nh,
		const char *const *headers, const char *const *includes) {
	if (!src) return 3;
	struct prog *q = calloc(1, sizeof *q);
	q->src = strdup(src);
	q->name = strdup(name ? name : "default_program");
	q->log = strdup("");
	*p = q;
	return 0;
}

nvrtcResult nvrtcDestroyProgram(struct prog **p) {
	struct prog *q = *p;
	free(q->src); free(q->name); free(q->log); free(q->cubin); free(q->ptx);
	free(q);
	*p = 0;
	return 0;
}

static int lineOf(const char *src, const char *at) {
	int line = 1;
	for (const char *s = src; s < at; s++) if (*s == '\n') line++;
	return line;
}

nvrtcResult nvrtcCompileProgram(struct prog *p, int n, const char *const *opts) {
	char all[4096] = "";
	size_t used = 0;
	for (int i = 0; i < n; i++) used += snprintf(all + used, sizeof all - used, "%s%s", i ? "|" : "", opts[i]);
	flog("nvrtcCompileProgram name=%s opts=%s", p->name, all);
	for (int i = 0; i < n; i++) {
		if (strncmp(opts[i], "--bogus", 7) == 0) {
			free(p->log);
			p->log = malloc(256);
			snprintf(p->log, 256, "nvrtc: error: unrecognized option %s\n", opts[i]);
			return 5;
		}
	}
	const char *bad = strstr(p->src, "syntax_error");
	if (bad) {
		free(p->log);
		p->log = malloc(1024);
		snprintf(p->log, 1024, "%s(%d): error: identifier \"syntax_error\" is undefined\n\n1 error detected in the compilation of \"%s\".\n",
			p->name, lineOf(p->src, bad), p->name);
		return 6;
	}
	const char *warn = strstr(p->src, "fake_warning");
	if (warn) {
		free(p->log);
		p->log = malloc(1024);
		snprintf(p->log, 1024, "%s(%d): warning #177-D: variable \"fake_warning\" was declared but never referenced\n",
			p->name, lineOf(p->src, warn));
	}
	size_t sl = strlen(p->src);
	p->cubin = malloc(sl + strlen(all) + 32);
	p->cubinLen = (size_t)sprintf(p->cubin, "FAKECUBIN\nopts: %s\n%s", all, p->src) + 1;
	p->ptx = malloc(sl + 16);
	p->ptxLen = (size_t)sprintf(p->ptx, "//FAKEPTX\n%s", p->src) + 1;
	return 0;
}

nvrtcResult nvrtcGetProgramLogSize(struct prog *p, size_t *n) { *n = strlen(p->log) + 1; return 0; }
nvrtcResult nvrtcGetProgramLog(struct prog *p, char *buf) { strcpy(buf, p->log); return 0; }

#ifndef NO_CUBIN
nvrtcResult nvrtcGetCUBINSize(struct prog *p, size_t *n) { *n = p->cubinLen; return 0; }
nvrtcResult nvrtcGetCUBIN(struct prog *p, char *buf) { memcpy(buf, p->cubin, p->cubinLen); return 0; }
#endif

nvrtcResult nvrtcGetPTXSize(struct prog *p, size_t *n) { *n = p->ptxLen; return 0; }
nvrtcResult nvrtcGetPTX(struct prog *p, char *buf) { memcpy(buf, p->ptx, p->ptxLen); return 0; }
