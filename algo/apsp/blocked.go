package apsp

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/graphnb/graphnb/cancel"
	"github.com/graphnb/graphnb/graph"
	"github.com/graphnb/graphnb/internal/par"
	"github.com/graphnb/graphnb/trace"
)

// DefaultTile is the tile size Blocked uses when asked for 0: 64×64
// entries of 4 bytes are 16 KiB, so the three tiles a phase-3 update
// touches stay in a core's L1/L2 cache. (The GPU study used 32.)
const DefaultTile = 64

// Blocked returns all-pairs shortest paths of the matrix d by blocked
// Floyd-Warshall (Venkataraman, Sahni, Mukhopadhyaya 2003; docs/studies.md §4)
// with square tiles of tile×tile entries (0 means DefaultTile; a tile
// larger than N is cut to N). For each diagonal tile b, covering the
// k-steps of its vertices:
//
//   - phase 1 runs those k-steps on tile (b, b) alone;
//   - phase 2 runs them on the tiles of row b and column b, which need
//     only themselves and tile (b, b); these tiles run in parallel;
//   - phase 3 runs them on every other tile (I, J), which needs tiles
//     (I, b) and (b, J), final after phase 2; these run in parallel.
//
// When N is not a multiple of the tile, the last tile row and column are
// narrower; every loop takes its bounds from the tile's actual extent.
// The tiles are held in tile-major order while the rounds run (each tile
// contiguous), converted back at the end. Θ(N³) time; Dist, Parents and a
// hop count take 12·N² bytes, twice that while converting; d is not
// modified. Tiles much smaller than 16 are for testing: every tile of a
// phase is one parallel task.
//
// Agreement with FloydWarshall: phases 2 and 3 add D[i][k] + D[k][j] with
// operands that already include later k-steps of the same diagonal tile,
// so the sums are the same path weights grouped differently and reached
// by other ties. For int32 the arithmetic is exact and Dist is
// bit-identical to FloydWarshall's. For float32 the grouping changes the
// rounding, so Dist agrees within the tolerance Check documents and is
// bit-identical only when every sum is exact (e.g. whole-number weights
// below 2^24). Parents may name a different predecessor where several
// shortest paths tie; every Parents leads along a shortest path.
//
// A negative cycle is found when a diagonal entry turns negative after a
// diagonal tile's round; Blocked then reruns the plain algorithm on d to
// name a vertex on the cycle (that costs up to one more FloydWarshall). It
// returns an error for a negative tile, a malformed matrix (not exactly
// one of F32/I32, length not N·N, NaN or −Inf entries, int32 entries
// ≤ −InfI32, or negative int32 weights whose paths could leave
// (−InfI32, InfI32)), and, wrapped, cancel.ErrInterrupted, polled every
// diagonal tile.
func Blocked(d *graph.Dense, tile int) (*Result, error) { return runBlocked(d, tile, false) }

// runBlocked is Blocked, with traced a Result.Trace of a "round" step
// per diagonal tile, each its wall time (the host device's stand-in for
// the blocked GPU methods, Options.Trace).
func runBlocked(d *graph.Dense, tile int, traced bool) (*Result, error) {
	if tile < 0 {
		return nil, fmt.Errorf("apsp: Blocked: tile size %d must be positive (or 0 for the default %d)", tile, DefaultTile)
	}
	if tile == 0 {
		tile = DefaultTile
	}
	t0 := time.Now()
	if d != nil {
		if err := CheckCPUMemory(d.N, true, false); err != nil {
			return nil, err
		}
	}
	in, err := prepare(d, "Blocked")
	if err != nil {
		return nil, err
	}
	tile = max(1, min(tile, in.n))
	prep := time.Since(t0)
	var steps *[]trace.Step
	if traced {
		steps = new([]trace.Step)
	}
	t1 := time.Now()
	if err := in.blocked(tile, steps); err != nil {
		if errors.Is(err, ErrNegativeCycle) {
			// name a vertex on the cycle with the plain algorithm.
			again, err2 := prepare(d, "Blocked")
			if err2 != nil {
				return nil, err2
			}
			if err2 = again.plain(nil); err2 != nil {
				return nil, err2
			}
		}
		return nil, err
	}
	r := in.result(fmt.Sprintf("cpu blocked Floyd-Warshall (tile %d)", tile), tile, prep, time.Since(t1))
	if traced {
		r.Trace = newTrace(r, in.n, *steps)
	}
	return r, nil
}

// tiled holds the matrix in tile-major order: tile (I, J) is a
// contiguous h_I×w_J row-major block, so a tile update streams through
// memory instead of striding by N (a power-of-two N would otherwise map
// every row of a tile to the same cache sets). Only the last tile row and
// column are narrower than t.
type tiled struct {
	n, t, nb int
	f32      []float32
	i32      []int32
	pred     []int32
	hops     []int32
	neg      bool
}

// view is one tile of a tiled matrix: offset, height and width.
type view struct{ off, h, w int }

func (m *tiled) ext(b int) int { return min(m.t, m.n-b*m.t) }

func (m *tiled) view(i, j int) view {
	h := m.ext(i)
	return view{off: i*m.t*m.n + h*j*m.t, h: h, w: m.ext(j)}
}

// convert copies between the row-major input and the tiled layout (in
// both directions), tile rows in parallel; cancel's error when
// interrupted.
func (m *tiled) convert(in *input, toTiled bool) error {
	n := m.n
	return par.ForChunks(m.nb, 1, func(bi, _, _ int) {
		for bj := 0; bj < m.nb; bj++ {
			v := m.view(bi, bj)
			for r := 0; r < v.h; r++ {
				src := (bi*m.t+r)*n + bj*m.t
				dst := v.off + r*v.w
				if toTiled {
					if m.f32 != nil {
						copy(m.f32[dst:dst+v.w], in.f32[src:src+v.w])
					} else {
						copy(m.i32[dst:dst+v.w], in.i32[src:src+v.w])
					}
					copy(m.pred[dst:dst+v.w], in.pred[src:src+v.w])
					copy(m.hops[dst:dst+v.w], in.hops[src:src+v.w])
				} else {
					if m.f32 != nil {
						copy(in.f32[src:src+v.w], m.f32[dst:dst+v.w])
					} else {
						copy(in.i32[src:src+v.w], m.i32[dst:dst+v.w])
					}
					copy(in.pred[src:src+v.w], m.pred[dst:dst+v.w])
				}
			}
		}
	})
}

// update runs the k-steps of the diagonal tile on tile c, reading D[i][k]
// from tile a (same rows as c) and row k from tile b (same columns as c).
// same says that c's rows are the diagonal tile's rows, so row k of c is
// row k of b and is skipped (its update changes nothing). A large tile
// takes long: after a cancellation request it stops early, and the
// caller returns the error.
func (m *tiled) update(c, a, b view, same bool) {
	for k := 0; k < b.h; k++ {
		if k&15 == 0 && cancel.Requested() {
			return
		}
		lo, hi := b.off+k*b.w, b.off+(k+1)*b.w
		pk, hk := m.pred[lo:hi], m.hops[lo:hi]
		for i := 0; i < c.h; i++ {
			if same && i == k {
				continue
			}
			ik, x, y := a.off+i*a.w+k, c.off+i*c.w, c.off+(i+1)*c.w
			switch {
			case m.f32 != nil:
				if dik := m.f32[ik]; dik != float32(math.Inf(1)) {
					relaxF32(m.f32[x:y], m.pred[x:y], m.hops[x:y], m.f32[lo:hi], pk, hk, dik, m.hops[ik])
				}
			case m.neg:
				if dik := m.i32[ik]; dik < graph.InfI32 {
					relaxI32Neg(m.i32[x:y], m.pred[x:y], m.hops[x:y], m.i32[lo:hi], pk, hk, dik, m.hops[ik])
				}
			default:
				if dik := m.i32[ik]; dik < graph.InfI32 {
					relaxI32(m.i32[x:y], m.pred[x:y], m.hops[x:y], m.i32[lo:hi], pk, hk, dik, m.hops[ik])
				}
			}
		}
	}
}

// negativeDiagonal returns a vertex i with D[i][i] < 0 in the diagonal
// tile b, or -1.
func (m *tiled) negativeDiagonal(b int) int {
	v := m.view(b, b)
	for r := 0; r < v.h; r++ {
		x := v.off + r*v.w + r
		if m.f32 != nil && m.f32[x] < 0 || m.i32 != nil && m.i32[x] < 0 {
			return b*m.t + r
		}
	}
	return -1
}

// blocked runs the tile rounds on in with tiles of t×t entries; with
// steps not nil it appends a "round" step per diagonal tile.
func (in *input) blocked(t int, steps *[]trace.Step) error {
	n := in.n
	m := &tiled{n: n, t: t, nb: (n + t - 1) / t, neg: in.neg,
		pred: make([]int32, n*n), hops: make([]int32, n*n)}
	if in.f32 != nil {
		m.f32 = make([]float32, n*n)
	} else {
		m.i32 = make([]int32, n*n)
	}
	if err := m.convert(in, true); err != nil {
		return fmt.Errorf("apsp: Blocked: %w", err)
	}
	nb := m.nb
	for b := 0; b < nb; b++ {
		if err := cancel.Check(); err != nil {
			return fmt.Errorf("apsp: Blocked: %w", err)
		}
		round := time.Now()
		diag := m.view(b, b)
		// phase 1: the diagonal tile.
		m.update(diag, diag, diag, true)
		if err := cancel.Check(); err != nil {
			return fmt.Errorf("apsp: Blocked: %w", err)
		}
		// phase 2: tiles (b, J) and (I, b); other(x) skips index b.
		other := func(x int) int {
			if x >= b {
				return x + 1
			}
			return x
		}
		err := par.ForChunks(2*(nb-1), 1, func(task, _, _ int) {
			if task < nb-1 {
				c := m.view(b, other(task))
				m.update(c, diag, c, true)
			} else {
				c := m.view(other(task-(nb-1)), b)
				m.update(c, c, diag, false)
			}
		})
		if err != nil {
			return fmt.Errorf("apsp: Blocked: %w", err)
		}
		// phase 3: every other tile.
		err = par.ForChunks((nb-1)*(nb-1), 1, func(task, _, _ int) {
			i, j := other(task/(nb-1)), other(task%(nb-1))
			m.update(m.view(i, j), m.view(i, b), m.view(b, j), false)
		})
		if err != nil {
			return fmt.Errorf("apsp: Blocked: %w", err)
		}
		// a negative diagonal entry can only appear in tiles updated with
		// this round's k-steps; check them all.
		for x := 0; x < nb; x++ {
			if v := m.negativeDiagonal(x); v >= 0 {
				return &NegativeCycleError{Vertex: v}
			}
		}
		if steps != nil {
			*steps = append(*steps, trace.Step{Kind: kindRound, Inspected: relaxations(m.ext(b), n), Time: time.Since(round)})
		}
	}
	if err := m.convert(in, false); err != nil {
		return fmt.Errorf("apsp: Blocked: %w", err)
	}
	return nil
}
