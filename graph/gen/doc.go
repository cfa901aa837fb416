// Package gen generates the graphs of the studies and small teaching
// graphs, as undirected CSRs (graph.Build with Symmetrize).
//
// The studies' graphs (docs/studies.md, "common ground"; SSCA#2 also in §3):
//
//   - RMAT: R-MAT / Graph500 Kronecker graphs with 2^scale vertices and
//     edgeFactor·2^scale edges; edge factor 16 gives the studies' average
//     degree 32 in arcs. RMATEdges gives the raw, directed edge list.
//   - SSCA2: the HPCS SSCA#2 graph of Bader and Madduri, cliques joined by
//     sparse inter-clique edges, tuned by default to average degree ≈ 32.
//     SSCA2Edges gives the edge list.
//
// Teaching graphs: Path, Grid, Star, Complete and ErdosRenyi (G(n, p)).
//
// Options (Seed, weights, R-MAT's probabilities and noise, vertex
// permutation, SSCA#2's parameters) are shared; a generator ignores the
// ones that do not concern it. Weights are uniform in [0, 1) by default,
// integers 1..MaxIntWeight for SSCA2.
//
// Every generator is deterministic: the same seed and parameters give the
// same graph whatever the number of cores, because all random numbers come
// from streams tied to fixed chunks of the work (xoshiro256** seeded by
// SplitMix64 from the seed, the purpose and the chunk number), never to
// goroutines; the vertex permutation is a keyed bijection computed per
// vertex. PlanRMAT exports R-MAT's recipe (alias tables, stream states,
// permutation) so that package gpugen generates the same graphs on a GPU,
// straight into device memory. The work runs in parallel on all cores
// and polls the cancellation point (package cancel) between chunks; an
// interrupted generator returns an error matching cancel.ErrInterrupted.
package gen
