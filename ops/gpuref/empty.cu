// empty.cu — the empty kernel whose launch cost launch.c measures.
extern "C" __global__ void empty() {}
