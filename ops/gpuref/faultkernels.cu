// faultkernels.cu — a kernel that faults and one that works, for faultprobe.c.
extern "C" __global__ void bad(int *p) { *(volatile int *)(p + (1ll << 40)) = 1; }
extern "C" __global__ void good(int *p) { *p = 42; }
