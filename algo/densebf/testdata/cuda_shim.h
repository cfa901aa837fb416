// cuda_shim.h declares the CUDA built-ins densebf.cu uses, so that a host
// C++ compiler can check its syntax, types and overloads
// (TestKernelSourceSyntax: g++ -std=c++17 -fsyntax-only -include this;
// TestKernelSourceSyntaxTraced: the traced build, after
// gpu/launchlog.cuh, which reads the emulator's clock off the GPU).
// Nothing here runs; the declarations follow CUDA's signatures.
#define __global__
#define __device__
#define __launch_bounds__(...)
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __shared__

struct shim_dim3 {
	unsigned x, y, z;
};
extern shim_dim3 blockIdx, threadIdx, blockDim, gridDim;

struct alignas(16) int4 {
	int x, y, z, w;
};
struct alignas(16) float4 {
	float x, y, z, w;
};

void __syncthreads();
int __syncthreads_or(int predicate);
unsigned __ballot_sync(unsigned mask, int predicate);
int __popc(unsigned x);
int __shfl_down_sync(unsigned mask, int v, unsigned delta, int width = 32);
float __shfl_down_sync(unsigned mask, float v, unsigned delta, int width = 32);
int atomicAdd(int *p, int v);
unsigned long long atomicMax(unsigned long long *p, unsigned long long v);
float __int_as_float(int x);

int __ldg(const int *p);
float __ldg(const float *p);
int4 __ldg(const int4 *p);
float4 __ldg(const float4 *p);

namespace emu {
unsigned long long globaltimer();
}
