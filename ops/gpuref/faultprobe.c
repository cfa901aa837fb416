/* faultprobe.c — can a process use the GPU again after a kernel fault
 * (CUDA_ERROR_ILLEGAL_ADDRESS)? Each strategy runs in a fresh process:
 *   faultprobe faultkernels.cubin primary   fault in the primary context,
 *                                           cuDevicePrimaryCtxReset, retain again
 *   faultprobe faultkernels.cubin created   fault in a created context,
 *                                           destroy it, create another
 * Prints one JSON line per step with the driver's result. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>

static const char *name(CUresult r) { const char *s = "?"; cuGetErrorName(r, &s); return s; }
#define STEP(label, x) do { CUresult r_ = (x); printf("{\"step\":\"%s\",\"result\":\"%s\"}\n", label, name(r_)); fflush(stdout); } while (0)

static CUresult run(CUcontext ctx, const char *cubin, const char *kernel, int *out) {
    CUmodule m; CUfunction f; CUdeviceptr p; CUresult r;
    if ((r = cuCtxSetCurrent(ctx))) return r;
    if ((r = cuModuleLoad(&m, cubin))) return r;
    if ((r = cuModuleGetFunction(&f, m, kernel))) return r;
    if ((r = cuMemAlloc(&p, 4))) return r;
    if ((r = cuMemsetD32(p, 0, 1))) return r;
    void *args[] = { &p };
    if ((r = cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, args, 0))) return r;
    if ((r = cuCtxSynchronize())) return r;
    if ((r = cuMemcpyDtoH(out, p, 4))) return r;
    cuMemFree(p);
    return cuModuleUnload(m);
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: faultprobe CUBIN primary|created\n"); return 2; }
    const char *cubin = argv[1];
    CUdevice dev; CUcontext ctx; int v = 0;
    STEP("init", cuInit(0));
    STEP("device", cuDeviceGet(&dev, 0));
    if (!strcmp(argv[2], "primary")) {
        STEP("retain", cuDevicePrimaryCtxRetain(&ctx, dev));
        STEP("fault", run(ctx, cubin, "bad", &v));
        STEP("reset", cuDevicePrimaryCtxReset(dev));
        STEP("retain again", cuDevicePrimaryCtxRetain(&ctx, dev));
        STEP("good kernel", run(ctx, cubin, "good", &v));
    } else {
        STEP("create", cuCtxCreate(&ctx, NULL, 0, dev));
        STEP("fault", run(ctx, cubin, "bad", &v));
        STEP("destroy", cuCtxDestroy(ctx));
        STEP("create again", cuCtxCreate(&ctx, NULL, 0, dev));
        STEP("good kernel", run(ctx, cubin, "good", &v));
        CUcontext prim;
        STEP("primary after", cuDevicePrimaryCtxRetain(&prim, dev));
    }
    printf("{\"strategy\":\"%s\",\"good_kernel_wrote\":%d}\n", argv[2], v);
    return 0;
}
