// Package mst computes minimum spanning forests of undirected graphs on the
// CPU and checks spanning forests computed elsewhere (the GPU Borůvka of
// docs/studies.md §3 is validated with Check before its time counts).
//
// Two CPU entry points:
//
//   - Kruskal sorts the edges by weight and joins them with a union-find;
//     it is the sequential reference.
//   - Boruvka is the study's algorithm (Kolganov 2016, docs/studies.md §3) on all
//     cores: every round each tree picks its minimum outgoing edge, mutual
//     choices (2-cycles) are broken towards the smaller tree id, trees are
//     merged by pointer jumping and renumbered 0..P-1. It stops when one
//     tree remains or no tree has an outgoing edge, so a disconnected graph
//     gives a minimum spanning forest.
//
// Both order edges by the same strict total order — weight, then the
// smaller endpoint, then the larger — so the minimum spanning forest is
// unique and the two algorithms return identical Edges (and bit-identical
// Weight), whatever the ties in the weights.
//
// The graph must be undirected (graph.CSR with Directed false); an
// unweighted graph has unit weights. Results report time and the rate in
// both TEPS conventions; like the study, the rate divides the graph's
// stored arcs (2·M) by the time, excluding preparation (PrepTime).
//
// On a GPU (Prepare, Run; gpu.go, boruvka.cu) the study's Borůvka runs
// every round on the device: weight-sorted neighbour segments scanned by
// warps 32 arcs at a time (short segments by one thread), a per-tree
// atomicMin on a 64-bit key (the weight or its rank, then the edge's
// number in the same strict order as the CPU), cycle removal, pointer
// jumping and renumbering with atomics. The study's input transformations
// are switches — WeightRanks, Renumber, Compress (SSCA#2's compressed
// neighbour ids) — and so are its Hybrid mode (the host finds the minima
// of its CPUShare of the vertices in goroutines while the GPU does the
// rest) and MemoryCap (the vertices whose adjacency does not fit stay on
// the host, as the study did with Unified Memory). SeedVariants are the
// figure's "GPU+CPU" and "GPU"; on the host device Run is the CPU's
// Boruvka. GPU forests equal Kruskal's edge for edge.
//
// PrepareResident prepares a graph already on the device (a *gpu.Graph,
// generated or uploaded there) with the transformations on the device
// (resident.go, prepare.cu, and package gpu/transform's scans and stable
// radix sort): the edge numbering, the order of every list by (weight,
// edge number), the ranks, the relabelling of Renumber and the compressed
// ids are bit-identical to Prepare's, and so are the forests; the reverse
// Cuthill-McKee order of Renumber is graph.RCMOrder's, made on the device
// by package gpu/reorder. Run downloads just the forest's edges. A graph that fails the device's checks (lists not sorted by id,
// asymmetric, NaN weights) takes Prepare's host path, which sorts it or
// names the problem.
//
// # Validation on the device
//
// DeviceCheck (NewDeviceCheck, NewResidentCheck) validates a forest on
// the GPU that holds the graph, independently of the Borůvka (check.cu
// shares none of its kernels and never searches minimum edges), in full:
// every forest edge is an edge of the graph with its weight (rule 1); a
// lock-free union-find shows the edges form no cycle (rule 2); every arc
// of the graph joins two vertices of one tree, so the trees are the
// components and Result.Trees their number (rule 3); Weight is the sum of
// the edges (rule 4, on the host, where Edges are); and the cycle
// property (rule 5) — no edge of the graph is lighter than the heaviest
// forest edge on the forest path between its ends, which makes a
// spanning forest minimal — with the forest rooted by an Euler tour
// ranked by pointer jumping and every edge's path maximum found by binary
// lifting. A failure names the rule and the lowest offending forest edge
// or arc. On the host device its Check is the CPU's Check (Kruskal as
// reference). bench validates GPU runs with it.
//
// # Over a group of GPUs
//
// RunGroup (multi.go, multi.cu) runs Borůvka on a graph split by vertex
// blocks over a gpu.Group (a gpu.PartGraph): every rank keeps the
// component labels of all vertices (a label is a vertex id), finds each
// component's minimum outgoing arc among its own arcs in the strict
// order, and the group agrees on it with two AllReduce minima of N
// words per round (the weight's ordered bits, then the packed ends);
// hooking, pointer jumping and relabelling then run alike on every rank
// with no exchange. The forest, sorted on the host, equals Kruskal's
// edge for edge and Weight bit for bit. GroupResult.Check validates it
// on the devices with DeviceCheck's five rules, each rank checking its
// own part (check.cu's union-find, Euler tour and lifting kernels reused
// on the whole forest) and the failures reduced over the group. A group
// of the host device runs Boruvka.
package mst
