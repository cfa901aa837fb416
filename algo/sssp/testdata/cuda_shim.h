// cuda_shim.h: declarations standing in for NVRTC's built-ins, so that a
// host C++ compiler can check the syntax and types of sssp.cu
// (TestKernelSourceSyntax: g++ -std=c++17 -fsyntax-only -include this).
// Only what sssp.cu uses, with CUDA's overload sets; nothing here runs.
#define __global__
#define __device__
#define __forceinline__ inline

struct shim_dim3 {
	unsigned x, y, z;
};
extern shim_dim3 blockIdx, threadIdx, blockDim, gridDim;

namespace emu {
unsigned long long globaltimer(); // cuda_emu.h's stand-in for %globaltimer
}

void __syncthreads();
int __syncthreads_or(int predicate);
int __syncthreads_count(int predicate);
void __threadfence();
unsigned __ballot_sync(unsigned mask, int predicate);
int __ffs(int x);
int __popc(unsigned x);
int __clz(int x);

int __shfl_sync(unsigned mask, int var, int src, int width = 32);
unsigned __shfl_sync(unsigned mask, unsigned var, int src, int width = 32);
long long __shfl_sync(unsigned mask, long long var, int src, int width = 32);
unsigned long long __shfl_sync(unsigned mask, unsigned long long var, int src, int width = 32);
float __shfl_sync(unsigned mask, float var, int src, int width = 32);
double __shfl_sync(unsigned mask, double var, int src, int width = 32);
int __shfl_up_sync(unsigned mask, int var, unsigned delta, int width = 32);
unsigned __shfl_up_sync(unsigned mask, unsigned var, unsigned delta, int width = 32);
unsigned long long __shfl_up_sync(unsigned mask, unsigned long long var, unsigned delta, int width = 32);
int __shfl_xor_sync(unsigned mask, int var, int laneMask, int width = 32);
unsigned __shfl_xor_sync(unsigned mask, unsigned var, int laneMask, int width = 32);
long long __shfl_xor_sync(unsigned mask, long long var, int laneMask, int width = 32);
unsigned long long __shfl_xor_sync(unsigned mask, unsigned long long var, int laneMask, int width = 32);
float __shfl_xor_sync(unsigned mask, float var, int laneMask, int width = 32);
double __shfl_xor_sync(unsigned mask, double var, int laneMask, int width = 32);

int __ldg(const int *p);
unsigned __ldg(const unsigned *p);
long long __ldg(const long long *p);
unsigned long long __ldg(const unsigned long long *p);
float __ldg(const float *p);
double __ldg(const double *p);

int atomicMin(int *p, int v);
unsigned atomicMin(unsigned *p, unsigned v);
long long atomicMin(long long *p, long long v);
unsigned long long atomicMin(unsigned long long *p, unsigned long long v);
unsigned long long atomicMax(unsigned long long *p, unsigned long long v);
int atomicExch(int *p, int v);
unsigned atomicExch(unsigned *p, unsigned v);
unsigned long long atomicExch(unsigned long long *p, unsigned long long v);
int atomicAdd(int *p, int v);
unsigned atomicAdd(unsigned *p, unsigned v);
unsigned long long atomicAdd(unsigned long long *p, unsigned long long v);

double __longlong_as_double(long long x);
long long __double_as_longlong(double x);
float __uint_as_float(unsigned x);
unsigned __float_as_uint(float x);
