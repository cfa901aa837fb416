// memcpy.cu — the CUDA runtime's own copy bandwidth, the reference the Go
// layer is measured against (issue 4: ≥ 80% of cudaMemcpy for 1 GiB).
// Built and run on the GPU machine by ops/gpu-test.sh run:
//   nvcc -O2 -o memcpy memcpy.cu && ./memcpy [MiB]
// Prints one JSON object per measurement: best of 5 copies.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

static double best(void (*copy)(void*, void*, size_t), void *dst, void *src, size_t n) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    float bestMs = 1e30f;
    for (int i = 0; i < 6; i++) {  // the first is a warm-up
        CHECK(cudaEventRecord(a));
        copy(dst, src, n);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (i > 0 && ms < bestMs) bestMs = ms;
    }
    return n / (bestMs / 1e3) / 1e9;
}

static void h2d(void *d, void *h, size_t n) { CHECK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice)); }
static void d2h(void *h, void *d, size_t n) { CHECK(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost)); }

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? strtoull(argv[1], 0, 10) : 1024;
    size_t n = mib << 20;
    void *dev, *pageable, *pinned;
    CHECK(cudaMalloc(&dev, n));
    pageable = malloc(n);
    memset(pageable, 1, n);
    CHECK(cudaMallocHost(&pinned, n));
    memset(pinned, 1, n);
    printf("{\"ref\":\"cudaMemcpy\",\"host\":\"pageable\",\"dir\":\"h2d\",\"MiB\":%zu,\"GBps\":%.2f}\n", mib, best(h2d, dev, pageable, n));
    printf("{\"ref\":\"cudaMemcpy\",\"host\":\"pageable\",\"dir\":\"d2h\",\"MiB\":%zu,\"GBps\":%.2f}\n", mib, best(d2h, pageable, dev, n));
    printf("{\"ref\":\"cudaMemcpy\",\"host\":\"pinned\",\"dir\":\"h2d\",\"MiB\":%zu,\"GBps\":%.2f}\n", mib, best(h2d, dev, pinned, n));
    printf("{\"ref\":\"cudaMemcpy\",\"host\":\"pinned\",\"dir\":\"d2h\",\"MiB\":%zu,\"GBps\":%.2f}\n", mib, best(d2h, pinned, dev, n));
    return 0;
}
