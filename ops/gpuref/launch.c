/* launch.c — cost of cuLaunchKernel called directly from C, the reference
 * for the Go layer's launch overhead (issue 4: ≤ 2× this). Built and run
 * on the GPU machine by ops/gpu-test.sh run:
 *   nvcc -cubin -arch=sm_90 -o empty.cubin empty.cu
 *   nvcc -O2 -o launch launch.c -lcuda && ./launch empty.cubin [N]
 * Launches the empty kernel N times (default 200000) and synchronizes
 * once; reports microseconds per launch, best of 5 rounds. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char *s; \
    cuGetErrorName(r, &s); fprintf(stderr, "%s: %s\n", #x, s); exit(1); } } while (0)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: launch empty.cubin [N]\n"); return 2; }
    int n = argc > 2 ? atoi(argv[2]) : 200000;
    CUdevice dev; CUcontext ctx; CUmodule mod; CUfunction f;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoad(&mod, argv[1]));
    CHECK(cuModuleGetFunction(&f, mod, "empty"));
    double bestUs = 1e30;
    for (int round = 0; round < 6; round++) {  /* the first is a warm-up */
        double t0 = now();
        for (int i = 0; i < n; i++)
            CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, NULL, NULL));
        CHECK(cuCtxSynchronize());
        double us = (now() - t0) / n * 1e6;
        if (round > 0 && us < bestUs) bestUs = us;
    }
    printf("{\"ref\":\"cuLaunchKernel from C\",\"launches\":%d,\"us_per_launch\":%.3f}\n", n, bestUs);
    return 0;
}
