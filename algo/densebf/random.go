package densebf

import (
	"fmt"
	"math/rand/v2"

	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
)

// RandomDense returns a random directed n×n adjacency matrix, the input
// family of the dense Bellman-Ford study (random graphs of 256..8192
// vertices): each arc i→j (i ≠ j) exists independently with probability
// p. Weights are whole numbers uniform in 1..maxW in an int32 matrix
// (integer true), or reals uniform in [1, maxW] in a float32 matrix
// (exactly 1 when maxW is 1). Missing arcs are graph.InfI32 or +Inf; the
// diagonal is 0.
//
// The matrix depends only on the arguments (rows are drawn in fixed
// chunks, each seeded from seed), not on the core count. It takes O(n²)
// time and 4·n² bytes. RandomDense returns an error for n outside
// [0, graph.MaxDenseVertices], p outside [0, 1], maxW < 1, or int32
// weights whose paths could reach InfI32 (maxW·(n−1) ≥ InfI32).
func RandomDense(n int, p float64, maxW int, seed uint64, integer bool) (*graph.Dense, error) {
	switch {
	case n < 0 || n > graph.MaxDenseVertices:
		return nil, fmt.Errorf("densebf: RandomDense: n = %d is outside [0, %d]", n, graph.MaxDenseVertices)
	case !(p >= 0 && p <= 1):
		return nil, fmt.Errorf("densebf: RandomDense: edge probability %v is outside [0, 1]", p)
	case maxW < 1:
		return nil, fmt.Errorf("densebf: RandomDense: maximum weight %d must be at least 1", maxW)
	case integer && float64(maxW)*float64(max(n-1, 1)) >= float64(graph.InfI32):
		return nil, fmt.Errorf("densebf: RandomDense: int32 weights up to %d over %d vertices may reach InfI32: lower maxW or use float32", maxW, n)
	}
	d, err := graph.NewDense(n, integer)
	if err != nil {
		return nil, fmt.Errorf("densebf: RandomDense: %w", err)
	}
	const rows = 64
	err = par.ForChunks(n, rows, func(c, lo, hi int) {
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		for i := lo; i < hi; i++ {
			for j := 0; j < n; j++ {
				if r.Float64() >= p || i == j {
					continue
				}
				if integer {
					d.I32[i*n+j] = int32(1 + r.IntN(maxW))
				} else {
					d.F32[i*n+j] = float32(1 + float64(maxW-1)*r.Float64())
				}
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("densebf: RandomDense: %w", err)
	}
	return d, nil
}
