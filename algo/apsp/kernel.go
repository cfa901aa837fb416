package apsp

import (
	"math"

	"github.com/graphnb/graphnb/graph"
)

// Both algorithms minimise the pair (distance, hops) lexicographically:
// among equally short paths they keep one with the fewest edges. Ties
// therefore never create a predecessor cycle — without the hop count, a
// zero-weight cycle lets the blocked algorithm, whose operands already
// include later k-steps, close a cycle of predecessors on a tie. The
// distances are exactly those of plain min-plus Floyd-Warshall: a tie in
// distance changes only Parents and the hop count, never Dist.
//
// The relaxation kernels update one row segment for one k: with
// s = dik + dk[j], h = hik + hk[j], they take (s, h) when s < d[j], or
// s = d[j] (finite) and h < hp[j], and then set p[j] = pk[j]. Callers skip
// i == k and rows with dik = ∞.

// relaxF32 is the float32 kernel: +Inf propagates by itself, and a NaN
// (−Inf + +Inf, possible only under a negative cycle) never compares less.
func relaxF32(d []float32, p, hp []int32, dk []float32, pk, hk []int32, dik float32, hik int32) {
	d = d[:len(dk)]
	p = p[:len(dk)]
	hp = hp[:len(dk)]
	pk = pk[:len(dk)]
	hk = hk[:len(dk)]
	inf := float32(math.Inf(1))
	for j, w := range dk {
		s := dik + w
		if s < d[j] {
			d[j], p[j], hp[j] = s, pk[j], hik+hk[j]
		} else if s == d[j] && s != inf {
			if h := hik + hk[j]; h < hp[j] {
				p[j], hp[j] = pk[j], h
			}
		}
	}
}

// relaxI32 is the int32 kernel for non-negative matrices: all entries lie
// in [0, InfI32], so dik + dk[j] ≤ 2·InfI32 cannot overflow, and a sum
// ≥ InfI32 never beats d[j] ≤ InfI32.
func relaxI32(d []int32, p, hp []int32, dk []int32, pk, hk []int32, dik int32, hik int32) {
	d = d[:len(dk)]
	p = p[:len(dk)]
	hp = hp[:len(dk)]
	pk = pk[:len(dk)]
	hk = hk[:len(dk)]
	for j, w := range dk {
		s := dik + w
		if s < d[j] {
			d[j], p[j], hp[j] = s, pk[j], hik+hk[j]
		} else if s == d[j] && s < graph.InfI32 {
			if h := hik + hk[j]; h < hp[j] {
				p[j], hp[j] = pk[j], h
			}
		}
	}
}

// relaxI32Neg is the int32 kernel when entries may be negative: dk[j] =
// InfI32 must be skipped (Inf + a negative dik would look finite), and a
// sum is clamped at −InfI32 so entries stay in [−InfI32, InfI32] and no
// sum overflows. Clamping only happens under a negative cycle: the input
// was validated so that no path sum reaches ±InfI32.
func relaxI32Neg(d []int32, p, hp []int32, dk []int32, pk, hk []int32, dik int32, hik int32) {
	d = d[:len(dk)]
	p = p[:len(dk)]
	hp = hp[:len(dk)]
	pk = pk[:len(dk)]
	hk = hk[:len(dk)]
	for j, w := range dk {
		if w >= graph.InfI32 {
			continue
		}
		s := dik + w
		if s < d[j] {
			d[j], p[j], hp[j] = max(s, -graph.InfI32), pk[j], hik+hk[j]
		} else if s == d[j] && s < graph.InfI32 {
			if h := hik + hk[j]; h < hp[j] {
				p[j], hp[j] = pk[j], h
			}
		}
	}
}

// tileUpdate applies the k-steps k0..k1-1 to rows [r0, r1) and columns
// [c0, c1) of the matrix, in order of k, skipping row k itself (with no
// negative diagonal its update changes nothing, and skipping it means row
// k is only read while other rows are written). The plain algorithm calls
// it with the whole matrix and one k; the blocked one with one tile and
// the k range of the current diagonal tile.
func (in *input) tileUpdate(k0, k1, r0, r1, c0, c1 int) {
	n := in.n
	for k := k0; k < k1; k++ {
		lo, hi := k*n+c0, k*n+c1
		pk, hk := in.pred[lo:hi], in.hops[lo:hi]
		for i := r0; i < r1; i++ {
			if i == k {
				continue
			}
			ik, a, b := i*n+k, i*n+c0, i*n+c1
			switch {
			case in.f32 != nil:
				if dik := in.f32[ik]; dik != float32(math.Inf(1)) {
					relaxF32(in.f32[a:b], in.pred[a:b], in.hops[a:b], in.f32[lo:hi], pk, hk, dik, in.hops[ik])
				}
			case in.neg:
				if dik := in.i32[ik]; dik < graph.InfI32 {
					relaxI32Neg(in.i32[a:b], in.pred[a:b], in.hops[a:b], in.i32[lo:hi], pk, hk, dik, in.hops[ik])
				}
			default:
				if dik := in.i32[ik]; dik < graph.InfI32 {
					relaxI32(in.i32[a:b], in.pred[a:b], in.hops[a:b], in.i32[lo:hi], pk, hk, dik, in.hops[ik])
				}
			}
		}
	}
}

// negativeDiagonal returns a vertex i with Dist[i][i] < 0, or -1.
func (in *input) negativeDiagonal() int {
	for i := 0; i < in.n; i++ {
		if in.f32 != nil && in.f32[i*in.n+i] < 0 || in.i32 != nil && in.i32[i*in.n+i] < 0 {
			return i
		}
	}
	return -1
}
