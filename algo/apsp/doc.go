// Package apsp computes all-pairs shortest paths on a dense matrix
// (graph.Dense) by Floyd-Warshall on the CPU, and checks APSP results
// computed elsewhere (seeds.md §4: the plain and blocked GPU Floyd-Warshall
// of the fruit-fly neuron study are validated with Check).
//
// Two CPU entry points:
//
//   - FloydWarshall is the plain algorithm: for k = 0..n-1,
//     D[i][j] = min(D[i][j], D[i][k] + D[k][j]), rows in parallel.
//   - Blocked is the tiled algorithm of Venkataraman, Sahni and
//     Mukhopadhyaya (2003), the one Katz and Kider (2008) put on the GPU:
//     for each diagonal tile, phase 1 updates the tile itself, phase 2 the
//     tiles of its row and column, phase 3 all the others, tiles of a
//     phase in parallel. A matrix whose size is not a multiple of the tile
//     has ragged last tiles.
//
// Both keep a predecessor matrix, so Result.Path rebuilds a shortest path;
// ties between equally short paths go to the one with fewer edges, which
// keeps predecessors free of cycles even with zero-weight cycles.
// Entries are float32 (+Inf: no edge) or int32 (graph.InfI32: no edge; a
// sum ≥ InfI32 counts as InfI32), computed in that arithmetic. Negative
// weights are allowed; a negative cycle is an error (NegativeCycleError)
// naming a vertex on it. Inputs are never modified.
package apsp
