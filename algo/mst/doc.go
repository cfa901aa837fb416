// Package mst computes minimum spanning forests of undirected graphs on the
// CPU and checks spanning forests computed elsewhere (the GPU Borůvka of
// seeds.md §3 is validated with Check before its time counts).
//
// Two CPU entry points:
//
//   - Kruskal sorts the edges by weight and joins them with a union-find;
//     it is the sequential reference.
//   - Boruvka is the study's algorithm (Kolganov 2016, seeds.md §3) on all
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
package mst
