// Package graph holds graphnb's graph representations and the input
// transforms of the five GPU studies the project reproduces.
//
// The central type is CSR (compressed sparse row, the studies' xadj /
// adjncy / weights). An undirected graph stores both arcs of every edge, so
// it has 2·M arcs for M edges. Build turns an edge list into a CSR, removing
// self-loops and duplicate edges. COO is the edge-list view of the SSSP
// study (startV / endV / weights, each undirected pair once); Dense is the
// adjacency matrix used by Floyd-Warshall and the dense Bellman-Ford.
//
// Vertex ids are int32 (up to 2^31-1 vertices), arc offsets int64. Weights
// are float32 by default, float64 where a study uses doubles; a graph holds
// at most one of the two.
//
// The transforms prepare a graph for a GPU kernel exactly as the cited
// study section describes; none of them changes the graph's meaning:
// PermuteCOO (edge segments for L2 locality, SSSP study), RCMOrder with
// Renumber (close numbers for connected vertices), SortByWeight,
// RankWeights / WeightRanks and Compress (the MST study's preparation).
// Roots draws Graph500-style search roots; DegreeStats and TEPS describe
// graphs and runs.
package graph
