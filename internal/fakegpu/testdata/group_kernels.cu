// group_kernels.cu: the kernel of fakegpu's own group test (group_test.go
// compiles it with NVRTC; group_kernels.cpp emulates it).
extern "C" __global__ void fgroup_affine(const long long *in, long long *out, int n, long long k) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) out[i] = __ldg(&in[i]) * k + 1;
}
