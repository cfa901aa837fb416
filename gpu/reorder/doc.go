// Package reorder computes vertex orderings on the device where a graph
// lives (a *gpu.Graph), identical bit for bit to package graph's host
// orderings, so that a study switch such as the MST study's Renumber needs
// no host round trip. It imports only gpu, gpu/transform and graph.
//
//   - RCMOrder: graph.RCMOrder's reverse Cuthill-McKee order of an
//     undirected graph (newID and oldID, inverse permutations).
//
// graph.RCMOrder works one component at a time; R-MAT graphs have one
// giant component, hundreds of thousands of tiny ones and many isolated
// vertices, so the device order treats every component at once, with a
// number of launches that grows with the searches' depth, not with the
// number of components:
//
//  1. the vertices are sorted by (degree, id) (transform.SortPairs); a
//     vertex's rank in that order stands for (degree, id) from then on;
//  2. connected components by hooking trees over every arc with
//     compare-and-swap, then flattening; a component is named by the
//     least rank of its vertices, which orders the components as
//     graph.RCMOrder starts them, and a scan numbers them;
//  3. George and Liu's pseudo-peripheral search in bulk-synchronous rounds:
//     one breadth-first search from every still-moving component's current
//     vertex, each level expanding the frontier and building the next one,
//     then per component its eccentricity (atomic max) and the least rank
//     of its last level (atomic min); a component whose eccentricity
//     stopped growing keeps its root and drops out; at most 1 + 16
//     searches, as on the host;
//  4. the Cuthill-McKee numbering one level at a time for all components:
//     level 0 holds the roots in component order; each vertex of the next
//     level learns the least position of its neighbours in the current
//     level (atomic min), and the level is sorted by (that position, rank)
//     — positions are global, and each level stays in component order, so
//     a component's part of the level comes out exactly as graph.RCMOrder
//     orders it;
//  5. the levels, concatenated, are sorted stably by component number,
//     which gives the Cuthill-McKee order, and reversed into the ids.
//
// Every kernel over arcs takes a vertex list (all vertices, or a
// frontier) cut in chunks of 256 arcs and runs a warp per chunk in a
// grid-stride loop, so that a hub's list is spread over many warps and a
// small level costs a few short launches. The kernels (reorder.cu) are
// the package's own CUDA C, compiled by NVRTC through gpu.ModuleCache;
// sorts and scans are package transform's. On the host device RCMOrder runs graph.RCMOrder on the
// graph's host copy. Tests compare the device order with graph.RCMOrder on
// the fake driver (testdata/fake_kernels.cpp, linked with transform's) and
// on the GPU; BenchmarkGPURCM measures it at R-MAT scales 20 and 22.
package reorder
