package graph

import (
	"fmt"
	"math"

	"github.com/graphnb/graphnb/internal/card"
	"github.com/graphnb/graphnb/internal/membudget"
	"github.com/graphnb/graphnb/internal/par"
)

// InfI32 is "no path" in an int32 distance matrix. It is half of
// math.MaxInt32, so the sum of two entries never overflows; algorithms
// treat any sum ≥ InfI32 as InfI32.
const InfI32 int32 = math.MaxInt32 / 2

// MaxDenseVertices bounds Dense matrices made from graphs: 65,536² entries
// of 4 bytes is 16 GiB.
const MaxDenseVertices = 1 << 16

// Dense is an N×N weight or distance matrix in row-major order, the input
// of Floyd-Warshall (docs/studies.md §4) and of the dense Bellman-Ford (§5).
// Entry (i, j) is at index i*N+j. Exactly one of F32 (no edge = +Inf) and
// I32 (no edge = InfI32) holds the entries; the diagonal is 0.
type Dense struct {
	N   int
	F32 []float32
	I32 []int32
}

// NewDenseF32 returns an n×n float32 matrix with a zero diagonal and +Inf
// elsewhere. It has no error result, so it panics with the error of
// NewDense when n is outside [0, MaxDenseVertices], when the matrix does
// not fit in the memory available, or when interrupted; NewDense returns
// these errors instead.
func NewDenseF32(n int) *Dense {
	d, err := NewDense(n, false)
	if err != nil {
		panic(err)
	}
	return d
}

// NewDenseI32 returns an n×n int32 matrix with a zero diagonal and InfI32
// elsewhere. It panics where NewDenseF32 does.
func NewDenseI32(n int) *Dense {
	d, err := NewDense(n, true)
	if err != nil {
		panic(err)
	}
	return d
}

// DenseBytes returns the bytes of an n×n matrix: 4n².
func denseBytes(n int) int64 { return membudget.Bytes(int64(n)*int64(n), 4) }

// NewDense returns an n×n matrix with a zero diagonal and no edge
// elsewhere: int32 entries (InfI32) with integer set, else float32 (+Inf).
// It returns an error when n is outside [0, MaxDenseVertices], when the
// 4n² bytes do not fit in the memory available (the machine's free memory,
// its cgroup limit and GRAPHNB_MEMORY: see the README), and
// cancel's error when interrupted.
func NewDense(n int, integer bool) (*Dense, error) {
	if n < 0 || n > MaxDenseVertices {
		return nil, fmt.Errorf("graph: a dense matrix of %d vertices is outside [0, %d] (it would need %s)", n, MaxDenseVertices, card.Bytes(denseBytes(max(n, 0))))
	}
	if err := membudget.Check(fmt.Sprintf("graph: a %d×%d dense matrix", n, n), denseBytes(n)); err != nil {
		return nil, err
	}
	d := &Dense{N: n}
	var err error
	if integer {
		d.I32 = make([]int32, n*n)
		err = par.For(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				row := d.I32[i*n : (i+1)*n]
				for j := range row {
					row[j] = InfI32
				}
				row[i] = 0
			}
		})
	} else {
		d.F32 = make([]float32, n*n)
		inf := float32(math.Inf(1))
		err = par.For(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				row := d.F32[i*n : (i+1)*n]
				for j := range row {
					row[j] = inf
				}
				row[i] = 0
			}
		})
	}
	if err != nil {
		return nil, fmt.Errorf("graph: making a dense matrix: %w", err)
	}
	return d, nil
}

// IsInt reports whether the matrix holds int32 entries.
func (d *Dense) IsInt() bool { return d.I32 != nil }

// At returns entry (i, j) as a float64 (+Inf for no edge).
func (d *Dense) At(i, j int) float64 {
	if d.I32 != nil {
		v := d.I32[i*d.N+j]
		if v >= InfI32 {
			return math.Inf(1)
		}
		return float64(v)
	}
	return float64(d.F32[i*d.N+j])
}

// MemoryBytes returns the bytes held by the entries.
func (d *Dense) MemoryBytes() int64 { return int64(len(d.F32))*4 + int64(len(d.I32))*4 }

// Clone returns a deep copy. It has no error result, so it panics with
// an error when the copy does not fit in the memory available or when
// interrupted.
func (d *Dense) Clone() *Dense {
	if err := membudget.Check(fmt.Sprintf("graph: a copy of a %d×%d dense matrix", d.N, d.N), d.MemoryBytes()); err != nil {
		panic(err)
	}
	c := &Dense{N: d.N}
	if d.F32 != nil {
		c.F32 = make([]float32, len(d.F32))
	}
	if d.I32 != nil {
		c.I32 = make([]int32, len(d.I32))
	}
	err := par.For(max(len(d.F32), len(d.I32)), func(lo, hi int) {
		copy(c.F32[min(lo, len(c.F32)):min(hi, len(c.F32))], d.F32[min(lo, len(d.F32)):min(hi, len(d.F32))])
		copy(c.I32[min(lo, len(c.I32)):min(hi, len(c.I32))], d.I32[min(lo, len(d.I32)):min(hi, len(d.I32))])
	})
	if err != nil {
		panic(fmt.Errorf("graph: Clone: %w", err))
	}
	return c
}

// Dense returns the graph's weight matrix (unit weights if unweighted).
// With integer set the entries are int32 and every weight must be a whole
// number ≥ 0 small enough that no path can reach InfI32; otherwise they are
// float32. The graph must have at most MaxDenseVertices vertices, and the
// 4N² bytes must fit in the memory available (see NewDense). An interrupt
// returns cancel's error.
func (g *CSR) Dense(integer bool) (*Dense, error) {
	n := g.NumVertices()
	if n > MaxDenseVertices {
		return nil, fmt.Errorf("graph: a dense matrix of %d vertices needs %s; the limit is %d vertices",
			n, card.Bytes(denseBytes(n)), MaxDenseVertices)
	}
	if integer {
		var maxW float64
		for k := range g.Adj {
			if par.Cancelled(k) {
				return nil, interrupted("Dense")
			}
			w := g.ArcWeight(int64(k))
			if w < 0 || w != math.Trunc(w) {
				return nil, fmt.Errorf("graph: arc %d weighs %g, not a whole number ≥ 0: use a float32 matrix", k, w)
			}
			maxW = max(maxW, w)
		}
		if maxW*float64(max(n-1, 1)) >= float64(InfI32) {
			return nil, fmt.Errorf("graph: weights up to %g over %d vertices may overflow int32 distances: use a float32 matrix", maxW, n)
		}
	}
	d, err := NewDense(n, integer)
	if err != nil {
		return nil, err
	}
	err = par.ForWeighted(g.Offsets, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			for k := g.Offsets[u]; k < g.Offsets[u+1]; k++ {
				if integer {
					d.I32[u*n+int(g.Adj[k])] = int32(g.ArcWeight(k))
				} else {
					d.F32[u*n+int(g.Adj[k])] = float32(g.ArcWeight(k))
				}
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("graph: Dense: %w", err)
	}
	return d, nil
}

// DenseInfo summarises the entries of a matrix that passed Inspect.
type DenseInfo struct {
	// Negative reports a negative entry (the diagonal included).
	Negative bool
	// MaxAbs is the largest absolute finite entry.
	MaxAbs float64
}

// Inspect validates d as input to a shortest-path algorithm: exactly one
// of F32 and I32 holding N·N entries, N in [0, MaxDenseVertices], float32
// entries neither NaN nor −Inf, int32 entries above −InfI32 (entries ≥
// InfI32 mean no edge), and, when some int32 entry is negative,
// (N−1)·max|entry| below InfI32 so that no path sum can overflow. It does
// not judge the diagonal. Work is O(N²). A nil matrix is an error, and so
// is an interrupt (cancel's error).
func (d *Dense) Inspect() (DenseInfo, error) {
	var info DenseInfo
	if d == nil {
		return info, fmt.Errorf("graph: no matrix (nil)")
	}
	n := d.N
	switch {
	case n < 0 || n > MaxDenseVertices:
		return info, fmt.Errorf("graph: N = %d is outside [0, %d]", n, MaxDenseVertices)
	case (d.F32 == nil) == (d.I32 == nil) && n > 0:
		return info, fmt.Errorf("graph: the matrix must hold exactly one of F32 and I32")
	case d.F32 != nil && len(d.F32) != n*n:
		return info, fmt.Errorf("graph: the matrix says N = %d but holds %d float32 entries (want N·N = %d)", n, len(d.F32), n*n)
	case d.I32 != nil && len(d.I32) != n*n:
		return info, fmt.Errorf("graph: the matrix says N = %d but holds %d int32 entries (want N·N = %d)", n, len(d.I32), n*n)
	}
	for k, w := range d.F32 {
		if par.Cancelled(k) {
			return info, interrupted("Inspect")
		}
		switch {
		case w != w || math.IsInf(float64(w), -1):
			return info, fmt.Errorf("graph: entry (%d, %d) is %v; weights must be numbers or +Inf", k/n, k%n, w)
		case w < 0:
			info.Negative = true
		}
		if !math.IsInf(float64(w), 1) {
			info.MaxAbs = max(info.MaxAbs, math.Abs(float64(w)))
		}
	}
	for k, w := range d.I32 {
		if par.Cancelled(k) {
			return info, interrupted("Inspect")
		}
		switch {
		case w <= -InfI32:
			return info, fmt.Errorf("graph: entry (%d, %d) = %d is at or below −InfI32 (−%d)", k/n, k%n, w, InfI32)
		case w < 0:
			info.Negative = true
		}
		if w < InfI32 {
			info.MaxAbs = max(info.MaxAbs, math.Abs(float64(w)))
		}
	}
	if d.I32 != nil && info.Negative && float64(n-1)*info.MaxAbs >= float64(InfI32) {
		return info, fmt.Errorf("graph: with negative weights, int32 paths of up to %d edges of weight up to ±%g may leave (−InfI32, InfI32): use a float32 matrix", n-1, info.MaxAbs)
	}
	return info, nil
}
