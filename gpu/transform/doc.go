// Package transform holds graph transforms that run on the device where a
// graph already lives (a *gpu.Graph or *gpu.COO), bit-identical to the
// host transforms of package graph, so that an algorithm's Prepare on a
// device-resident graph needs no round trip through the host. Algorithm
// packages call it from their PrepareResident; it imports only gpu and
// graph.
//
// Graph transforms, each equal bit for bit to its host counterpart on the
// graph's host copy (tests compare them on the fake driver and the GPU):
//
//   - UndirectedCOO: graph.CSR.UndirectedCOO, the COO view with every
//     undirected pair once (u < v, in CSR order);
//   - PermuteCOO, PermuteCOOIndex: graph.PermuteCOO(Index), the SSSP/BFS
//     study's segment permutation (edges by tile, oriented Start ≤ End,
//     stable), with the permutation for the Index form;
//   - ArcSources: the vertex each arc leaves (no host counterpart: the
//     building block of per-arc kernels).
//
// Building blocks over device buffers:
//
//   - ExclusiveScan: exclusive prefix sums of int64 counts in place,
//     optionally storing the total after them (counts → CSR offsets);
//   - SortPairs, and a Sorter that keeps its scratch: a stable
//     least-significant-digit radix sort of uint64 keys alone or with
//     uint32, float32 or float64 values, one pass per digit of at most 8
//     bits over the span of bits on which the keys differ — the stable
//     sort the permutation, the MST's neighbour order and weight ranks
//     and package gpugen's arcs are built on; SortScratchBytes gives its
//     memory.
//
// The kernels (transform.cu) are the package's own CUDA C, compiled by
// NVRTC through gpu.ModuleCache (no CUB or Thrust: NVRTC has no headers);
// blocks are 256 threads, scans go by tiles of 2048 elements with a
// recursion on the tile sums. A radix sort pass is three launches: each
// block counts the digits of its tile of 4096 keys (from a byte per key
// that the pass before wrote, after the first), a scan turns the counts
// into places, and each block ranks its tile's keys by digit in shared
// memory (warp ballots, no atomics on the output) and writes the keys
// (with their next digits), then the values, in that order, so that the
// writes of a digit are runs of consecutive addresses. A package whose fake-GPU tests
// reach these kernels links testdata/fake_kernels.cpp (it includes
// transform.cu by a relative path).
//
// Every function returns an error on the host device (use package graph's
// host transforms there), for malformed arguments, and for device errors;
// results are new buffers the caller frees or closes. Scratch memory is
// allocated and freed per call and stated in each function's comment.
package transform
