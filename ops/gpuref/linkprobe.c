/* linkprobe.c — which way of linking a dynamic-parallelism module against
 * libcudadevrt works with this driver? Each variant runs in a child
 * process, so a crash is reported rather than fatal:
 *   culink-cubin   NVRTC -rdc CUBIN + libcudadevrt.a through cuLink*
 *   culink-ptx     NVRTC -rdc PTX   + libcudadevrt.a through cuLink*
 *   nvjitlink      NVRTC -rdc CUBIN + libcudadevrt.a through nvJitLink
 * Build: nvcc -O2 -o linkprobe linkprobe.c -lcuda -lnvrtc -lnvJitLink
 * Usage: linkprobe /usr/local/cuda/lib64/libcudadevrt.a */
#include <cuda.h>
#include <nvrtc.h>
#include <nvJitLink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *src =
    "extern \"C\" __global__ void child(int *out) { out[threadIdx.x] = threadIdx.x + 1; }\n"
    "extern \"C\" __global__ void parent(int *out) { if (threadIdx.x == 0) child<<<1, 32>>>(out); }\n";

static const char *cuName(CUresult r) { const char *s = "?"; cuGetErrorName(r, &s); return s; }

static int compile(int ptx, char **img, size_t *n) {
    nvrtcProgram p;
    nvrtcCreateProgram(&p, src, "dp", 0, 0, 0);
    const char *opts[] = { ptx ? "--gpu-architecture=compute_90" : "--gpu-architecture=sm_90", "-rdc=true" };
    nvrtcResult r = nvrtcCompileProgram(p, 2, opts);
    if (r != NVRTC_SUCCESS) {
        size_t ln; nvrtcGetProgramLogSize(p, &ln); char *log = malloc(ln); nvrtcGetProgramLog(p, log);
        printf("{\"nvrtc\":\"%s\",\"log\":\"see stderr\"}\n", nvrtcGetErrorString(r)); fputs(log, stderr); return 1;
    }
    if (ptx) { nvrtcGetPTXSize(p, n); *img = malloc(*n); nvrtcGetPTX(p, *img); }
    else { nvrtcGetCUBINSize(p, n); *img = malloc(*n); nvrtcGetCUBIN(p, *img); }
    return 0;
}

static int runModule(const void *image) {
    CUmodule m; CUfunction f; CUdeviceptr d; int host[32] = {0}; CUresult r;
    if ((r = cuModuleLoadData(&m, image))) { printf("{\"load\":\"%s\"}\n", cuName(r)); return 1; }
    cuModuleGetFunction(&f, m, "parent");
    cuMemAlloc(&d, sizeof host); cuMemsetD32(d, 0, 32);
    void *args[] = { &d };
    r = cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, args, 0);
    if (!r) r = cuCtxSynchronize();
    if (!r) r = cuMemcpyDtoH(host, d, sizeof host);
    int ok = !r; for (int i = 0; i < 32; i++) ok &= host[i] == i + 1;
    printf("{\"run\":\"%s\",\"child_results_ok\":%s}\n", cuName(r), ok ? "true" : "false");
    return !ok;
}

static int variant(const char *v, const char *devrt) {
    CUdevice dev; CUcontext ctx; char *img; size_t n; CUresult r;
    cuInit(0); cuDeviceGet(&dev, 0); cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
    if (!strncmp(v, "culink", 6)) {
        int ptx = !strcmp(v, "culink-ptx");
        if (compile(ptx, &img, &n)) return 1;
        CUlinkState st; char elog[8192] = {0};
        CUjit_option o[] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
        void *ov[] = { elog, (void *)(size_t)sizeof elog };
        r = cuLinkCreate(2, o, ov, &st); printf("{\"cuLinkCreate\":\"%s\"}\n", cuName(r)); fflush(stdout);
        r = cuLinkAddData(st, ptx ? CU_JIT_INPUT_PTX : CU_JIT_INPUT_CUBIN, img, n, "dp", 0, 0, 0);
        printf("{\"cuLinkAddData\":\"%s\"}\n", cuName(r)); fflush(stdout);
        r = cuLinkAddFile(st, CU_JIT_INPUT_LIBRARY, devrt, 0, 0, 0);
        printf("{\"cuLinkAddFile\":\"%s\",\"log\":\"%.200s\"}\n", cuName(r), elog); fflush(stdout);
        void *out; size_t on;
        r = cuLinkComplete(st, &out, &on); printf("{\"cuLinkComplete\":\"%s\",\"bytes\":%zu}\n", cuName(r), on); fflush(stdout);
        if (r) return 1;
        return runModule(out);
    }
    if (compile(0, &img, &n)) return 1;
    nvJitLinkHandle h; const char *lo[] = { "-arch=sm_90" };
    nvJitLinkResult jr = nvJitLinkCreate(&h, 1, lo); printf("{\"nvJitLinkCreate\":%d}\n", jr);
    jr = nvJitLinkAddData(h, NVJITLINK_INPUT_CUBIN, img, n, "dp"); printf("{\"nvJitLinkAddData\":%d}\n", jr);
    jr = nvJitLinkAddFile(h, NVJITLINK_INPUT_LIBRARY, devrt); printf("{\"nvJitLinkAddFile\":%d}\n", jr);
    jr = nvJitLinkComplete(h); printf("{\"nvJitLinkComplete\":%d}\n", jr); fflush(stdout);
    if (jr) { size_t ls; nvJitLinkGetErrorLogSize(h, &ls); char *l = malloc(ls + 1); nvJitLinkGetErrorLog(h, l); fputs(l, stderr); return 1; }
    size_t cs; nvJitLinkGetLinkedCubinSize(h, &cs); void *cubin = malloc(cs); nvJitLinkGetLinkedCubin(h, cubin);
    printf("{\"linked_cubin_bytes\":%zu}\n", cs);
    return runModule(cubin);
}

int main(int argc, char **argv) {
    const char *devrt = argc > 1 ? argv[1] : "/usr/local/cuda/lib64/libcudadevrt.a";
    const char *vs[] = { "culink-cubin", "culink-ptx", "nvjitlink" };
    for (int i = 0; i < 3; i++) {
        printf("{\"variant\":\"%s\"}\n", vs[i]); fflush(stdout);
        pid_t p = fork();
        if (p == 0) { int rc = variant(vs[i], devrt); fflush(stdout); _exit(rc); }
        int st; waitpid(p, &st, 0);
        if (WIFSIGNALED(st)) printf("{\"variant\":\"%s\",\"crashed\":\"signal %d\"}\n", vs[i], WTERMSIG(st));
        else printf("{\"variant\":\"%s\",\"exit\":%d}\n", vs[i], WEXITSTATUS(st));
        fflush(stdout);
    }
    return 0;
}
